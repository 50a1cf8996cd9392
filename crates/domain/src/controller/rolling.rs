//! One rolling-update pass (§d.3, UPD `rollingUpdate`): which old pods to delete and on which
//! nodes to create new pods, and how much of the budget is in use.

use crate::facts::{DaemonSetFacts, PodFacts, UpdateStrategy};
use crate::rollout::{is_counted, is_pod_available, is_pod_updated, Budget, NodeSlot};
use serde::{Deserialize, Serialize};

/// The outcome of one pass of UPD `rollingUpdate`, with the count it used to decide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollingPass {
    /// Whether the surge branch ran (scaled maxSurge > 0, §d.2).
    pub surge: bool,
    /// maxSurge = 0: unavailable nodes (`numUnavailable`); surge: pods in flight (`numSurge`).
    pub in_use: i64,
    /// uids of old pods to delete now (`manage` recreates them with the new template).
    pub delete_old: Vec<String>,
    /// Nodes where a new pod is created now, beside the old one (surge only).
    pub create_on_nodes: Vec<String>,
    /// Surge only: a deleted node that still holds an old pod. UPD `rollingUpdate` looks the
    /// node up to decide shouldRun, fails ("couldn't get node for nodeName") and the whole
    /// step is retried later: nothing is deleted or created until the pod GC removes the pod.
    /// `in_use` still counts the other nodes.
    pub blocked_by_gone_node: Option<String>,
}

/// What the controller's rolling-update step does in one sync (§d.3, §d.5).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RollingPlan {
    /// uids of old pods to delete.
    pub delete_old: Vec<String>,
    /// Nodes on which to create a pod with the current template.
    pub create_on_nodes: Vec<String>,
    /// The step failed on this deleted node (see [`RollingPass::blocked_by_gone_node`]); the
    /// caller retries later.
    pub blocked_by_gone_node: Option<String>,
}

/// §d.3, §d.5: the rolling-update step of one sync. Empty for any strategy other than
/// RollingUpdate (OnDelete skips the step). The caller runs it only when `manage` made no
/// change in the same sync and every earlier create/delete has been observed (DC
/// `updateDaemonSet`), and with `budget` from [`crate::rollout::resolve_budget`] (if
/// that fails the step stops there: no plan).
///
/// `slots` must hold every node that should run the DaemonSet and every node with pods of it,
/// including deleted nodes whose pods linger ([`NodeSlot::gone`]); nodes with neither are
/// ignored. **Order matters**: candidates are taken in slot order
/// until the budget is used. The real controller walks a Go map, so its order is random; the
/// simulated controller should shuffle, tests pass a fixed order.
pub fn rolling_update_plan(
    ds: &DaemonSetFacts,
    slots: &[NodeSlot<'_>],
    budget: &Budget,
    now: i64,
) -> RollingPlan {
    if !matches!(ds.strategy, UpdateStrategy::RollingUpdate { .. }) {
        return RollingPlan::default();
    }
    let pass = rolling_update_pass(ds, slots, budget, now);
    RollingPlan {
        delete_old: pass.delete_old,
        create_on_nodes: pass.create_on_nodes,
        blocked_by_gone_node: pass.blocked_by_gone_node,
    }
}

/// How a node's live pods split (UPD `findUpdatedPodsOnNode`): terminating pods are ignored;
/// `None` when the node has two or more new or two or more old pods (left for `manage`).
fn split<'a>(
    ds: &DaemonSetFacts,
    pods: &[&'a PodFacts],
) -> Option<(Option<&'a PodFacts>, Option<&'a PodFacts>)> {
    let (mut new, mut old) = (None, None);
    for pod in pods.iter().copied().filter(|p| !p.terminating) {
        let slot = if is_pod_updated(ds, pod) {
            &mut new
        } else {
            &mut old
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(pod);
    }
    Some((new, old))
}

/// §d.3 UPD `rollingUpdate`, both branches, without the strategy gate (the budget gauge uses
/// it for any strategy). See [`rolling_update_plan`] for what `slots` must hold.
pub fn rolling_update_pass(
    ds: &DaemonSetFacts,
    slots: &[NodeSlot<'_>],
    budget: &Budget,
    now: i64,
) -> RollingPass {
    let mrs = ds.min_ready_seconds;
    let available = |p: &PodFacts| is_pod_available(p, mrs, now);
    // The controller's map holds desired nodes and nodes with (counted) pods only.
    let relevant = slots
        .iter()
        .filter(|s| s.should_run || s.pods.iter().any(|p| is_counted(p)));

    if !budget.surge_mode() {
        let mut unavailable = 0_i64;
        let mut replacements = Vec::new();
        let mut candidates = Vec::new();
        for slot in relevant {
            match split(ds, &counted(slot.pods)) {
                None | Some((None, None)) | Some((Some(_), Some(_))) => unavailable += 1,
                Some((Some(new), None)) => {
                    if !available(new) {
                        unavailable += 1;
                    }
                }
                Some((None, Some(old))) => {
                    if !available(old) {
                        replacements.push(old.uid.clone());
                        unavailable += 1;
                    } else if unavailable < budget.max_unavailable {
                        candidates.push(old.uid.clone());
                    }
                }
            }
        }
        let take = take_count(budget.max_unavailable - unavailable, candidates.len());
        replacements.extend(candidates.into_iter().take(take));
        return RollingPass {
            surge: false,
            in_use: unavailable,
            delete_old: replacements,
            create_on_nodes: Vec::new(),
            blocked_by_gone_node: None,
        };
    }

    let desired = slots.iter().filter(|s| s.should_run).count() as i64;
    let mut delete_old = Vec::new();
    let mut should_not_run = Vec::new();
    let mut allowed_nodes = Vec::new();
    let mut candidate_nodes = Vec::new();
    let mut in_flight = 0_i64;
    let mut num_available = 0_i64;
    let mut blocked_by_gone_node = None;
    for slot in relevant {
        let Some((new, old)) = split(ds, &counted(slot.pods)) else {
            in_flight += 1;
            continue;
        };
        if let Some(pod) = old.or(new) {
            if available(pod) {
                num_available += 1;
            }
        }
        match (new, old) {
            (_, None) => {}
            (None, Some(_)) if slot.gone => {
                blocked_by_gone_node.get_or_insert_with(|| slot.node.to_string());
            }
            (None, Some(old)) => {
                if !available(old) {
                    if slot.should_run {
                        allowed_nodes.push(slot.node.to_string());
                    } else {
                        delete_old.push(old.uid.clone());
                    }
                } else if !slot.should_run {
                    should_not_run.push(old.uid.clone());
                } else if in_flight < budget.max_surge {
                    candidate_nodes.push(slot.node.to_string());
                }
            }
            (Some(new), Some(old)) => {
                if available(new) {
                    delete_old.push(old.uid.clone());
                } else {
                    in_flight += 1;
                }
            }
        }
    }
    // Capacity moves only after new nodes are up: at most numAvailable − N of the old pods on
    // nodes that no longer should run are deleted.
    let deletable = take_count(num_available - desired, should_not_run.len());
    delete_old.extend(should_not_run.into_iter().take(deletable));
    let take = take_count(budget.max_surge - in_flight, candidate_nodes.len());
    allowed_nodes.extend(candidate_nodes.into_iter().take(take));
    if blocked_by_gone_node.is_some() {
        delete_old.clear();
        allowed_nodes.clear();
    }
    RollingPass {
        surge: true,
        in_use: in_flight,
        delete_old,
        create_on_nodes: allowed_nodes,
        blocked_by_gone_node,
    }
}

/// The pods the controller groups under a node (§c `includeDeletedTerminal=false`).
fn counted<'a>(pods: &[&'a PodFacts]) -> Vec<&'a PodFacts> {
    pods.iter().copied().filter(|p| is_counted(p)).collect()
}

/// `max(0, min(room, available))` as a count.
fn take_count(room: i64, available: usize) -> usize {
    usize::try_from(room.max(0)).map_or(available, |r| r.min(available))
}

#[cfg(test)]
mod tests;
