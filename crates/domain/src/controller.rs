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

#[cfg(test)]
mod tests {
    use super::*;
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
