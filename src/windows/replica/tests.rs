//! The browser's live store: snapshots, deltas, replays after a reconnect, misshapen input.
use super::*;
use crate::domain::view::ResourceHealth;
use CellState::*;

use crate::domain::testing::view_column as column;

use crate::domain::testing::view_row as row;

fn live() -> LiveState {
    let mut s = LiveState::default();
    let snap = MatrixSnapshot {
        version: 10,
        cluster: "demo".into(),
        daemonsets: vec![column("kube-system/log"), column("monitoring/gpu")],
        nodes: vec![row("b", &[Ready, Excluded]), row("a", &[Ready, Ready])],
        health: vec![],
    };
    assert_eq!(
        s.apply(LiveMessage::Snapshot(snap)).unwrap(),
        vec![Change::Reset]
    );
    s
}

fn deltas(version: u64, deltas: Vec<Delta>) -> LiveMessage {
    LiveMessage::Deltas { version, deltas }
}

#[test]
fn a_snapshot_is_sorted_indexed_and_counted() {
    let s = live();
    assert_eq!(s.version(), 10);
    assert_eq!(s.snapshot().unwrap().nodes[0].name, "a");
    assert_eq!(s.row("b").unwrap().cells, vec![Ready, Excluded]);
    assert_eq!(s.column_of("monitoring/gpu"), Some(1));
    assert_eq!(s.counts().get(Ready), 3);
}

#[test]
fn one_cell_delta_reports_exactly_that_cell() {
    let mut s = live();
    let changes = s
        .apply(deltas(
            11,
            vec![Delta::Cell {
                node: "b".into(),
                daemonset: "kube-system/log".into(),
                state: Outdated,
            }],
        ))
        .unwrap();
    assert_eq!(
        changes,
        vec![Change::Cell {
            node: "b".into(),
            column: 0,
            state: Outdated
        }]
    );
    assert_eq!(s.row("b").unwrap().cells[0], Outdated);
    assert_eq!(s.counts().get(Ready), 2);
    assert_eq!(s.counts().get(Outdated), 1);
    assert_eq!(s.version(), 11);
}

#[test]
fn replayed_deltas_after_a_reconnect_are_ignored() {
    let mut s = live();
    let d = || {
        deltas(
            11,
            vec![Delta::Cell {
                node: "a".into(),
                daemonset: "kube-system/log".into(),
                state: Missing,
            }],
        )
    };
    assert_eq!(s.apply(d()).unwrap().len(), 1);
    assert_eq!(s.apply(d()).unwrap(), vec![]);
    assert_eq!(s.apply(deltas(5, vec![])).unwrap(), vec![]);
}

#[test]
fn deltas_before_any_snapshot_are_an_error() {
    let mut s = LiveState::default();
    assert_eq!(s.apply(deltas(3, vec![])), Err(ApplyError::NoSnapshot(3)));
}

#[test]
fn unchanged_cells_produce_no_change() {
    let mut s = live();
    let changes = s
        .apply(deltas(
            11,
            vec![Delta::Cell {
                node: "a".into(),
                daemonset: "kube-system/log".into(),
                state: Ready,
            }],
        ))
        .unwrap();
    assert!(changes.is_empty());
}

#[test]
fn node_add_and_remove_are_structural_and_keep_name_order() {
    let mut s = live();
    let changes = s
        .apply(deltas(
            11,
            vec![Delta::NodeUpsert(row("aa", &[Missing, Excluded]))],
        ))
        .unwrap();
    assert_eq!(changes, vec![Change::Structure]);
    let names: Vec<_> = s
        .snapshot()
        .unwrap()
        .nodes
        .iter()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(names, ["a", "aa", "b"]);
    assert_eq!(s.row("b").unwrap().cells, vec![Ready, Excluded]);
    s.apply(deltas(12, vec![Delta::NodeRemoved { name: "a".into() }]))
        .unwrap();
    assert!(s.row("a").is_none());
    assert_eq!(s.row("aa").unwrap().cells[0], Missing);
    assert_eq!(s.counts().total(), 4);
}

#[test]
fn an_existing_node_upsert_is_a_row_change() {
    let mut s = live();
    let mut r = row("a", &[Ready, Ready]);
    r.unschedulable = true;
    let changes = s.apply(deltas(11, vec![Delta::NodeUpsert(r)])).unwrap();
    assert_eq!(changes, vec![Change::Row { node: "a".into() }]);
    assert!(s.row("a").unwrap().unschedulable);
}

#[test]
fn a_misshapen_row_is_rejected_without_touching_the_matrix() {
    let mut s = live();
    let err = s
        .apply(deltas(11, vec![Delta::NodeUpsert(row("c", &[Ready]))]))
        .unwrap_err();
    assert!(matches!(
        err,
        ApplyError::RowShape {
            got: 1,
            want: 2,
            ..
        }
    ));
    assert!(s.row("c").is_none());
}

#[test]
fn daemonset_upsert_updates_its_column_and_only_changed_cells() {
    let mut s = live();
    let mut col = column("monitoring/gpu");
    col.rollout_done = false;
    let changes = s
        .apply(deltas(
            11,
            vec![Delta::DaemonSetUpsert {
                column: col,
                states: vec![("a".into(), Ready), ("b".into(), Misscheduled)],
            }],
        ))
        .unwrap();
    assert_eq!(
        changes,
        vec![
            Change::Column { index: 1 },
            Change::Cell {
                node: "b".into(),
                column: 1,
                state: Misscheduled
            }
        ]
    );
}

#[test]
fn new_and_removed_daemonsets_reshape_every_row() {
    let mut s = live();
    s.apply(deltas(
        11,
        vec![Delta::DaemonSetUpsert {
            column: column("x/new"),
            states: vec![("a".into(), Pending)],
        }],
    ))
    .unwrap();
    assert_eq!(s.row("a").unwrap().cells, vec![Ready, Ready, Pending]);
    assert_eq!(s.row("b").unwrap().cells, vec![Ready, Excluded, Excluded]);
    s.apply(deltas(
        12,
        vec![Delta::DaemonSetRemoved {
            key: "kube-system/log".into(),
        }],
    ))
    .unwrap();
    assert_eq!(s.row("a").unwrap().cells, vec![Ready, Pending]);
    assert_eq!(s.column_of("x/new"), Some(1));
    assert_eq!(s.counts().total(), 4);
}

#[test]
fn health_deltas_replace_the_resource_entry() {
    let mut s = live();
    let h = |err: Option<&str>| ResourceHealth {
        resource: "pods".into(),
        synced: err.is_none(),
        error: err.map(str::to_string),
        stale_since: None,
    };
    s.apply(deltas(
        11,
        vec![Delta::Health(h(Some("cannot list pods: forbidden")))],
    ))
    .unwrap();
    s.apply(deltas(12, vec![Delta::Health(h(None))])).unwrap();
    let health = &s.snapshot().unwrap().health;
    assert_eq!(health.len(), 1);
    assert!(health[0].synced);
}
