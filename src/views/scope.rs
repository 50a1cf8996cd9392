//! The part of the matrix a `/api/live` client follows: all of it, one node's row, or one
//! DaemonSet's column.
//!
//! Why: the node page shows one row and the DaemonSet page one column; sending either the whole
//! matrix (150,000 cells at 5,000 nodes) and every change in it wastes the browser's time and
//! the network. The filter keeps the messages well-formed for the browser's `LiveState`: a
//! scoped snapshot is a smaller matrix whose rows line up with its columns, and the deltas
//! after it are the ones that touch that smaller matrix, projected onto it.

use crate::domain::view::{Delta, MatrixSnapshot, NodeRow};

/// What one `/api/live` client follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveScope {
    /// The whole matrix.
    All,
    /// One node's row (with every column summary).
    Node(String),
    /// One DaemonSet's column (`namespace/name`) and its cell on every node.
    DaemonSet(String),
}

/// A scope plus what projecting rows onto it needs: the server's column order (rows carry
/// cells in key order, and a DaemonSet scope keeps one of them).
#[derive(Debug, Clone)]
pub struct ScopeFilter {
    scope: LiveScope,
    /// Every DaemonSet key the server has, sorted (the order of a row's cells).
    keys: Vec<String>,
}

impl ScopeFilter {
    /// A filter for `scope`; call [`ScopeFilter::snapshot`] before any deltas.
    pub fn new(scope: LiveScope) -> Self {
        Self {
            scope,
            keys: Vec::new(),
        }
    }

    /// Whether this follows the whole matrix (only such a client can resume by version).
    pub fn is_all(&self) -> bool {
        self.scope == LiveScope::All
    }

    /// The part of `snapshot` in scope (and the column order deltas are projected with).
    pub fn snapshot(&mut self, mut snapshot: MatrixSnapshot) -> MatrixSnapshot {
        self.keys = snapshot.daemonsets.iter().map(|d| d.key.clone()).collect();
        match &self.scope {
            LiveScope::All => {}
            LiveScope::Node(name) => snapshot.nodes.retain(|r| &r.name == name),
            LiveScope::DaemonSet(key) => {
                let at = self.keys.iter().position(|k| k == key);
                snapshot.daemonsets.retain(|d| &d.key == key);
                for row in &mut snapshot.nodes {
                    project(row, at);
                }
            }
        }
        snapshot
    }

    /// The deltas of one version that touch the scope, projected onto it (empty: nothing
    /// the client shows changed).
    pub fn deltas(&mut self, deltas: &[Delta]) -> Vec<Delta> {
        let mut kept = Vec::new();
        for delta in deltas {
            // Track the server's column order first: later rows' cells follow it.
            match delta {
                Delta::DaemonSetUpsert { column, .. } => {
                    if let Err(at) = self.keys.binary_search(&column.key) {
                        self.keys.insert(at, column.key.clone());
                    }
                }
                Delta::DaemonSetRemoved { key } => self.keys.retain(|k| k != key),
                _ => {}
            }
            if let Some(d) = self.keep(delta) {
                kept.push(d);
            }
        }
        kept
    }

    fn keep(&self, delta: &Delta) -> Option<Delta> {
        match (&self.scope, delta) {
            (LiveScope::All, d) => Some(d.clone()),
            (_, Delta::Health(_)) => Some(delta.clone()),
            (LiveScope::Node(name), d) => match d {
                Delta::Cell { node, .. } => (node == name).then(|| d.clone()),
                Delta::NodeUpsert(row) => (&row.name == name).then(|| d.clone()),
                Delta::NodeRemoved { name: n } => (n == name).then(|| d.clone()),
                Delta::DaemonSetUpsert { column, states } => Some(Delta::DaemonSetUpsert {
                    column: column.clone(),
                    states: states.iter().filter(|(n, _)| n == name).cloned().collect(),
                }),
                Delta::DaemonSetRemoved { .. } | Delta::Column(_) | Delta::Health(_) => {
                    Some(d.clone())
                }
            },
            (LiveScope::DaemonSet(key), d) => match d {
                Delta::Cell { daemonset, .. } => (daemonset == key).then(|| d.clone()),
                Delta::NodeUpsert(row) => {
                    let mut row = row.clone();
                    project(&mut row, self.keys.iter().position(|k| k == key));
                    Some(Delta::NodeUpsert(row))
                }
                Delta::NodeRemoved { .. } => Some(d.clone()),
                Delta::DaemonSetUpsert { column, .. } => (&column.key == key).then(|| d.clone()),
                Delta::DaemonSetRemoved { key: k } => (k == key).then(|| d.clone()),
                Delta::Column(c) => (&c.key == key).then(|| d.clone()),
                Delta::Health(_) => Some(d.clone()),
            },
        }
    }
}

/// Keeps only the cell at `at` (none when the DaemonSet is not there).
fn project(row: &mut NodeRow, at: Option<usize>) {
    row.cells = at
        .and_then(|i| row.cells.get(i).copied())
        .into_iter()
        .collect();
}

#[cfg(test)]
#[path = "scope_tests.rs"]
mod tests;
