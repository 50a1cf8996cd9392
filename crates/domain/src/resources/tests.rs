//! §j.2: what a pod requests, as `k8s.io/component-helpers/resource.PodRequests` computes it.

use super::*;

fn list(pairs: &[(&str, &str)]) -> ResourceList {
    ResourceList::parse(pairs.iter().copied()).unwrap()
}

fn milli_cpu(list: &ResourceList) -> i64 {
    scheduler_amount(CPU, list.get(CPU).unwrap_or_default())
}

#[test]
fn app_containers_sum_and_the_largest_init_container_wins_j2() {
    let pod = PodResources {
        containers: vec![
            list(&[("cpu", "100m"), ("memory", "64Mi")]),
            list(&[("cpu", "200m"), ("memory", "64Mi")]),
        ],
        init_containers: vec![
            InitContainerRequests {
                requests: list(&[("cpu", "500m"), ("memory", "16Mi")]),
                sidecar: false,
            },
            InitContainerRequests {
                requests: list(&[("cpu", "50m")]),
                sidecar: false,
            },
        ],
        ..PodResources::default()
    };
    let reqs = pod.requests();
    assert_eq!(milli_cpu(&reqs), 500);
    assert_eq!(
        scheduler_amount(MEMORY, reqs.get(MEMORY).unwrap()),
        128 << 20
    );
}

#[test]
fn sidecars_run_beside_the_app_containers_and_the_later_init_containers_j2() {
    let pod = PodResources {
        containers: vec![list(&[("cpu", "200m")])],
        init_containers: vec![
            InitContainerRequests {
                requests: list(&[("cpu", "100m")]),
                sidecar: true,
            },
            InitContainerRequests {
                requests: list(&[("cpu", "400m")]),
                sidecar: false,
            },
        ],
        overhead: list(&[("cpu", "10m")]),
        ..PodResources::default()
    };
    // app 200m + sidecar 100m = 300m; init 400m + sidecar 100m = 500m; + overhead 10m.
    assert_eq!(milli_cpu(&pod.requests()), 510);
}

#[test]
fn pod_level_requests_replace_cpu_and_memory_only_j2() {
    let pod = PodResources {
        containers: vec![list(&[
            ("cpu", "100m"),
            ("memory", "1Gi"),
            ("nvidia.com/gpu", "1"),
        ])],
        pod_level: list(&[("cpu", "1"), ("nvidia.com/gpu", "4")]),
        ..PodResources::default()
    };
    let reqs = pod.requests();
    assert_eq!(milli_cpu(&reqs), 1_000);
    assert_eq!(reqs.get(MEMORY).unwrap().value(), 1 << 30);
    assert_eq!(reqs.get("nvidia.com/gpu").unwrap().value(), 1);
}

#[test]
fn a_pod_without_requests_asks_nothing_j2() {
    assert!(PodResources::default().requests().is_empty());
}

#[test]
fn a_refused_value_names_its_resource_j1() {
    let err = ResourceList::parse([("cpu", "1"), ("memory", "1K")]).unwrap_err();
    assert_eq!(err.resource, "memory");
    assert_eq!(err.to_string(), "memory: unable to parse quantity's suffix");
}

#[test]
fn lists_stay_sorted_and_add_and_max_per_resource() {
    let mut a = list(&[("memory", "1Gi"), ("cpu", "1")]);
    a.add(&list(&[("cpu", "500m"), ("pods", "1")]));
    let names: Vec<&str> = a.iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["cpu", "memory", "pods"]);
    assert_eq!(milli_cpu(&a), 1_500);
    a.max(&list(&[("cpu", "2"), ("memory", "1Mi")]));
    assert_eq!(milli_cpu(&a), 2_000);
    assert_eq!(a.get(MEMORY).unwrap().value(), 1 << 30);
}
