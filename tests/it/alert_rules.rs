//! The alerting contract of `deploy/prometheus/` (issue 25 item 4): the PrometheusRule is the
//! plain rules file wrapped, every series the rules and the Grafana dashboard read is on the
//! demo's real `/metrics` (a rename cannot silently break an alert), the demo's situations
//! carry their causes there, every series served is documented in the README, and every
//! dashboard query is PromQL that promtool accepts.
//! (`promtool test rules` runs the rules' own unit tests: `make test-alerts`.)

use crate::support::demo::Demo;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every `daemonscope_…` metric name in a text (PromQL inside YAML or JSON).
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("daemonscope_") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .unwrap_or(tail.len());
        names.insert(tail[..end].to_string());
        rest = &tail[end..];
    }
    names
}

/// The dashboard's panel queries.
fn dashboard_queries() -> Vec<String> {
    let dash: serde_json::Value =
        serde_json::from_str(&read("deploy/prometheus/grafana-dashboard.json")).expect("JSON");
    let panels = dash["panels"].as_array().expect("panels");
    assert!(!panels.is_empty());
    panels
        .iter()
        .flat_map(|p| p["targets"].as_array().cloned().unwrap_or_default())
        .map(|t| {
            t["expr"]
                .as_str()
                .expect("every target has an expr")
                .to_string()
        })
        .collect()
}

#[test]
fn the_prometheusrule_is_the_plain_rules_file_wrapped() {
    let out = Command::new(root().join("tools/prometheus-rule.sh"))
        .current_dir(root())
        .output()
        .expect("run tools/prometheus-rule.sh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let generated = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(
        generated,
        read("deploy/prometheus/prometheusrule.yaml"),
        "deploy/prometheus/prometheusrule.yaml is not the rules file wrapped: run `make prometheus-rule`"
    );
    assert!(generated.contains("kind: PrometheusRule\n"));
    assert!(generated.contains("\n  groups:\n    - name: daemonscope\n"));
}

#[test]
fn every_dashboard_query_is_promql_that_promtool_accepts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rules = String::from("groups:\n  - name: dashboard\n    rules:\n");
    for (i, expr) in dashboard_queries().iter().enumerate() {
        // Grafana's variables as the "All" choice sends them.
        let expr = expr.replace("$cluster", ".*").replace("$daemonset", ".*");
        let quoted = serde_json::to_string(&expr).expect("a JSON string is a YAML string");
        rules.push_str(&format!(
            "      - record: dashboard:panel{i}\n        expr: {quoted}\n"
        ));
    }
    let file = dir.path().join("dashboard-queries.yaml");
    std::fs::write(&file, rules).expect("write");
    let out = Command::new("promtool")
        .args(["check", "rules"])
        .arg(&file)
        .output()
        .expect("promtool (Debian's prometheus package; `make deps-apt` installs it)");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The value of the sample `line_start` (a name with its labels), when present.
fn sample(metrics: &str, line_start: &str) -> Option<f64> {
    metrics
        .lines()
        .find(|l| l.starts_with(line_start))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

/// On the demo (`--stall-after 3s`, so its stall shows in seconds): every name the rules and
/// the dashboard read is served, and the demo's situations carry their causes: falco refused
/// by a webhook on worker-3 (and no rollout moving, so the coverage alert is not silenced);
/// node-exporter's rollout stalled by its crash-looping new pod and NotReady worker-6 holding
/// maxUnavailable 1.
#[test]
fn every_series_the_rules_and_the_dashboard_read_is_on_the_demos_metrics() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("serve.log");
    let demo = Demo::start(&log, &["--stall-after", "3s"]);
    let wanted: BTreeSet<String> = metric_names(&read("deploy/prometheus/daemonscope-rules.yaml"))
        .into_iter()
        .chain(dashboard_queries().iter().flat_map(|q| metric_names(q)))
        .collect();
    assert!(
        wanted.contains("daemonscope_daemonset_rollout_stalled"),
        "{wanted:?}"
    );
    let falco_refused =
        "daemonscope_daemonset_missing_past_grace{daemonset=\"security/falco\",cause=\"refused\"}";
    let ne_stalled = "daemonscope_daemonset_rollout_stalled{daemonset=\"monitoring/node-exporter\"";
    let deadline = Instant::now() + Duration::from_secs(90);
    let metrics = loop {
        let text = demo.get("/metrics").unwrap_or_default();
        let served = |name: &String| {
            text.lines()
                .any(|l| l.starts_with(&format!("{name}{{")) || l.starts_with(&format!("{name} ")))
        };
        if wanted.iter().all(served)
            && sample(&text, falco_refused) == Some(1.0)
            && sample(&text, &format!("{ne_stalled},cause=\"new_pods_failing\"}}")) == Some(1.0)
        {
            break text;
        }
        if Instant::now() > deadline {
            let missing: Vec<&String> = wanted.iter().filter(|n| !served(n)).collect();
            panic!(
                "after 90 s, not on /metrics: {missing:?}, or falco not refused, or node-exporter not stalled\n{text}\n--- log\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    let mut on: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with(ne_stalled) && l.ends_with(" 1"))
        .collect();
    on.sort_unstable();
    assert_eq!(
        on,
        [
            format!("{ne_stalled},cause=\"new_pods_failing\"}} 1"),
            format!("{ne_stalled},cause=\"not_ready_nodes_hold_budget\"}} 1"),
        ],
        "the demo's stall, with both its causes (§d.3, §d.4)"
    );
    assert_eq!(
        sample(
            &metrics,
            "daemonscope_daemonset_rollout_progressing{daemonset=\"monitoring/node-exporter\"}"
        ),
        Some(0.0),
        "stalled is not progressing"
    );
    assert_eq!(
        sample(
            &metrics,
            "daemonscope_daemonset_rollout_progressing{daemonset=\"security/falco\"}"
        ),
        Some(0.0),
        "falco's refused node is a coverage gap, not a rollout: the alert is not silenced"
    );
    assert_eq!(
        sample(
            &metrics,
            "daemonscope_daemonset_max_unavailable{daemonset=\"monitoring/node-exporter\"}"
        ),
        Some(1.0),
        "the demo's maxUnavailable 1"
    );
    assert_eq!(
        sample(
            &metrics,
            "daemonscope_daemonset_unschedulable{daemonset=\"metallb-system/speaker\",reason=\"Unschedulable\"}"
        ),
        Some(1.0),
        "the demo's speaker pending on worker-4, by its PodScheduled reason (§k)"
    );
    assert!(
        !metrics.contains(
            "daemonscope_daemonset_unschedulable{daemonset=\"kube-system/log-collector\""
        ),
        "a DaemonSet whose pods are all bound has no unschedulable series"
    );
    let readme = read("README.md");
    let undocumented: Vec<&str> = metrics
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split(' ').next())
        .filter(|name| !readme.contains(&format!("`{name}")))
        .collect();
    assert!(
        undocumented.is_empty(),
        "README's Alerts and metrics table lacks {undocumented:?}"
    );
    assert!(
        !metrics.contains("cluster=\""),
        "daemonscope adds no cluster label: Prometheus does"
    );
}
