//! The small fixed rules around one sync (§a.7, §f): the burst limit, slow-start batches, the
//! failed-pod backoff key, unbound pods whose node is gone, and the texts of the pod events.

use crate::facts::{DaemonSetFacts, PodFacts};
use crate::rollout::is_counted;

/// At most this many creates and this many deletes per sync (DC `BurstReplicas`, §a.7).
pub const BURST_REPLICAS: usize = 250;

/// The sizes of the create batches for `wanted` creates in one sync (DC `syncNodes`, §a.7):
/// capped at [`BURST_REPLICAS`], then slow start: 1, 2, 4, … each batch double the last, the
/// final one whatever is left. The caller stops at the first batch with a failure, so a
/// broken template costs one create, not 250.
pub fn slow_start_batches(wanted: usize) -> Vec<usize> {
    let total = wanted.min(BURST_REPLICAS);
    let mut batches = Vec::new();
    let (mut pos, mut size) = (0, total.min(1));
    while pos < total {
        batches.push(size);
        pos += size;
        size = (2 * size).min(total - pos);
    }
    batches
}

/// The failed-pod backoff key (DC `failedPodsBackoffKey`, §a.7): DaemonSet uid,
/// **status.observedGeneration** (not metadata.generation) and node.
pub fn failed_pods_backoff_key(ds: &DaemonSetFacts, node: &str) -> String {
    let observed = ds.status.as_ref().map_or(0, |s| s.observed_generation);
    format!("{}/{observed}/{node}", ds.uid)
}

/// uids of unbound pods aimed at a node that no longer exists (DC
/// `getUnscheduledPodsWithoutNode`, §a.7): `manage` deletes them. `pods` are the DaemonSet's
/// pods; pods that are terminal and terminating are not grouped at all (§c) and are skipped.
pub fn unscheduled_pods_without_node(
    pods: &[&PodFacts],
    node_exists: impl Fn(&str) -> bool,
) -> Vec<String> {
    pods.iter()
        .filter(|p| is_counted(p) && !p.bound)
        .filter(|p| p.node_name.as_deref().is_some_and(|n| !node_exists(n)))
        .map(|p| p.uid.clone())
        .collect()
}

/// The `FailedDaemonPod` (Warning) event message (§f).
pub fn failed_pod_message(pod: &PodFacts, node: &str) -> String {
    format!(
        "Found failed daemon pod {}/{} on node {node}, will try to kill it",
        pod.namespace, pod.name
    )
}

/// The `SucceededDaemonPod` (Normal) event message (§f).
pub fn succeeded_pod_message(pod: &PodFacts, node: &str) -> String {
    format!(
        "Found succeeded daemon pod {}/{} on node {node}, will try to delete it",
        pod.namespace, pod.name
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::PodPhase;
    use crate::testing::{ds, pod, PodExt};

    #[test]
    fn creates_go_out_in_slow_start_batches_capped_at_the_burst() {
        let cases: [(&str, usize, Vec<usize>); 6] = [
            ("§a.7 nothing to create", 0, vec![]),
            ("§a.7 one create is one batch", 1, vec![1]),
            ("§a.7 batches double", 7, vec![1, 2, 4]),
            (
                "§a.7 the last batch takes what is left",
                10,
                vec![1, 2, 4, 3],
            ),
            ("§a.7 250 creates", 250, vec![1, 2, 4, 8, 16, 32, 64, 123]),
            (
                "§a.7 BurstReplicas caps a sync at 250 creates",
                5000,
                vec![1, 2, 4, 8, 16, 32, 64, 123],
            ),
        ];
        for (rule, wanted, want) in cases {
            assert_eq!(slow_start_batches(wanted), want, "{rule}");
        }
    }

    #[test]
    fn the_backoff_key_uses_the_observed_generation() {
        let mut d = ds();
        d.generation = 5;
        if let Some(s) = d.status.as_mut() {
            s.observed_generation = 4;
        }
        assert_eq!(
            failed_pods_backoff_key(&d, "n1"),
            "ds-uid/4/n1",
            "§a.7 observedGeneration, not generation"
        );
        d.status = None;
        assert_eq!(
            failed_pods_backoff_key(&d, "n1"),
            "ds-uid/0/n1",
            "§a.7 no status: 0"
        );
    }

    #[test]
    fn unbound_pods_aimed_at_a_missing_node_are_deleted() {
        let pods = [
            pod("bound-gone").on("gone"),
            pod("unbound-gone").on("gone").unbound(),
            pod("unbound-here").on("n1").unbound(),
            pod("terminal-gone")
                .on("gone")
                .unbound()
                .phase(PodPhase::Failed)
                .terminating(),
        ];
        let refs: Vec<&PodFacts> = pods.iter().collect();
        let got = unscheduled_pods_without_node(&refs, |n| n == "n1");
        assert_eq!(
            got,
            vec!["uid-unbound-gone".to_string()],
            "§a.7 getUnscheduledPodsWithoutNode"
        );
    }

    #[test]
    fn pod_event_messages_match_the_controller() {
        let p = pod("agent-x");
        assert_eq!(
            failed_pod_message(&p, "n1"),
            "Found failed daemon pod kube-system/agent-x on node n1, will try to kill it",
            "§f FailedDaemonPod"
        );
        assert_eq!(
            succeeded_pod_message(&p, "n1"),
            "Found succeeded daemon pod kube-system/agent-x on node n1, will try to delete it",
            "§f SucceededDaemonPod"
        );
    }
}
