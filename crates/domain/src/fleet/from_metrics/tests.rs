use super::*;

fn label() -> ClusterLabel {
    ClusterLabel::new("cluster").expect("valid")
}

fn sample(labels: &[(&str, &str)], value: f64) -> Sample {
    Sample {
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        value,
    }
}

fn on(cluster: &str) -> Sample {
    sample(&[("cluster", cluster)], 1.0)
}

fn of_ds(cluster: &str, ds: &str, value: f64) -> Sample {
    sample(&[("cluster", cluster), ("daemonset", ds)], value)
}

fn cells(cluster: &str, ds: &str, state: &str, n: f64) -> Sample {
    sample(
        &[("cluster", cluster), ("daemonset", ds), ("state", state)],
        n,
    )
}

fn stall(cluster: &str, ds: &str, cause: &str) -> Sample {
    sample(
        &[("cluster", cluster), ("daemonset", ds), ("cause", cause)],
        1.0,
    )
}

const FALCO: &str = "security/falco";
const EXPORTER: &str = "monitoring/node-exporter";

/// Two clusters: `a` shaped like the demo (node-exporter stalled, falco refused on one node)
/// and a small healthy `b`.
fn answers() -> BTreeMap<FleetQuery, Vec<Sample>> {
    let mut a = BTreeMap::new();
    a.insert(FleetQuery::Up, vec![on("a"), on("b")]);
    a.insert(
        FleetQuery::Reachable,
        vec![
            sample(&[("cluster", "a"), ("cause", "none")], 1.0),
            sample(&[("cluster", "b"), ("cause", "none")], 1.0),
        ],
    );
    a.insert(
        FleetQuery::Nodes,
        vec![
            sample(&[("cluster", "a")], 12.0),
            sample(&[("cluster", "b")], 3.0),
        ],
    );
    a.insert(
        FleetQuery::Cells,
        vec![
            cells("a", FALCO, "ready", 11.0),
            cells("a", FALCO, "missing", 1.0),
            cells("a", FALCO, "pending", 0.0),
            cells("a", EXPORTER, "ready", 9.0),
            cells("a", EXPORTER, "unready", 2.0),
            cells("a", EXPORTER, "outdated", 1.0),
            cells("b", FALCO, "ready", 3.0),
            cells("b", FALCO, "no-such-state", 7.0),
        ],
    );
    a.insert(
        FleetQuery::Problems,
        vec![
            of_ds("a", FALCO, 1.0),
            of_ds("a", EXPORTER, 3.0),
            of_ds("b", FALCO, 0.0),
        ],
    );
    a.insert(FleetQuery::Refused, vec![of_ds("a", FALCO, 1.0)]);
    a.insert(
        FleetQuery::Stalled,
        vec![
            stall("a", EXPORTER, "new_pods_failing"),
            stall("a", EXPORTER, "not_ready_nodes_hold_budget"),
        ],
    );
    a
}

#[test]
fn clusters_count_nodes_daemonsets_and_problem_cells_from_their_series() {
    let fleet = fleet_from_metrics(&label(), &answers());
    let lines: Vec<_> = fleet
        .clusters
        .iter()
        .map(|c| (c.name.as_str(), c.nodes, c.daemonsets, c.problem_cells))
        .collect();
    assert_eq!(lines, [("a", 12, 2, 4), ("b", 3, 1, 0)]);
    assert!(fleet
        .clusters
        .iter()
        .all(|c| c.health == ClusterHealth::Live));
}

#[test]
fn each_daemonset_has_its_cells_per_state_refusals_and_stall_per_cluster() {
    let fleet = fleet_from_metrics(&label(), &answers());
    let keys: Vec<_> = fleet
        .daemonsets
        .iter()
        .map(|d| format!("{}/{}", d.namespace, d.name))
        .collect();
    assert_eq!(keys, [EXPORTER, FALCO]);
    let falco = &fleet.daemonsets[1];
    let clusters: Vec<_> = falco
        .placements
        .iter()
        .map(|p| p.cluster.as_str())
        .collect();
    assert_eq!(clusters, ["a", "b"]);
    let on_a = &falco.placements[0];
    assert_eq!(on_a.counts.get(CellState::Ready), 11);
    assert_eq!(on_a.counts.get(CellState::Missing), 1);
    assert_eq!(on_a.refused, 1);
    assert!(on_a.has_problem());
    let on_b = &falco.placements[1];
    assert_eq!(on_b.counts.total(), 3, "an unknown state is not counted");
    assert!(!on_b.has_problem());
    let exporter = &fleet.daemonsets[0].placements[0];
    assert_eq!(
        exporter.stalled.as_deref(),
        Some("not ready nodes hold budget, new pods failing"),
        "every cause, in the causes' own order"
    );
}

#[test]
fn a_cluster_prometheus_cannot_scrape_is_unavailable_and_one_that_cannot_read_is_stale() {
    let mut answers = answers();
    answers.insert(
        FleetQuery::Up,
        vec![sample(&[("cluster", "a")], 0.0), on("b"), on("c")],
    );
    answers.insert(
        FleetQuery::Reachable,
        vec![sample(
            &[("cluster", "b"), ("cause", "storage_unavailable")],
            0.0,
        )],
    );
    answers.insert(
        FleetQuery::Unsynced,
        vec![sample(&[("cluster", "c"), ("resource", "pods")], 0.0)],
    );
    let fleet = fleet_from_metrics(&label(), &answers);
    let health: Vec<_> = fleet.clusters.iter().map(|c| c.health.clone()).collect();
    assert_eq!(
        health,
        [
            ClusterHealth::Unavailable {
                reason: "Prometheus cannot scrape its daemonscope (up is 0)".into()
            },
            ClusterHealth::Stale {
                reason: "the API server cannot reach its storage (etcd)".into()
            },
            ClusterHealth::Stale {
                reason: "not synced: pods".into()
            },
        ]
    );
}

#[test]
fn samples_without_the_cluster_label_are_left_out_and_the_label_is_configurable() {
    let kube = ClusterLabel::new("kube_cluster").expect("valid");
    let mut answers = BTreeMap::new();
    answers.insert(
        FleetQuery::Nodes,
        vec![
            sample(&[("kube_cluster", "prod-eu")], 500.0),
            sample(&[("cluster", "ignored")], 7.0),
            sample(&[], 9.0),
        ],
    );
    let fleet = fleet_from_metrics(&kube, &answers);
    let names: Vec<_> = fleet.clusters.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["prod-eu"]);
    assert_eq!(fleet.clusters[0].nodes, 500);
    assert!(FleetQuery::Cells
        .promql(&kube)
        .starts_with("max by (kube_cluster, daemonset, state) ("));
}

#[test]
fn odd_values_never_count_below_zero() {
    for (value, want) in [(f64::NAN, 0), (-3.0, 0), (f64::INFINITY, 0), (2.9, 2)] {
        assert_eq!(sample(&[], value).count(), want, "{value}");
    }
}

#[test]
fn only_prometheus_label_names_are_accepted() {
    for good in ["cluster", "_c", "k8s_cluster", "C1"] {
        assert!(ClusterLabel::new(good).is_ok(), "{good}");
    }
    for bad in ["", "1cluster", "clus-ter", "a b", "cluster\"}"] {
        assert_eq!(
            ClusterLabel::new(bad),
            Err(BadClusterLabel(bad.to_string())),
            "{bad}"
        );
    }
}

#[test]
fn stall_words_follow_the_causes_order_and_keep_unknown_causes() {
    assert_eq!(
        stall_words(["new_pods_failing", "not_ready_nodes_hold_budget"]),
        "not ready nodes hold budget, new pods failing"
    );
    assert_eq!(
        stall_words(["from_the_future", "unexplained"]),
        "unexplained, from the future"
    );
}
