use super::*;
use crate::domain::coverage::CellState::*;
use crate::domain::testing::{view_column as column, view_row as row};
use crate::domain::view::{LiveMessage, ResourceHealth};
use crate::views::live_state::LiveState;

fn matrix() -> MatrixSnapshot {
    MatrixSnapshot {
        version: 1,
        cluster: "c".into(),
        daemonsets: vec![column("ns/a"), column("ns/c")],
        nodes: vec![
            row("n1", &[Ready, Missing]),
            row("n2", &[Outdated, Excluded]),
        ],
        health: vec![],
    }
}

/// One version of everything a watcher can publish: a cell, a new DaemonSet between the two,
/// a node changing, a node appearing, a column summary, health.
fn versions() -> Vec<Vec<Delta>> {
    let mut b = column("ns/b");
    b.desired = 3;
    let mut a = column("ns/a");
    a.ready = 1;
    vec![
        vec![Delta::Cell {
            node: "n1".into(),
            daemonset: "ns/a".into(),
            state: Unready,
        }],
        vec![Delta::DaemonSetUpsert {
            column: b,
            states: vec![("n1".into(), Pending), ("n2".into(), Ready)],
        }],
        vec![
            Delta::NodeUpsert(row("n2", &[Ready, Surge, Missing])),
            Delta::NodeUpsert(row("n3", &[Missing, Ready, Ready])),
        ],
        vec![Delta::Column(a)],
        vec![Delta::Cell {
            node: "n3".into(),
            daemonset: "ns/c".into(),
            state: Unready,
        }],
        vec![Delta::Health(ResourceHealth {
            resource: "pods".into(),
            synced: false,
            error: Some("forbidden".into()),
            stale_since: Some(5),
        })],
        vec![Delta::DaemonSetRemoved { key: "ns/a".into() }],
        vec![Delta::NodeRemoved { name: "n1".into() }],
    ]
}

/// What the scoped client holds after every version equals the scope of what an unscoped
/// client holds: the filter loses nothing the scope shows and adds nothing it does not.
fn agrees(scope: LiveScope) {
    let mut full = LiveState::default();
    full.apply(LiveMessage::Snapshot(matrix())).unwrap();
    let mut filter = ScopeFilter::new(scope.clone());
    let mut scoped = LiveState::default();
    scoped
        .apply(LiveMessage::Snapshot(filter.snapshot(matrix())))
        .unwrap();
    for (i, deltas) in versions().into_iter().enumerate() {
        let version = 2 + i as u64;
        let kept = filter.deltas(&deltas);
        full.apply(LiveMessage::Deltas { version, deltas }).unwrap();
        scoped
            .apply(LiveMessage::Deltas {
                version,
                deltas: kept,
            })
            .unwrap();
        let want = ScopeFilter::new(scope.clone()).snapshot(full.snapshot().unwrap().clone());
        assert_eq!(
            scoped.snapshot().unwrap(),
            &want,
            "{scope:?} after version {version}"
        );
    }
}

#[test]
fn a_node_scope_follows_exactly_that_nodes_row() {
    agrees(LiveScope::Node("n2".into()));
    agrees(LiveScope::Node("n3".into()));
}

#[test]
fn a_daemonset_scope_follows_exactly_that_column_even_as_columns_come_before_it() {
    agrees(LiveScope::DaemonSet("ns/c".into()));
    agrees(LiveScope::DaemonSet("ns/b".into()));
    agrees(LiveScope::DaemonSet("ns/a".into()));
}

#[test]
fn the_whole_scope_changes_nothing() {
    agrees(LiveScope::All);
}

#[test]
fn changes_elsewhere_send_nothing() {
    let mut filter = ScopeFilter::new(LiveScope::Node("n1".into()));
    filter.snapshot(matrix());
    assert!(filter
        .deltas(&[Delta::Cell {
            node: "n2".into(),
            daemonset: "ns/a".into(),
            state: Missing,
        }])
        .is_empty());
    let mut filter = ScopeFilter::new(LiveScope::DaemonSet("ns/a".into()));
    filter.snapshot(matrix());
    assert!(filter
        .deltas(&[
            Delta::Cell {
                node: "n2".into(),
                daemonset: "ns/c".into(),
                state: Missing,
            },
            Delta::Column(column("ns/c")),
        ])
        .is_empty());
}

#[test]
fn a_scoped_snapshot_is_a_fraction_of_the_matrix() {
    let big = MatrixSnapshot {
        version: 1,
        cluster: "c".into(),
        daemonsets: (0..30).map(|i| column(&format!("ns/d{i:02}"))).collect(),
        nodes: (0..2000)
            .map(|i| row(&format!("node-{i:04}"), &[Ready; 30]))
            .collect(),
        health: vec![],
    };
    let size = |s: &MatrixSnapshot| serde_json::to_string(s).unwrap().len();
    let whole = size(&big);
    let node = size(&ScopeFilter::new(LiveScope::Node("node-0007".into())).snapshot(big.clone()));
    let ds = size(&ScopeFilter::new(LiveScope::DaemonSet("ns/d03".into())).snapshot(big.clone()));
    assert!(node * 50 < whole, "node scope {node} of {whole} bytes");
    assert!(ds * 2 < whole, "DaemonSet scope {ds} of {whole} bytes");
}
