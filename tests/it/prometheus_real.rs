//! A real Prometheus (Debian's 2.42) scraping three daemonscope demos and one daemonscope of
//! Kubernetes' own control plane as four clusters, with the shipped alert rules and Grafana
//! dashboard (issue 25 item 5): what a person running the
//! `deploy/prometheus/` files would get.
//!
//! Cluster `k8s` is a daemonscope in front of Kubernetes' own control plane
//! (`support::real_cluster`): its line in the fleet must equal its matrix too.
//! Cluster `a` is the demo with `--stall-after 3s`: node-exporter's rollout is stalled at once
//! (its new image crash-loops on worker-1, NotReady worker-6 holds maxUnavailable 1) and
//! falco's pod is refused by a webhook on worker-3. Cluster `b` is the same demo with the
//! default 5 min stall threshold: node-exporter's rollout still counts as progressing (and so
//! do falco's). Cluster `c` is cluster a's demo with worker-3 joined just now: within the
//! new-node grace, falco's refused node there is `starting`, not missing.
//!
//! The rules are loaded from a copy of `deploy/prometheus/daemonscope-rules.yaml` with every
//! `for:` cut to 2 s: as shipped (1 min and 2 min) the suite would take more than a minute;
//! the `for:` durations themselves are covered by `promtool test rules` (`make test-alerts`).

use crate::support::demo::{free_port, Demo};
use crate::support::prometheus::{Prometheus, Target};
use crate::support::real_cluster::{text, RealCluster, TWO_NODES_AND_A_DAEMONSET};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn read(path: &str) -> String {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The shipped rules with every `for:` cut to 2 s (see the module's comment).
fn rules_with_short_for() -> String {
    let shipped = read("deploy/prometheus/daemonscope-rules.yaml");
    let lines: Vec<String> = shipped
        .lines()
        .map(|line| match line.split_once("for: ") {
            Some((indent, _)) if indent.trim().is_empty() => format!("{indent}for: 2s"),
            _ => line.to_string(),
        })
        .collect();
    let short = lines.join("\n");
    assert_eq!(
        short.matches("for: 2s").count(),
        shipped.matches("\n        for: ").count(),
        "every rule's for: was cut"
    );
    short
}

/// The demo with worker-3 created now (the file's other nodes joined days ago).
fn demo_with_young_worker_3() -> String {
    let now = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .expect("date");
    let now = String::from_utf8_lossy(&now.stdout).trim().to_string();
    let demo = read("scenarios/demo.yaml");
    let at = demo
        .find("  name: worker-3\n")
        .expect("the demo has worker-3");
    let stamp = demo[at..]
        .find("  creationTimestamp: ")
        .map(|i| at + i)
        .expect("worker-3 has a creationTimestamp");
    let end = stamp + demo[stamp..].find('\n').expect("a line");
    format!(
        "{}  creationTimestamp: '{now}'{}",
        &demo[..stamp],
        &demo[end..]
    )
}

/// The dashboard's panel queries as Grafana sends them with "All" chosen.
fn dashboard_queries() -> Vec<(String, String)> {
    let dash: serde_json::Value =
        serde_json::from_str(&read("deploy/prometheus/grafana-dashboard.json")).expect("JSON");
    let mut queries = Vec::new();
    for panel in dash["panels"].as_array().expect("panels") {
        for target in panel["targets"].as_array().into_iter().flatten() {
            let expr = target["expr"].as_str().expect("expr");
            queries.push((
                panel["title"].as_str().unwrap_or("?").to_string(),
                expr.replace("$cluster", ".*").replace("$daemonset", ".*"),
            ));
        }
    }
    assert!(queries.len() >= 9, "{queries:?}");
    queries
}

/// `(alertname, cluster, daemonset, cause)` of alerts in `state` ("firing" or "pending").
fn alerts(prometheus: &Prometheus, state: &str) -> Vec<(String, String, String, String)> {
    let body = crate::support::demo::get(prometheus.port, "/api/v1/alerts").unwrap_or_default();
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let label = |a: &serde_json::Value, k: &str| a["labels"][k].as_str().unwrap_or("").to_string();
    let mut out: Vec<_> = answer["data"]["alerts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| a["state"] == state)
        .map(|a| {
            (
                label(a, "alertname"),
                label(a, "cluster"),
                label(a, "daemonset"),
                label(a, "cause"),
            )
        })
        .collect();
    out.sort();
    out
}

fn tuple(alert: &str, cluster: &str, ds: &str, cause: &str) -> (String, String, String, String) {
    (alert.into(), cluster.into(), ds.into(), cause.into())
}

#[test]
fn the_shipped_rules_and_dashboard_work_on_a_real_prometheus_scraping_four_clusters() {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temp dir");
    // Kubernetes' own control plane as a fourth cluster, `k8s`: two kwok nodes and one
    // DaemonSet made by the real controllers; it starts (about 4 s) beside the demos and
    // Prometheus, which scrapes its daemonscope's port from the start (down until then).
    let objects = dir.path().join("objects.yaml");
    std::fs::write(&objects, TWO_NODES_AND_A_DAEMONSET).expect("write objects.yaml");
    let k8s = std::thread::spawn(move || {
        let k8s = RealCluster::start(&[]);
        let applied = k8s.kubectl(&["apply", "-f", &objects.to_string_lossy()]);
        assert!(applied.status.success(), "{}", text(&applied));
        k8s
    });
    let a = Demo::start(&dir.path().join("a.log"), &["--stall-after", "3s"]);
    let b = Demo::start(&dir.path().join("b.log"), &[]);
    let young = dir.path().join("young-worker-3.yaml");
    std::fs::write(&young, demo_with_young_worker_3()).expect("write scenario");
    let c = Demo::start_scenario(&dir.path().join("c.log"), &young, &["--stall-after", "3s"]);
    let k8s_port = free_port();
    let rules = dir.path().join("rules.yaml");
    std::fs::write(&rules, rules_with_short_for()).expect("write rules");
    let prometheus = Prometheus::start(
        &[
            Target::cluster(a.addr(), "a"),
            Target::cluster(b.addr(), "b"),
            Target::cluster(c.addr(), "c"),
            Target::cluster(format!("127.0.0.1:{k8s_port}"), "k8s"),
        ],
        Some(&rules),
    );
    let k8s = k8s.join().expect("the control plane started");
    let on_k8s = Demo::start_kubeconfig(&dir.path().join("k8s.log"), &k8s.kubeconfig, k8s_port);

    let stalled = "DaemonSetRolloutStalled";
    let missing = "DaemonSetPodsMissing";
    let node_exporter = "monitoring/node-exporter";
    let want_firing = [
        tuple(missing, "a", "security/falco", "refused"),
        tuple(stalled, "a", node_exporter, "new_pods_failing"),
        tuple(stalled, "a", node_exporter, "not_ready_nodes_hold_budget"),
    ];
    let deadline = Instant::now() + Duration::from_secs(40);
    let firing = loop {
        let firing = alerts(&prometheus, "firing");
        if want_firing.iter().all(|w| firing.contains(w)) {
            break firing;
        }
        assert!(
            Instant::now() < deadline,
            "after 40 s firing: {firing:?}, want {want_firing:?}\n{}",
            prometheus.log()
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    // On cluster a the only coverage alert is falco's refused node. (With a 3 s threshold the
    // demo's other unfinished rollouts also count as stalled, each with its own cause: falco's
    // `creation_rejected`, speaker's pod the scheduler leaves pending, and ebs-csi-node, whose
    // new pods take 15 s to turn ready; so only the stall alerts may add to the list.)
    let on_a: Vec<_> = firing.iter().filter(|f| f.1 == "a").cloned().collect();
    assert!(
        on_a.iter().all(|f| f.0 == stalled || f == &want_firing[0]),
        "cluster a fires no other coverage alert: {on_a:?}"
    );
    // Cluster b: the same rollout, still progressing: no stall alert, and no coverage alert
    // (falco's refused node is silenced while its rollout progresses).
    // Cluster c: within the grace, no coverage alert (its stalls still fire: 3 s threshold).
    let all = [
        alerts(&prometheus, "firing"),
        alerts(&prometheus, "pending"),
    ]
    .concat();
    let on_b: Vec<_> = all.iter().filter(|f| f.1 == "b").collect();
    assert!(on_b.is_empty(), "cluster b stays silent: {on_b:?}");
    let coverage_on_c: Vec<_> = all
        .iter()
        .filter(|f| f.1 == "c" && f.0 == missing)
        .collect();
    assert!(
        coverage_on_c.is_empty(),
        "no coverage alert within the grace: {coverage_on_c:?}"
    );
    assert!(
        all.contains(&tuple(stalled, "c", node_exporter, "new_pods_failing")),
        "cluster c is scraped and evaluated like a: {all:?}"
    );
    let value = |expr: &str| -> Option<f64> {
        let result = prometheus.query(expr)?;
        result.first()?["value"][1].as_str()?.parse().ok()
    };
    assert_eq!(
        value(&format!(
            "daemonscope_daemonset_rollout_progressing{{cluster=\"b\",daemonset=\"{node_exporter}\"}}"
        )),
        Some(1.0),
        "on b node-exporter's rollout is the progressing one"
    );
    assert_eq!(
        value("daemonscope_daemonset_starting{cluster=\"c\",daemonset=\"security/falco\"}"),
        Some(1.0),
        "on c falco's gap is within the grace (starting), which is why nothing fires"
    );
    // The alert text names the DaemonSet, the cluster and the cause.
    let body = crate::support::demo::get(prometheus.port, "/api/v1/alerts").unwrap_or_default();
    assert!(
        body.contains(
            "DaemonSet monitoring/node-exporter in cluster a: rollout stalled (new_pods_failing)"
        ),
        "{body}"
    );

    // Every panel of the Grafana dashboard has data, from both clusters where it is per series.
    for (title, expr) in dashboard_queries() {
        let result = prometheus
            .query(&expr)
            .unwrap_or_else(|| panic!("panel {title:?}: the query failed: {expr}"));
        assert!(!result.is_empty(), "panel {title:?} has no data: {expr}");
    }
    // `serve --fleet-prometheus` on this Prometheus: `/api/fleet` says of each cluster what
    // its own matrix shows.
    let template = "https://ds.{cluster}.example.com";
    let fleet = Demo::start(
        &dir.path().join("fleet.log"),
        &[
            "--fleet-prometheus",
            &prometheus.url(),
            "--fleet-link-template",
            template,
        ],
    );
    let read = || {
        let (status, body) = crate::fleet_prometheus::api_fleet(fleet.port);
        if status != 200 {
            return Err(format!("HTTP {status}: {body}"));
        }
        serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))
    };
    crate::support::real_cluster::wait_for("/api/fleet", 30, || read().ok());
    crate::fleet_prometheus::assert_fleet_matches_each_cluster(
        read,
        &[
            ("a", a.port),
            ("b", b.port),
            ("c", c.port),
            ("k8s", on_k8s.port),
        ],
        template,
    );
    let clusters = prometheus
        .query("count by (cluster) (daemonscope_daemonset_desired)")
        .expect("query");
    assert_eq!(
        clusters.len(),
        4,
        "every cluster's DaemonSets: {clusters:?}"
    );

    eprintln!(
        "prometheus_real: alerts, panels and the fleet checked in {:?}",
        started.elapsed()
    );
}
