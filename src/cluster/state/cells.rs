//! The bridge from the store to the domain rules: one cell, one column, one explanation.
//!
//! Why a separate file: it is the only place the live store calls the Kubernetes rules, so a
//! reader can check that nothing here decides anything itself. Placement is
//! `domain::scheduling::placement`, cell states, column summaries and explanations are
//! `domain::coverage`'s; this file only gathers their inputs.

use crate::domain::coverage::{self, CellState};
use crate::domain::rollout::NodeSlot;
use crate::domain::scheduling::{placement, Placement};
use crate::domain::view::{CellExplanation, DaemonSetColumn, NodeRow};
use crate::domain::{DaemonSetFacts, NodeFacts, PodFacts, TaintEffect};

/// Longest label or taint text sent to the browser; cluster data is untrusted (design).
const MAX_TEXT: usize = 96;

/// Labels worth showing beside a node's name: role, zone, pool, GPU workload type.
const SHOWN_LABELS: &[&str] = &[
    "node-role.kubernetes.io/control-plane",
    "topology.kubernetes.io/zone",
    "node.kubernetes.io/instance-type",
    "workload-type",
    "pool",
];

/// What the store keeps per cell: the state and the placement booleans the column summary
/// needs again (so a pod event does not recompute 5,000 placements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cell {
    pub(crate) state: CellState,
    pub(crate) should_run: bool,
}

/// The placement and state of one node × DaemonSet cell (§a, then the coverage rules).
pub(crate) fn cell(node: &NodeFacts, ds: &DaemonSetFacts, pods: &[&PodFacts], now: i64) -> Cell {
    let placement = placement(node, &ds.template);
    let state = coverage::cell_state(ds, &placement, pods, now);
    Cell { state, should_run: placement.should_run }
}

/// A column's summary: counts, budget and verdict, from its slots (one per node).
pub(crate) fn column(ds: &DaemonSetFacts, slots: &[NodeSlot<'_>], states: &[CellState], now: i64) -> DaemonSetColumn {
    coverage::column_summary(ds, slots, states, now)
}

/// The explanation of one cell: placement reasons, pods, what would change it.
pub(crate) fn explain(node: &NodeFacts, ds: &DaemonSetFacts, pods: &[&PodFacts], now: i64) -> CellExplanation {
    let placement: Placement = placement(node, &ds.template);
    coverage::explain_cell(node, ds, &placement, pods, now)
}

/// Cuts untrusted text to `MAX_TEXT` characters.
fn bounded(text: &str) -> String {
    if text.chars().count() <= MAX_TEXT {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(MAX_TEXT - 1).collect();
    cut.push('…');
    cut
}

/// A node row for the browser: identity, readiness, cordon, taints and a few labels.
pub(crate) fn node_row(node: &NodeFacts, cells: Vec<CellState>) -> NodeRow {
    let taints = node
        .taints
        .iter()
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
    let labels = SHOWN_LABELS
        .iter()
        .filter_map(|k| node.labels.get(*k).map(|v| (bounded(k), bounded(v))))
        .collect();
    NodeRow {
        name: node.name.clone(),
        ready: node.ready,
        unschedulable: node.unschedulable,
        taints,
        labels,
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Taint;

    #[test]
    fn a_node_row_renders_taints_as_kubectl_does_and_shows_only_identifying_labels() {
        let node = NodeFacts {
            name: "gpu-1".into(),
            labels: [("workload-type", "gpu"), ("secret-ish", "x")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            taints: vec![
                Taint { key: "dedicated".into(), value: "db".into(), effect: TaintEffect::NoSchedule },
                Taint { key: "node.kubernetes.io/not-ready".into(), value: String::new(), effect: TaintEffect::NoExecute },
            ],
            ..NodeFacts::default()
        };
        let row = node_row(&node, vec![CellState::Ready]);
        assert_eq!(row.taints, vec!["dedicated=db:NoSchedule", "node.kubernetes.io/not-ready:NoExecute"]);
        assert_eq!(row.labels, vec![("workload-type".to_string(), "gpu".to_string())]);
        assert_eq!(row.cells, vec![CellState::Ready]);
    }

    #[test]
    fn untrusted_label_values_are_bounded_in_length() {
        let long = "x".repeat(500);
        let node = NodeFacts {
            name: "n".into(),
            labels: [("pool".to_string(), long)].into_iter().collect(),
            ..NodeFacts::default()
        };
        let row = node_row(&node, Vec::new());
        assert_eq!(row.labels[0].1.chars().count(), MAX_TEXT);
        assert!(row.labels[0].1.ends_with('…'));
    }
}
