//! The window cut from a matrix: what rows, groups and column summaries a view gets.

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
    assert_eq!(
        w.total_daemonsets,
        pools().daemonsets.len(),
        "and all its DaemonSets, not the one column shown"
    );
    assert!(w.total_daemonsets > 1);
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

/// What counts as a problem, per column ([`crate::domain::coverage::is_problem`]).
#[path = "window_problem_tests.rs"]
mod problems;
