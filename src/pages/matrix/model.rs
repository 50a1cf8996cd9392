//! The matrix page's reactive model: one signal per visible cell, row and column.
//!
//! Why: a live delta for one cell must re-render that cell, not the page. The model is built
//! from a `MatrixWindow` and kept in step with later windows by `reconcile`, which only
//! touches signals whose value changed.

use super::window::{GroupHeader, MatrixWindow};
use crate::domain::coverage::CellState;
use crate::domain::view::{DaemonSetColumn, NodeRow};
use leptos::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

/// A visible column.
#[derive(Clone)]
pub struct ColumnModel {
    /// `namespace/name`.
    pub key: String,
    /// The live summary (counts, budget, verdict).
    pub col: RwSignal<DaemonSetColumn>,
}

/// A visible row; `cells[i]` belongs to column `i` of the same layout epoch.
#[derive(Clone)]
pub struct RowModel {
    /// Node name.
    pub name: String,
    /// The node's own fields (badges); its `cells` are not read from here.
    pub info: RwSignal<NodeRow>,
    /// (DaemonSet key, state) per column.
    pub cells: Arc<Vec<(String, RwSignal<CellState>)>>,
    /// Bumped whenever the column set changes, so keyed lists rebuild rows.
    pub epoch: u64,
}

/// Figures about the window as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WindowInfo {
    /// Nodes in the cluster.
    pub total_nodes: usize,
    /// Nodes passing the filter.
    pub matched_nodes: usize,
    /// Page shown (1-based).
    pub page: usize,
    /// Number of pages.
    pub pages: usize,
    /// Index of the first row shown (0-based), for "showing 51–100".
    pub first_row: usize,
    /// Rows shown.
    pub shown: usize,
    /// Only rows with a problem are shown.
    pub problems_only: bool,
    /// Nodes with a problem cell in the whole cluster.
    pub problem_nodes: usize,
    /// DaemonSets whose creations the API server refuses (§l).
    pub refused_daemonsets: usize,
    /// DaemonSets in the cluster (the view may show fewer columns).
    pub daemonsets: usize,
}

/// The model of one matrix view.
#[derive(Clone, Copy)]
pub struct MatrixModel {
    /// Columns in display order.
    pub columns: RwSignal<Vec<ColumnModel>>,
    /// Rows in display order.
    pub rows: RwSignal<Vec<RowModel>>,
    /// Window figures.
    pub info: RwSignal<WindowInfo>,
    /// The group headers on this page, each with the row it stands before.
    pub groups: RwSignal<Vec<GroupHeader>>,
    lookup: StoredValue<HashMap<String, RowModel>>,
    epoch: StoredValue<u64>,
}

fn info_of(w: &MatrixWindow) -> WindowInfo {
    WindowInfo {
        total_nodes: w.total_nodes,
        matched_nodes: w.matched_nodes,
        page: w.page,
        pages: w.pages,
        first_row: (w.page.saturating_sub(1)) * super::window::PAGE_SIZE,
        shown: w.rows.len(),
        problems_only: w.problems_only,
        problem_nodes: w.problem_nodes,
        refused_daemonsets: w.refused_daemonsets,
        daemonsets: w.total_daemonsets,
    }
}

fn same_badges(a: &NodeRow, b: &NodeRow) -> bool {
    a.ready == b.ready
        && a.unschedulable == b.unschedulable
        && a.taints == b.taints
        && a.labels == b.labels
}

impl MatrixModel {
    /// Builds the model for a first window.
    pub fn new(window: &MatrixWindow) -> Self {
        let model = Self {
            columns: RwSignal::new(Vec::new()),
            rows: RwSignal::new(Vec::new()),
            info: RwSignal::new(info_of(window)),
            groups: RwSignal::new(window.groups.clone()),
            lookup: StoredValue::new(HashMap::new()),
            epoch: StoredValue::new(0),
        };
        model.rebuild(window);
        model
    }

    fn new_row(&self, row: &NodeRow, keys: &[String], epoch: u64) -> RowModel {
        let cells = keys
            .iter()
            .zip(
                row.cells
                    .iter()
                    .copied()
                    .chain(std::iter::repeat(CellState::Excluded)),
            )
            .map(|(k, s)| (k.clone(), RwSignal::new(s)))
            .collect();
        RowModel {
            name: row.name.clone(),
            info: RwSignal::new(row.clone()),
            cells: Arc::new(cells),
            epoch,
        }
    }

    fn rebuild(&self, w: &MatrixWindow) {
        let epoch = self.epoch.get_value() + 1;
        self.epoch.set_value(epoch);
        let keys: Vec<String> = w.daemonsets.iter().map(|d| d.key.clone()).collect();
        let columns = w
            .daemonsets
            .iter()
            .map(|d| ColumnModel {
                key: d.key.clone(),
                col: RwSignal::new(d.clone()),
            })
            .collect();
        let rows: Vec<RowModel> = w
            .rows
            .iter()
            .map(|r| self.new_row(r, &keys, epoch))
            .collect();
        self.lookup
            .set_value(rows.iter().map(|r| (r.name.clone(), r.clone())).collect());
        self.columns.set(columns);
        self.rows.set(rows);
    }

    /// Brings the model to `w`, setting only the signals whose value changed.
    pub fn reconcile(&self, w: &MatrixWindow) {
        let info = info_of(w);
        if self.info.with_untracked(|i| *i != info) {
            self.info.set(info);
        }
        if self.groups.with_untracked(|g| *g != w.groups) {
            self.groups.set(w.groups.clone());
        }
        let same_columns = self.columns.with_untracked(|cs| {
            cs.len() == w.daemonsets.len()
                && cs.iter().zip(&w.daemonsets).all(|(a, b)| a.key == b.key)
        });
        if !same_columns {
            self.rebuild(w);
            return;
        }
        self.columns.with_untracked(|cs| {
            for (cm, c) in cs.iter().zip(&w.daemonsets) {
                if cm.col.with_untracked(|old| old != c) {
                    cm.col.set(c.clone());
                }
            }
        });
        let keys: Vec<String> = w.daemonsets.iter().map(|d| d.key.clone()).collect();
        let epoch = self.epoch.get_value();
        let mut order_changed = self.rows.with_untracked(|rs| rs.len() != w.rows.len());
        let mut new_rows = Vec::with_capacity(w.rows.len());
        self.lookup.update_value(|lookup| {
            for (i, r) in w.rows.iter().enumerate() {
                match lookup.get(&r.name) {
                    Some(rm) => {
                        update_row(rm, r);
                        new_rows.push(rm.clone());
                    }
                    None => {
                        let rm = self.new_row(r, &keys, epoch);
                        lookup.insert(r.name.clone(), rm.clone());
                        new_rows.push(rm);
                        order_changed = true;
                    }
                }
                if !order_changed {
                    order_changed = self
                        .rows
                        .with_untracked(|rs| rs.get(i).is_none_or(|x| x.name != r.name));
                }
            }
            if order_changed {
                lookup.retain(|name, _| w.rows.iter().any(|r| &r.name == name));
            }
        });
        if order_changed {
            self.rows.set(new_rows);
        }
    }
}

fn update_row(rm: &RowModel, r: &NodeRow) {
    if rm.info.with_untracked(|old| !same_badges(old, r)) {
        rm.info.set(r.clone());
    }
    for ((_, sig), new) in rm.cells.iter().zip(&r.cells) {
        if sig.get_untracked() != *new {
            sig.set(*new);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::view::MatrixSnapshot;
    use crate::pages::matrix::query::MatrixQuery;
    use crate::pages::matrix::window::cut_window;
    use CellState::*;

    use crate::domain::testing::view_column as column;

    use crate::domain::testing::view_row as row;

    fn snapshot() -> MatrixSnapshot {
        MatrixSnapshot {
            version: 1,
            cluster: "c".into(),
            daemonsets: vec![column("ns/a"), column("ns/b")],
            nodes: vec![row("n1", &[Ready, Excluded]), row("n2", &[Ready, Ready])],
            health: vec![],
        }
    }

    fn state_of(model: &MatrixModel, node: &str, col: usize) -> CellState {
        model
            .lookup
            .with_value(|l| l[node].cells[col].1.get_untracked())
    }

    #[test]
    fn a_changed_cell_sets_only_that_cells_signal_and_keeps_the_rows() {
        let owner = Owner::new();
        owner.with(|| {
            let mut snap = snapshot();
            let q = MatrixQuery::default();
            let model = MatrixModel::new(&cut_window(&snap, &q));
            let rows_before: Vec<_> = model
                .rows
                .with_untracked(|r| r.iter().map(|r| r.cells.clone()).collect());
            snap.nodes[1].cells[1] = Outdated;
            model.reconcile(&cut_window(&snap, &q));
            assert_eq!(state_of(&model, "n2", 1), Outdated);
            assert_eq!(state_of(&model, "n1", 1), Excluded);
            // Same row objects (same signals): nothing was rebuilt.
            let rows_after: Vec<_> = model
                .rows
                .with_untracked(|r| r.iter().map(|r| r.cells.clone()).collect());
            assert!(rows_before
                .iter()
                .zip(&rows_after)
                .all(|(a, b)| Arc::ptr_eq(a, b)));
        });
    }

    #[test]
    fn a_new_node_enters_in_order_and_keeps_existing_rows() {
        let owner = Owner::new();
        owner.with(|| {
            let mut snap = snapshot();
            let q = MatrixQuery::default();
            let model = MatrixModel::new(&cut_window(&snap, &q));
            let n1_before = model.lookup.with_value(|l| l["n1"].cells.clone());
            snap.nodes.push(row("n0", &[Missing, Excluded]));
            model.reconcile(&cut_window(&snap, &q));
            let names: Vec<_> = model
                .rows
                .with_untracked(|r| r.iter().map(|r| r.name.clone()).collect());
            assert_eq!(names, ["n0", "n1", "n2"]);
            assert_eq!(state_of(&model, "n0", 0), Missing);
            assert!(model
                .lookup
                .with_value(|l| Arc::ptr_eq(&l["n1"].cells, &n1_before)));
            assert_eq!(model.info.get_untracked().total_nodes, 3);
        });
    }

    #[test]
    fn a_changed_column_set_rebuilds_rows_under_a_new_epoch() {
        let owner = Owner::new();
        owner.with(|| {
            let snap = snapshot();
            let model = MatrixModel::new(&cut_window(&snap, &MatrixQuery::default()));
            let epoch = model.rows.with_untracked(|r| r[0].epoch);
            let mut wider = snap.clone();
            wider.daemonsets.push(column("ns/c"));
            for r in &mut wider.nodes {
                r.cells.push(Pending);
            }
            model.reconcile(&cut_window(&wider, &MatrixQuery::default()));
            assert_eq!(model.columns.with_untracked(|c| c.len()), 3);
            assert!(model
                .rows
                .with_untracked(|r| r.iter().all(|r| r.epoch > epoch && r.cells.len() == 3)));
            assert_eq!(state_of(&model, "n2", 2), Pending);
        });
    }
}
