//! Tests of the server-side Table rendering (what kubectl get prints).
use super::*;

#[test]
fn ages_print_like_kubectl() {
    for (secs, want) in [
        (45, "45s"),
        (119, "119s"),
        (310, "5m10s"),
        (600, "10m"),
        (11400, "3h10m"),
        (172800, "2d"),
        (3 * 86400 + 3600, "3d1h"),
    ] {
        assert_eq!(human_duration(secs), want, "{secs}s");
    }
}

#[test]
fn a_cordoned_ready_control_plane_node_prints_its_status_and_role() {
    let node = json!({"metadata": {"name": "cp-1", "labels": {"node-role.kubernetes.io/control-plane": ""}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.37.0"},
                "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}});
    let c = cells(Kind::Node, &node, Timestamp::UNIX_EPOCH);
    assert_eq!(c[1], json!("Ready,SchedulingDisabled"));
    assert_eq!(c[2], json!("control-plane"));
    assert_eq!(c[5], json!("10.0.0.1"));
    assert_eq!(c[6], json!("<none>"));
    assert_eq!(c[7], json!("<unknown>"));
}

#[test]
fn a_crashlooping_pod_shows_the_waiting_reason_and_a_terminating_one_says_so() {
    let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}], "nodeName": "n1"},
            "status": {"phase": "Running", "podIP": "10.1.0.5", "containerStatuses": [{"name": "c", "ready": false, "restartCount": 3,
                "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
    let c = cells(Kind::Pod, &pod, Timestamp::UNIX_EPOCH);
    assert_eq!(
        (c[1].clone(), c[2].clone(), c[3].clone(), c[5].clone()),
        (
            json!("0/1"),
            json!("CrashLoopBackOff"),
            json!("3"),
            json!("10.1.0.5")
        )
    );
    let mut gone = pod.clone();
    gone["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    assert_eq!(
        cells(Kind::Pod, &gone, Timestamp::UNIX_EPOCH)[2],
        json!("Terminating")
    );
}

#[test]
fn daemonset_selector_columns_format_like_the_printer() {
    let ds = json!({"metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"app": "d"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]},
            "template": {"spec": {"nodeSelector": {"gpu": "true"}, "containers": [{"name": "c", "image": "i:1"}]}}},
            "status": {"desiredNumberScheduled": 3, "numberReady": 2}});
    let c = cells(Kind::DaemonSet, &ds, Timestamp::UNIX_EPOCH);
    assert_eq!(c[1], json!(3));
    assert_eq!(c[3], json!(2));
    assert_eq!(c[6], json!("gpu=true"));
    assert_eq!(c[10], json!("app=d,tier in (a,b)"));
}
