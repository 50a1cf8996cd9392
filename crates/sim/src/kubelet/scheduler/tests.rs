use super::*;
use crate::edge::testing::object;
use serde_json::json;

fn node(name: &str, allocatable: serde_json::Value) -> Node {
    object(json!({"metadata": {"name": name}, "status": {"allocatable": allocatable}}))
}

fn pod(name: &str, node: Option<&str>, cpu: &str, host_port: Option<i32>, phase: &str) -> Pod {
    let mut ports = json!([]);
    if let Some(p) = host_port {
        ports = json!([{"containerPort": p, "hostPort": p}]);
    }
    object(json!({"metadata": {"name": name, "namespace": "ns"},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i:1", "ports": ports,
            "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"phase": phase}}))
}

fn key(name: &str) -> PodKey {
    ("ns".into(), name.into())
}

#[test]
fn bound_non_terminal_pods_take_room_and_give_it_back_when_gone_or_finished() {
    let mut rooms = Rooms::default();
    rooms.node(&node("n1", json!({"cpu": "1", "pods": "10"})));
    rooms.node(&node("n2", json!({"cpu": "1", "pods": "10"})));
    let agent = pod("agent", None, "200m", Some(9100), "Pending");
    assert_eq!(
        rooms.verdict(&agent, "n1"),
        Verdict::Fits,
        "§k.1: an empty node fits"
    );
    rooms.pod(
        &key("filler"),
        &pod("filler", Some("n1"), "900m", None, "Running"),
    );
    assert_eq!(
        rooms.verdict(&agent, "n1"),
        Verdict::Pending("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.".into()),
        "§j.3, §k.3"
    );
    rooms.pod(
        &key("filler"),
        &pod("filler", Some("n1"), "900m", None, "Succeeded"),
    );
    assert_eq!(
        rooms.verdict(&agent, "n1"),
        Verdict::Fits,
        "§j.3: a terminal pod frees its room"
    );
    rooms.pod(
        &key("web"),
        &pod("web", Some("n1"), "100m", Some(9100), "Running"),
    );
    assert!(
        matches!(rooms.verdict(&agent, "n1"), Verdict::Pending(m) if m.contains("1 node(s) didn't have free ports"))
    );
    rooms.forget(&key("web"));
    assert_eq!(
        rooms.verdict(&agent, "n1"),
        Verdict::Fits,
        "the port is free again"
    );
}

#[test]
fn a_node_without_allocatable_gets_kwoks_room_and_host_network_ports_default_to_container_ports() {
    let mut rooms = Rooms::default();
    rooms.node(&object(json!({"metadata": {"name": "bare"}})));
    let big = pod("big", None, "999", None, "Pending");
    assert_eq!(rooms.verdict(&big, "bare"), Verdict::Fits, "1k cpu");
    let hn: Pod = object(json!({"metadata": {"name": "hn", "namespace": "ns"},
        "spec": {"nodeName": "bare", "hostNetwork": true,
                 "containers": [{"name": "c", "image": "i:1", "ports": [{"containerPort": 53, "protocol": "UDP"}]}]}}));
    let (_, ports) = pod_use(&hn);
    assert_eq!(ports, vec![HostPort::new(53, "UDP", "")]);
}

#[test]
fn a_system_node_critical_pod_evicts_the_lower_priority_pod_and_waits_while_it_terminates() {
    let mut rooms = Rooms::default();
    rooms.node(&node("n1", json!({"cpu": "1", "pods": "10"})));
    rooms.pod(
        &key("batch"),
        &pod("batch", Some("n1"), "800m", None, "Running"),
    );
    let mut critical = pod("critical", None, "500m", None, "Pending");
    if let Some(spec) = critical.spec.as_mut() {
        spec.priority_class_name = Some("system-node-critical".into());
    }
    assert_eq!(
        rooms.verdict(&critical, "n1"),
        Verdict::Preempt(
            vec![key("batch")],
            "0/1 nodes are available: 1 Insufficient cpu.".into()
        ),
        "§k.4"
    );
    let mut terminating = pod("batch", Some("n1"), "800m", None, "Running");
    terminating.metadata.deletion_timestamp =
        Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
        ));
    rooms.pod(&key("batch"), &terminating);
    assert_eq!(rooms.verdict(&critical, "n1"), Verdict::Wait);
    rooms.forget(&key("batch"));
    assert_eq!(rooms.verdict(&critical, "n1"), Verdict::Fits);
}

#[test]
fn a_high_priority_pod_with_preemption_policy_never_stays_pending_and_evicts_nothing() {
    let mut rooms = Rooms::default();
    rooms.node(&node("n1", json!({"cpu": "1", "pods": "10"})));
    rooms.pod(
        &key("batch"),
        &pod("batch", Some("n1"), "800m", None, "Running"),
    );
    let mut polite = pod("polite", None, "500m", None, "Pending");
    if let Some(spec) = polite.spec.as_mut() {
        spec.priority = Some(1_000_000);
        spec.preemption_policy = Some("Never".into());
    }
    assert_eq!(
        rooms.verdict(&polite, "n1"),
        Verdict::Pending(
            "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.".into()
        ),
        "§k.5"
    );
}
