//! The store keeps each rollout's progress samples on its own clock and puts the pace, the
//! stall and its cause into the column summary, with no event needed for a stall to show.

use super::*;
use std::sync::atomic::{AtomicI64, Ordering};

static PACE_NOW: AtomicI64 = AtomicI64::new(NOW);

fn pace_of(s: &ClusterState) -> crate::domain::view::RolloutPace {
    s.column("kube-system/log")
        .and_then(|c| c.pace.clone())
        .expect("a RollingUpdate column has a pace")
}

#[test]
fn a_rollout_is_sampled_on_the_store_clock_and_stalls_after_the_threshold_with_its_cause() {
    let mut s = ClusterState::with_clock("test", Clock::new(|| PACE_NOW.load(Ordering::SeqCst)))
        .with_stall_after(120);
    let mut not_ready = node("b");
    not_ready.ready = Some(false);
    s.replace(
        &Scope::Nodes,
        vec![Projection::Node(node("a")), Projection::Node(not_ready)],
    );
    s.replace(
        &Scope::DaemonSets(None),
        vec![Projection::DaemonSet(DaemonSetFacts {
            strategy: crate::domain::testing::ds_budget(1, 0).strategy,
            ..ds("log")
        })],
    );
    s.replace(
        &Scope::Revisions(None),
        vec![
            Projection::Revision(revision("log", 1, "h1")),
            Projection::Revision(revision("log", 2, "h2")),
        ],
    );
    // §d.4: h2 is current; a is updated, b's old pod is stuck terminating on a NotReady node.
    let old_b = PodFacts {
        ready: false,
        ready_since: None,
        terminating: true,
        ..pod("log", "b", "h1")
    };
    s.replace(
        &Scope::Pods(None),
        vec![
            Projection::Pod(pod("log", "a", "h2")),
            Projection::Pod(old_b),
        ],
    );
    let first = pace_of(&s);
    assert_eq!((first.done, first.desired), (1, 2));
    assert_eq!(
        first.per_minute_tenths, None,
        "no time has passed: unknown, not zero"
    );
    assert!(first.stalled_since.is_none());

    PACE_NOW.store(NOW + 119, Ordering::SeqCst);
    s.mark_time_dependent();
    s.flush_columns();
    assert!(
        pace_of(&s).stalled_since.is_none(),
        "119 s < 120 s threshold"
    );

    PACE_NOW.store(NOW + 120, Ordering::SeqCst);
    s.mark_time_dependent();
    let deltas = s.flush_columns();
    assert!(
        deltas.iter().any(|d| matches!(d, Delta::Column(c) if c.pace.as_ref().is_some_and(|p| p.stalled_since == Some(NOW)))),
        "a stall shows by time alone: {deltas:?}"
    );
    let stalled = pace_of(&s);
    assert_eq!(stalled.badge().as_deref(), Some("stalled"));
    assert_eq!(
        stalled.causes.first().map(|c| c.kind()),
        Some("NotReadyNodesHoldBudget"),
        "§d.3: b holds the one unit of maxUnavailable: {:?}",
        stalled.causes
    );
    assert_eq!(stalled.in_flight_total, 1);
}

static FC_NOW: AtomicI64 = AtomicI64::new(NOW);

#[test]
fn a_failed_create_names_the_cause_of_a_stalled_rollout() {
    // §a.7: the node has no pod because its creation is rejected.
    let mut s = ClusterState::with_clock("test", Clock::new(|| FC_NOW.load(Ordering::SeqCst)))
        .with_stall_after(60);
    s.replace(&Scope::Nodes, vec![Projection::Node(node("a"))]);
    s.replace(
        &Scope::DaemonSets(None),
        vec![Projection::DaemonSet(ds("log"))],
    );
    s.replace(
        &Scope::Revisions(None),
        vec![Projection::Revision(revision("log", 1, "h1"))],
    );
    s.replace(&Scope::Pods(None), vec![]);
    s.note_failed_create("kube-system/unknown", "ignored".into(), NOW);
    assert!(
        !s.failed_creates.contains_key("kube-system/unknown"),
        "no such DaemonSet"
    );
    FC_NOW.store(NOW + 60, Ordering::SeqCst);
    s.note_failed_create("kube-system/log", "Error creating: old".into(), NOW - 1);
    s.note_failed_create(
        "kube-system/log",
        "Error creating: denied by webhook".into(),
        NOW + 30,
    );
    s.flush_columns();
    let p = pace_of(&s);
    assert!(p.stalled_since.is_some());
    assert_eq!(
        p.causes,
        [crate::domain::rollout::StallCause::CreationRejected {
            message: "Error creating: denied by webhook".into(),
            nodes: vec!["a".into()],
        }]
    );
}

static STALE_NOW: AtomicI64 = AtomicI64::new(NOW);

#[test]
fn while_a_watcher_is_down_time_alone_does_not_make_a_rollout_stalled() {
    // No event because the watch is lost is not "no progress": the pace is frozen instead.
    let mut s = ClusterState::with_clock("test", Clock::new(|| STALE_NOW.load(Ordering::SeqCst)))
        .with_stall_after(60);
    s.replace(&Scope::Nodes, vec![Projection::Node(node("a"))]);
    s.replace(
        &Scope::DaemonSets(None),
        vec![Projection::DaemonSet(ds("log"))],
    );
    s.replace(
        &Scope::Revisions(None),
        vec![Projection::Revision(revision("log", 1, "h1"))],
    );
    s.replace(&Scope::Pods(None), vec![]);
    s.set_health(ResourceHealth {
        resource: "pods".into(),
        synced: false,
        error: Some("watch lost".into()),
        stale_since: Some(NOW),
    });
    STALE_NOW.store(NOW + 600, Ordering::SeqCst);
    s.mark_time_dependent();
    s.flush_columns();
    assert!(
        pace_of(&s).stalled_since.is_none(),
        "stale data: no stall claimed"
    );
    s.set_health(ResourceHealth {
        resource: "pods".into(),
        synced: true,
        error: None,
        stale_since: None,
    });
    s.mark_time_dependent();
    s.flush_columns();
    assert!(
        pace_of(&s).stalled_since.is_some(),
        "live again: the stall shows"
    );
}

static PROBLEM_NOW: AtomicI64 = AtomicI64::new(NOW);

#[test]
fn outdated_cells_count_as_problems_once_the_rollout_stalls() {
    // docs/architecture.md#what-counts-as-a-problem: c's old revision is the rollout moving
    // (§d.3) until the stall threshold passes with no progress; b's pod (terminating on a
    // NotReady node) is pending, a problem throughout.
    let mut s = ClusterState::with_clock("test", Clock::new(|| PROBLEM_NOW.load(Ordering::SeqCst)))
        .with_stall_after(120);
    let mut not_ready = node("b");
    not_ready.ready = Some(false);
    s.replace(
        &Scope::Nodes,
        vec![
            Projection::Node(node("a")),
            Projection::Node(not_ready),
            Projection::Node(node("c")),
        ],
    );
    s.replace(
        &Scope::DaemonSets(None),
        vec![Projection::DaemonSet(DaemonSetFacts {
            strategy: crate::domain::testing::ds_budget(1, 0).strategy,
            ..ds("log")
        })],
    );
    s.replace(
        &Scope::Revisions(None),
        vec![
            Projection::Revision(revision("log", 1, "h1")),
            Projection::Revision(revision("log", 2, "h2")),
        ],
    );
    let old_b = PodFacts {
        ready: false,
        ready_since: None,
        terminating: true,
        ..pod("log", "b", "h1")
    };
    s.replace(
        &Scope::Pods(None),
        vec![
            Projection::Pod(pod("log", "a", "h2")),
            Projection::Pod(old_b),
            Projection::Pod(pod("log", "c", "h1")),
        ],
    );
    let problems = |s: &ClusterState| s.column("kube-system/log").map(|c| c.problem_nodes);
    assert_eq!(problems(&s), Some(1), "moving: only b");
    PROBLEM_NOW.store(NOW + 120, Ordering::SeqCst);
    s.mark_time_dependent();
    s.flush_columns();
    assert!(pace_of(&s).stalled_since.is_some());
    assert_eq!(
        problems(&s),
        Some(2),
        "stalled: c's outdated cell is a problem too"
    );
}
