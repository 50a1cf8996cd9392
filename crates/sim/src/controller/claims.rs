//! Adopting orphans and releasing relabelled pods (§f, `ControllerRefManager`): the decision
//! is `domain::controller::claim`; this keeps every DaemonSet's selector and carries the
//! decisions out.
//!
//! Why event-driven instead of a scan per sync: the real controller claims over its informer
//! cache on every sync; here a sync must not scan 150,000 pods. A pod can only change hands
//! when its labels or owners change, or when a DaemonSet appears or changes its selector, so
//! the check runs on exactly those events, from the stored facts (labels, owner uids) without
//! decoding the pod unless it is a candidate.

use super::revisions::controller_ref;
use crate::domain::controller::{claim, label_selector_matches, Claim, LabelSelectorFacts};
use crate::edge::convert::label_selector_facts;
use crate::store::{EventType, Kind, Store, StoreEvent, StoredObject};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;
use std::collections::HashMap;

/// What the claim rules need of one DaemonSet.
#[derive(Debug, Clone, PartialEq)]
struct Claimer {
    namespace: String,
    name: String,
    selector: LabelSelectorFacts,
    deleting: bool,
}

/// Every DaemonSet's selector, by uid.
#[derive(Debug, Default)]
pub struct Claims {
    by_uid: HashMap<String, Claimer>,
}

impl Claims {
    /// Reloads every DaemonSet (start, and after missed changes) and claims over all pods.
    pub fn load(store: &Store) -> Claims {
        let mut claims = Claims::default();
        for ds in store.list::<DaemonSet>(None) {
            if let Some((uid, claimer)) = claimer(&ds) {
                claims.by_uid.insert(uid, claimer);
            }
        }
        let uids: Vec<String> = claims.by_uid.keys().cloned().collect();
        for uid in uids {
            claims.claim_namespace(store, &uid);
        }
        claims
    }

    /// A DaemonSet changed: a new one or a new selector may adopt or release pods.
    pub fn on_daemonset(&mut self, store: &Store, event: &StoreEvent) {
        let uid = event.uid().to_string();
        if event.event_type == EventType::Deleted {
            self.by_uid.remove(&uid);
            return;
        }
        let Some((_, new)) = event.decode::<DaemonSet>().ok().as_ref().and_then(claimer) else {
            return;
        };
        if self.by_uid.get(&uid) != Some(&new) {
            self.by_uid.insert(uid.clone(), new);
            self.claim_namespace(store, &uid);
        }
    }

    /// A pod changed: it may have become an orphan someone selects, or left its owner's
    /// selection.
    pub fn on_pod(&self, store: &Store, event: &StoreEvent) {
        if event.event_type != EventType::Deleted {
            self.claim_pod(store, &event.object);
        }
    }

    /// Claims every pod of the DaemonSet's namespace that it selects or owns.
    fn claim_namespace(&self, store: &Store, uid: &str) {
        let Some(c) = self.by_uid.get(uid) else {
            return;
        };
        let page = store.list_page(Kind::Pod, Some(&c.namespace), None, None, &|o| {
            o.facts.owner_uids.iter().any(|u| u == uid)
                || (!self.owned_by_a_daemonset(o)
                    && label_selector_matches(&c.selector, &o.facts.labels))
        });
        for object in &page.items {
            self.claim_pod(store, object);
        }
    }

    fn owned_by_a_daemonset(&self, object: &StoredObject) -> bool {
        object
            .facts
            .owner_uids
            .iter()
            .any(|u| self.by_uid.contains_key(u))
    }

    /// Applies the claim rule to one stored pod for the DaemonSets it concerns.
    fn claim_pod(&self, store: &Store, object: &StoredObject) {
        let namespace = object.facts.namespace.as_deref().unwrap_or_default();
        let owner = object
            .facts
            .owner_uids
            .iter()
            .find_map(|u| self.by_uid.get_key_value(u));
        let candidates: Vec<(&String, &Claimer)> = match owner {
            // Owned by a DaemonSet and still selected (every pod it writes): nothing to do,
            // decided from the stored labels without decoding.
            Some((_, c)) if label_selector_matches(&c.selector, &object.facts.labels) => {
                return;
            }
            // Owned, no longer selected: only the owner can release it.
            Some(owned) => vec![owned],
            // Otherwise any DaemonSet of the namespace that selects it may adopt it.
            None => self
                .by_uid
                .iter()
                .filter(|(_, c)| c.namespace == namespace)
                .filter(|(_, c)| label_selector_matches(&c.selector, &object.facts.labels))
                .collect(),
        };
        if candidates.is_empty() {
            return;
        }
        let Ok(mut pod) = serde_json::from_slice::<Pod>(&object.raw) else {
            return;
        };
        let pod_controller = pod
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.controller == Some(true))
            .map(|r| r.uid.clone());
        let labels = pod.metadata.labels.clone().unwrap_or_default();
        for (uid, c) in candidates {
            let selected = label_selector_matches(&c.selector, &labels);
            let decision = claim(
                uid,
                c.deleting,
                pod_controller.as_deref(),
                pod.metadata.deletion_timestamp.is_some(),
                selected,
            );
            match decision {
                Claim::Adopt => {
                    let Some(ds) = store.get::<DaemonSet>(Some(&c.namespace), &c.name) else {
                        continue;
                    };
                    // canAdoptFunc: the DaemonSet read fresh must still be the same one.
                    if ds.metadata.uid.as_deref() != Some(uid.as_str())
                        || ds.metadata.deletion_timestamp.is_some()
                    {
                        continue;
                    }
                    pod.metadata
                        .owner_references
                        .get_or_insert_default()
                        .push(controller_ref(&ds));
                    write(store, pod, "adopting");
                    return;
                }
                Claim::Release => {
                    if let Some(refs) = pod.metadata.owner_references.as_mut() {
                        refs.retain(|r| r.uid != *uid);
                    }
                    write(store, pod, "releasing");
                    return;
                }
                Claim::Keep | Claim::Ignore => {}
            }
        }
    }
}

/// The update carries the resourceVersion read: a pod changed meanwhile is a conflict, and
/// its own change event brings it back here.
fn write(store: &Store, pod: Pod, what: &str) {
    let name = pod.metadata.name.clone().unwrap_or_default();
    match store.update(pod) {
        Ok(_) => tracing::debug!(pod = %name, "{what} pod"),
        Err(e) => tracing::debug!(pod = %name, error = %e, "{what} pod failed"),
    }
}

fn claimer(ds: &DaemonSet) -> Option<(String, Claimer)> {
    let selector = label_selector_facts(&ds.spec.selector);
    // An empty selector is not synced at all (§f, SelectingAll); it claims nothing.
    if selector.is_empty() {
        return None;
    }
    Some((
        ds.metadata.uid.clone()?,
        Claimer {
            namespace: ds.metadata.namespace.clone()?,
            name: ds.metadata.name.clone()?,
            selector,
            deleting: ds.metadata.deletion_timestamp.is_some(),
        },
    ))
}
