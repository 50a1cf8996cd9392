//! The bridge from the store to the domain rules: one cell, one column, one explanation.
//!
//! Why a separate file: it is the only place the live store calls the Kubernetes rules, so a
//! reader can check that nothing here decides anything itself. Placement is
//! `domain::scheduling` (compiled once per DaemonSet with `DaemonPod`), cell states, column
//! summaries, rows and explanations are `domain::coverage`'s; this file gathers their inputs.

use crate::domain::coverage::{self, CellState, NewNodeGrace};
use crate::domain::rollout::NodeSlot;
use crate::domain::scheduling::DaemonPod;
use crate::domain::view::{CellExplanation, DaemonSetColumn, NodeRow};
use crate::domain::{DaemonSetFacts, NodeFacts, PodFacts};

/// What the store keeps per cell: the state and the §a shouldRun boolean the column summary
/// needs again (so a pod event does not recompute 5,000 placements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cell {
    pub(crate) state: CellState,
    pub(crate) should_run: bool,
}

/// The placement verdict and state of one node × DaemonSet cell (§a, then the coverage
/// rules, then the new-node grace). `compiled` is the DaemonSet's template compiled once.
pub(crate) fn cell(
    compiled: &DaemonPod<'_>,
    node: &NodeFacts,
    ds: &DaemonSetFacts,
    pods: &[&PodFacts],
    now: i64,
    grace: NewNodeGrace,
) -> Cell {
    let (should_run, _) = compiled.verdict(node);
    let state = coverage::cell_state_from(should_run, ds, pods, now);
    Cell {
        state: grace.apply(state, node.created, now),
        should_run,
    }
}

/// A column's summary: counts, budget and verdict, from its slots (one per node); `starting`
/// says which nodes' cells of this column are `starting` (counted apart from missing).
pub(crate) fn column(
    ds: &DaemonSetFacts,
    slots: &[NodeSlot<'_>],
    now: i64,
    starting: &dyn Fn(&str) -> bool,
) -> DaemonSetColumn {
    coverage::column_summary_in_grace(ds, slots, now, starting)
}

/// The explanation of one cell: placement reasons, pods, what would change it.
pub(crate) fn explain(
    node: &NodeFacts,
    ds: &DaemonSetFacts,
    pods: &[&PodFacts],
    now: i64,
    grace: NewNodeGrace,
) -> CellExplanation {
    coverage::explain_cell_in_grace(node, ds, pods, now, grace)
}

/// A node row for the browser (identity, readiness, cordon, bounded taints and labels).
pub(crate) fn node_row(node: &NodeFacts, cells: Vec<CellState>) -> NodeRow {
    coverage::node_row(node, cells)
}

/// The panel's pod rows: one definition, in the domain.
pub(crate) use crate::domain::coverage::pod_summary;
