//! The causes the alert metrics carry, each against the rule it comes from (§a shouldRun,
//! §c counted pods, §a.7 FailedCreate, the stall classifier's §d.3/§d.4 causes) and the
//! new-node grace (issue 14 item 5).
use super::*;
use crate::facts::PodFacts;
use crate::rollout::StuckPod;
use crate::testing::{pod, PodExt};

const NOW: i64 = 10_000;

fn slot<'a>(node: &'a str, pods: &'a [&'a PodFacts]) -> NodeSlot<'a> {
    NodeSlot {
        node,
        should_run: true,
        gone: false,
        pods,
    }
}

fn causes(
    slots: &[NodeSlot<'_>],
    not_ready: &[&str],
    young: &[&str],
    events: &[FailedCreate],
) -> MissingCauses {
    let young_fn = |n: &str| young.contains(&n);
    let ready_fn = |n: &str| Some(!not_ready.contains(&n));
    missing_causes(&MissingFacts {
        slots,
        young: &young_fn,
        node_ready: &ready_fn,
        failed_creates: events,
        grace: NewNodeGrace::default(),
        now: NOW,
    })
}

#[test]
fn a_pod_less_node_past_the_grace_is_unexplained_until_something_says_why() {
    let got = causes(&[slot("n1", &[])], &[], &[], &[]);
    assert_eq!(
        got,
        MissingCauses {
            unexplained: 1,
            ..Default::default()
        }
    );
}

#[test]
fn a_pod_less_node_within_its_grace_is_not_counted_at_all() {
    let got = causes(&[slot("young", &[])], &["young"], &["young"], &[]);
    assert_eq!(
        got,
        MissingCauses::default(),
        "issue 14 item 5: starting, not missing"
    );
}

#[test]
fn a_recent_failed_create_makes_every_pod_less_node_refused_a7() {
    let event = FailedCreate {
        message: "Error creating: admission webhook \"deny.example\" denied the request".into(),
        last_seen: NOW - 60,
    };
    let got = causes(&[slot("n1", &[]), slot("n2", &[])], &["n2"], &[], &[event]);
    assert_eq!(
        got,
        MissingCauses {
            refused: 2,
            recheck_at: Some(NOW - 60 + REFUSAL_RECENT_SECONDS + 1),
            ..Default::default()
        },
        "the API server's word first; re-checked when the refusal ages out"
    );
    let stale = FailedCreate {
        message: "old".into(),
        last_seen: NOW - REFUSAL_RECENT_SECONDS - 1,
    };
    assert_eq!(
        causes(&[slot("n1", &[])], &[], &[], &[stale]),
        MissingCauses {
            unexplained: 1,
            ..Default::default()
        },
        "a refusal older than the controller's longest retry was fixed"
    );
}

#[test]
fn a_pod_less_not_ready_node_is_node_not_ready() {
    let got = causes(&[slot("down", &[]), slot("up", &[])], &["down"], &[], &[]);
    assert_eq!(
        got,
        MissingCauses {
            node_not_ready: 1,
            unexplained: 1,
            ..Default::default()
        }
    );
}

#[test]
fn an_unbound_pod_older_than_the_grace_is_unschedulable_a_younger_one_is_not() {
    let stuck = pod("stuck")
        .unbound()
        .phase(crate::facts::PodPhase::Pending)
        .created(NOW - 600);
    let fresh = pod("fresh")
        .unbound()
        .phase(crate::facts::PodPhase::Pending)
        .created(NOW - 5);
    let (a, b) = ([&stuck], [&fresh]);
    let got = causes(&[slot("full", &a), slot("n2", &b)], &[], &[], &[]);
    assert_eq!(
        got,
        MissingCauses {
            unschedulable: 1,
            recheck_at: Some(NOW - 5 + 120),
            ..Default::default()
        },
        "the fresh pod is re-checked when it outgrows the grace"
    );
}

#[test]
fn running_starting_surging_and_terminating_pods_are_not_missing() {
    let running = pod("r");
    let starting = pod("s")
        .phase(crate::facts::PodPhase::Pending)
        .created(NOW - 600);
    let old = pod("old").old();
    let surge = pod("new").unbound().created(NOW - 600);
    let leaving = pod("t").terminating();
    let (a, b, c, d) = ([&running], [&starting], [&old, &surge], [&leaving]);
    let got = causes(
        &[slot("a", &a), slot("b", &b), slot("c", &c), slot("d", &d)],
        &[],
        &[],
        &[],
    );
    assert_eq!(
        got,
        MissingCauses::default(),
        "bound pods start, a surge pod is the stall's cause (§d.3), a terminating pod's replacement waits (§a.7)"
    );
}

#[test]
fn nodes_that_should_not_run_it_and_deleted_nodes_are_never_missing_a2() {
    let mut excluded = slot("tainted", &[]);
    excluded.should_run = false;
    let mut gone = slot("gone", &[]);
    gone.gone = true;
    assert_eq!(
        causes(&[excluded, gone], &[], &[], &[]),
        MissingCauses::default()
    );
}

#[test]
fn every_missing_cause_has_a_distinct_label_and_a_count() {
    let mut labels: Vec<&str> = MissingCause::ALL.iter().map(|c| c.label()).collect();
    labels.sort_unstable();
    labels.dedup();
    assert_eq!(labels.len(), MissingCause::ALL.len());
    let mut counts = MissingCauses::default();
    for (i, cause) in MissingCause::ALL.into_iter().enumerate() {
        for _ in 0..=i {
            counts.add(cause);
        }
    }
    let got: Vec<i64> = MissingCause::ALL.iter().map(|c| counts.get(*c)).collect();
    assert_eq!(got, [1, 2, 3, 4]);
}

fn pace(complete: bool, stalled: bool, causes: Vec<StallCause>) -> RolloutPace {
    RolloutPace {
        done: 1,
        desired: 3,
        complete,
        per_minute_tenths: None,
        eta_seconds: None,
        stalled_since: stalled.then_some(NOW - 400),
        stall_after_seconds: 300,
        window_seconds: 600,
        causes,
        in_flight: Vec::new(),
        in_flight_total: 0,
    }
}

#[test]
fn a_rollout_is_idle_progressing_or_stalled_e() {
    assert_eq!(
        rollout_signal(None),
        RolloutSignal::Idle,
        "OnDelete: no pace"
    );
    assert_eq!(
        rollout_signal(Some(&pace(true, false, vec![]))),
        RolloutSignal::Idle,
        "§e done"
    );
    let mut moving = pace(false, false, vec![]);
    moving.in_flight_total = 2;
    assert_eq!(
        rollout_signal(Some(&moving)),
        RolloutSignal::Progressing,
        "pods in flight"
    );
    moving.in_flight_total = 0;
    moving.per_minute_tenths = Some(5);
    assert_eq!(
        rollout_signal(Some(&moving)),
        RolloutSignal::Progressing,
        "moved within the window"
    );
    let mut gap = pace(false, false, vec![]);
    gap.per_minute_tenths = Some(0);
    assert_eq!(
        rollout_signal(Some(&gap)),
        RolloutSignal::Idle,
        "incomplete (§e) with nothing moving: a coverage gap, not a rollout"
    );
    assert_eq!(
        rollout_signal(Some(&pace(false, false, vec![]))),
        RolloutSignal::Idle,
        "no rate known, nothing in flight"
    );
    assert_eq!(
        rollout_signal(Some(&pace(false, true, vec![StallCause::Unexplained]))),
        RolloutSignal::Stalled
    );
}

#[test]
fn the_stall_flags_mark_each_cause_present_and_nothing_else_d3_d4() {
    let failing = StallCause::NewPodsFailing {
        pods: vec![StuckPod {
            node: "n1".into(),
            namespace: "ns".into(),
            pod: "p".into(),
            reason: "CrashLoopBackOff".into(),
            restarts: 4,
        }],
    };
    let budget = StallCause::NotReadyNodesHoldBudget {
        nodes: vec!["n2".into()],
        in_use: 1,
        limit: 1,
        surge: false,
    };
    let flags = stall_flags(Some(&pace(false, true, vec![failing, budget])));
    let on: Vec<&str> = flags.iter().filter(|(_, v)| *v).map(|(l, _)| *l).collect();
    assert_eq!(on, ["not_ready_nodes_hold_budget", "new_pods_failing"]);
    assert_eq!(
        flags.len(),
        STALL_CAUSE_LABELS.len(),
        "every cause has a series"
    );
    let progressing = stall_flags(Some(&pace(false, false, vec![])));
    assert!(progressing.iter().all(|(_, v)| !v), "not stalled: all zero");
}

#[test]
fn each_stall_cause_has_its_own_label() {
    let all = [
        StallCause::NotReadyNodesHoldBudget {
            nodes: vec![],
            in_use: 0,
            limit: 0,
            surge: true,
        },
        StallCause::NewPodsFailing { pods: vec![] },
        StallCause::CreationRejected {
            message: String::new(),
            nodes: vec![],
        },
        StallCause::SurgePodUnscheduled { pods: vec![] },
        StallCause::Unexplained,
    ];
    let got: Vec<&str> = all.iter().map(stall_cause_label).collect();
    assert_eq!(got, STALL_CAUSE_LABELS);
}
