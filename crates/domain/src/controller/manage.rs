//! `manage` on one node (§a.7, DC `podsShouldBeOnNode`): create, keep or delete daemon pods.

use crate::facts::{DaemonSetFacts, PodFacts, PodPhase};
use crate::rollout::{is_counted, is_pod_available, pod_order};
use crate::scheduling::Placement;
use serde::{Deserialize, Serialize};

/// What `manage` does on one node in one sync.
///
/// The three pod lists never share a pod. The caller deletes all of them, except that a
/// `failed_pods` entry is subject to the failed-pod backoff keyed by DaemonSet uid,
/// `status.observedGeneration` and node (DC `failedPodsBackoffKey`): while in backoff it is left
/// for a later sync. Failed deletes go with a `FailedDaemonPod` warning event, succeeded ones
/// with a `SucceededDaemonPod` event (§f).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeActions {
    /// Create one pod with the current template on this node.
    pub create: bool,
    /// uids of pods to delete: extra pods, an old pod replaced during surge, or every pod on a
    /// node where shouldContinueRunning is false.
    pub delete: Vec<String>,
    /// uids of `Failed` pods to delete (with backoff and a `FailedDaemonPod` event).
    pub failed_pods: Vec<String>,
    /// uids of `Succeeded` pods to delete (with a `SucceededDaemonPod` event).
    pub succeeded_pods: Vec<String>,
}

#[cfg(test)]
impl NodeActions {
    /// Every pod uid to delete when no backoff holds a failed pod back. Test-only: the sim's
    /// controller applies the backoff to `failed_pods` and deletes each list on its own.
    pub fn all_deletes(&self) -> impl Iterator<Item = &str> {
        self.delete
            .iter()
            .chain(&self.failed_pods)
            .chain(&self.succeeded_pods)
            .map(String::as_str)
    }
}

/// §a.7 DC `podsShouldBeOnNode` for one node.
///
/// - shouldRun and no pod grouped under the node → create. A terminating pod still counts as
///   a pod, so nothing is created until it is gone; a pod that is terminal **and** terminating
///   is not grouped at all (§c).
/// - shouldContinueRunning → terminating pods are skipped; `Failed` and `Succeeded` pods are
///   deleted (no replacement in this pass unless surging); then
///   - no surge: keep the first running pod in scheduled-first, oldest, name order and delete
///     the others;
///   - surge (`allows_surge`, from [`super::allows_surge`]): with no running pod and shouldRun,
///     create one; with two or more, keep the oldest pod whose `controller-revision-hash`
///     equals the current hash and the oldest without it, delete every other; delete the old
///     one once it is not Ready, or once the new one is available.
/// - neither → delete every non-terminating pod.
///
/// `pods_on_node` are the DaemonSet's pods for this node (owner uid and target node, §f), in
/// any order; the result lists pods in scheduled-first, oldest, name order.
pub fn manage_node(
    ds: &DaemonSetFacts,
    placement: &Placement,
    pods_on_node: &[&PodFacts],
    allows_surge: bool,
    now: i64,
) -> NodeActions {
    let mut pods: Vec<&PodFacts> = pods_on_node
        .iter()
        .copied()
        .filter(|p| is_counted(p))
        .collect();
    pods.sort_by(|a, b| pod_order(a, b));
    let mut actions = NodeActions::default();
    let exists = !pods.is_empty();

    if placement.should_run && !exists {
        actions.create = true;
    } else if placement.should_continue_running {
        let mut running = Vec::new();
        for pod in pods.into_iter().filter(|p| !p.terminating) {
            match pod.phase {
                PodPhase::Failed => actions.failed_pods.push(pod.uid.clone()),
                PodPhase::Succeeded => actions.succeeded_pods.push(pod.uid.clone()),
                _ => running.push(pod),
            }
        }
        if !allows_surge {
            actions
                .delete
                .extend(running.iter().skip(1).map(|p| p.uid.clone()));
        } else if running.is_empty() {
            actions.create = placement.should_run;
        } else if running.len() > 1 {
            let (mut oldest_new, mut oldest_old) = (None, None);
            for pod in running {
                let slot = if pod.revision_hash == ds.current_revision_hash {
                    &mut oldest_new
                } else {
                    &mut oldest_old
                };
                if slot.is_none() {
                    *slot = Some(pod);
                } else {
                    actions.delete.push(pod.uid.clone());
                }
            }
            if let (Some(new), Some(old)) = (oldest_new, oldest_old) {
                if !old.ready || is_pod_available(new, ds.min_ready_seconds, now) {
                    actions.delete.push(old.uid.clone());
                }
            }
        }
    } else if exists {
        actions.delete.extend(
            pods.iter()
                .filter(|p| !p.terminating)
                .map(|p| p.uid.clone()),
        );
    }
    actions
}

#[cfg(test)]
mod tests;
