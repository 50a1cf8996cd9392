//! The messages below are what kube-scheduler v1.37.2 wrote in the harness (three kwok nodes,
//! `full` with 1 cpu, 1 nvidia.com/gpu and hostPort 9100 taken by a workload pod).
use super::*;

fn amounts(pairs: &[(&str, i64)]) -> Amounts {
    let mut a = Amounts::new();
    for (name, v) in pairs {
        a.set(name, *v);
    }
    a
}

fn full() -> NodeRoom {
    NodeRoom {
        allocatable: amounts(&[
            ("cpu", 1000),
            ("memory", 1 << 30),
            ("pods", 110),
            ("nvidia.com/gpu", 1),
        ]),
        requested: amounts(&[("cpu", 900), ("memory", 100 << 20), ("nvidia.com/gpu", 1)]),
        pods: 1,
        host_ports: vec![HostPort::new(9100, "", "")],
    }
}

#[test]
fn a_daemon_pod_asking_more_cpu_than_is_left_is_insufficient_cpu_with_no_victims() {
    let r = reject(
        &full(),
        &amounts(&[("cpu", 200), ("memory", 50 << 20)]),
        &[],
    )
    .expect("§k.1");
    assert_eq!(
        unschedulable_message(3, &r),
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
    );
}

#[test]
fn a_taken_host_port_is_reported_before_resources_as_the_framework_stops_at_node_ports() {
    let ask = amounts(&[("cpu", 200), ("memory", 2 << 30)]);
    let r = reject(&full(), &ask, &[HostPort::new(9100, "TCP", "")]).expect("§k.1");
    assert!(matches!(r, Rejection::Ports(_)));
    assert_eq!(
        unschedulable_message(3, &r),
        "0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
    );
}

#[test]
fn an_extended_resource_the_node_does_not_have_is_unresolvable_so_preemption_cannot_help() {
    let roomy = NodeRoom {
        allocatable: amounts(&[("cpu", 4000), ("memory", 8 << 30), ("pods", 110)]),
        ..NodeRoom::default()
    };
    let r = reject(&roomy, &amounts(&[("nvidia.com/gpu", 1)]), &[]).expect("§k.2");
    assert!(r.unresolvable());
    assert_eq!(
        unschedulable_message(3, &r),
        "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    );
    // On `full` the one GPU is taken by a pod: resolvable in principle, no victim here.
    let r = reject(&full(), &amounts(&[("nvidia.com/gpu", 1)]), &[]).expect("§k.2");
    assert!(!r.unresolvable());
    assert!(unschedulable_message(3, &r).ends_with("1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."));
}

#[test]
fn host_ports_clash_on_the_same_protocol_and_port_where_either_side_binds_every_address() {
    let any = HostPort::new(80, "", "");
    let one = HostPort::new(80, "TCP", "10.0.0.1");
    let two = HostPort::new(80, "TCP", "10.0.0.2");
    assert!(any.clashes_with(&one) && one.clashes_with(&any));
    assert!(!one.clashes_with(&two), "different addresses");
    assert!(
        !any.clashes_with(&HostPort::new(80, "UDP", "")),
        "different protocols"
    );
    assert!(
        !HostPort::new(0, "", "").clashes_with(&HostPort::new(0, "", "")),
        "no host port"
    );
}

#[test]
fn the_histogram_sorts_count_strings_as_go_sort_strings_does_and_one_node_has_no_affinity_part() {
    let r = reject(
        &NodeRoom {
            allocatable: amounts(&[("cpu", 100), ("memory", 100), ("pods", 1)]),
            requested: amounts(&[("cpu", 100), ("memory", 100)]),
            pods: 1,
            host_ports: vec![],
        },
        &amounts(&[("cpu", 1), ("memory", 1)]),
        &[],
    )
    .expect("§k.3");
    assert_eq!(
        unschedulable_message(1, &r),
        "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
    // 12 other nodes: "1 ..." sorts before "12 ...".
    assert!(unschedulable_message(13, &r).contains("1 Too many pods, 12 node(s) didn't satisfy"));
}

#[test]
fn a_pod_not_eligible_to_preempt_gets_the_eligibility_words_instead_of_a_histogram() {
    let r = reject(&full(), &amounts(&[("cpu", 200)]), &[]).expect("§k.1");
    assert_eq!(
        fit_error_message(5, &r, PreemptionOutcome::NotEligible),
        "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: not eligible due to preemptionPolicy=Never.",
        "§k.5, as kube-scheduler v1.37.2 wrote it in k8s_scheduling"
    );
}
