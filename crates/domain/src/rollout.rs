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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_entry_names_a_section() {
        for (function, rule) in RULES {
            assert!(rule.starts_with('§'), "{function} must cite a rule");
        }
    }
}
