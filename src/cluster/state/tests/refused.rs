//! A DaemonSet whose pod creations the API server refuses (§l): the store classifies its
//! newest FailedCreate into the column while nodes miss the pod, and a missing cell's
//! explanation names the refuser and the nodes.

use super::*;
use crate::domain::admission::RefusalKind;

const WEBHOOK: &str = "Error creating: pods \"log-\" is forbidden: admission webhook \"validate.policy.example.com\" denied the request: node a is reserved";

fn refused_store() -> ClusterState {
    let mut s = ClusterState::with_clock("test", Clock::new(|| NOW));
    s.replace(
        &Scope::Nodes,
        vec![Projection::Node(node("a")), Projection::Node(node("b"))],
    );
    s.replace(
        &Scope::DaemonSets(None),
        vec![Projection::DaemonSet(ds("log"))],
    );
    s.replace(
        &Scope::Revisions(None),
        vec![Projection::Revision(revision("log", 1, "h1"))],
    );
    // b runs its pod; a has none.
    s.replace(
        &Scope::Pods(None),
        vec![Projection::Pod(pod("log", "b", "h1"))],
    );
    s
}

#[test]
fn the_newest_failed_create_is_classified_into_the_column_while_a_node_misses_the_pod_j() {
    let mut s = refused_store();
    assert!(s
        .column("kube-system/log")
        .and_then(|c| c.refused.as_ref())
        .is_none());
    s.note_failed_create("kube-system/log", "Error creating: pods \"log-\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2".into(), NOW - 10);
    s.note_failed_create("kube-system/log", WEBHOOK.into(), NOW - 5);
    let deltas = s.flush_columns();
    assert!(
        deltas
            .iter()
            .any(|d| matches!(d, Delta::Column(c) if c.refused.is_some())),
        "the refusal travels with the column: {deltas:?}"
    );
    let refused = s
        .column("kube-system/log")
        .and_then(|c| c.refused.clone())
        .expect("refused");
    assert_eq!(refused.refusal.kind, RefusalKind::Webhook);
    assert_eq!(
        refused.refusal.name.as_deref(),
        Some("validate.policy.example.com")
    );
    assert_eq!(refused.last_seen, NOW - 5);
}

#[test]
fn a_missing_cell_explains_the_refusal_and_a_running_one_does_not_j() {
    let mut s = refused_store();
    s.note_failed_create("kube-system/log", WEBHOOK.into(), NOW);
    s.flush_columns();
    let e = s.explain("a", "kube-system/log", NOW).expect("explained");
    assert_eq!(e.state, CellState::Missing);
    assert!(
        e.summary.contains("validate.policy.example.com")
            && e.summary.contains("node a is reserved"),
        "{}",
        e.summary
    );
    let r = e.refusal.expect("attributed");
    assert_eq!(r.nodes, ["a"], "b runs its pod");
    let running = s.explain("b", "kube-system/log", NOW).expect("explained");
    assert!(running.refusal.is_none(), "{running:?}");
}
