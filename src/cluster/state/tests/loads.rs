//! §j.3 through the store: workload pods and daemon pods add up per node, per event and after
//! a relist alike, and a pod that changes hands is counted once.

use super::*;
use crate::domain::resources::load::{PodLoad, Requests};

fn workload(uid: &str, node: &str, cpu: i64) -> Projection {
    Projection::Load(PodLoad {
        uid: uid.into(),
        namespace: "shop".into(),
        node_name: Some(node.into()),
        requests: Requests {
            cpu_milli: cpu,
            memory: 1 << 20,
            other: None,
        },
        terminal: false,
    })
}

fn agent(node: &str, cpu: i64) -> PodFacts {
    pod("log", node, "h1").with(|p| p.requests.cpu_milli = cpu)
}

#[test]
fn the_node_sums_follow_events_and_equal_a_relist_j3() {
    let mut s = cluster();
    // The fixture's own daemon pods ask nothing but count as pods.
    let base = s.node_load("a").pods;
    assert_eq!(s.node_load("a").requested.get("cpu"), 0);
    s.apply(workload("w1", "a", 500));
    s.apply(workload("w2", "a", 250));
    s.apply(Projection::Pod(agent("a", 100)));
    // The agent replaces the fixture's log pod on a (same uid): two pods more, not three.
    assert_eq!(s.node_load("a").pods, base + 2);
    assert_eq!(s.node_load("a").requested.get("cpu"), 850);
    // Re-sent unchanged: counted once.
    s.apply(Projection::Pod(agent("a", 100)));
    s.apply(workload("w2", "a", 250));
    assert_eq!(s.node_load("a").requested.get("cpu"), 850);
    // The same objects relisted give the same sums.
    let mut fresh = relisted(&s);
    let mut pods: Vec<Projection> = s.pods.iter().cloned().map(Projection::Pod).collect();
    pods.extend([workload("w1", "a", 500), workload("w2", "a", 250)]);
    fresh.replace(&Scope::Pods(None), pods);
    assert_eq!(fresh.node_load("a"), s.node_load("a"));
    // Deleted: gone from the sums.
    s.delete(&workload("w1", "a", 500));
    s.delete(&Projection::Pod(agent("a", 100)));
    assert_eq!(s.node_load("a").requested.get("cpu"), 250);
    assert_eq!(s.workload_pods(), 1);
}

#[test]
fn a_daemon_pod_that_loses_its_owner_leaves_its_cell_and_stays_on_its_node_j3() {
    let mut s = cluster();
    let base = s.node_load("b").pods;
    s.apply(Projection::Pod(agent("b", 100)));
    assert_eq!(state_of(&s, "b", "log"), Some(CellState::Ready));
    let uid = agent("b", 100).uid;
    s.apply(Projection::Load(PodLoad {
        uid,
        namespace: "kube-system".into(),
        node_name: Some("b".into()),
        requests: Requests {
            cpu_milli: 100,
            ..Requests::default()
        },
        terminal: false,
    }));
    assert_ne!(state_of(&s, "b", "log"), Some(CellState::Ready));
    assert_eq!(s.node_load("b").requested.get("cpu"), 100);
    assert_eq!(s.node_load("b").pods, base + 1);
}

/// `cluster()` with allocatable on the nodes and requests on the templates: log asks 100m,
/// mon 200m; each node has 1 core.
fn with_room() -> ClusterState {
    let mut s = cluster();
    for name in ["a", "b", "cp"] {
        let mut n = s.node(name).cloned().unwrap();
        n.allocatable.set("cpu", 1_000);
        n.allocatable.set("pods", 110);
        s.apply(Projection::Node(n));
    }
    for (name, cpu) in [("log", 100), ("mon", 200)] {
        let mut d = s
            .daemonset(&format!("kube-system/{name}"))
            .cloned()
            .unwrap();
        d.template.requests.set("cpu", cpu);
        s.apply(Projection::DaemonSet(d));
    }
    s
}

#[test]
fn a_pending_pod_on_a_full_node_is_explained_in_its_cell_and_on_the_node_page_j4() {
    let mut s = with_room();
    s.apply(workload("w1", "b", 800));
    let pending = pod("log", "b", "h1").with(|p| {
        p.bound = false;
        p.ready = false;
        p.phase = crate::domain::PodPhase::Pending;
        p.requests.cpu_milli = 300;
        p.unschedulable = Some(Box::new(
            crate::domain::resources::load::SchedulingFailure {
                reason: "Unschedulable".into(),
                message: "0/3 nodes are available: 1 Insufficient cpu.".into(),
            },
        ));
    });
    s.apply(Projection::Pod(pending));
    assert_eq!(state_of(&s, "b", "log"), Some(CellState::Pending));
    let e = s.explain("b", "kube-system/log", NOW).unwrap();
    let p = e.pending.expect("the pending pod is explained");
    assert_eq!(
        p.scheduler.unwrap().message,
        "0/3 nodes are available: 1 Insufficient cpu."
    );
    // 1000m allocatable, 800m bound (the unbound pod is not counted), 300m asked.
    assert_eq!(p.shortfalls[0].short_by(), 100);
    let room = s.node_room("b").unwrap();
    assert_eq!(room.pending.len(), 1);
    assert_eq!(room.pending[0].0, "kube-system/log");
    assert_eq!(room.requested.get("cpu"), 800);
}

#[test]
fn the_tax_counts_the_daemonsets_that_should_run_not_the_pods_that_do_j5() {
    let s = with_room();
    // b has no log pod, but log should run there: it is taxed.
    let b = s.node_tax("b").unwrap();
    assert_eq!(b.total.get("cpu"), 300);
    assert_eq!(b.share("cpu"), Some(30));
    // cp: log is kept off by the control-plane taint (§a.2.3), so only what should run counts.
    let cp = s.node_tax("cp").unwrap();
    let expected: i64 = ["log", "mon"]
        .iter()
        .filter(|d| {
            s.cell("cp", &format!("kube-system/{d}"))
                .is_some_and(|c| c != CellState::Excluded)
        })
        .map(|d| if *d == "log" { 100 } else { 200 })
        .sum();
    assert_eq!(cp.total.get("cpu"), expected);
    assert!(cp.total.get("cpu") < 300);
    let ds = s.daemonset_room("kube-system/log").unwrap();
    assert_eq!(ds.nodes, 2);
    assert_eq!(ds.total.get("cpu"), 200);
}

#[test]
fn a_requests_whatif_gets_each_nodes_sums_with_the_daemonsets_own_pod_apart_j6() {
    let mut s = cluster();
    s.apply(workload("w1", "a", 500));
    s.apply(Projection::Pod(agent("a", 100)));
    let rooms = s.whatif_rooms("kube-system/log").unwrap();
    let names: Vec<&str> = rooms.iter().map(|r| r.node.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(
        names, sorted,
        "sorted by node, as the preview looks them up"
    );
    let a = rooms.iter().find(|r| r.node == "a").unwrap();
    assert_eq!(a.requested.get("cpu"), 600);
    assert_eq!(a.pods, s.node_load("a").pods);
    // The log agent's own pod there: what the edit replaces.
    assert_eq!(a.own.get("cpu"), 100);
    assert_eq!(a.own_pods, 1);
    assert!(s.whatif_rooms("kube-system/nope").is_err());
}
