//! The controller's informer caches: every node's facts and every daemon pod's facts grouped by
//! owning DaemonSet, kept current from the store's change stream.
//!
//! Why caches: a sync of one DaemonSet reads all 5,000 nodes and its 5,000 pods; decoding them
//! from the store on every sync would cost far more than applying each change once. Entries
//! carry the resourceVersion they were read at, so an older event never overwrites what the
//! controller itself just wrote (its own creates and deletes are recorded at once, the way
//! the real controller's expectations keep it from acting twice).

use crate::domain::facts::{NodeFacts, PodFacts};
use crate::edge::convert::{node_facts, pod_facts};
use crate::store::{EventType, Kind, Store, StoreEvent};
use k8s_openapi::api::core::v1::{Node, Pod};
use std::collections::{BTreeMap, HashMap};

/// A cached pod: the resourceVersion it was read at and its facts.
#[derive(Debug, Clone)]
pub struct CachedPod {
    pub resource_version: u64,
    pub facts: PodFacts,
}

/// Nodes by name, daemon pods by owner uid then pod uid.
#[derive(Debug, Default)]
pub struct Cache {
    pub nodes: BTreeMap<String, NodeFacts>,
    pub pods: PodCache,
}

/// Daemon pods by owner uid, then pod uid.
#[derive(Debug, Default)]
pub struct PodCache {
    by_owner: HashMap<String, HashMap<String, CachedPod>>,
}

/// What changed, so the controller knows which DaemonSets to sync.
#[derive(Debug, PartialEq, Eq)]
pub enum Touched {
    Nothing,
    /// A node was added, or its labels or taints changed (DC `addNode`, `updateNode`): the
    /// controller asks each DaemonSet whether it must sync (`syncNodeUpdate`).
    Node(String),
    /// A pod owned by this DaemonSet uid changed.
    Owner(String),
    /// A DaemonSet changed.
    DaemonSet {
        namespace: String,
        name: String,
    },
}

impl PodCache {
    /// The pods of one DaemonSet (by owner uid).
    pub fn pods_of(&self, owner_uid: &str) -> Vec<PodFacts> {
        self.by_owner
            .get(owner_uid)
            .map(|m| m.values().map(|c| c.facts.clone()).collect())
            .unwrap_or_default()
    }

    /// Whether the DaemonSet `owner_uid` has a pod bound (`spec.nodeName`) to `node`, as the
    /// controller's pod-by-node index answers it.
    pub fn has_bound_pod_on(&self, owner_uid: &str, node: &str) -> bool {
        self.by_owner.get(owner_uid).is_some_and(|m| {
            m.values()
                .any(|c| c.facts.bound && c.facts.node_name.as_deref() == Some(node))
        })
    }

    /// Records a pod as read at `rv` unless a newer version is already cached.
    pub fn put_pod(&mut self, rv: u64, facts: PodFacts) {
        let Some(owner) = facts.owner_uid.clone() else {
            return;
        };
        let pods = self.by_owner.entry(owner).or_default();
        match pods.get(&facts.uid) {
            Some(old) if old.resource_version > rv => {}
            _ => {
                pods.insert(
                    facts.uid.clone(),
                    CachedPod {
                        resource_version: rv,
                        facts,
                    },
                );
            }
        }
    }

    /// Marks a pod the controller just deleted as terminating, so it still counts as a pod
    /// on its node until the store confirms (§a.7: nothing is created while it is there).
    pub fn mark_deleted(&mut self, owner_uid: &str, pod_uid: &str) {
        if let Some(p) = self
            .by_owner
            .get_mut(owner_uid)
            .and_then(|m| m.get_mut(pod_uid))
        {
            p.facts.terminating = true;
        }
    }

    /// Drops a pod from whichever DaemonSet had it (a released pod); that DaemonSet's uid.
    /// A lookup per DaemonSet, not per pod: there are tens of them.
    pub fn forget_pod(&mut self, pod_uid: &str) -> Option<String> {
        self.by_owner
            .iter_mut()
            .find_map(|(owner, pods)| pods.remove(pod_uid).map(|_| owner.clone()))
    }

    /// Drops every pod of a DaemonSet that is gone (the store's garbage collector removes them).
    pub fn forget_owner(&mut self, owner_uid: &str) {
        self.by_owner.remove(owner_uid);
    }
}

impl Cache {
    /// A cache filled from a full list of the store.
    pub fn load(store: &Store) -> Cache {
        let mut cache = Cache::default();
        for node in store.list::<Node>(None) {
            let facts = node_facts(&node);
            cache.nodes.insert(facts.name.clone(), facts);
        }
        for pod in store.list::<Pod>(None) {
            let rv = pod
                .metadata
                .resource_version
                .as_deref()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            cache.pods.put_pod(rv, pod_facts(&pod));
        }
        cache
    }

    /// Applies one change from the store.
    pub fn apply(&mut self, event: &StoreEvent) -> Touched {
        match event.kind() {
            Kind::Node => {
                if event.event_type == EventType::Deleted {
                    // The real controller's node informer has no delete handler: the pods'
                    // removal (pod GC) is what syncs their DaemonSets.
                    self.nodes.remove(event.name());
                    return Touched::Nothing;
                }
                let Ok(node) = event.decode::<Node>() else {
                    return Touched::Nothing;
                };
                let facts = node_facts(&node);
                let name = facts.name.clone();
                let matters = match self.nodes.get(&name) {
                    None => true,
                    Some(old) => crate::domain::controller::node_update_matters(old, &facts),
                };
                self.nodes.insert(name.clone(), facts);
                if matters {
                    Touched::Node(name)
                } else {
                    Touched::Nothing
                }
            }
            Kind::Pod => {
                // Skip, without decoding, a change the cache already holds (its own writes).
                let facts = &event.object.facts;
                if let Some(owner) = facts.owner_uids.first() {
                    let cached = self
                        .pods
                        .by_owner
                        .get(owner)
                        .and_then(|m| m.get(&facts.uid));
                    if event.event_type != EventType::Deleted
                        && cached.is_some_and(|c| c.resource_version >= event.resource_version())
                    {
                        return Touched::Nothing;
                    }
                }
                let Ok(pod) = event.decode::<Pod>() else {
                    return Touched::Nothing;
                };
                let facts = pod_facts(&pod);
                let Some(owner) = facts.owner_uid.clone() else {
                    // Released (§f): it no longer counts for the DaemonSet that had it.
                    return match self.pods.forget_pod(&facts.uid) {
                        Some(previous_owner) => Touched::Owner(previous_owner),
                        None => Touched::Nothing,
                    };
                };
                let rv = event.resource_version();
                if event.event_type == EventType::Deleted {
                    if let Some(pods) = self.pods.by_owner.get_mut(&owner) {
                        if pods
                            .get(&facts.uid)
                            .is_none_or(|old| old.resource_version <= rv)
                        {
                            pods.remove(&facts.uid);
                        }
                    }
                } else {
                    self.pods.put_pod(rv, facts);
                }
                Touched::Owner(owner)
            }
            Kind::DaemonSet => Touched::DaemonSet {
                namespace: event.namespace().unwrap_or_default().to_string(),
                name: event.name().to_string(),
            },
            _ => Touched::Nothing,
        }
    }
}
