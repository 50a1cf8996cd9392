//! The per-node rows of the rollout table, and bringing them to a fresh view without
//! re-rendering the ones that did not change.

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

/// The rows of the nodes the server's view lists (those worth a row,
/// [`crate::views::daemonset::relevant`]).
pub(super) fn progress_rows(nodes: &[NodeProgress]) -> Vec<ProgressRow> {
    nodes
        .iter()
        .map(|n: &NodeProgress| ProgressRow {
            node: n.node.clone(),
            state: RwSignal::new(n.state),
            should_run: RwSignal::new(n.should_run),
            pods: RwSignal::new(n.pods.clone()),
        })
        .collect()
}

/// Brings the rows to a fresh view, touching only what changed.
pub(super) fn reconcile(rows: RwSignal<Vec<ProgressRow>>, nodes: &[NodeProgress]) {
    let same = rows.with_untracked(|rs| {
        rs.len() == nodes.len() && rs.iter().zip(nodes).all(|(r, n)| r.node == n.node)
    });
    if !same {
        rows.set(progress_rows(nodes));
        return;
    }
    rows.with_untracked(|rs| {
        for (r, n) in rs.iter().zip(nodes) {
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
