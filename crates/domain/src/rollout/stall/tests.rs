//! Tests of the stall classifier, each case naming the rule that makes the cause block.
use super::*;
use crate::controller::budget_in_use;
use crate::facts::PodFacts;
use crate::rollout::resolve_budget;
use crate::testing::{ds, ds_budget, pod, PodExt};

/// Slots for (node, pods), every node desired.
fn with_slots<R>(nodes: &[(&str, Vec<PodFacts>)], f: impl FnOnce(&[NodeSlot<'_>]) -> R) -> R {
    let refs: Vec<Vec<&PodFacts>> = nodes.iter().map(|(_, ps)| ps.iter().collect()).collect();
    let slots: Vec<NodeSlot<'_>> = nodes
        .iter()
        .zip(&refs)
        .map(|((node, _), pods)| NodeSlot {
            node,
            should_run: true,
            gone: false,
            pods,
        })
        .collect();
    f(&slots)
}

fn classify(
    d: &DaemonSetFacts,
    nodes: &[(&str, Vec<PodFacts>)],
    not_ready: &[&str],
    failed: &[FailedCreate],
) -> Vec<StallCause> {
    with_slots(nodes, |slots| {
        let budget = resolve_budget(&d.strategy, slots.len() as i64).ok();
        let in_use = budget.map_or(0, |b| budget_in_use(d, slots, &b, 1_000));
        classify_stall(&StallFacts {
            ds: d,
            slots,
            budget,
            in_use,
            not_ready,
            failed_creates: failed,
            since: 500,
            now: 1_000,
        })
    })
}

fn kinds(causes: &[StallCause]) -> Vec<&'static str> {
    causes.iter().map(StallCause::kind).collect()
}

#[test]
fn a_crash_looping_new_pod_is_named_with_its_node_and_reason() {
    // §d.4 updated, §c never available, §d.3 holds maxUnavailable.
    let nodes = [
        (
            "n1",
            vec![pod("new-1").on("n1").unready().with(|p| {
                p.waiting_reason = Some("CrashLoopBackOff".into());
                p.restart_count = 7;
            })],
        ),
        ("n2", vec![pod("old-2").old().on("n2")]),
    ];
    let causes = classify(&ds(), &nodes, &[], &[]);
    assert_eq!(
        causes,
        [StallCause::NewPodsFailing {
            pods: vec![StuckPod {
                node: "n1".into(),
                namespace: "kube-system".into(),
                pod: "new-1".into(),
                reason: "CrashLoopBackOff".into(),
                restarts: 7,
            }]
        }]
    );
    assert!(causes[0]
        .summary()
        .contains("new-1 on n1 (CrashLoopBackOff, 7 restarts)"));
    assert!(causes[0]
        .unblock("kube-system", "agent")
        .contains("rollout undo daemonset/agent"));
}

#[test]
fn an_image_that_cannot_be_pulled_is_a_failing_new_pod_too() {
    for reason in ["ImagePullBackOff", "ErrImagePull"] {
        let nodes = [(
            "n1",
            vec![pod("new-1")
                .on("n1")
                .unready()
                .with(|p| p.waiting_reason = Some(reason.into()))],
        )];
        let causes = classify(&ds(), &nodes, &[], &[]);
        assert_eq!(
            kinds(&causes),
            ["NewPodsFailing"],
            "§c {reason}: never available"
        );
    }
}

#[test]
fn an_old_pod_failing_is_not_the_new_revision_failing() {
    // §d.4: only updated pods are the rollout's; an old crash-looping pod is replaced at once (§d.3).
    let nodes = [(
        "n1",
        vec![pod("old-1")
            .old()
            .on("n1")
            .unready()
            .with(|p| p.waiting_reason = Some("CrashLoopBackOff".into()))],
    )];
    assert_eq!(kinds(&classify(&ds(), &nodes, &[], &[])), ["Unexplained"]);
}

#[test]
fn not_ready_nodes_holding_max_unavailable_are_named() {
    // §d.3 maxSurge 0: the NotReady node's old pod is terminating and cannot go (kubelet down):
    // a node with no live pod counts as unavailable, and 1 of maxUnavailable 1 is in use.
    let nodes = [
        (
            "n1",
            vec![pod("old-1").old().on("n1").unready().terminating()],
        ),
        ("n2", vec![pod("old-2").old().on("n2")]),
        ("n3", vec![pod("new-3").on("n3")]),
    ];
    let causes = classify(&ds(), &nodes, &["n1"], &[]);
    assert_eq!(
        causes,
        [StallCause::NotReadyNodesHoldBudget {
            nodes: vec!["n1".into()],
            in_use: 1,
            limit: 1,
            surge: false,
        }]
    );
    assert!(causes[0]
        .summary()
        .contains("NotReady node n1 holds the budget: 1 of maxUnavailable 1"));
    assert!(causes[0]
        .unblock("kube-system", "agent")
        .contains("kubectl delete node n1"));
}

#[test]
fn a_not_ready_node_below_the_budget_is_not_the_cause() {
    // §d.3: with maxUnavailable 2 and one node unavailable, the controller still starts another.
    let nodes = [
        (
            "n1",
            vec![pod("old-1").old().on("n1").unready().terminating()],
        ),
        ("n2", vec![pod("old-2").old().on("n2")]),
    ];
    assert_eq!(
        kinds(&classify(&ds_budget(2, 0), &nodes, &["n1"], &[])),
        ["Unexplained"]
    );
}

#[test]
fn both_causes_of_the_demo_stall_are_reported() {
    // The demo's node-exporter: a crash-looping new pod on one node, a NotReady node holding
    // the other unit of budget (§d.3: 2 in use ≥ maxUnavailable 1).
    let nodes = [
        (
            "worker-1",
            vec![pod("ne-new")
                .on("worker-1")
                .unready()
                .with(|p| p.waiting_reason = Some("CrashLoopBackOff".into()))],
        ),
        (
            "worker-6",
            vec![pod("ne-old").old().on("worker-6").unready().terminating()],
        ),
        ("worker-2", vec![pod("ne-2").old().on("worker-2")]),
    ];
    assert_eq!(
        kinds(&classify(&ds(), &nodes, &["worker-6"], &[])),
        ["NewPodsFailing", "NotReadyNodesHoldBudget"]
    );
}

#[test]
fn in_surge_mode_a_not_ready_node_holds_max_surge_with_its_new_pod_in_flight() {
    // §d.3 surge: old unavailable → new created at once; it cannot start on a NotReady node
    // and stays in flight beside the old one.
    let nodes = [
        (
            "n1",
            vec![
                pod("old-1").old().on("n1").unready(),
                pod("new-1").on("n1").unready(),
            ],
        ),
        ("n2", vec![pod("old-2").old().on("n2")]),
    ];
    let causes = classify(&ds_budget(0, 1), &nodes, &["n1"], &[]);
    assert_eq!(
        causes,
        [StallCause::NotReadyNodesHoldBudget {
            nodes: vec!["n1".into()],
            in_use: 1,
            limit: 1,
            surge: true,
        }]
    );
}

#[test]
fn a_rejected_creation_names_the_message_and_the_empty_nodes() {
    // §a.7: manage creates the missing pod; FailedCreate says why it is not there.
    let nodes = [("n1", vec![]), ("n2", vec![pod("new-2").on("n2")])];
    let failed = [
        FailedCreate {
            message: "Error creating: old".into(),
            last_seen: 100,
        },
        FailedCreate {
            message: "Error creating: exceeded quota: pods".into(),
            last_seen: 900,
        },
    ];
    let causes = classify(&ds(), &nodes, &[], &failed);
    assert_eq!(
        causes,
        [StallCause::CreationRejected {
            message: "Error creating: exceeded quota: pods".into(),
            nodes: vec!["n1".into()],
        }]
    );
}

#[test]
fn a_failed_create_from_before_the_stall_or_with_every_node_covered_is_not_the_cause() {
    let failed = [FailedCreate {
        message: "Error creating: x".into(),
        last_seen: 100,
    }];
    let empty = [("n1", vec![])];
    assert_eq!(
        kinds(&classify(&ds(), &empty, &[], &failed)),
        ["Unexplained"],
        "older than the stall (since 500)"
    );
    let recent = [FailedCreate {
        message: "Error creating: x".into(),
        last_seen: 900,
    }];
    let covered = [("n1", vec![pod("new-1").on("n1").unready()])];
    assert_eq!(
        kinds(&classify(&ds(), &covered, &[], &recent)),
        ["Unexplained"],
        "no desired node lacks a pod"
    );
}

#[test]
fn a_surge_pod_the_scheduler_does_not_bind_is_named() {
    // §d.3 surge: old available + new not available = in flight, holding maxSurge.
    let nodes = [(
        "n1",
        vec![
            pod("old-1").old().on("n1"),
            pod("new-1").on("n1").unready().unbound(),
        ],
    )];
    let causes = classify(&ds_budget(0, 1), &nodes, &[], &[]);
    assert_eq!(kinds(&causes), ["SurgePodUnscheduled"]);
    assert!(causes[0].summary().contains("new-1 for n1"));
}

#[test]
fn in_flight_lists_new_unavailable_and_terminating_pods_by_node() {
    let nodes = [
        (
            "n2",
            vec![
                pod("b-new").on("n2").unready().created(40),
                pod("b-old").old().on("n2").terminating().created(1),
            ],
        ),
        ("n1", vec![pod("a").on("n1")]),
    ];
    with_slots(&nodes, |slots| {
        let (pods, total) = in_flight(&ds(), slots, 100);
        assert_eq!(
            total, 2,
            "§d.3: the available updated pod on n1 is not in flight"
        );
        let got: Vec<(&str, &str, bool)> = pods
            .iter()
            .map(|p| (p.node.as_str(), p.pod.as_str(), p.updated))
            .collect();
        assert_eq!(got, [("n2", "b-new", true), ("n2", "b-old", false)]);
        assert_eq!(pods[0].created, 40);
        assert_eq!(pods[1].status, "Terminating");
    });
}
