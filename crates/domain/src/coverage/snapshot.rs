//! The whole matrix (`MatrixSnapshot`), one column summary, one node row.

use super::{
    cell_state_from, group_pods, is_counted, is_problem, CellState, NewNodeGrace, RolloutStand,
};
use crate::controller::budget_in_use;
use crate::facts::{DaemonSetFacts, NodeFacts, PodFacts, TaintEffect, UpdateStrategy};
use crate::rollout::{compute_status_for_slots, kubectl_rollout_status, resolve_budget, NodeSlot};
use crate::scheduling::DaemonPod;
use crate::view::{DaemonSetColumn, MatrixSnapshot, NodeRow, StateCounts, StrategyKind};

/// At most this many taints and labels are shown per row, each at most [`MAX_TEXT`] chars:
/// the values come from the cluster and are shown to people
/// (docs/architecture.md#untrusted-input-is-escaped-and-bounded).
const MAX_ITEMS: usize = 8;
const MAX_TEXT: usize = 100;

/// Label keys that identify a node's role, zone or machine, in the order they are shown (after
/// the pool labels, [`crate::names::POOL_LABELS`], which come first: the matrix groups by them).
const IDENTIFYING_LABELS: &[&str] = &[
    "kubernetes.io/role",
    crate::names::ZONE_LABEL,
    crate::names::REGION_LABEL,
    crate::names::INSTANCE_TYPE_LABEL,
    "workload-type",
];

/// The matrix for a set of facts: one column per DaemonSet (in the given order), one row per
/// node (in the given order). Pods are grouped once (§f); placement is compiled once per
/// DaemonSet and only the booleans are computed per cell (reasons are built on demand by
/// [`super::explain_cell`]). A missing cell on a node younger than `grace` is `starting`
/// ([`NewNodeGrace`]). `version` is 0 and `health` empty: the live layer sets them.
pub fn build_snapshot(
    nodes: &[NodeFacts],
    daemonsets: &[DaemonSetFacts],
    pods: &[PodFacts],
    now: i64,
    cluster: &str,
    grace: NewNodeGrace,
) -> MatrixSnapshot {
    let groups = group_pods(pods);
    let young: std::collections::HashSet<&str> = nodes
        .iter()
        .filter(|n| grace.covers(n.created, now))
        .map(|n| n.name.as_str())
        .collect();
    let known: std::collections::HashSet<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    let mut cells: Vec<Vec<CellState>> = vec![Vec::with_capacity(daemonsets.len()); nodes.len()];
    let mut columns = Vec::with_capacity(daemonsets.len());
    for ds in daemonsets {
        let compiled = DaemonPod::new(&ds.template);
        let mut slots: Vec<NodeSlot<'_>> = nodes
            .iter()
            .map(|node| NodeSlot {
                node: &node.name,
                should_run: compiled.verdict(node).0,
                gone: false,
                pods: groups.pods(&ds.uid, &node.name),
            })
            .collect();
        // Pods aimed at nodes no longer in the list (§d.3, after the rows' slots).
        slots.extend(
            groups
                .nodes_of(&ds.uid)
                .filter(|(node, _)| !known.contains(node))
                .map(|(node, pods)| NodeSlot {
                    node,
                    should_run: false,
                    gone: true,
                    pods,
                }),
        );
        for ((row, slot), node) in cells.iter_mut().zip(&slots).zip(nodes) {
            let state = cell_state_from(slot.should_run, ds, slot.pods, now);
            row.push(grace.apply(state, node.created, now));
        }
        columns.push(column_summary_in_grace(ds, &slots, now, &|n| {
            young.contains(n)
        }));
    }
    let rows = nodes
        .iter()
        .zip(cells)
        .map(|(node, cells)| node_row(node, cells))
        .collect();
    MatrixSnapshot {
        version: 0,
        cluster: cluster.to_string(),
        daemonsets: columns,
        nodes: rows,
        health: Vec::new(),
    }
}

/// One column's summary from one slot per node of the cluster (callable per column, for
/// incremental updates): desired/ready/updated/available/misscheduled as the controller's
/// status would have them (§c), missing cells, the budget resolved against desired (§d.2) and
/// how much of it is in use (§d.3), and the verdict `kubectl rollout status` prints from the
/// DaemonSet's own status (§e).
///
/// A strategy other than RollingUpdate has no rolling-update budget: `max_unavailable`,
/// `max_surge` and `budget_error` are None and `budget_in_use` is 0 (§d.5). Slots of deleted
/// nodes ([`NodeSlot::gone`]) count in the budget only, as in the controller. No node is in
/// its new-node grace here; see [`column_summary_in_grace`].
pub fn column_summary(ds: &DaemonSetFacts, slots: &[NodeSlot<'_>], now: i64) -> DaemonSetColumn {
    column_summary_in_grace(ds, slots, now, &|_| false)
}

/// [`column_summary`] where `young(node)` says whether a node is within its new-node grace
/// ([`NewNodeGrace::covers`]): a pod-less slot that should run counts as `starting` on such a
/// node and as `missing` elsewhere. Only those two counts differ: the status, the budget and
/// the verdict are Kubernetes' and know no grace.
pub fn column_summary_in_grace(
    ds: &DaemonSetFacts,
    slots: &[NodeSlot<'_>],
    now: i64,
    young: &dyn Fn(&str) -> bool,
) -> DaemonSetColumn {
    let status = compute_status_for_slots(ds, slots, now);
    let (mut missing, mut starting) = (0i64, 0i64);
    for slot in slots
        .iter()
        .filter(|s| s.should_run && !s.gone && !s.pods.iter().any(|p| is_counted(p)))
    {
        if young(slot.node) {
            starting += 1;
        } else {
            missing += 1;
        }
    }
    let (budget, budget_error, in_use) = match &ds.strategy {
        UpdateStrategy::RollingUpdate { .. } => {
            match resolve_budget(&ds.strategy, status.desired_number_scheduled) {
                Ok(budget) => (Some(budget), None, budget_in_use(ds, slots, &budget, now)),
                Err(e) => (None, Some(e.to_string()), 0),
            }
        }
        _ => (None, None, 0),
    };
    let verdict = kubectl_rollout_status(ds);
    let mut column = DaemonSetColumn {
        key: ds.key(),
        namespace: ds.namespace.clone(),
        name: ds.name.clone(),
        desired: status.desired_number_scheduled,
        ready: status.number_ready,
        updated: status.updated_number_scheduled,
        available: status.number_available,
        misscheduled: status.number_misscheduled,
        missing,
        starting,
        strategy: strategy_kind(&ds.strategy),
        max_unavailable: budget.map(|b| b.max_unavailable),
        max_surge: budget.map(|b| b.max_surge),
        surge_mode: budget.is_some_and(|b| b.surge_mode()),
        budget_error,
        budget_in_use: in_use,
        rollout_message: verdict.message,
        rollout_done: verdict.done,
        rollout_error: verdict.error,
        pace: None,
        problem_nodes: 0,
        cells: StateCounts::default(),
        refused: None,
        missing_causes: None,
        requests: ds.template.requests.clone(),
        unschedulable: Vec::new(),
    };
    // Each cell's state, as the matrix shows it (a young node's pod-less cell is `starting`).
    let states: Vec<CellState> = slots
        .iter()
        .filter(|s| !s.gone)
        .map(|s| {
            let state = cell_state_from(s.should_run, ds, s.pods, now);
            match state {
                CellState::Missing if young(s.node) => CellState::Starting,
                other => other,
            }
        })
        .collect();
    column.cells = StateCounts::of(&states);
    // The one definition of a problem, under the column's stand (no pace here: a stall is
    // the live store's to know, and it recounts then).
    let stand = RolloutStand::of(&column);
    column.problem_nodes = states
        .iter()
        .filter(|state| is_problem(**state, stand))
        .count() as i64;
    column
}

/// `spec.updateStrategy.type` for the page; an unknown type's text is bounded in length.
pub fn strategy_kind(strategy: &UpdateStrategy) -> StrategyKind {
    match strategy {
        UpdateStrategy::Other(other) => StrategyKind::Other(bounded(other)),
        known => StrategyKind::of(known),
    }
}

/// A node's row: name, readiness, cordon, taints as `key=value:Effect` and a few identifying
/// labels, all bounded in count and length.
pub fn node_row(node: &NodeFacts, cells: Vec<CellState>) -> NodeRow {
    let mut taints: Vec<String> = node
        .taints
        .iter()
        .take(MAX_ITEMS)
        .map(|t| {
            let effect = match &t.effect {
                TaintEffect::NoSchedule => "NoSchedule",
                TaintEffect::PreferNoSchedule => "PreferNoSchedule",
                TaintEffect::NoExecute => "NoExecute",
                TaintEffect::Other(other) => other.as_str(),
            };
            if t.value.is_empty() {
                bounded(&format!("{}:{effect}", t.key))
            } else {
                bounded(&format!("{}={}:{effect}", t.key, t.value))
            }
        })
        .collect();
    if node.taints.len() > MAX_ITEMS {
        taints.push(format!("…and {} more", node.taints.len() - MAX_ITEMS));
    }
    let pools = crate::names::POOL_LABELS
        .iter()
        .filter_map(|k| node.labels.get_key_value(*k));
    let roles = node
        .labels
        .iter()
        .filter(|(k, _)| k.starts_with(crate::names::NODE_ROLE_PREFIX));
    let known = IDENTIFYING_LABELS
        .iter()
        .filter_map(|k| node.labels.get_key_value(*k));
    let labels = pools
        .chain(roles)
        .chain(known)
        .take(MAX_ITEMS)
        .map(|(k, v)| (bounded(k), bounded(v)))
        .collect();
    NodeRow {
        name: node.name.clone(),
        ready: node.ready,
        unschedulable: node.unschedulable,
        taints,
        labels,
        cells,
        allocatable: node.allocatable.clone(),
    }
}

/// At most [`MAX_TEXT`] characters, with an ellipsis when cut.
fn bounded(text: &str) -> String {
    bounded_to(text, MAX_TEXT)
}

/// At most `max` characters, with an ellipsis when cut: cluster text shown to people.
pub(crate) fn bounded_to(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests;
