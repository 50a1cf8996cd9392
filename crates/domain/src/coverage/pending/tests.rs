//! §j.4: a pending daemon pod explained by the scheduler's words and the node's arithmetic, and
//! the fixes proven: the suggested request fits where the asked one did not.

use super::*;
use crate::resources::load::Requests;
use crate::testing::amounts;
use crate::testing::{daemonset, node, pod, PodExt};

fn pending_agent(cpu_milli: i64) -> PodFacts {
    pod("agent-x").with(|p| {
        p.bound = false;
        p.ready = false;
        p.phase = crate::facts::PodPhase::Pending;
        p.requests = Requests {
            cpu_milli,
            memory: 64 << 20,
            other: None,
        };
        p.unschedulable = Some(Box::new(SchedulingFailure {
            reason: "Unschedulable".into(),
            message: "0/1 nodes are available: 1 Insufficient cpu.".into(),
        }));
    })
}

#[test]
fn a_full_node_is_short_by_the_ask_minus_the_room_and_the_scheduler_is_quoted_j4() {
    let n1 = node("n1");
    let alloc = amounts(&[("cpu", "2"), ("memory", "8Gi"), ("pods", "110")]);
    let used = amounts(&[("cpu", "1800m"), ("memory", "2Gi")]);
    let room = Room {
        allocatable: &alloc,
        requested: &used,
        pods: 9,
    };
    let e = explain_pending(&n1, room, &daemonset("log"), &pending_agent(500), &[]).unwrap();
    assert_eq!(
        e.scheduler.as_ref().unwrap().message,
        "0/1 nodes are available: 1 Insufficient cpu."
    );
    assert_eq!(e.shortfalls.len(), 1);
    assert_eq!(e.shortfalls[0].short_by(), 300);
    assert!(
        e.sentence.contains("short of cpu by 300m"),
        "{}",
        e.sentence
    );
    assert!(
        e.fixes[0].text().contains("--requests=cpu=200m"),
        "{}",
        e.fixes[0].text()
    );
    assert!(e.fixes[1].text().contains("system-node-critical"));
}

#[test]
fn the_suggested_request_fits_where_the_asked_one_did_not_j4() {
    // Proof of the fix: re-run fitsRequest with the suggested value.
    let alloc = amounts(&[("cpu", "2"), ("memory", "8Gi"), ("pods", "110")]);
    let used = amounts(&[("cpu", "1750m"), ("memory", "7Gi")]);
    let room = Room {
        allocatable: &alloc,
        requested: &used,
        pods: 9,
    };
    let mut agent = pending_agent(500);
    agent.requests.memory = 2 << 30;
    let e = explain_pending(&node("n1"), room, &daemonset("log"), &agent, &[]).unwrap();
    assert_eq!(e.shortfalls.len(), 2);
    let mut fixed = agent.requests.to_amounts();
    for s in &e.shortfalls {
        fixed.set(&s.resource, s.room());
    }
    assert!(room.shortfalls(&fixed).is_empty());
    assert!(e
        .fixes
        .iter()
        .any(|f| f.text().contains("--requests=memory=1Gi")));
}

#[test]
fn nodes_of_the_same_pool_with_room_are_named_j4() {
    let mut n1 = node("n1");
    n1.labels
        .insert("node.kubernetes.io/pool".into(), "web".into());
    let alloc = amounts(&[("cpu", "2"), ("memory", "1Gi"), ("pods", "110")]);
    let full = amounts(&[("cpu", "2")]);
    let light = amounts(&[("cpu", "500m")]);
    let room = |requested| Room {
        allocatable: &alloc,
        requested,
        pods: 3,
    };
    let peers = [
        ("n1", room(&full)),
        ("n2", room(&full)),
        ("n3", room(&light)),
    ];
    let e = explain_pending(
        &n1,
        room(&full),
        &daemonset("log"),
        &pending_agent(500),
        &peers,
    )
    .unwrap();
    assert_eq!(
        e.pool,
        Some(("node.kubernetes.io/pool".into(), "web".into()))
    );
    assert_eq!(e.nodes_with_room, ["n3"]);
}

#[test]
fn a_bound_pod_is_not_waiting_for_room_and_a_full_pod_count_says_so_j4() {
    let alloc = amounts(&[("cpu", "2"), ("pods", "3")]);
    let none = Amounts::new();
    let room = Room {
        allocatable: &alloc,
        requested: &none,
        pods: 3,
    };
    assert!(explain_pending(&node("n1"), room, &daemonset("log"), &pod("p"), &[]).is_none());
    let e = explain_pending(&node("n1"), room, &daemonset("log"), &pending_agent(0), &[]).unwrap();
    assert_eq!(e.shortfalls[0].reason, "Too many pods");
    assert!(e.sentence.contains("pods (all 3 taken)"), "{}", e.sentence);
}

#[test]
fn amounts_are_spelled_as_quantities_kubectl_accepts_j1() {
    assert_eq!(format_amount("cpu", 1500), "1500m");
    assert_eq!(format_amount("cpu", 2000), "2");
    assert_eq!(format_amount("memory", 3 << 30), "3Gi");
    assert_eq!(format_amount("memory", 1536 << 20), "1536Mi");
    assert_eq!(format_amount("memory", 1000), "1000");
    assert_eq!(format_amount("nvidia.com/gpu", 2), "2");
    for (resource, amount) in [("cpu", 1500), ("memory", 1536 << 20)] {
        let q = crate::resources::Quantity::parse(&format_amount(resource, amount)).unwrap();
        assert_eq!(crate::resources::scheduler_amount(resource, q), amount);
    }
}
