//! Per-pod rules shared by status, coverage and the controller: updated (§d.4), available
//! (§c), counted at all (§c), and the order in which a node's pods are examined (§c, §a.7).

use crate::facts::{DaemonSetFacts, PodFacts, PodPhase};
use std::cmp::Ordering;

/// §d.4 `IsPodUpdated`: the pod's `controller-revision-hash` equals the current (non-empty)
/// hash, **or** the DaemonSet has a `deprecated.daemonset.template.generation` annotation and
/// the pod's `pod-template-generation` label equals it (printed as a decimal integer, as Go's
/// `fmt.Sprint` of the parsed annotation does; an annotation that does not parse is ignored,
/// as `findUpdatedPodsOnNode` and the status code do).
pub fn is_pod_updated(ds: &DaemonSetFacts, pod: &PodFacts) -> bool {
    let hash = &ds.current_revision_hash;
    let hash_matches = !hash.is_empty() && pod.revision_hash == *hash;
    let template_matches = match (
        ds.template_generation
            .as_deref()
            .and_then(|g| g.parse::<i64>().ok()),
        pod.template_generation.as_deref(),
    ) {
        (Some(generation), Some(label)) => label == generation.to_string(),
        _ => false,
    };
    hash_matches || template_matches
}

/// §c `IsPodAvailable` (current code, `≤`): Ready is True **and** either
/// `min_ready_seconds == 0` or the Ready condition's lastTransitionTime is set and
/// `lastTransitionTime + min_ready_seconds ≤ now`. `now` in unix seconds.
pub fn is_pod_available(pod: &PodFacts, min_ready_seconds: i64, now: i64) -> bool {
    if !pod.ready {
        return false;
    }
    min_ready_seconds == 0
        || pod
            .ready_since
            .is_some_and(|since| since.saturating_add(min_ready_seconds) <= now)
}

/// Whether the controller groups this pod under its node at all (§c, §d.3:
/// `getNodesToDaemonPods(includeDeletedTerminal=false)` leaves out pods that are both terminal
/// (Succeeded/Failed) and marked for deletion). Terminating pods that are still running count.
pub fn is_counted(pod: &PodFacts) -> bool {
    !(pod.terminating && matches!(pod.phase, PodPhase::Succeeded | PodPhase::Failed))
}

/// `podByCreationTimestampAndPhase` (§c, §a.7): scheduled (bound) pods first, then the oldest
/// `creationTimestamp`, then by name. Why public: status, coverage and `manage` must examine
/// the same pod.
pub fn pod_order(a: &PodFacts, b: &PodFacts) -> Ordering {
    b.bound
        .cmp(&a.bound)
        .then(a.created.cmp(&b.created))
        .then_with(|| a.name.cmp(&b.name))
}

/// The one pod the status examines on a node (§c, §g.6): the first counted pod in
/// [`pod_order`]. None when no pod is counted.
pub fn examined_pod<'a>(pods: &[&'a PodFacts]) -> Option<&'a PodFacts> {
    pods.iter()
        .copied()
        .filter(|p| is_counted(p))
        .min_by(|a, b| pod_order(a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{ds, pod, PodExt};

    #[test]
    fn a_pod_is_updated_by_hash_or_by_template_generation() {
        let with_gen = |g: &str| {
            let mut d = ds();
            d.template_generation = Some(g.into());
            d
        };
        let mut no_hash = ds();
        no_hash.current_revision_hash = String::new();
        let cases = [
            ("§d.4 the current hash matches", ds(), pod("a"), true),
            (
                "§d.4 another hash does not match",
                ds(),
                pod("a").old(),
                false,
            ),
            (
                "§d.4 an empty current hash never matches, even an empty label",
                no_hash.clone(),
                pod("a").hash(""),
                false,
            ),
            (
                "§d.4 the template generation label matches the annotation",
                with_gen("3"),
                pod("a").old().generation("3"),
                true,
            ),
            (
                "§d.4 a different template generation does not match",
                with_gen("3"),
                pod("a").old().generation("2"),
                false,
            ),
            (
                "§d.4 the annotation is compared as a printed integer",
                with_gen("07"),
                pod("a").old().generation("7"),
                true,
            ),
            (
                "§d.4 a leading-zero label is not the printed integer",
                with_gen("7"),
                pod("a").old().generation("07"),
                false,
            ),
            (
                "§d.4 an annotation that does not parse is ignored",
                with_gen("x"),
                pod("a").old().generation("x"),
                false,
            ),
            (
                "§d.4 a generation label without the annotation does not match",
                ds(),
                pod("a").old().generation("1"),
                false,
            ),
            (
                "§d.4 either test suffices: hash matches, generation does not",
                with_gen("3"),
                pod("a").generation("2"),
                true,
            ),
        ];
        for (rule, d, p, want) in cases {
            assert_eq!(is_pod_updated(&d, &p), want, "{rule}");
        }
    }

    #[test]
    fn availability_needs_ready_and_min_ready_seconds_with_an_inclusive_boundary() {
        let cases = [
            (
                "§c not Ready is never available",
                pod("a").unready(),
                0,
                100,
                false,
            ),
            (
                "§c Ready with minReadySeconds 0 is available at once",
                pod("a").ready_at(100),
                0,
                100,
                true,
            ),
            (
                "§c Ready with minReadySeconds 0 and no transition time is available",
                pod("a").no_ready_time(),
                0,
                100,
                true,
            ),
            (
                "§c ready since + minReadySeconds == now is available (≤, PR #132122)",
                pod("a").ready_at(90),
                10,
                100,
                true,
            ),
            (
                "§c one second short of minReadySeconds is not available",
                pod("a").ready_at(91),
                10,
                100,
                false,
            ),
            (
                "§c well past minReadySeconds is available",
                pod("a").ready_at(0),
                10,
                100,
                true,
            ),
            (
                "§c minReadySeconds > 0 without a transition time is not available",
                pod("a").no_ready_time(),
                10,
                100,
                false,
            ),
        ];
        for (rule, p, mrs, now, want) in cases {
            assert_eq!(is_pod_available(&p, mrs, now), want, "{rule}");
        }
    }

    #[test]
    fn terminal_and_terminating_pods_are_not_counted_but_terminating_running_ones_are() {
        let cases = [
            ("§c a running pod counts", pod("a"), true),
            (
                "§c a terminating running pod still counts",
                pod("a").terminating(),
                true,
            ),
            (
                "§c a failed pod that is not deleted counts",
                pod("a").phase(PodPhase::Failed),
                true,
            ),
            (
                "§c a failed pod marked for deletion is left out",
                pod("a").phase(PodPhase::Failed).terminating(),
                false,
            ),
            (
                "§c a succeeded pod marked for deletion is left out",
                pod("a").phase(PodPhase::Succeeded).terminating(),
                false,
            ),
        ];
        for (rule, p, want) in cases {
            assert_eq!(is_counted(&p), want, "{rule}");
        }
    }

    #[test]
    fn the_examined_pod_is_scheduled_first_then_oldest_then_by_name() {
        let cases: Vec<(&str, Vec<PodFacts>, Option<&str>)> = vec![
            (
                "§c §g.6 the oldest pod is examined",
                vec![pod("b").created(20), pod("a").created(10)],
                Some("a"),
            ),
            (
                "§c a bound pod comes before an older unbound one",
                vec![pod("old").created(1).unbound(), pod("young").created(50)],
                Some("young"),
            ),
            (
                "§c equal creation times are ordered by name",
                vec![pod("z").created(5), pod("m").created(5)],
                Some("m"),
            ),
            (
                "§c a terminal terminating pod is never examined",
                vec![
                    pod("a").created(1).phase(PodPhase::Failed).terminating(),
                    pod("b").created(2),
                ],
                Some("b"),
            ),
            ("§c no pods, nothing examined", vec![], None),
        ];
        for (rule, pods, want) in cases {
            let refs: Vec<&PodFacts> = pods.iter().collect();
            assert_eq!(examined_pod(&refs).map(|p| p.name.as_str()), want, "{rule}");
        }
    }
}
