//! The DaemonSet controller's decisions, as pure planning functions: what `manage` does on one
//! node (§a.7) and which pods one rolling-update pass replaces (§d.3).
//!
//! Why here and not in `sim/`: the simulated cluster's controller executes these plans (it
//! creates and deletes the pods, emits the events, keeps the failed-pod backoff), and the
//! dashboard uses the same pass to measure how much of the budget is in use. Writing the rules
//! once keeps the two in step with each other and with Kubernetes.

mod claim;
#[cfg(test)]
mod convergence_tests;
mod manage;
mod node_events;
mod rolling;
mod sync;

pub use claim::{claim, label_selector_matches, Claim, LabelSelectorFacts};
pub use manage::{manage_node, NodeActions};
pub use node_events::{node_change_syncs, node_update_matters};
pub use rolling::{rolling_update_pass, rolling_update_plan, RollingPass, RollingPlan};
pub use sync::{
    failed_pod_message, failed_pods_backoff_key, slow_start_batches, succeeded_pod_message,
    unscheduled_pods_without_node, BURST_REPLICAS,
};

use super::facts::UpdateStrategy;
use super::rollout::scale_int_or_percent;

/// Which rule of `docs/kubernetes-rules.md` each public function of this module mirrors.
pub const RULES: &[(&str, &str)] = &[
    (
        "allows_surge",
        "§a.7 (DSU AllowsSurge: SurgeCount(ds, 1) > 0)",
    ),
    ("claim", "§f (ControllerRefManager.ClaimObject)"),
    (
        "label_selector_matches",
        "§f (metav1.LabelSelectorAsSelector, Matches)",
    ),
    ("manage_node", "§a.7 (DC podsShouldBeOnNode)"),
    (
        "node_change_syncs",
        "§a.2 step 3, §c (DC syncNodeUpdate, v1.37)",
    ),
    (
        "node_update_matters",
        "§c (DC shouldIgnoreNodeUpdate, v1.37)",
    ),
    (
        "budget_in_use",
        "§d.3 (UPD rollingUpdate: numUnavailable / numSurge)",
    ),
    (
        "rolling_update_pass",
        "§d.3 (UPD rollingUpdate, findUpdatedPodsOnNode)",
    ),
    (
        "rolling_update_plan",
        "§d.3, §d.5 (RollingUpdate only; OnDelete skips the step)",
    ),
];

/// §a.7 DSU `AllowsSurge`: maxSurge scaled against **1** is > 0, so any positive maxSurge,
/// integer or percent, allows an old and a new pod on one node whatever the node count.
/// OnDelete, a missing block, a nil or invalid maxSurge never allow surge.
pub fn allows_surge(strategy: &UpdateStrategy) -> bool {
    match strategy {
        UpdateStrategy::RollingUpdate {
            rolling_update_block: true,
            max_surge: Some(max_surge),
            ..
        } => scale_int_or_percent(Some(max_surge), 1).is_ok_and(|n| n > 0),
        _ => false,
    }
}

/// How much of the rollout budget is in use right now (§d.3), as the controller counts it in
/// its rolling-update pass: with maxSurge 0 the number of unavailable nodes (nodes left for
/// manage, nodes without a live pod — a terminating-only node counts, §g.13 —, nodes with an old
/// and a new pod, nodes whose only pod is new but unavailable, and unavailable old pods); with
/// maxSurge > 0 the number of surge pods in flight (nodes left for manage, and nodes where a new
/// pod runs beside the old one and is not available yet).
///
/// Why here, beside the controller: it is the same count the controller's plan computes, so
/// it is taken from [`rolling_update_pass`] rather than written a second time (and the rollout
/// rules, which the controller reads, never read the controller back).
/// `slots` must hold every desired node and every node with pods; the result does not depend
/// on their order.
pub fn budget_in_use(
    ds: &super::facts::DaemonSetFacts,
    slots: &[super::rollout::NodeSlot<'_>],
    budget: &super::rollout::Budget,
    now: i64,
) -> i64 {
    rolling_update_pass(ds, slots, budget, now).in_use
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::PodFacts;
    use crate::rollout::{Budget, NodeSlot};
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
    use crate::facts::IntOrPercent;

    fn rolling(ms: Option<IntOrPercent>) -> UpdateStrategy {
        UpdateStrategy::RollingUpdate {
            rolling_update_block: true,
            max_unavailable: Some(IntOrPercent::Int(0)),
            max_surge: ms,
        }
    }

    #[test]
    fn surge_is_allowed_for_any_positive_max_surge_scaled_against_one() {
        let cases = [
            (
                "§a.7 maxSurge 1 allows surge",
                rolling(Some(IntOrPercent::Int(1))),
                true,
            ),
            (
                "§a.7 maxSurge 1% of 1 rounds up to 1: allows surge",
                rolling(Some(IntOrPercent::Str("1%".into()))),
                true,
            ),
            (
                "§a.7 maxSurge 0% does not",
                rolling(Some(IntOrPercent::Str("0%".into()))),
                false,
            ),
            (
                "§a.7 maxSurge 0 does not",
                rolling(Some(IntOrPercent::Int(0))),
                false,
            ),
            ("§a.7 a nil maxSurge does not", rolling(None), false),
            (
                "§a.7 a maxSurge without % is an error: no surge",
                rolling(Some(IntOrPercent::Str("1".into()))),
                false,
            ),
            (
                "§a.7 a negative maxSurge is not > 0",
                rolling(Some(IntOrPercent::Int(-1))),
                false,
            ),
            (
                "§a.7 OnDelete never surges",
                UpdateStrategy::OnDelete,
                false,
            ),
            (
                "§a.7 RollingUpdate without a block never surges",
                UpdateStrategy::RollingUpdate {
                    rolling_update_block: false,
                    max_unavailable: None,
                    max_surge: Some(IntOrPercent::Int(1)),
                },
                false,
            ),
        ];
        for (rule, strategy, want) in cases {
            assert_eq!(allows_surge(&strategy), want, "{rule}");
        }
    }
}
