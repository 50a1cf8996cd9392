//! Cutting the matrix down to the rows on screen.
//!
//! Why: at 5,000 nodes × 30 DaemonSets the full matrix is 150,000 cells; rendering (and
//! shipping to the browser for hydration) only one filtered page keeps the page usable. The
//! same function serves the server render and the browser's live copy, so both agree.

use super::query::{group_token, GroupChoice, MatrixQuery, RowSort};
use crate::domain::names::{POOL_LABELS, ZONE_LABEL};
use crate::domain::view::{DaemonSetColumn, MatrixSnapshot, NodeRow, ResourceHealth, StateCounts};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Rows per page: enough to scan, few enough that 30 columns stay fast to render.
pub const PAGE_SIZE: usize = 50;

/// Above this many nodes the matrix shows only rows with a problem unless asked otherwise:
/// 5,000 healthy rows hide the few that need attention.
pub const PROBLEMS_BY_DEFAULT_ABOVE: usize = 200;

/// Problem cells in a row ([`crate::domain::coverage::CellState::is_problem`]).
pub fn problem_count(row: &NodeRow) -> usize {
    row.cells.iter().filter(|c| c.is_problem()).count()
}

/// One group's header: the label value, its size and its problems per DaemonSet column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupHeader {
    /// The label value; None for the nodes without the label.
    pub value: Option<String>,
    /// Nodes in the group that pass the filters (collapsed or not).
    pub nodes: usize,
    /// Problem cells in the group ([`crate::domain::coverage::CellState::is_problem`]).
    pub problems: usize,
    /// Cells per state, one entry per DaemonSet column (the header's per-column figures).
    pub columns: Vec<StateCounts>,
    /// Its rows are hidden (and cost no rows in the page).
    pub collapsed: bool,
    /// The header stands before `rows[at_row]` (`rows.len()`: after the last row).
    pub at_row: usize,
    /// The group began on an earlier page.
    pub continued: bool,
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
    let column_needle = query.columns.to_lowercase();
    let shown_columns: Option<Vec<usize>> = (!column_needle.is_empty()).then(|| {
        snapshot
            .daemonsets
            .iter()
            .enumerate()
            .filter(|(_, d)| d.key.to_lowercase().contains(&column_needle))
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
        .filter(|row| !problems_only || row.cells.iter().any(|c| c.is_problem()))
        .collect();
    match query.sort {
        RowSort::Name => matched.sort_by(|a, b| a.name.cmp(&b.name)),
        RowSort::Problems => matched.sort_by(|a, b| {
            problem_count(b)
                .cmp(&problem_count(a))
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
                problems: members.iter().map(|r| problem_count(r)).sum(),
                columns,
                collapsed: collapsed.contains(group_token(value).as_str()),
                at_row: 0,
                continued: false,
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
            Item::Row(r) => rows.push((*r).clone()),
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
        problem_nodes: all
            .nodes
            .iter()
            .filter(|r| r.cells.iter().any(|c| c.is_problem()))
            .count(),
        page,
        pages,
        state_counts: count_states(&all.nodes),
        problems_only,
        notes,
    }
}

/// A column as the matrix shows it: without the rollout's in-flight pods. Only the DaemonSet
/// page lists them (up to 20, each with its status and age); the matrix shows the count. They
/// change with every pod a rollout starts, so carrying them made each window patch during a
/// rollout ~3.6 KB per changed column instead of a few hundred bytes.
fn matrix_column(column: &DaemonSetColumn) -> DaemonSetColumn {
    let mut column = column.clone();
    if let Some(pace) = column.pace.as_mut() {
        pace.in_flight.clear();
    }
    column
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::coverage::CellState;

    use crate::domain::testing::view_row as row;

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
    fn window_columns_leave_out_the_in_flight_pods_but_keep_their_count() {
        use crate::domain::rollout::InFlightPod;
        use crate::domain::view::RolloutPace;
        let mut column = crate::domain::testing::view_column("kube-system/log");
        column.pace = Some(RolloutPace {
            done: 1,
            desired: 2,
            complete: false,
            per_minute_tenths: Some(10),
            eta_seconds: Some(60),
            stalled_since: None,
            stall_after_seconds: 300,
            window_seconds: 600,
            causes: vec![],
            in_flight: vec![InFlightPod {
                node: "node-00001".into(),
                namespace: "kube-system".into(),
                pod: "log-abcde".into(),
                updated: true,
                status: "ContainerCreating".into(),
                created: 100,
            }],
            in_flight_total: 1,
        });
        let mut s = big(2);
        s.daemonsets = vec![
            column.clone(),
            crate::domain::testing::view_column("kube-system/other"),
        ];
        let w = cut_window(&s, &MatrixQuery::default());
        let pace = w.daemonsets[0].pace.as_ref().expect("pace kept");
        assert!(pace.in_flight.is_empty());
        assert_eq!(pace.in_flight_total, 1);
        assert_eq!(
            pace.badge(),
            column.pace.as_ref().and_then(RolloutPace::badge)
        );
        // The snapshot the DaemonSet page follows keeps them.
        assert_eq!(
            s.daemonsets[0].pace.as_ref().map(|p| p.in_flight.len()),
            Some(1)
        );
    }

    #[test]
    fn a_name_filter_finds_a_healthy_node_above_the_problems_only_threshold() {
        let s = big(1000);
        // node-00001 is healthy; without a name filter the default hides it.
        let w = cut_window(&s, &MatrixQuery::default());
        assert!(w.problems_only && w.rows.iter().all(|r| r.name != "node-00001"));
        let found = cut_window(
            &s,
            &MatrixQuery {
                q: "node-00001".into(),
                ..Default::default()
            },
        );
        assert!(!found.problems_only);
        let names: Vec<&str> = found.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["node-00001"]);
        // Asked explicitly, "only problems" still applies to a name filter.
        let strict = cut_window(
            &s,
            &MatrixQuery {
                q: "node-00001".into(),
                problems: Some(true),
                ..Default::default()
            },
        );
        assert!(strict.rows.is_empty());
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
                    ..Default::default()
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
        for (mut q, matched) in cases {
            q.problems = Some(false);
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
                problems: Some(false),
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

    fn labelled(name: &str, labels: &[(&str, &str)], cells: &[CellState]) -> NodeRow {
        let mut r = row(name, cells);
        r.labels = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        r
    }

    fn names(w: &MatrixWindow) -> Vec<&str> {
        w.rows.iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn above_two_hundred_nodes_only_problems_show_unless_asked_otherwise() {
        let w = cut_window(&big(1000), &MatrixQuery::default());
        assert!(w.problems_only);
        assert_eq!(w.matched_nodes, 100, "every tenth node has a missing cell");
        assert!(
            w.notes[0].contains("Only nodes with a problem"),
            "{:?}",
            w.notes
        );
        assert_eq!(w.problem_nodes, 100);
        let all = cut_window(
            &big(1000),
            &MatrixQuery {
                problems: Some(false),
                ..Default::default()
            },
        );
        assert_eq!((all.problems_only, all.matched_nodes), (false, 1000));
        let small = cut_window(&big(200), &MatrixQuery::default());
        assert!(!small.problems_only, "200 nodes fit without the filter");
        let asked = cut_window(
            &big(20),
            &MatrixQuery {
                problems: Some(true),
                ..Default::default()
            },
        );
        assert_eq!(asked.matched_nodes, 2);
        assert!(asked.notes.is_empty(), "asked for, so no note");
    }

    #[test]
    fn every_problem_state_counts_and_settled_or_surging_cells_do_not() {
        use CellState::*;
        let s = snapshot(vec![
            row("fine", &[Ready, Excluded, Surge]),
            row("old", &[Outdated]),
            row("lost", &[Missing]),
            row("wrong", &[Misscheduled]),
            row("sick", &[Unready]),
            row("slow", &[Pending]),
        ]);
        let w = cut_window(
            &s,
            &MatrixQuery {
                problems: Some(true),
                ..Default::default()
            },
        );
        assert_eq!(names(&w), ["lost", "old", "sick", "slow", "wrong"]);
    }

    #[test]
    fn sorting_by_problems_puts_the_worst_node_first_then_names() {
        use CellState::*;
        let s = snapshot(vec![
            row("a", &[Ready, Ready]),
            row("b", &[Missing, Ready]),
            row("c", &[Missing, Unready]),
            row("d", &[Ready, Pending]),
        ]);
        let w = cut_window(
            &s,
            &MatrixQuery {
                sort: RowSort::Problems,
                group: GroupChoice::None,
                ..Default::default()
            },
        );
        assert_eq!(names(&w), ["c", "b", "d", "a"]);
    }

    #[test]
    fn a_label_selector_keeps_only_the_nodes_the_server_matched() {
        let s = big(30);
        let only: HashSet<String> = ["node-00003", "node-00007", "gone"]
            .iter()
            .map(|n| n.to_string())
            .collect();
        let w = cut_window_with(&s, &MatrixQuery::default(), Some(&only));
        assert_eq!(names(&w), ["node-00003", "node-00007"]);
    }

    const POOL: &str = "karpenter.sh/nodepool";
    const ZONE: &str = "topology.kubernetes.io/zone";

    fn pools() -> MatrixSnapshot {
        use CellState::*;
        let mut s = snapshot(vec![
            labelled("gpu-2", &[(POOL, "gpu"), (ZONE, "a")], &[Missing, Ready]),
            labelled("gpu-1", &[(POOL, "gpu"), (ZONE, "b")], &[Ready, Ready]),
            labelled("web-1", &[(POOL, "web"), (ZONE, "a")], &[Ready, Excluded]),
            labelled("bare", &[(ZONE, "b")], &[Misscheduled, Unready]),
        ]);
        s.daemonsets = vec![
            crate::domain::testing::view_column("ns/log"),
            crate::domain::testing::view_column("ns/gpu"),
        ];
        s
    }

    #[test]
    fn rows_group_by_the_pool_label_by_default_with_counts_per_column() {
        let w = cut_window(&pools(), &MatrixQuery::default());
        assert_eq!(
            w.group_by.as_deref(),
            Some(POOL),
            "a pool label wins over the zone"
        );
        assert_eq!(w.group_keys, [POOL, ZONE]);
        assert_eq!(names(&w), ["gpu-1", "gpu-2", "web-1", "bare"]);
        let heads: Vec<_> = w
            .groups
            .iter()
            .map(|g| (g.value.as_deref(), g.nodes, g.problems, g.at_row))
            .collect();
        assert_eq!(
            heads,
            [
                (Some("gpu"), 2, 1, 0),
                (Some("web"), 1, 0, 2),
                (None, 1, 2, 3)
            ],
            "nodes without the label come last"
        );
        let gpu = &w.groups[0];
        assert_eq!(gpu.columns[0].get(CellState::Missing), 1);
        assert_eq!(gpu.columns[1].get(CellState::Ready), 2);
    }

    #[test]
    fn grouping_falls_back_to_the_zone_and_can_be_turned_off_or_chosen() {
        let mut zoned = pools();
        for r in &mut zoned.nodes {
            r.labels.retain(|(k, _)| k == ZONE);
        }
        let w = cut_window(&zoned, &MatrixQuery::default());
        assert_eq!(w.group_by.as_deref(), Some(ZONE));
        let none = cut_window(
            &pools(),
            &MatrixQuery {
                group: GroupChoice::None,
                ..Default::default()
            },
        );
        assert!(none.group_by.is_none() && none.groups.is_empty());
        assert_eq!(names(&none), ["bare", "gpu-1", "gpu-2", "web-1"]);
        let unknown = cut_window(
            &pools(),
            &MatrixQuery {
                group: GroupChoice::Label("team".into()),
                ..Default::default()
            },
        );
        assert!(unknown.group_by.is_none());
        assert!(
            unknown.notes[0].contains("No row carries the label"),
            "{:?}",
            unknown.notes
        );
        let unlabelled = cut_window(&big(3), &MatrixQuery::default());
        assert!(
            unlabelled.group_by.is_none(),
            "no pool or zone label: no groups"
        );
    }

    #[test]
    fn a_collapsed_group_keeps_its_header_and_costs_no_rows() {
        let w = cut_window(
            &pools(),
            &MatrixQuery {
                collapsed: vec!["gpu".into(), "-".into()],
                ..Default::default()
            },
        );
        assert_eq!(names(&w), ["web-1"]);
        let heads: Vec<_> = w
            .groups
            .iter()
            .map(|g| (g.token(), g.collapsed, g.at_row))
            .collect();
        assert_eq!(
            heads,
            [
                ("gpu".to_string(), true, 0),
                ("web".to_string(), false, 0),
                ("-".to_string(), true, 1)
            ]
        );
        assert_eq!(w.matched_nodes, 4, "collapsed nodes still match the filter");
    }

    #[test]
    fn a_page_that_starts_inside_a_group_repeats_its_header_as_continued() {
        let nodes = (0..120)
            .map(|i| {
                labelled(
                    &format!("n-{i:03}"),
                    &[(POOL, if i < 100 { "big" } else { "small" })],
                    &[CellState::Ready],
                )
            })
            .collect();
        let s = snapshot(nodes);
        let page2 = cut_window(
            &s,
            &MatrixQuery {
                page: 2,
                ..Default::default()
            },
        );
        // Items: header, 100 rows, header, 20 rows = 122 → pages of 50: 3.
        assert_eq!(page2.pages, 3);
        assert_eq!(page2.rows[0].name, "n-049");
        assert_eq!(page2.groups.len(), 1);
        assert!(page2.groups[0].continued);
        assert_eq!(page2.groups[0].value.as_deref(), Some("big"));
        let page3 = cut_window(
            &s,
            &MatrixQuery {
                page: 3,
                ..Default::default()
            },
        );
        let heads: Vec<_> = page3
            .groups
            .iter()
            .map(|g| (g.value.as_deref(), g.continued, g.at_row))
            .collect();
        assert_eq!(heads, [(Some("big"), true, 0), (Some("small"), false, 1)]);
    }

    #[test]
    fn a_daemonset_filter_shows_its_columns_and_filters_rows_by_their_cells_only() {
        use CellState::*;
        // Nodes missing the log agent, grouped by pool: the question of issue 13.
        let w = cut_window(
            &pools(),
            &MatrixQuery {
                columns: "NS/LOG".into(),
                state: Some(Missing),
                ..Default::default()
            },
        );
        let keys: Vec<_> = w.daemonsets.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["ns/log"]);
        assert_eq!(names(&w), ["gpu-2"], "bare misses nothing of ns/log");
        assert_eq!(w.rows[0].cells, [Missing]);
        assert_eq!(w.groups[0].columns.len(), 1);
        assert_eq!(
            w.problem_nodes, 2,
            "the header still counts the whole cluster"
        );
        let none = cut_window(
            &pools(),
            &MatrixQuery {
                columns: "nothing".into(),
                ..Default::default()
            },
        );
        assert!(none.daemonsets.is_empty());
        assert!(
            none.notes[0].contains("no column is shown"),
            "{:?}",
            none.notes
        );
    }
}
