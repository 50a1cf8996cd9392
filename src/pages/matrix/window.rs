//! Cutting the matrix down to the rows on screen.
//!
//! Why: at 5,000 nodes × 30 DaemonSets the full matrix is 150,000 cells; rendering (and
//! shipping to the browser for hydration) only one filtered page keeps the page usable. The
//! same function serves the server render and the browser's live copy, so both agree.

use super::query::MatrixQuery;
use crate::domain::view::{DaemonSetColumn, MatrixSnapshot, NodeRow, ResourceHealth, StateCounts};
use serde::{Deserialize, Serialize};

/// Rows per page: enough to scan, few enough that 30 columns stay fast to render.
pub const PAGE_SIZE: usize = 50;

/// One page of the matrix plus what the page needs to say about the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixWindow {
    /// The snapshot version this window was cut from.
    pub version: u64,
    /// Cluster and context shown in the header.
    pub cluster: String,
    /// Every column (columns are never windowed: 30 fit on screen).
    pub daemonsets: Vec<DaemonSetColumn>,
    /// The rows of this page, sorted by node name.
    pub rows: Vec<NodeRow>,
    /// Health of the watched resources (stale banner).
    pub health: Vec<ResourceHealth>,
    /// Nodes in the cluster.
    pub total_nodes: usize,
    /// Nodes that pass the filter.
    pub matched_nodes: usize,
    /// The page shown (1-based, after clamping).
    pub page: usize,
    /// Number of pages (at least 1).
    pub pages: usize,
    /// Cells per state over the whole matrix.
    pub state_counts: StateCounts,
    /// Corrections made while cutting (e.g. a page past the end).
    pub notes: Vec<String>,
}

/// Counts cells per state over every row (legend figures).
pub fn count_states(rows: &[NodeRow]) -> StateCounts {
    StateCounts::of(rows.iter().flat_map(|row| &row.cells))
}

/// Filters, sorts by node name and pages `snapshot` according to `query`.
pub fn cut_window(snapshot: &MatrixSnapshot, query: &MatrixQuery) -> MatrixWindow {
    let needle = query.q.to_lowercase();
    let mut matched: Vec<&NodeRow> = snapshot
        .nodes
        .iter()
        .filter(|row| needle.is_empty() || row.name.to_lowercase().contains(&needle))
        .filter(|row| match query.state {
            None => true,
            Some(state) => row.cells.contains(&state),
        })
        .collect();
    matched.sort_by(|a, b| a.name.cmp(&b.name));

    let pages = matched.len().div_ceil(PAGE_SIZE).max(1);
    let mut notes = Vec::new();
    let page = if query.page > pages {
        notes.push(format!(
            "Page {} is past the last page; showing page {pages} of {pages}.",
            query.page
        ));
        pages
    } else {
        query.page.max(1)
    };
    let start = (page - 1) * PAGE_SIZE;
    let rows: Vec<NodeRow> = matched
        .iter()
        .skip(start)
        .take(PAGE_SIZE)
        .map(|r| (*r).clone())
        .collect();

    MatrixWindow {
        version: snapshot.version,
        cluster: snapshot.cluster.clone(),
        daemonsets: snapshot.daemonsets.clone(),
        rows,
        health: snapshot.health.clone(),
        total_nodes: snapshot.nodes.len(),
        matched_nodes: matched.len(),
        page,
        pages,
        state_counts: count_states(&snapshot.nodes),
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::coverage::CellState;

    fn row(name: &str, cells: &[CellState]) -> NodeRow {
        NodeRow {
            name: name.into(),
            ready: Some(true),
            unschedulable: false,
            taints: vec![],
            labels: vec![],
            cells: cells.to_vec(),
        }
    }

    fn snapshot(nodes: Vec<NodeRow>) -> MatrixSnapshot {
        MatrixSnapshot {
            version: 7,
            cluster: "demo".into(),
            daemonsets: vec![],
            nodes,
            health: vec![],
        }
    }

    fn big(n: usize) -> MatrixSnapshot {
        snapshot(
            (0..n)
                .map(|i| {
                    let state = if i % 10 == 0 {
                        CellState::Missing
                    } else {
                        CellState::Ready
                    };
                    row(&format!("node-{i:05}"), &[state, CellState::Excluded])
                })
                .collect(),
        )
    }

    #[test]
    fn rows_are_sorted_by_node_name_whatever_the_snapshot_order() {
        let s = snapshot(vec![row("b", &[]), row("c", &[]), row("a", &[])]);
        let w = cut_window(&s, &MatrixQuery::default());
        let names: Vec<_> = w.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(
            (w.total_nodes, w.matched_nodes, w.page, w.pages),
            (3, 3, 1, 1)
        );
    }

    #[test]
    fn filters_by_name_substring_case_insensitively_and_by_state() {
        let s = big(1000);
        let cases = [
            (
                MatrixQuery {
                    q: "NODE-0001".into(),
                    ..Default::default()
                },
                10,
            ),
            (
                MatrixQuery {
                    state: Some(CellState::Missing),
                    ..Default::default()
                },
                100,
            ),
            (
                MatrixQuery {
                    q: "node-009".into(),
                    state: Some(CellState::Missing),
                    page: 1,
                },
                10,
            ),
            (
                MatrixQuery {
                    state: Some(CellState::Surge),
                    ..Default::default()
                },
                0,
            ),
        ];
        for (q, matched) in cases {
            let w = cut_window(&s, &q);
            assert_eq!(w.matched_nodes, matched, "{q:?}");
            assert!(w
                .rows
                .iter()
                .all(|r| q.state.is_none_or(|st| r.cells.contains(&st))));
        }
    }

    #[test]
    fn five_thousand_nodes_are_cut_into_pages_of_fifty() {
        let s = big(5000);
        let w = cut_window(
            &s,
            &MatrixQuery {
                page: 3,
                ..Default::default()
            },
        );
        assert_eq!(w.pages, 100);
        assert_eq!(w.rows.len(), PAGE_SIZE);
        assert_eq!(w.rows[0].name, "node-00100");
        assert_eq!(w.state_counts.get(CellState::Missing), 500);
        assert_eq!(w.state_counts.get(CellState::Excluded), 5000);
        assert!(w.notes.is_empty());
    }

    #[test]
    fn a_page_past_the_end_shows_the_last_page_with_a_note() {
        let w = cut_window(
            &big(120),
            &MatrixQuery {
                page: 40,
                ..Default::default()
            },
        );
        assert_eq!((w.page, w.pages, w.rows.len()), (3, 3, 20));
        assert_eq!(w.notes.len(), 1);
        let empty = cut_window(
            &snapshot(vec![]),
            &MatrixQuery {
                page: 2,
                ..Default::default()
            },
        );
        assert_eq!((empty.page, empty.pages, empty.rows.len()), (1, 1, 0));
    }
}
