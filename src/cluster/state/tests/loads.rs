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
