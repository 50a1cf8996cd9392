use super::*;
use crate::domain::coverage::CellState::{self, *};
use crate::domain::testing::{view_column as column, view_row as row};
use crate::domain::view::MatrixSnapshot;
use crate::views::matrix::query::{GroupChoice, MatrixQuery};
use crate::views::matrix::window::cut_window;

/// 120 nodes in two pools, every tenth missing `ns/b`.
fn cluster() -> MatrixSnapshot {
    MatrixSnapshot {
        version: 1,
        cluster: "c".into(),
        daemonsets: vec![column("ns/a"), column("ns/b")],
        nodes: (0..120)
            .map(|i| {
                let mut r = row(
                    &format!("node-{i:03}"),
                    &[Ready, if i % 10 == 0 { Missing } else { Ready }],
                );
                r.labels = vec![(
                    "node.kubernetes.io/pool".into(),
                    if i < 60 { "blue" } else { "green" }.into(),
                )];
                r
            })
            .collect(),
        health: vec![],
    }
}

fn set_cell(s: &mut MatrixSnapshot, node: &str, col: usize, state: CellState) {
    s.version += 1;
    if let Some(r) = s.nodes.iter_mut().find(|r| r.name == node) {
        r.cells[col] = state;
    }
}

/// Diffs the windows of `query` before and after `change`, checks that applying the message
/// to the old window gives the new one, and returns the message.
fn round_trip(
    query: &MatrixQuery,
    change: impl FnOnce(&mut MatrixSnapshot),
) -> Option<ViewMessage> {
    let mut s = cluster();
    let old = cut_window(&s, query);
    change(&mut s);
    let new = cut_window(&s, query);
    let message = diff(&old, &new);
    let mut held = Some(old);
    if let Some(m) = message.clone() {
        apply(&mut held, m).unwrap();
    }
    let mut held = held.unwrap();
    // Nothing to send may still be a newer version: the browser needs no message for it.
    held.version = new.version;
    assert_eq!(held, new, "apply(old, diff(old, new)) == new");
    message
}

fn patch(m: Option<ViewMessage>) -> WindowPatch {
    match m {
        Some(ViewMessage::Patch(p)) => p,
        other => panic!("expected a patch, got {other:?}"),
    }
}

#[test]
fn one_cell_changing_in_the_view_sends_that_row_only() {
    let q = MatrixQuery {
        problems: Some(false),
        group: GroupChoice::None,
        ..Default::default()
    };
    let p = patch(round_trip(&q, |s| set_cell(s, "node-003", 0, Outdated)));
    assert_eq!(p.rows.len(), 1);
    assert_eq!(p.rows[0].name, "node-003");
    assert_eq!(p.order, None, "the same rows in the same order");
    assert!(p.figures.is_some(), "the legend's state counts changed");
    assert!(p.columns.is_empty());
}

#[test]
fn a_change_outside_the_view_sends_only_the_figures_about_the_rest() {
    let q = MatrixQuery {
        problems: Some(false),
        group: GroupChoice::None,
        ..Default::default()
    };
    // Page 1 shows node-000..049; node-101 is on page 3.
    let p = patch(round_trip(&q, |s| set_cell(s, "node-101", 0, Unready)));
    assert!(p.rows.is_empty() && p.order.is_none(), "{p:?}");
    let figures = p.figures.expect("problem nodes and counts changed");
    assert_eq!(figures.problem_nodes, 13);
}

#[test]
fn a_node_turning_bad_enters_the_problems_view_in_order_and_moves_its_group_counts() {
    let q = MatrixQuery::default(); // problems only (120 < 200: asked explicitly below)
    let q = MatrixQuery {
        problems: Some(true),
        ..q
    };
    let p = patch(round_trip(&q, |s| set_cell(s, "node-005", 0, Missing)));
    assert_eq!(p.rows.len(), 1, "only the new row travels");
    let order = p.order.expect("a row entered");
    assert_eq!(&order[..3], ["node-000", "node-005", "node-010"]);
    let groups = p.groups.expect("the blue pool has one more problem");
    assert_eq!(groups[0].problems, 7);
}

#[test]
fn an_unchanged_cluster_sends_nothing() {
    let q = MatrixQuery::default();
    assert_eq!(round_trip(&q, |s| s.version += 1), None);
}

#[test]
fn a_column_summary_change_sends_that_column_only() {
    let q = MatrixQuery::default();
    let p = patch(round_trip(&q, |s| {
        s.version += 1;
        s.daemonsets[1].ready = 1;
    }));
    assert_eq!(p.columns.len(), 1);
    assert_eq!(p.columns[0].key, "ns/b");
    assert!(p.rows.is_empty());
}

#[test]
fn a_new_daemonset_resends_the_whole_window() {
    let q = MatrixQuery::default();
    let m = round_trip(&q, |s| {
        s.version += 1;
        s.daemonsets.push(column("ns/c"));
        for r in &mut s.nodes {
            r.cells.push(Pending);
        }
    });
    assert!(matches!(m, Some(ViewMessage::Window(w)) if w.daemonsets.len() == 3));
}

#[test]
fn health_and_a_removed_node_round_trip() {
    let q = MatrixQuery {
        problems: Some(false),
        ..Default::default()
    };
    let p = patch(round_trip(&q, |s| {
        s.version += 1;
        s.nodes.retain(|r| r.name != "node-001");
        s.health = vec![crate::domain::view::ResourceHealth {
            resource: "pods".into(),
            synced: false,
            error: Some("cannot watch pods: forbidden".into()),
            stale_since: Some(10),
        }];
    }));
    assert!(p.order.is_some() && p.health.is_some());
    // The next row moves up onto page 1 (a group header takes one of its 50 places); the
    // rows that stay are named, not resent.
    let sent: Vec<&str> = p.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(sent, ["node-049"]);
}

#[test]
fn a_patch_naming_an_unknown_row_is_refused_and_leaves_a_clear_error() {
    let q = MatrixQuery::default();
    let mut held = Some(cut_window(&cluster(), &q));
    let bad = ViewMessage::Patch(WindowPatch {
        version: 9,
        order: Some(vec!["ghost".into()]),
        ..Default::default()
    });
    let err = apply(&mut held, bad).unwrap_err();
    assert!(err.to_string().contains("ghost"), "{err}");
    let stray = ViewMessage::Patch(WindowPatch {
        version: 9,
        rows: vec![row("ghost", &[Ready, Ready])],
        ..Default::default()
    });
    assert!(matches!(
        apply(&mut held, stray),
        Err(PatchError::StrayRow { .. })
    ));
    let misshapen = ViewMessage::Patch(WindowPatch {
        version: 9,
        rows: vec![row("node-000", &[Ready])],
        ..Default::default()
    });
    assert!(matches!(
        apply(&mut held, misshapen),
        Err(PatchError::RowShape {
            got: 1,
            want: 2,
            ..
        })
    ));
}

#[test]
fn patches_are_small_on_the_wire() {
    let q = MatrixQuery {
        problems: Some(false),
        ..Default::default()
    };
    let window = serde_json::to_string(&ViewMessage::Window(cut_window(&cluster(), &q))).unwrap();
    let p = round_trip(&q, |s| set_cell(s, "node-003", 0, Outdated)).unwrap();
    let p = serde_json::to_string(&p).unwrap();
    assert!(
        p.len() * 5 < window.len(),
        "patch {} bytes vs window {} bytes",
        p.len(),
        window.len()
    );
}
