//! What happens to a node's pods when the node turns NotReady or disappears: the node
//! lifecycle controller marks them not ready (with its events), and the pod garbage collector
//! removes the pods of nodes that no longer exist.
use k8s_openapi::api::core::v1::{Node, Pod};

use super::{notes, pod, Kubelet, PodKey};
use crate::recorder::{reference, Note};

impl Kubelet {
    /// A known node's Ready condition changed: its pods stop (or resume) progressing, and the
    /// node lifecycle controller records the change on the node and on each pod it marks.
    pub(super) fn node_readiness_changed(&mut self, node: &str, ready: bool) {
        let keys: Vec<PodKey> = self
            .pods_by_node
            .get(node)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        let now = self.clock.now();
        if let Some(object) = self.store.get::<Node>(None, node) {
            let note = notes::node_status_note(node, ready);
            self.node_events
                .record(&self.store, &reference(&object), None, note, now);
        }
        for key in keys {
            let Some(pod) = self.store.get::<Pod>(Some(&key.0), &key.1) else {
                continue;
            };
            if !ready {
                // The node lifecycle controller marks the pods of a NotReady node not ready.
                if let Some(status) = pod::node_not_ready_status(&pod, now) {
                    let mut next = pod.clone();
                    next.status = Some(status);
                    match self.store.update_status(next) {
                        Ok(_) => self.record_node_event(&pod, notes::pod_marked_not_ready_note()),
                        Err(e) => {
                            tracing::debug!(pod = %key.1, error = %e, "marking pod not ready failed")
                        }
                    }
                }
                self.pending.remove(&key);
            } else {
                self.on_pod(&pod);
            }
        }
    }

    fn record_node_event(&mut self, pod: &Pod, note: Note) {
        let now = self.clock.now();
        self.node_events
            .record(&self.store, &reference(pod), None, note, now);
    }

    /// Pod GC: the pods of a node that no longer exists are removed at once.
    pub(super) fn collect_node_pods(&mut self, node: &str) {
        let keys: Vec<PodKey> = self
            .pods_by_node
            .remove(node)
            .map(|s| s.into_iter().collect())
            .unwrap_or_default();
        for key in keys {
            self.pending.remove(&key);
            self.pod_node.remove(&key);
            if let Err(e) = self.store.remove::<Pod>(Some(&key.0), &key.1) {
                tracing::debug!(pod = %key.1, error = %e, "pod GC could not remove pod");
            }
        }
    }

    /// Pod GC after a relist: pods for nodes that do not exist.
    pub(super) fn collect_orphans(&mut self) {
        let missing: Vec<String> = self
            .pods_by_node
            .keys()
            .filter(|n| !self.nodes.contains_key(*n))
            .cloned()
            .collect();
        for node in missing {
            self.collect_node_pods(&node);
        }
    }
}
