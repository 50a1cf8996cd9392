//! Cutting the matrix down to the rows on screen.
//!
//! Why: at 5,000 nodes × 30 DaemonSets the full matrix is 150,000 cells; rendering (and
//! shipping to the browser for hydration) only one filtered page keeps the page usable. The
//! same function serves the server render and the browser's live copy, so both agree.

use super::pool_tax::{pool_taxes, PoolTax};
use super::query::{group_token, GroupChoice, MatrixQuery, RowSort};
use crate::domain::coverage::{problem_cells, stands_of, RolloutStand};
use crate::domain::names::{POOL_LABELS, ZONE_LABEL};
use crate::domain::view::{DaemonSetColumn, MatrixSnapshot, NodeRow, ResourceHealth, StateCounts};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Rows per page: enough to scan, few enough that 30 columns stay fast to render.
pub const PAGE_SIZE: usize = 50;

/// Above this many nodes the matrix shows only rows with a problem unless asked otherwise:
/// 5,000 healthy rows hide the few that need attention.
pub const PROBLEMS_BY_DEFAULT_ABOVE: usize = 200;

/// Problem cells in a row, each under its column's rollout stand
/// ([`crate::domain::coverage::is_problem`], the one definition).
pub fn problem_count(row: &NodeRow, stands: &[RolloutStand]) -> usize {
    problem_cells(&row.cells, stands)
}

/// One group's header: the label value, its size and its problems per DaemonSet column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupHeader {
    /// The label value; None for the nodes without the label.
    pub value: Option<String>,
    /// Nodes in the group that pass the filters (collapsed or not).
    pub nodes: usize,
    /// Problem cells in the group ([`crate::domain::coverage::is_problem`]).
    pub problems: usize,
    /// Cells per state, one entry per DaemonSet column (the header's per-column figures).
    pub columns: Vec<StateCounts>,
    /// Its rows are hidden (and cost no rows in the page).
    pub collapsed: bool,
    /// The header stands before `rows[at_row]` (`rows.len()`: after the last row).
    pub at_row: usize,
    /// The group began on an earlier page.
    pub continued: bool,
    /// The DaemonSet tax of the whole pool (every node with this label value, §j.5) over
    /// the columns shown.
    #[serde(default)]
    pub tax: PoolTax,
}

impl GroupHeader {
    /// The `collapse=` token of this group ([`super::query::group_token`]).
    pub fn token(&self) -> String {
        super::query::group_token(self.value.as_deref())
    }
}

/// One page of the matrix plus what the page needs to say about the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixWindow {
    /// The snapshot version this window was cut from.
    pub version: u64,
    /// Cluster and context shown in the header.
    pub cluster: String,
    /// Every column (columns are never windowed: 30 fit on screen).
    pub daemonsets: Vec<DaemonSetColumn>,
    /// The rows of this page, in the order asked for (within their group).
    pub rows: Vec<NodeRow>,
    /// The label key rows are grouped by; None: not grouped.
    pub group_by: Option<String>,
    /// The group headers on this page, in order.
    pub groups: Vec<GroupHeader>,
    /// Label keys the rows can be grouped by (those the rows carry), for the toolbar.
    pub group_keys: Vec<String>,
    /// Health of the watched resources (stale banner).
    pub health: Vec<ResourceHealth>,
    /// Nodes in the cluster.
    pub total_nodes: usize,
    /// Nodes that pass the filter.
    pub matched_nodes: usize,
    /// Nodes with at least one problem cell, in the whole cluster (header figure).
    pub problem_nodes: usize,
    /// DaemonSets whose pod creations the API server refuses while nodes miss their pod
    /// (§l), in the whole cluster (header figure).
    #[serde(default)]
    pub refused_daemonsets: usize,
    /// DaemonSets in the cluster (header figure), however many columns the view shows.
    pub total_daemonsets: usize,
    /// The page shown (1-based, after clamping).
    pub page: usize,
    /// Number of pages (at least 1).
    pub pages: usize,
    /// Cells per state over the whole matrix.
    pub state_counts: StateCounts,
    /// Whether only rows with a problem are shown (asked, or the default above 200 nodes).
    pub problems_only: bool,
    /// Corrections made while cutting (e.g. a page past the end).
    pub notes: Vec<String>,
}

/// Counts cells per state over every row (legend figures).
pub fn count_states(rows: &[NodeRow]) -> StateCounts {
    StateCounts::of(rows.iter().flat_map(|row| &row.cells))
}

/// The value of label `key` on a row (rows carry their identifying labels only).
fn label_of<'a>(row: &'a NodeRow, key: &str) -> Option<&'a str> {
    row.labels
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Label keys the rows carry, pool labels and the zone first (the default grouping order),
/// then the rest by name.
fn group_keys(rows: &[NodeRow]) -> Vec<String> {
    let mut keys: Vec<String> = rows
        .iter()
        .flat_map(|r| r.labels.iter().map(|(k, _)| k.clone()))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let rank = |k: &String| {
        POOL_LABELS
            .iter()
            .position(|p| p == k)
            .or((k == ZONE_LABEL).then_some(POOL_LABELS.len()))
            .unwrap_or(usize::MAX)
    };
    keys.sort_by_key(|k| (rank(k), k.clone()));
    keys
}

/// The grouping used: as asked, else the first pool label present, else the zone, else none.
fn chosen_group(query: &MatrixQuery, keys: &[String], notes: &mut Vec<String>) -> Option<String> {
    match &query.group {
        GroupChoice::None => None,
        GroupChoice::Label(key) if keys.contains(key) => Some(key.clone()),
        GroupChoice::Label(key) => {
            notes.push(format!(
                "No row carries the label \u{201c}{}\u{201d}; rows are not grouped. Rows can be grouped by: {}.",
                key,
                if keys.is_empty() { "(none)".to_string() } else { keys.join(", ") }
            ));
            None
        }
        GroupChoice::Default => keys
            .first()
            .filter(|k| POOL_LABELS.contains(&k.as_str()) || k.as_str() == ZONE_LABEL)
            .cloned(),
    }
}

/// Filters, sorts and pages `snapshot` according to `query`.
pub fn cut_window(snapshot: &MatrixSnapshot, query: &MatrixQuery) -> MatrixWindow {
    cut_window_with(snapshot, query, None)
}

/// [`cut_window`], keeping only the nodes in `selected` when given (the nodes the query's
/// label selector matched on the server, which alone knows every label).
pub fn cut_window_with(
    snapshot: &MatrixSnapshot,
    query: &MatrixQuery,
    selected: Option<&HashSet<String>>,
) -> MatrixWindow {
    // The columns shown: a view of some DaemonSets only projects every row onto them, so the
    // state and problem filters, the sort and the group counts see only those cells.
    let shown_columns: Option<Vec<usize>> = (!query.columns.is_empty()).then(|| {
        snapshot
            .daemonsets
            .iter()
            .enumerate()
            .filter(|(_, d)| query.shows_daemonset(&d.key))
            .map(|(i, _)| i)
            .collect()
    });
    let projected: Option<MatrixSnapshot> = shown_columns.as_ref().map(|keep| MatrixSnapshot {
        version: snapshot.version,
        cluster: String::new(),
        daemonsets: keep
            .iter()
            .filter_map(|i| snapshot.daemonsets.get(*i).cloned())
            .collect(),
        nodes: snapshot
            .nodes
            .iter()
            .map(|row| NodeRow {
                cells: keep
                    .iter()
                    .filter_map(|i| row.cells.get(*i).copied())
                    .collect(),
                ..row.clone()
            })
            .collect(),
        health: Vec::new(),
    });
    let all = snapshot;
    let snapshot = projected.as_ref().unwrap_or(all);

    let needle = query.q.to_lowercase();
    // Someone who types a node's name is looking for that node, healthy or not: the default
    // "only problems" gives way to a name filter (an explicit `problems=1` still applies).
    let stands = stands_of(&snapshot.daemonsets);
    let problems_only = query
        .problems
        .unwrap_or(snapshot.nodes.len() > PROBLEMS_BY_DEFAULT_ABOVE && needle.is_empty());
    let mut matched: Vec<&NodeRow> = snapshot
        .nodes
        .iter()
        .filter(|row| needle.is_empty() || row.name.to_lowercase().contains(&needle))
        .filter(|row| selected.is_none_or(|names| names.contains(&row.name)))
        .filter(|row| match query.state {
            None => true,
            Some(state) => row.cells.contains(&state),
        })
        .filter(|row| !problems_only || problem_count(row, &stands) > 0)
        .collect();
    match query.sort {
        RowSort::Name => matched.sort_by(|a, b| a.name.cmp(&b.name)),
        RowSort::Problems => matched.sort_by(|a, b| {
            problem_count(b, &stands)
                .cmp(&problem_count(a, &stands))
                .then_with(|| a.name.cmp(&b.name))
        }),
    }

    let mut notes = Vec::new();
    if shown_columns.as_ref().is_some_and(Vec::is_empty) {
        notes.push(format!(
            "No DaemonSet's namespace/name contains \u{201c}{}\u{201d}; no column is shown.",
            query.columns
        ));
    }
    let keys = group_keys(&snapshot.nodes);
    let group_by = chosen_group(query, &keys, &mut notes);
    // Groups in order of their value (nodes without the label last); the sort within a group
    // is the one asked for (the stable sort keeps it).
    if let Some(key) = &group_by {
        matched.sort_by(|a, b| {
            let (va, vb) = (label_of(a, key), label_of(b, key));
            va.is_none().cmp(&vb.is_none()).then_with(|| va.cmp(&vb))
        });
    }
    let collapsed: HashSet<&str> = query.collapsed.iter().map(String::as_str).collect();

    // The page's items: a header per group, then its rows unless collapsed.
    enum Item<'a> {
        Header(usize),
        Row(&'a NodeRow),
    }
    let mut items: Vec<Item> = Vec::with_capacity(matched.len() + 8);
    let mut headers: Vec<GroupHeader> = Vec::new();
    if let Some(key) = &group_by {
        let taxes = pool_taxes(snapshot, key);
        let mut i = 0;
        while i < matched.len() {
            let value = label_of(matched[i], key);
            let end = matched[i..]
                .iter()
                .position(|r| label_of(r, key) != value)
                .map_or(matched.len(), |n| i + n);
            let members = &matched[i..end];
            let mut columns = vec![StateCounts::default(); snapshot.daemonsets.len()];
            for row in members {
                for (slot, cell) in columns.iter_mut().zip(&row.cells) {
                    slot.add(*cell);
                }
            }
            let header = GroupHeader {
                value: value.map(str::to_string),
                nodes: members.len(),
                problems: members.iter().map(|r| problem_count(r, &stands)).sum(),
                columns,
                collapsed: collapsed.contains(group_token(value).as_str()),
                at_row: 0,
                continued: false,
                tax: taxes.get(&value).cloned().unwrap_or_default(),
            };
            items.push(Item::Header(headers.len()));
            if !header.collapsed {
                items.extend(members.iter().map(|r| Item::Row(r)));
            }
            headers.push(header);
            i = end;
        }
    } else {
        items.extend(matched.iter().map(|r| Item::Row(r)));
    }

    let pages = items.len().div_ceil(PAGE_SIZE).max(1);
    if problems_only && query.problems.is_none() {
        notes.push(format!(
            "Only nodes with a problem are shown (the default above {PROBLEMS_BY_DEFAULT_ABOVE} nodes); choose \u{201c}all rows\u{201d} to see every node."
        ));
    }
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
    let mut rows: Vec<NodeRow> = Vec::with_capacity(PAGE_SIZE);
    let mut groups: Vec<GroupHeader> = Vec::new();
    // A page that starts inside a group repeats its header, marked as continued.
    if let Some(Item::Row(_)) = items.get(start) {
        if let Some(h) = items[..start].iter().rev().find_map(|it| match it {
            Item::Header(h) => Some(*h),
            Item::Row(_) => None,
        }) {
            let mut header = headers[h].clone();
            header.continued = true;
            groups.push(header);
        }
    }
    for item in items.iter().skip(start).take(PAGE_SIZE) {
        match item {
            Item::Header(h) => {
                let mut header = headers[*h].clone();
                header.at_row = rows.len();
                groups.push(header);
            }
            Item::Row(r) => rows.push(page_row(r)),
        }
    }

    MatrixWindow {
        version: all.version,
        cluster: all.cluster.clone(),
        daemonsets: snapshot.daemonsets.iter().map(matrix_column).collect(),
        rows,
        group_by,
        groups,
        group_keys: keys,
        health: all.health.clone(),
        total_nodes: snapshot.nodes.len(),
        matched_nodes: matched.len(),
        problem_nodes: {
            let stands = stands_of(&all.daemonsets);
            all.nodes
                .iter()
                .filter(|r| problem_count(r, &stands) > 0)
                .count()
        },
        refused_daemonsets: all
            .daemonsets
            .iter()
            .filter(|c| c.refused.is_some())
            .count(),
        total_daemonsets: all.daemonsets.len(),
        page,
        pages,
        state_counts: count_states(&all.nodes),
        problems_only,
        notes,
    }
}

/// A row as the page receives it: without its allocatable, which only the group headers' tax
/// reads here on the server (the page would carry 50 unused lists).
fn page_row(row: &NodeRow) -> NodeRow {
    NodeRow {
        allocatable: Default::default(),
        ..row.clone()
    }
}

/// A column as the matrix shows it: without the rollout's in-flight pods. Only the DaemonSet
/// page lists them (up to 20, each with its status and age); the matrix shows the count. They
/// change with every pod a rollout starts, so carrying them made each window patch during a
/// rollout ~3.6 KB per changed column instead of a few hundred bytes.
fn matrix_column(column: &DaemonSetColumn) -> DaemonSetColumn {
    let mut column = column.clone();
    // The template's requests serve the group headers' tax, cut here; the page needs none.
    column.requests = Default::default();
    // So are the unschedulable counts, which `/metrics` reads.
    column.unschedulable = Vec::new();
    if let Some(pace) = column.pace.as_mut() {
        pace.in_flight.clear();
    }
    column
}

#[cfg(test)]
#[path = "window_tests.rs"]
mod tests;
