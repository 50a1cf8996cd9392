//! The missing causes the alert metrics carry, as the live store keeps them: each column
//! counts its pod-less nodes past the grace by cause (`domain::alerts`), from the FailedCreate
//! events (§a.7), the nodes' readiness and the pods' binding, and time alone moves an unbound
//! pod past the grace.

use super::*;
use crate::domain::alerts::MissingCauses;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

fn causes(s: &ClusterState, ds: &str) -> Option<MissingCauses> {
    s.column(&format!("kube-system/{ds}"))
        .and_then(|c| c.missing_causes)
}

#[test]
fn a_pod_less_node_is_unexplained_until_a_failed_create_says_refused_a7() {
    let mut s = cluster();
    s.flush_columns();
    assert_eq!(
        causes(&s, "log"),
        Some(MissingCauses {
            unexplained: 1,
            ..Default::default()
        }),
        "log has no pod on b"
    );
    s.note_failed_create(
        "kube-system/log",
        "Error creating: pods \"log-\" is forbidden: exceeded quota: pods".into(),
        NOW - 5,
    );
    s.flush_columns();
    assert_eq!(
        causes(&s, "log"),
        Some(MissingCauses {
            refused: 1,
            recheck_at: Some(NOW - 5 + crate::domain::alerts::REFUSAL_RECENT_SECONDS + 1),
            ..Default::default()
        })
    );
    assert_eq!(
        causes(&s, "mon"),
        Some(MissingCauses::default()),
        "mon runs everywhere it should"
    );
}

#[test]
fn a_pod_less_node_that_is_not_ready_is_node_not_ready() {
    let mut s = cluster();
    let mut down = node("b");
    down.ready = Some(false);
    step(&mut s, |s| s.apply(Projection::Node(down)));
    assert_eq!(
        causes(&s, "log"),
        Some(MissingCauses {
            node_not_ready: 1,
            ..Default::default()
        })
    );
}

#[test]
fn an_unbound_pod_turns_unschedulable_when_it_outlives_the_grace_by_the_clock_alone() {
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
        // OnDelete: no rollout pace marks it every second, so only the causes' own due time
        // brings a recompute (§d.5).
        vec![Projection::DaemonSet(crate::domain::DaemonSetFacts {
            strategy: crate::domain::UpdateStrategy::OnDelete,
            ..ds("log")
        })],
    );
    s.replace(
        &Scope::Revisions(None),
        vec![Projection::Revision(revision("log", 1, "h1"))],
    );
    let pending = pod("log", "b", "h1").unbound().with(|p| {
        p.phase = crate::domain::PodPhase::Pending;
        p.ready = false;
        p.ready_since = None;
        p.created = NOW - 10;
    });
    s.replace(
        &Scope::Pods(None),
        vec![
            Projection::Pod(pod("log", "a", "h1")),
            Projection::Pod(pending),
        ],
    );
    s.flush_columns();
    assert_eq!(
        causes(&s, "log"),
        Some(MissingCauses {
            recheck_at: Some(NOW + 110),
            ..Default::default()
        }),
        "10 s unbound: the scheduler may still bind it; due again when it outgrows the grace"
    );
    now.store(NOW + 109, Ordering::SeqCst);
    s.mark_time_dependent();
    assert!(!s.has_pending_columns(), "not due yet: no recompute");
    now.store(NOW + 120, Ordering::SeqCst);
    s.mark_time_dependent();
    assert!(s.has_pending_columns(), "due: recomputed");
    s.flush_columns();
    assert_eq!(
        causes(&s, "log"),
        Some(MissingCauses {
            unschedulable: 1,
            ..Default::default()
        }),
        "unbound for longer than the grace, with no event"
    );
}
