//! The read model's replica of the whole matrix, kept current from the feed's messages (the
//! same messages `/api/live` sends to tools).
//!
//! Why pure and separate from the task that feeds it: applying deltas in order, ignoring
//! duplicates after a relist and reporting exactly what changed is the part that can be
//! wrong, so it is plain Rust with unit tests. The report (`Change`) tells the read model
//! when a DaemonSet's summary moved (the node page's rules may have moved with it).

use crate::domain::coverage::CellState;
use crate::domain::view::{
    DaemonSetColumn, Delta, LiveMessage, MatrixSnapshot, NodeRow, StateCounts,
};
use std::collections::HashMap;

/// What one message changed, for the pages that show part of the matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A new snapshot replaced everything.
    Reset,
    /// Rows or columns were added or removed: windows must be recut.
    Structure,
    /// One cell changed state. `column` indexes `snapshot.daemonsets`.
    Cell {
        node: String,
        column: usize,
        state: CellState,
    },
    /// A node's own fields (readiness, cordon, taints, labels, cells) changed.
    Row { node: String },
    /// A DaemonSet's column summary (counts, budget, verdict) changed.
    Column { index: usize },
    /// The health of a watched resource changed.
    Health,
}

/// Why a message was not applied. The feed logs it and keeps going.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// Deltas arrived before any snapshot (the server always sends one first).
    #[error("deltas for version {0} arrived before a snapshot")]
    NoSnapshot(u64),
    /// A row had a different number of cells than there are columns.
    #[error("row for node {node} has {got} cells but there are {want} DaemonSets")]
    RowShape {
        node: String,
        got: usize,
        want: usize,
    },
}

/// The live matrix plus indexes by node name and DaemonSet key.
#[derive(Debug, Default)]
pub struct LiveState {
    snapshot: Option<MatrixSnapshot>,
    node_index: HashMap<String, usize>,
    column_index: HashMap<String, usize>,
    counts: StateCounts,
}

impl LiveState {
    /// The current matrix, once a snapshot has arrived.
    pub fn snapshot(&self) -> Option<&MatrixSnapshot> {
        self.snapshot.as_ref()
    }

    /// The last applied version (0 before the first snapshot).
    pub fn version(&self) -> u64 {
        self.snapshot.as_ref().map_or(0, |s| s.version)
    }

    /// Cells per state over the whole matrix.
    pub fn counts(&self) -> StateCounts {
        self.counts
    }

    /// The row of one node.
    pub fn row(&self, node: &str) -> Option<&NodeRow> {
        let i = *self.node_index.get(node)?;
        self.snapshot.as_ref()?.nodes.get(i)
    }

    /// The column index of a `namespace/name` key.
    pub fn column_of(&self, key: &str) -> Option<usize> {
        self.column_index.get(key).copied()
    }

    /// Applies one message and says what changed. Deltas at or below the current version
    /// (replayed after a reconnect) are ignored.
    pub fn apply(&mut self, message: LiveMessage) -> Result<Vec<Change>, ApplyError> {
        match message {
            LiveMessage::Snapshot(mut snapshot) => {
                snapshot.nodes.sort_by(|a, b| a.name.cmp(&b.name));
                let want = snapshot.daemonsets.len();
                if let Some(bad) = snapshot.nodes.iter().find(|r| r.cells.len() != want) {
                    return Err(ApplyError::RowShape {
                        node: bad.name.clone(),
                        got: bad.cells.len(),
                        want,
                    });
                }
                self.snapshot = Some(snapshot);
                self.reindex();
                Ok(vec![Change::Reset])
            }
            LiveMessage::Deltas { version, deltas } => {
                let Some(current) = self.snapshot.as_ref().map(|s| s.version) else {
                    return Err(ApplyError::NoSnapshot(version));
                };
                if version <= current {
                    return Ok(Vec::new());
                }
                let mut changes = Vec::new();
                let mut result = Ok(());
                for delta in deltas {
                    if let Err(e) = self.apply_delta(delta, &mut changes) {
                        result = Err(e);
                    }
                }
                if let Some(s) = self.snapshot.as_mut() {
                    s.version = version;
                }
                if changes.contains(&Change::Structure) {
                    self.reindex();
                }
                result.map(|()| changes)
            }
        }
    }

    fn apply_delta(&mut self, delta: Delta, changes: &mut Vec<Change>) -> Result<(), ApplyError> {
        let Some(snap) = self.snapshot.as_mut() else {
            return Ok(());
        };
        match delta {
            Delta::Cell {
                node,
                daemonset,
                state,
            } => {
                let (Some(&r), Some(&c)) = (
                    self.node_index.get(&node),
                    self.column_index.get(&daemonset),
                ) else {
                    return Ok(());
                };
                if let Some(cell) = snap.nodes.get_mut(r).and_then(|row| row.cells.get_mut(c)) {
                    if *cell != state {
                        self.counts.shift(*cell, state);
                        *cell = state;
                        changes.push(Change::Cell {
                            node,
                            column: c,
                            state,
                        });
                    }
                }
            }
            Delta::NodeUpsert(row) => {
                let want = snap.daemonsets.len();
                if row.cells.len() != want {
                    return Err(ApplyError::RowShape {
                        node: row.name,
                        got: row.cells.len(),
                        want,
                    });
                }
                match self.node_index.get(&row.name) {
                    Some(&i) => {
                        if snap.nodes[i] != row {
                            for cell in &snap.nodes[i].cells {
                                self.counts.remove(*cell);
                            }
                            for cell in &row.cells {
                                self.counts.add(*cell);
                            }
                            changes.push(Change::Row {
                                node: row.name.clone(),
                            });
                            snap.nodes[i] = row;
                        }
                    }
                    None => {
                        let at = snap.nodes.partition_point(|r| r.name < row.name);
                        for cell in &row.cells {
                            self.counts.add(*cell);
                        }
                        snap.nodes.insert(at, row);
                        // Later rows moved: keep the index right for the rest of this batch.
                        reindex_nodes(&snap.nodes, &mut self.node_index);
                        changes.push(Change::Structure);
                    }
                }
            }
            Delta::NodeRemoved { name } => {
                if let Some(i) = self.node_index.get(&name).copied() {
                    for cell in &snap.nodes[i].cells {
                        self.counts.remove(*cell);
                    }
                    snap.nodes.remove(i);
                    reindex_nodes(&snap.nodes, &mut self.node_index);
                    changes.push(Change::Structure);
                }
            }
            Delta::DaemonSetUpsert { column, states } => {
                let states: HashMap<String, CellState> = states.into_iter().collect();
                let c = match self.column_index.get(&column.key) {
                    Some(&c) => {
                        if snap.daemonsets[c] != column {
                            snap.daemonsets[c] = column;
                            changes.push(Change::Column { index: c });
                        }
                        c
                    }
                    None => {
                        // The server keeps columns in key order (rows' cells follow it).
                        let c = snap.daemonsets.partition_point(|d| d.key < column.key);
                        snap.daemonsets.insert(c, column);
                        self.column_index = column_positions(&snap.daemonsets);
                        for row in &mut snap.nodes {
                            // A node the delta does not list has no pod and no verdict yet.
                            let state = states
                                .get(&row.name)
                                .copied()
                                .unwrap_or(CellState::Excluded);
                            row.cells.insert(c.min(row.cells.len()), state);
                            self.counts.add(state);
                        }
                        changes.push(Change::Structure);
                        return Ok(());
                    }
                };
                for row in &mut snap.nodes {
                    if let Some(&state) = states.get(&row.name) {
                        if let Some(cell) = row.cells.get_mut(c) {
                            if *cell != state {
                                self.counts.shift(*cell, state);
                                *cell = state;
                                changes.push(Change::Cell {
                                    node: row.name.clone(),
                                    column: c,
                                    state,
                                });
                            }
                        }
                    }
                }
            }
            Delta::DaemonSetRemoved { key } => {
                if let Some(c) = self.column_index.get(&key).copied() {
                    snap.daemonsets.remove(c);
                    for row in &mut snap.nodes {
                        if c < row.cells.len() {
                            let old = row.cells.remove(c);
                            self.counts.remove(old);
                        }
                    }
                    self.column_index = column_positions(&snap.daemonsets);
                    changes.push(Change::Structure);
                }
            }
            Delta::Column(column) => {
                if let Some(&c) = self.column_index.get(&column.key) {
                    if snap.daemonsets[c] != column {
                        snap.daemonsets[c] = column;
                        changes.push(Change::Column { index: c });
                    }
                }
            }
            Delta::Health(health) => {
                match snap
                    .health
                    .iter_mut()
                    .find(|h| h.resource == health.resource)
                {
                    Some(h) => *h = health,
                    None => snap.health.push(health),
                }
                changes.push(Change::Health);
            }
        }
        Ok(())
    }

    fn reindex(&mut self) {
        let Some(snap) = self.snapshot.as_ref() else {
            return;
        };
        reindex_nodes(&snap.nodes, &mut self.node_index);
        self.column_index = column_positions(&snap.daemonsets);
        self.counts = StateCounts::of(snap.nodes.iter().flat_map(|row| &row.cells));
    }
}

/// Each column's position by its `namespace/name` key: rows' cells follow the column order,
/// so an insert or removal moves every later column.
fn column_positions(columns: &[DaemonSetColumn]) -> HashMap<String, usize> {
    columns
        .iter()
        .enumerate()
        .map(|(i, d)| (d.key.clone(), i))
        .collect()
}

fn reindex_nodes(nodes: &[NodeRow], index: &mut HashMap<String, usize>) {
    index.clear();
    index.extend(nodes.iter().enumerate().map(|(i, r)| (r.name.clone(), i)));
}

#[cfg(test)]
mod tests;
