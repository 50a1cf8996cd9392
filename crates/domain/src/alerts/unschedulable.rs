//! A DaemonSet's pods the scheduler will not bind, counted by their `PodScheduled=False` reason
//! (§k): what `daemonscope_daemonset_unschedulable{daemonset,reason}` exports.
//!
//! Why by reason and bucketed: kube-scheduler writes a handful of reasons (`Unschedulable`,
//! `SchedulerError`, `SchedulingGated`); a reason outside them is `other`, so a cluster writing
//! free text cannot grow the series (low cardinality: at most four per DaemonSet).

use crate::facts::PodPhase;
use crate::rollout::NodeSlot;

/// The reasons exported, in order; anything else counts as `other`.
pub const UNSCHEDULABLE_REASONS: [&str; 4] = [
    "Unschedulable",
    "SchedulerError",
    "SchedulingGated",
    "other",
];

/// Per reason, how many of the DaemonSet's pods wait unbound with `PodScheduled=False` (not
/// terminating, not terminal); only reasons with a pod, in [`UNSCHEDULABLE_REASONS`] order.
pub fn unschedulable_by_reason(slots: &[NodeSlot<'_>]) -> Vec<(String, i64)> {
    let mut counts = [0i64; UNSCHEDULABLE_REASONS.len()];
    let pods = slots.iter().flat_map(|s| s.pods.iter());
    for pod in pods {
        if pod.bound
            || pod.terminating
            || matches!(pod.phase, PodPhase::Succeeded | PodPhase::Failed)
        {
            continue;
        }
        let Some(failure) = pod.unschedulable.as_deref() else {
            continue;
        };
        let slot = UNSCHEDULABLE_REASONS
            .iter()
            .position(|r| *r == failure.reason)
            .unwrap_or(UNSCHEDULABLE_REASONS.len() - 1);
        counts[slot] += 1;
    }
    UNSCHEDULABLE_REASONS
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| ((*r).to_string(), n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::PodFacts;
    use crate::resources::load::SchedulingFailure;

    fn pod(bound: bool, reason: Option<&str>, terminating: bool) -> PodFacts {
        PodFacts {
            bound,
            terminating,
            unschedulable: reason.map(|r| {
                Box::new(SchedulingFailure {
                    reason: r.into(),
                    message: "0/3 nodes are available: 1 Insufficient cpu.".into(),
                })
            }),
            ..crate::testing::pod("p")
        }
    }

    #[test]
    fn unbound_pods_count_under_their_podscheduled_reason_and_free_text_is_other_k() {
        let a = [
            pod(false, Some("Unschedulable"), false),
            pod(false, Some("a reason nobody knows"), false),
        ];
        let b = [
            pod(false, Some("Unschedulable"), false),
            // Bound (the condition is stale), terminating, or with no condition: not counted.
            pod(true, Some("Unschedulable"), false),
            pod(false, Some("Unschedulable"), true),
            pod(false, None, false),
        ];
        let (ra, rb): (Vec<&PodFacts>, Vec<&PodFacts>) = (a.iter().collect(), b.iter().collect());
        let slots = [
            NodeSlot {
                node: "a",
                should_run: true,
                gone: false,
                pods: &ra,
            },
            NodeSlot {
                node: "b",
                should_run: true,
                gone: false,
                pods: &rb,
            },
        ];
        assert_eq!(
            unschedulable_by_reason(&slots),
            vec![("Unschedulable".to_string(), 2), ("other".to_string(), 1)]
        );
        assert!(unschedulable_by_reason(&[]).is_empty());
    }
}
