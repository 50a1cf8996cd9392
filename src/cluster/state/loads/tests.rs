//! §j.3: the per-node sums follow every pod bound to the node, workload pods included, and
//! leave out terminal and unbound pods.

use super::*;
use crate::domain::testing::{pod, PodExt};

fn load(uid: &str, node: Option<&str>, cpu: i64, memory: i64) -> PodLoad {
    PodLoad {
        uid: uid.into(),
        namespace: "shop".into(),
        node_name: node.map(Into::into),
        requests: Requests {
            cpu_milli: cpu,
            memory,
            other: None,
        },
        terminal: false,
    }
}

#[test]
fn workload_and_daemon_pods_add_up_per_node_j3() {
    let mut loads = NodeLoads::default();
    loads.upsert_workload(load("w1", Some("n1"), 500, 1 << 30));
    loads.upsert_workload(load("w2", Some("n1"), 250, 0));
    loads.upsert_workload(load("w3", Some("n2"), 100, 0));
    loads.upsert_workload(load("pending", None, 4000, 0));
    let daemon = pod("agent").with(|p| p.requests.cpu_milli = 100);
    loads.add_daemon(&daemon, 1);
    let n1 = loads.of("n1");
    assert_eq!(n1.pods, 3);
    assert_eq!(n1.requested.get("cpu"), 850);
    assert_eq!(n1.requested.get("memory"), 1 << 30);
    assert_eq!(loads.of("n2").pods, 1);
    assert_eq!(loads.workload_len(), 3);
}

#[test]
fn a_pod_that_moves_finishes_or_leaves_is_taken_off_its_node_j3() {
    let mut loads = NodeLoads::default();
    loads.upsert_workload(load("w1", Some("n1"), 500, 0));
    // Modified: now terminal.
    let mut done = load("w1", Some("n1"), 500, 0);
    done.terminal = true;
    loads.upsert_workload(done);
    assert_eq!(loads.of("n1"), NodeLoad::default());
    loads.upsert_workload(load("w2", Some("n1"), 300, 0));
    loads.remove_workload("w2");
    assert_eq!(loads.of("n1"), NodeLoad::default());
    assert_eq!(loads.workload_len(), 0);
}

#[test]
fn an_unbound_or_failed_daemon_pod_counts_nowhere_j3() {
    let mut loads = NodeLoads::default();
    loads.add_daemon(&pod("a").with(|p| p.bound = false), 1);
    loads.add_daemon(&pod("b").with(|p| p.phase = PodPhase::Failed), 1);
    assert_eq!(loads.of("n1"), NodeLoad::default());
}

#[test]
fn a_relist_of_one_namespace_keeps_the_others_j3() {
    let mut loads = NodeLoads::default();
    loads.upsert_workload(load("w1", Some("n1"), 500, 0));
    let mut other = load("w2", Some("n1"), 200, 0);
    other.namespace = "batch".into();
    loads.upsert_workload(other);
    loads.clear_workload(Some("shop"));
    assert_eq!(loads.of("n1").requested.get("cpu"), 200);
    loads.rebuild_daemon([pod("d").with(|p| p.requests.cpu_milli = 50)].iter());
    assert_eq!(loads.of("n1").requested.get("cpu"), 250);
    loads.clear_workload(None);
    assert_eq!(loads.of("n1").requested.get("cpu"), 50);
}

#[test]
fn uuids_key_by_their_own_bits_and_other_uids_by_a_hash() {
    assert_eq!(
        uid_key("0195f3c2-7a1b-4c5d-8e9f-0a1b2c3d4e5f"),
        0x0195f3c2_7a1b_4c5d_8e9f_0a1b2c3d4e5f
    );
    assert_ne!(uid_key("pod-1"), uid_key("pod-2"));
    assert_eq!(uid_key("pod-1"), uid_key("pod-1"));
}
