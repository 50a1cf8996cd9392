//! Rollout rules: the maxUnavailable / maxSurge budget (§d.2), when a pod counts as updated
//! (§d.4) and available (§c), the status the controller would write (§c), how much of the
//! budget a rollout uses right now (§d.3), and the `kubectl rollout status` verdict (§e).
//!
//! Why one module: the dashboard, the offline CLI and the simulated controller must all agree
//! on these numbers with Kubernetes itself, so each rule lives here exactly once and the other
//! layers call it.

mod budget;
mod pace;
mod pods;
mod stall;
mod status;
mod verdict;

pub use budget::{resolve_budget, scale_int_or_percent, Budget, BudgetError, IntOrPercentError};
pub use pace::{
    nodes_done, pace, Pace, PaceSettings, ProgressLog, ProgressSample, DEFAULT_STALL_AFTER_SECONDS,
    DEFAULT_WINDOW_SECONDS, SAMPLES_KEPT,
};
pub use pods::{examined_pod, is_counted, is_pod_available, is_pod_updated, pod_order};
pub use stall::{
    classify_stall, in_flight, FailedCreate, InFlightPod, StallCause, StallFacts, StuckPod,
    FAILING_REASONS, IN_FLIGHT_SHOWN,
};
pub use status::{compute_status, compute_status_for_slots};
pub use verdict::{kubectl_rollout_status, rollout_status_for, RolloutVerdict, ON_DELETE_ERROR};

use super::facts::PodFacts;

/// Which rule of `docs/kubernetes-rules.md` each public function of this module mirrors, so
/// a reader (or a test report) can go from code to rule and back.
pub const RULES: &[(&str, &str)] = &[
    (
        "resolve_budget",
        "§d.2 (UPD updatedDesiredNodeCounts, DSU UnavailableCount/SurgeCount)",
    ),
    (
        "scale_int_or_percent",
        "§d.2 (intstr GetScaledValueFromIntOrPercent, round up)",
    ),
    ("is_pod_updated", "§d.4 (DSU IsPodUpdated)"),
    ("is_pod_available", "§c (IsPodAvailable, ≤ boundary)"),
    ("pod_order", "§c, §a.7 (podByCreationTimestampAndPhase)"),
    (
        "is_counted",
        "§c, §d.3 (getNodesToDaemonPods includeDeletedTerminal=false)",
    ),
    ("compute_status", "§c (updateDaemonSetStatus)"),
    (
        "kubectl_rollout_status",
        "§e (KRS DaemonSetStatusViewer.Status), §i.4",
    ),
    (
        "nodes_done",
        "§d.4 (DSU IsPodUpdated), §c (IsPodAvailable): an updated pod that serves",
    ),
    (
        "pace",
        "§e (a complete rollout is never stalled), §d.4 + §c for what counts as progress",
    ),
    (
        "classify_stall",
        "§d.3 (budget held by unavailable nodes / surge pods in flight), §d.4, §c, §a.7 (FailedCreate)",
    ),
    ("in_flight", "§d.3 (pods being replaced), §d.4, §c"),
    (
        "budget_in_use",
        "§d.3 (UPD rollingUpdate: numUnavailable / numSurge)",
    ),
];

/// One node as the status and rolling-update rules see it: its name, whether the DaemonSet
/// should run there (§a shouldRun), and the pods of this DaemonSet grouped under it (§f).
///
/// Why a borrowed view: the live matrix keeps placements and grouped pods per column and
/// recomputes one column at a time; this lets it do so without copying 5,000 nodes' pods.
/// `pods` may contain terminal-and-terminating pods: every rule here drops them itself
/// (§c `includeDeletedTerminal=false`).
#[derive(Debug, Clone, Copy)]
pub struct NodeSlot<'a> {
    /// The node's name.
    pub node: &'a str,
    /// §a shouldRun for this node and the DaemonSet's template.
    pub should_run: bool,
    /// The node is no longer in the node list (deleted) while pods still name it, until the
    /// pod GC removes them (kube-controller-manager's `gcOrphaned`, after 40 s). Why a slot at
    /// all: the rolling-update pass walks pods grouped by node name (DC
    /// `getNodesToDaemonPods`), so such a pod still holds budget, while status counts and
    /// `manage` walk only the node list and skip it. `should_run` is false for such a slot.
    pub gone: bool,
    /// The DaemonSet's pods for this node (matched by owner uid and target node, §f).
    pub pods: &'a [&'a PodFacts],
}

/// How much of the rollout budget is in use right now (§d.3), as the controller counts it in
/// its rolling-update pass: with maxSurge 0 the number of unavailable nodes (nodes left for
/// manage, nodes without a live pod — a terminating-only node counts, §g.13 —, nodes with an old
/// and a new pod, nodes whose only pod is new but unavailable, and unavailable old pods); with
/// maxSurge > 0 the number of surge pods in flight (nodes left for manage, and nodes where a new
/// pod runs beside the old one and is not available yet).
///
/// Why it delegates: it is the same count the controller's plan computes, so it is taken from
/// [`crate::controller::rolling_update_pass`] rather than written a second time.
/// `slots` must hold every desired node and every node with pods; the result does not depend
/// on their order.
pub fn budget_in_use(
    ds: &super::facts::DaemonSetFacts,
    slots: &[NodeSlot<'_>],
    budget: &Budget,
    now: i64,
) -> i64 {
    super::controller::rolling_update_pass(ds, slots, budget, now).in_use
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::PodFacts;
    use crate::testing::{ds, pod, PodExt};

    #[test]
    fn budget_in_use_is_what_the_rolling_update_counts() {
        let a = [pod("a").old().terminating()];
        let b = [pod("b").on("n2").unready()];
        let c = [pod("c").old().on("n3"), pod("c2").on("n3").unready()];
        let d = [pod("d").old().on("n4")];
        let refs: Vec<Vec<&PodFacts>> = vec![
            a.iter().collect(),
            b.iter().collect(),
            c.iter().collect(),
            d.iter().collect(),
        ];
        let slots: Vec<NodeSlot<'_>> = ["n1", "n2", "n3", "n4"]
            .iter()
            .zip(&refs)
            .map(|(node, pods)| NodeSlot {
                node,
                should_run: true,
                gone: false,
                pods,
            })
            .collect();
        let cases = [
            (
                "§d.3 §g.13 maxSurge 0: terminating-only, unavailable new, and old+new nodes use maxUnavailable",
                Budget { max_unavailable: 1, max_surge: 0 },
                3,
            ),
            ("§d.3 maxSurge > 0: only the old+new node with an unavailable new pod is in flight", Budget { max_unavailable: 0, max_surge: 1 }, 1),
        ];
        for (rule, budget, want) in cases {
            assert_eq!(budget_in_use(&ds(), &slots, &budget, 100), want, "{rule}");
        }
    }

    #[test]
    fn every_rule_entry_names_a_section() {
        for (function, rule) in RULES {
            assert!(rule.starts_with('§'), "{function} must cite a rule");
        }
    }
}
