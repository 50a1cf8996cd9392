//! The per-node rows of the rollout table: which nodes get a row, and bringing the rows to a
//! fresh detail without re-rendering the ones that did not change.

use crate::domain::coverage::CellState;
use crate::domain::view::{NodeProgress, PodSummary};
use leptos::prelude::*;

/// One node of the rollout, with signals for what changes.
#[derive(Clone)]
pub(super) struct ProgressRow {
    pub(super) node: String,
    pub(super) state: RwSignal<CellState>,
    pub(super) should_run: RwSignal<bool>,
    pub(super) pods: RwSignal<Vec<PodSummary>>,
}

/// Nodes worth a row: where it should run, or has a pod, or is not plainly excluded. On a
/// 5,000-node cluster a gpu-only DaemonSet would otherwise list 4,990 empty rows.
pub(super) fn relevant(nodes: &[NodeProgress]) -> Vec<&NodeProgress> {
    nodes
        .iter()
        .filter(|n| n.should_run || !n.pods.is_empty() || n.state != CellState::Excluded)
        .collect()
}

pub(super) fn progress_rows(nodes: &[NodeProgress]) -> Vec<ProgressRow> {
    relevant(nodes)
        .into_iter()
        .map(|n: &NodeProgress| ProgressRow {
            node: n.node.clone(),
            state: RwSignal::new(n.state),
            should_run: RwSignal::new(n.should_run),
            pods: RwSignal::new(n.pods.clone()),
        })
        .collect()
}

/// Brings the rows to a fresh detail, touching only what changed.
pub(super) fn reconcile(rows: RwSignal<Vec<ProgressRow>>, all: &[NodeProgress]) {
    let nodes = relevant(all);
    let same = rows.with_untracked(|rs| {
        rs.len() == nodes.len() && rs.iter().zip(&nodes).all(|(r, n)| r.node == n.node)
    });
    if !same {
        rows.set(progress_rows(all));
        return;
    }
    rows.with_untracked(|rs| {
        for (r, n) in rs.iter().zip(&nodes) {
            if r.state.get_untracked() != n.state {
                r.state.set(n.state);
            }
            if r.should_run.get_untracked() != n.should_run {
                r.should_run.set(n.should_run);
            }
            if r.pods.with_untracked(|p| *p != n.pods) {
                r.pods.set(n.pods.clone());
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(node: &str, state: CellState, should_run: bool, pods: usize) -> NodeProgress {
        let pod = PodSummary {
            name: format!("p-{node}"),
            phase: crate::domain::PodPhase::Running,
            ready: true,
            updated: true,
            revision_hash: "h".into(),
            restart_count: 0,
            waiting_reason: None,
            terminating: false,
            age_seconds: 1,
        };
        NodeProgress {
            node: node.into(),
            state,
            should_run,
            pods: vec![pod; pods],
        }
    }

    #[test]
    fn only_nodes_where_it_runs_or_should_run_get_a_row() {
        let nodes = [
            progress("a", CellState::Ready, true, 1),
            progress("b", CellState::Excluded, false, 0),
            progress("c", CellState::Misscheduled, false, 1),
            progress("d", CellState::Missing, true, 0),
        ];
        let names: Vec<_> = relevant(&nodes).iter().map(|n| n.node.as_str()).collect();
        assert_eq!(names, ["a", "c", "d"]);
    }
}
