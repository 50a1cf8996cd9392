//! The quota arithmetic and words against what kube-apiserver v1.37 prints (§l.4, §l.6).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn list(pairs: &[(&str, &str)]) -> AmountList {
    pairs
        .iter()
        .map(|(n, v)| (n.to_string(), Amount::parse(v).unwrap()))
        .collect()
}

fn container(name: &str, requests: &[(&str, &str)], limits: &[(&str, &str)]) -> ContainerQuota {
    ContainerQuota {
        name: name.into(),
        requests: list(requests),
        limits: list(limits),
        sidecar: false,
    }
}

fn pod(containers: Vec<ContainerQuota>) -> PodQuota {
    PodQuota {
        containers,
        ..PodQuota::default()
    }
}

fn printed(list: &AmountList) -> Vec<String> {
    list.iter().map(|(n, a)| format!("{n}={a}")).collect()
}

#[test]
fn quantities_print_canonically_in_their_own_format_j1() {
    for (text, canonical) in [
        ("1", "1"),
        ("1000m", "1"),
        ("100m", "100m"),
        ("0.5", "500m"),
        ("1500", "1500"),
        ("2000", "2k"),
        ("128Mi", "128Mi"),
        ("1536Mi", "1536Mi"),
        ("1024Mi", "1Gi"),
        ("512", "512"),
        ("0.5Gi", "512Mi"),
        ("1e3", "1e3"),
        ("0", "0"),
        ("1Ki", "1Ki"),
    ] {
        assert_eq!(
            Amount::parse(text).unwrap().to_string(),
            canonical,
            "{text}"
        );
    }
}

#[test]
fn a_sum_keeps_the_format_of_its_first_non_zero_addend() {
    let zero = Amount::default();
    let mi = Amount::parse("64Mi").unwrap();
    assert_eq!(zero.plus(mi).plus(mi).to_string(), "128Mi");
    let m = Amount::parse("400m").unwrap();
    assert_eq!(zero.plus(m).plus(m).to_string(), "800m");
    assert_eq!(zero.plus(m).plus(m).minus(m).minus(m).to_string(), "0");
}

#[test]
fn a_pod_charges_pods_count_and_each_request_under_both_names_l6() {
    let p = pod(vec![
        container(
            "agent",
            &[("cpu", "100m"), ("memory", "64Mi"), ("nvidia.com/gpu", "1")],
            &[("cpu", "200m")],
        ),
        container("sidecar", &[("cpu", "50m")], &[]),
    ]);
    assert_eq!(
        printed(&pod_usage(&p)),
        [
            "count/pods=1",
            "cpu=150m",
            "limits.cpu=200m",
            "memory=64Mi",
            "pods=1",
            "requests.cpu=150m",
            "requests.memory=64Mi",
            "requests.nvidia.com/gpu=1",
        ]
    );
}

#[test]
fn a_terminal_pod_charges_only_its_object_count_l6() {
    let mut p = pod(vec![container("agent", &[("cpu", "100m")], &[])]);
    p.terminal = true;
    assert_eq!(printed(&pod_usage(&p)), ["count/pods=1"]);
    let hard = list(&[("pods", "2"), ("requests.cpu", "1"), ("count/pods", "5")]);
    assert_eq!(
        printed(&used(&hard, [&pod_usage(&p)])),
        ["count/pods=1", "pods=0", "requests.cpu=0"]
    );
}

#[test]
fn used_counts_only_the_pod_resources_of_hard_l6() {
    let hard = list(&[("pods", "3"), ("requests.cpu", "1"), ("services", "2")]);
    let a = pod_usage(&pod(vec![container("a", &[("cpu", "400m")], &[])]));
    let b = pod_usage(&pod(vec![container("b", &[("cpu", "400m")], &[])]));
    assert_eq!(
        printed(&used(&hard, [&a, &b])),
        ["pods=2", "requests.cpu=800m"]
    );
    assert_eq!(
        matching_resources([
            "requests.nvidia.com/gpu",
            "nvidia.com/gpu",
            "hugepages-2Mi",
            "secrets"
        ]),
        ["requests.nvidia.com/gpu", "hugepages-2Mi"]
    );
}

fn state(name: &str, hard: &[(&str, &str)], used: &[(&str, &str)]) -> QuotaState {
    QuotaState {
        name: name.into(),
        hard: list(hard),
        used: list(used),
    }
}

#[test]
fn a_pod_past_the_pod_count_gets_kube_apiservers_exceeded_words_l4() {
    let q = state("two-pods", &[("pods", "2")], &[("pods", "2")]);
    let p = pod(vec![container("agent", &[], &[])]);
    assert_eq!(
        admit(&[q], &p),
        Err("exceeded quota: two-pods, requested: pods=1, used: pods=2, limited: pods=2".into())
    );
    let room = state("two-pods", &[("pods", "2")], &[("pods", "1")]);
    assert_eq!(admit(&[room], &p), Ok(()));
}

#[test]
fn only_the_exceeded_resources_are_listed_sorted_l4() {
    let q = state(
        "compute",
        &[
            ("pods", "10"),
            ("requests.cpu", "1"),
            ("requests.memory", "1Gi"),
        ],
        &[
            ("pods", "2"),
            ("requests.cpu", "800m"),
            ("requests.memory", "1Gi"),
        ],
    );
    let p = pod(vec![container(
        "agent",
        &[("cpu", "400m"), ("memory", "64Mi")],
        &[],
    )]);
    assert_eq!(
        admit(&[q], &p),
        Err("exceeded quota: compute, requested: requests.cpu=400m,requests.memory=64Mi, used: requests.cpu=800m,requests.memory=1Gi, limited: requests.cpu=1,requests.memory=1Gi".into())
    );
}

#[test]
fn a_quota_on_cpu_needs_every_container_to_request_it_l4() {
    let q = state("cpu", &[("requests.cpu", "1")], &[("requests.cpu", "0")]);
    let p = pod(vec![
        container("agent", &[], &[]),
        container("helper", &[("memory", "1Mi")], &[]),
    ]);
    assert_eq!(
        admit(std::slice::from_ref(&q), &p),
        Err("failed quota: cpu: must specify requests.cpu for: agent,helper".into())
    );
    // The API server defaults a request from the limit before admission: the caller passes it.
    let ok = pod(vec![container("agent", &[("cpu", "1")], &[("cpu", "1")])]);
    assert_eq!(admit(&[q], &ok), Ok(()));
    // Extended resources are not in the validation set: no `must specify` for them.
    let gpu = state(
        "gpu",
        &[("requests.nvidia.com/gpu", "1")],
        &[("requests.nvidia.com/gpu", "0")],
    );
    assert_eq!(admit(&[gpu], &pod(vec![container("a", &[], &[])])), Ok(()));
}

#[test]
fn a_quota_without_usage_yet_refuses_with_status_unknown_l4() {
    let q = state(
        "fresh",
        &[("pods", "5"), ("requests.cpu", "1")],
        &[("pods", "0")],
    );
    let p = pod(vec![container("agent", &[("cpu", "100m")], &[])]);
    assert_eq!(
        admit(&[q], &p),
        Err("status unknown for quota: fresh, resources: pods,requests.cpu".into())
    );
}

#[test]
fn a_quota_tracking_nothing_a_pod_uses_does_not_match() {
    let q = state("objects", &[("services", "1")], &[]);
    assert_eq!(admit(&[q], &pod(vec![container("a", &[], &[])])), Ok(()));
    let terminal_free = state(
        "cpu",
        &[("requests.cpu", "100m")],
        &[("requests.cpu", "100m")],
    );
    // A pod requesting no cpu charges zero cpu: nothing to exceed once it names it.
    let zero = pod(vec![container("a", &[("cpu", "0")], &[])]);
    assert_eq!(admit(&[terminal_free], &zero), Ok(()));
}
