//! The matrix page's reactive model: one signal per visible cell, row and column.
//!
//! Why: a live delta for one cell must re-render that cell, not the page. The model is built
//! from a `MatrixWindow` and kept in step with later windows by `reconcile`, which only
//! touches signals whose value changed.

use super::window::MatrixWindow;
use crate::domain::coverage::CellState;
use crate::domain::view::{DaemonSetColumn, NodeRow};
use crate::live_client::state::{Change, LiveState};
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

    /// Applies the live changes of one message. `recut` cuts this view's window from the
    /// live matrix (used on structural changes).
    pub fn apply_changes(
        &self,
        state: &LiveState,
        changes: &[Change],
        recut: impl Fn(&LiveState) -> Option<MatrixWindow>,
    ) {
        if changes
            .iter()
            .any(|c| matches!(c, Change::Reset | Change::Structure))
        {
            if let Some(w) = recut(state) {
                self.reconcile(&w);
            }
            return;
        }
        let Some(snap) = state.snapshot() else {
            return;
        };
        for change in changes {
            match change {
                Change::Cell {
                    node,
                    column,
                    state: cell,
                } => {
                    let Some(key) = snap.daemonsets.get(*column).map(|d| &d.key) else {
                        continue;
                    };
                    self.lookup.with_value(|lookup| {
                        if let Some((_, sig)) = lookup
                            .get(node)
                            .and_then(|r| r.cells.get(*column))
                            .filter(|(k, _)| k == key)
                        {
                            sig.set(*cell);
                        }
                    });
                }
                Change::Row { node } => {
                    if let Some(row) = state.row(node) {
                        self.lookup.with_value(|lookup| {
                            if let Some(rm) = lookup.get(node) {
                                update_row(rm, row);
                            }
                        });
                    }
                }
                Change::Column { index } => {
                    if let Some(c) = snap.daemonsets.get(*index) {
                        self.columns.with_untracked(|cs| {
                            if let Some(cm) = cs.get(*index).filter(|cm| cm.key == c.key) {
                                cm.col.set(c.clone());
                            }
                        });
                    }
                }
                Change::Reset | Change::Structure | Change::Health => {}
            }
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
