//! One sync of one DaemonSet (DC `syncDaemonSet`): revisions, `manage` on every node, the
//! rolling-update step, then the status. Every decision is a call into `crate::domain`; this
//! file only carries the decisions out against the store (creates, deletes, events, backoff,
//! the burst limit and slow start).

mod execute;

use super::cache::Cache;
use super::revisions;
use crate::clock::SimClock;
use crate::domain::controller::{
    allows_surge, label_selector_matches, manage_node, rolling_update_plan,
};
use crate::domain::facts::{NodeFacts, PodFacts, UpdateStrategy};
use crate::domain::rollout::{compute_status, resolve_budget, NodeSlot};
use crate::domain::scheduling::{DaemonPod, Placement};
use crate::edge::convert::{daemonset_facts, label_selector_facts};
use crate::recorder::{reference, Note, Recorder, Severity};
use crate::scenario::settings::SimulationSettings;
use crate::store::Store;
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetStatus};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use execute::{DeleteKind, Doomed};

/// When to look at a DaemonSet again, if nothing else changes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Requeue(pub Option<Duration>);

impl Requeue {
    fn at_most(&mut self, d: Duration) {
        self.0 = Some(self.0.map_or(d, |x| x.min(d)));
    }
}

/// The controller's state that outlives one sync: event folding, backoffs, the random order
/// of nodes (Go map order in the real controller).
pub struct Syncer {
    store: Store,
    clock: SimClock,
    settings: Arc<SimulationSettings>,
    recorder: Recorder,
    rng: ChaCha8Rng,
    /// (DaemonSet uid, node) -> (simulated time before which no create is tried, current delay)
    create_backoff: HashMap<(String, String), (Duration, Duration)>,
    /// DC `failedPodsBackoffKey`: (uid, observedGeneration, node) -> (not before, delay)
    failed_backoff: HashMap<(String, i64, String), (Duration, Duration)>,
}

/// An `omitempty` int32 of apps/v1 DaemonSetStatus (`updatedNumberScheduled`,
/// `numberAvailable`, `numberUnavailable`): kube-apiserver sends no field for zero. Found by
/// the differential tests (`numberUnavailable: 0` never comes from Kubernetes v1.37.2).
fn omitempty_count(n: i64) -> Option<i32> {
    Some(i32::try_from(n).unwrap_or(i32::MAX)).filter(|&n| n != 0)
}

impl Syncer {
    /// A syncer writing to `store`; the seed fixes the node order for reproducible runs.
    pub fn new(
        store: Store,
        clock: SimClock,
        settings: Arc<SimulationSettings>,
        seed: u64,
    ) -> Syncer {
        Syncer {
            store,
            clock,
            settings,
            recorder: Recorder::new(super::COMPONENT),
            rng: ChaCha8Rng::seed_from_u64(seed),
            create_backoff: HashMap::new(),
            failed_backoff: HashMap::new(),
        }
    }

    fn event(&mut self, ds: &DaemonSet, severity: Severity, reason: &'static str, message: String) {
        let now = self.clock.now();
        let note = Note {
            severity,
            reason,
            message,
        };
        self.recorder
            .record(&self.store, &reference(ds), None, note, now);
    }

    /// Syncs one DaemonSet by key. Errors are logged and turn into a requeue.
    pub fn sync(&mut self, cache: &mut Cache, namespace: &str, name: &str) -> Requeue {
        let mut requeue = Requeue::default();
        let Some(ds) = self.store.get::<DaemonSet>(Some(namespace), name) else {
            return requeue;
        };
        if ds.metadata.deletion_timestamp.is_some() {
            return requeue;
        }
        let selector = label_selector_facts(&ds.spec.selector);
        if selector.is_empty() {
            let msg = "This daemon set is selecting all pods. A non-empty selector is required."
                .to_string();
            self.event(&ds, Severity::Warning, "SelectingAll", msg);
            return requeue;
        }
        // Defence in depth (issue 15): the API refuses a selector that does not select the
        // template (AV ValidateDaemonSetSpec), but an object stored past it must not make us
        // create pods we cannot claim (§f), which would look missing and be created again.
        let template_labels = ds
            .spec
            .template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.clone())
            .unwrap_or_default();
        if !label_selector_matches(&selector, &template_labels) {
            tracing::debug!(daemonset = %name, "selector does not match the template labels; creating nothing");
            return requeue;
        }
        let mut revs = revisions::owned(&self.store, &ds);
        let current = match revisions::current_hash(&self.store, &ds, &mut revs) {
            Ok(x) => x,
            Err(e) => {
                tracing::warn!(daemonset = %name, error = %e, "constructing revision history failed");
                requeue.at_most(Duration::from_secs(1));
                return requeue;
            }
        };
        let (hash, collision_count) = (current.hash.clone(), current.collision_count);
        let mut facts = match daemonset_facts(&ds) {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!(daemonset = %name, error = %e, "cannot reason about DaemonSet");
                return requeue;
            }
        };
        facts.current_revision_hash = hash.clone();
        let now = self.clock.now_unix();

        let Cache {
            nodes,
            pods: pod_cache,
        } = cache;
        let daemon_pod = DaemonPod::new(&facts.template);
        let placements: Vec<(&NodeFacts, Placement)> = nodes
            .values()
            .map(|node| {
                let (should_run, should_continue_running) = daemon_pod.verdict(node);
                (
                    node,
                    Placement {
                        should_run,
                        should_continue_running,
                        reasons: Vec::new(),
                    },
                )
            })
            .collect();
        let pods = pod_cache.pods_of(&facts.uid);
        let mut by_node: HashMap<&str, Vec<&PodFacts>> = HashMap::new();
        // Pods aimed at a deleted node, until the pod GC (or manage, if unbound) removes them:
        // only the rolling update sees them (DC `getNodesToDaemonPods` groups by node name).
        let mut on_gone_nodes: HashMap<&str, Vec<&PodFacts>> = HashMap::new();
        let mut doomed = Vec::new();
        for pod in &pods {
            match pod.node_name.as_deref() {
                Some(n) if nodes.contains_key(n) => by_node.entry(n).or_default().push(pod),
                Some(n) => {
                    on_gone_nodes.entry(n).or_default().push(pod);
                    // §a.7 getUnscheduledPodsWithoutNode: unbound pods aimed at a node that
                    // is gone are deleted.
                    if !pod.bound && !pod.terminating {
                        doomed.push(Doomed {
                            uid: pod.uid.clone(),
                            name: pod.name.clone(),
                            node: n.to_string(),
                            kind: DeleteKind::Plain,
                        });
                    }
                }
                None => {}
            }
        }

        // manage (§a.7), one node at a time
        let surge = allows_surge(&facts.strategy);
        let mut creates = Vec::new();
        for (node, placement) in &placements {
            let on_node = by_node
                .get(node.name.as_str())
                .map_or(&[][..], Vec::as_slice);
            let actions = manage_node(&facts, placement, on_node, surge, now);
            if actions.create {
                creates.push(node.name.clone());
            }
            let find = |uid: &str| {
                on_node
                    .iter()
                    .find(|p| p.uid == uid)
                    .map(|p| p.name.clone())
                    .unwrap_or_default()
            };
            for (uids, kind) in [
                (&actions.delete, DeleteKind::Plain),
                (&actions.failed_pods, DeleteKind::Failed),
                (&actions.succeeded_pods, DeleteKind::Succeeded),
            ] {
                for uid in uids {
                    doomed.push(Doomed {
                        uid: uid.clone(),
                        name: find(uid),
                        node: node.name.clone(),
                        kind,
                    });
                }
            }
        }
        let outcome = self.execute(pod_cache, &ds, &facts, &hash, creates, doomed, &mut requeue);

        // rolling update (§d.3), only when manage changed nothing and failed nothing in this
        // sync (DC `updateDaemonSet` returns manage's error before the rolling step)
        if !outcome.changed
            && !outcome.failed
            && matches!(facts.strategy, UpdateStrategy::RollingUpdate { .. })
        {
            let desired = placements.iter().filter(|(_, p)| p.should_run).count() as i64;
            match resolve_budget(&facts.strategy, desired) {
                Ok(budget) => {
                    let mut slots: Vec<NodeSlot<'_>> = placements
                        .iter()
                        .map(|(node, p)| NodeSlot {
                            node: node.name.as_str(),
                            should_run: p.should_run,
                            gone: false,
                            pods: by_node
                                .get(node.name.as_str())
                                .map_or(&[][..], Vec::as_slice),
                        })
                        .collect();
                    slots.extend(on_gone_nodes.iter().map(|(node, pods)| NodeSlot {
                        node,
                        should_run: false,
                        gone: true,
                        pods: pods.as_slice(),
                    }));
                    slots.shuffle(&mut self.rng);
                    let plan = rolling_update_plan(&facts, &slots, &budget, now);
                    if let Some(node) = &plan.blocked_by_gone_node {
                        // UPD `rollingUpdate` returns "couldn't get node" and is retried.
                        tracing::debug!(daemonset = %name, node = %node, "rolling update waits for the pod GC of a deleted node");
                        requeue.at_most(Duration::from_secs(1));
                    }
                    let names: HashMap<&str, (&str, &str)> = pods
                        .iter()
                        .map(|p| {
                            (
                                p.uid.as_str(),
                                (p.name.as_str(), p.node_name.as_deref().unwrap_or_default()),
                            )
                        })
                        .collect();
                    let doomed = plan
                        .delete_old
                        .iter()
                        .map(|uid| {
                            let (name, node) = names.get(uid.as_str()).copied().unwrap_or_default();
                            Doomed {
                                uid: uid.clone(),
                                name: name.into(),
                                node: node.into(),
                                kind: DeleteKind::Plain,
                            }
                        })
                        .collect();
                    self.execute(
                        pod_cache,
                        &ds,
                        &facts,
                        &hash,
                        plan.create_on_nodes,
                        doomed,
                        &mut requeue,
                    );
                }
                Err(e) => tracing::warn!(daemonset = %name, error = %e, "rolling update skipped"),
            }
        }

        // status (§c), from the pods as they are after this sync's writes
        let pods = pod_cache.pods_of(&facts.uid);
        let node_refs: Vec<(&NodeFacts, &Placement)> =
            placements.iter().map(|(n, p)| (*n, p)).collect();
        let status = compute_status(&facts, &node_refs, &pods, now);
        if facts.min_ready_seconds > 0 && status.number_ready != status.number_available {
            requeue.at_most(Duration::from_secs(facts.min_ready_seconds.unsigned_abs()));
        }
        self.write_status(ds.clone(), &status, collision_count, &mut requeue);
        let live: HashSet<String> = pods.iter().map(|p| p.revision_hash.clone()).collect();
        revisions::prune(&self.store, &ds, &revs, &hash, &live);
        requeue
    }

    /// The API server sets `deprecated.daemonset.template.generation` to the new generation
    /// whenever the template changes (the DaemonSet registry strategy); pods get it as
    /// `pod-template-generation` and §d.4 compares the two. The store does not do it, so the
    /// controller does, on the first sync after a template change.
    fn write_status(
        &mut self,
        mut ds: DaemonSet,
        s: &crate::domain::facts::DaemonSetStatusFacts,
        collision_count: Option<i32>,
        requeue: &mut Requeue,
    ) {
        let clamp = |n: i64| i32::try_from(n).unwrap_or(i32::MAX);
        let old = ds.status.clone().unwrap_or_default();
        let status = DaemonSetStatus {
            collision_count,
            conditions: old.conditions.clone(),
            current_number_scheduled: clamp(s.current_number_scheduled),
            desired_number_scheduled: clamp(s.desired_number_scheduled),
            number_available: omitempty_count(s.number_available),
            number_misscheduled: clamp(s.number_misscheduled),
            number_ready: clamp(s.number_ready),
            number_unavailable: omitempty_count(s.number_unavailable),
            observed_generation: ds.metadata.generation,
            updated_number_scheduled: omitempty_count(s.updated_number_scheduled),
        };
        if ds.status.as_ref() == Some(&status) {
            return;
        }
        ds.status = Some(status);
        if let Err(e) = self.store.update_status(ds) {
            tracing::debug!(error = %e, "status write failed; retrying");
            requeue.at_most(Duration::from_millis(100));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::omitempty_count;

    #[test]
    fn zero_counts_are_left_out_as_go_omitempty_does() {
        // k8s.io/api apps/v1 types.go: `json:"numberUnavailable,omitempty"` and its siblings.
        assert_eq!(omitempty_count(0), None);
        assert_eq!(omitempty_count(3), Some(3));
        assert_eq!(omitempty_count(i64::MAX), Some(i32::MAX));
    }
}
