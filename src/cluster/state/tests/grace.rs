//! The new-node grace in the live store (issue 14 item 5): a young node's pod-less cells are
//! `starting`, counted apart in the column, and turn `missing` by the clock alone (no watch
//! event), as deltas a browser applies.

use super::*;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A store on a clock the test moves, with a two-minute grace, the `cluster()` objects and a
/// node `young` that joined 40 s ago and has no pods yet.
fn with_young_node() -> (ClusterState, Arc<AtomicI64>) {
    let now = Arc::new(AtomicI64::new(NOW));
    let reading = now.clone();
    let mut s =
        ClusterState::with_clock("test", Clock::new(move || reading.load(Ordering::SeqCst)))
            .with_grace(NewNodeGrace::from_seconds(120));
    let template = cluster();
    s.replace(
        &Scope::Nodes,
        template.nodes().cloned().map(Projection::Node).collect(),
    );
    s.replace(
        &Scope::DaemonSets(None),
        template
            .daemonsets
            .values()
            .cloned()
            .map(Projection::DaemonSet)
            .collect(),
    );
    s.replace(
        &Scope::Revisions(None),
        vec![
            Projection::Revision(revision("log", 1, "h1")),
            Projection::Revision(revision("mon", 1, "m1")),
        ],
    );
    s.replace(
        &Scope::Pods(None),
        vec![
            pod("log", "a", "h1"),
            pod("mon", "a", "m1"),
            pod("mon", "b", "m1"),
        ]
        .into_iter()
        .map(Projection::Pod)
        .collect(),
    );
    let mut young = node("young");
    young.created = Some(NOW - 40);
    let deltas = s.apply(Projection::Node(young));
    assert!(
        matches!(deltas.as_slice(), [Delta::NodeUpsert(_)]),
        "{deltas:?}"
    );
    s.flush_columns();
    (s, now)
}

#[test]
fn a_young_nodes_pod_less_cells_are_starting_and_counted_apart_from_missing() {
    let (s, _) = with_young_node();
    assert_eq!(
        s.cell("young", "kube-system/log"),
        Some(CellState::Starting)
    );
    assert_eq!(
        s.cell("young", "kube-system/mon"),
        Some(CellState::Starting)
    );
    assert_eq!(
        s.cell("b", "kube-system/log"),
        Some(CellState::Missing),
        "an old node: missing"
    );
    let log = s.column("kube-system/log").expect("the log column");
    assert_eq!((log.missing, log.starting), (1, 1));
    let mon = s.column("kube-system/mon").expect("the mon column");
    assert_eq!((mon.missing, mon.starting), (0, 1));
    let e = s
        .explain("young", "kube-system/log", NOW)
        .expect("an explanation");
    assert_eq!(e.state, CellState::Starting);
    assert!(e.summary.contains("joined 40 s ago"), "{}", e.summary);
    assert!(
        e.summary.contains("turns missing in 1 min 20 s"),
        "{}",
        e.summary
    );
}

#[test]
fn the_grace_ends_by_the_clock_alone_and_the_deltas_say_so() {
    let (mut s, now) = with_young_node();
    let mut browser = s.snapshot(1);
    now.store(NOW + 79, Ordering::SeqCst);
    assert_eq!(
        s.expire_grace(),
        Vec::new(),
        "one second before the end: still starting"
    );
    now.store(NOW + 80, Ordering::SeqCst);
    let mut deltas = s.expire_grace();
    assert_eq!(deltas.len(), 2, "{deltas:?}");
    assert!(deltas.iter().all(|d| matches!(
        d,
        Delta::Cell { node, state: CellState::Missing, .. } if node == "young"
    )));
    assert_eq!(s.cell("young", "kube-system/log"), Some(CellState::Missing));
    deltas.extend(s.flush_columns());
    let log = s.column("kube-system/log").expect("the log column");
    assert_eq!((log.missing, log.starting), (2, 0));
    apply_deltas(&mut browser, &deltas);
    assert_eq!(
        browser,
        s.snapshot(1),
        "the deltas rebuild the fresh snapshot"
    );
    now.store(NOW + 500, Ordering::SeqCst);
    assert_eq!(s.expire_grace(), Vec::new(), "a grace ends once");
}

#[test]
fn a_pod_that_arrives_within_the_grace_is_judged_as_it_is() {
    let (mut s, now) = with_young_node();
    let arrived = pod("log", "young", "h1").with(|p| {
        p.phase = crate::domain::PodPhase::Pending;
        p.bound = false;
    });
    s.apply(Projection::Pod(arrived));
    assert_eq!(s.cell("young", "kube-system/log"), Some(CellState::Pending));
    now.store(NOW + 200, Ordering::SeqCst);
    let deltas = s.expire_grace();
    assert_eq!(
        deltas,
        vec![Delta::Cell {
            node: "young".into(),
            daemonset: "kube-system/mon".into(),
            state: CellState::Missing,
        }],
        "only the cell still without a pod turns missing"
    );
}

#[test]
fn a_grace_of_zero_shows_missing_from_the_first_second() {
    let mut s = cluster().with_grace(NewNodeGrace::OFF);
    let mut young = node("young");
    young.created = Some(NOW - 1);
    s.apply(Projection::Node(young));
    assert_eq!(s.cell("young", "kube-system/log"), Some(CellState::Missing));
}
