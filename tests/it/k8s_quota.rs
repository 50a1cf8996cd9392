//! Differential: ResourceQuota (§l.4, §l.6) in the sim against kube-apiserver and
//! kube-controller-manager's resourcequota controller v1.37.2.
//!
//! Three Ready nodes and two namespaces. `capped` has a quota of two pods (and ten
//! `count/pods`) and a workload pod that has turned Failed: it keeps its object count but no
//! longer charges `pods`. `cpu-capped` has a quota of one cpu of requests. Then three
//! DaemonSets: `capped/agent` (100m) gets two pods and one refusal (`exceeded quota: two-pods,
//! requested: pods=1, …`), `cpu-capped/hungry` (400m) gets two and one refusal on
//! `requests.cpu`, and `cpu-capped/bare` (no requests) gets none (`failed quota: cpu: must
//! specify requests.cpu for: agent`). Both sides must agree on the classified refusals (the
//! generated pod name aside), the NUMBER of missing cells per DaemonSet, every quota's
//! `status.hard`/`status.used`, `kubectl get quota`, `kubectl describe quota` and the
//! DaemonSets' status counts. Which node stays without a pod is not compared: the real
//! DaemonSet controller creates a slow-start batch in parallel and the quota admits whichever
//! create it evaluates first. Then the test (never the dashboard) raises both quotas on both
//! sides, and both converge to full coverage of `agent` and `hungry`. Before all that, quotas
//! kube-apiserver refuses (a negative value, an unknown name, half a pod, a bad suffix) get
//! the same refusal from the sim.
//!
//! Why its own control plane: the quota controller is not among the harness's default
//! controllers; the case takes seconds (the control plane's start is most of it).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::k8s_differential::{both, load_both_on, write_temp, Pair, Side};
use crate::support::real_cluster::RealCluster;
use daemonscope::domain::admission::{Refusal, RefusalKind};
use daemonscope::domain::coverage::CellState;
use daemonscope::sim::replay::prepare;
use daemonscope::sim::scenario::parse_str;
use serde_json::Value;

fn node(name: &str) -> String {
    format!(
        "apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}, kubernetes.io/os: linux}}
status:
  conditions: [{{type: Ready, status: 'True'}}]
"
    )
}

fn namespace(name: &str) -> String {
    format!(
        "apiVersion: v1
kind: Namespace
metadata: {{name: {name}, labels: {{kubernetes.io/metadata.name: {name}}}}}
"
    )
}

const BATCH: &str = "apiVersion: v1
kind: Pod
metadata: {name: batch, namespace: capped}
spec:
  nodeName: node-a
  restartPolicy: Never
  containers:
  - {name: c, image: registry.example/batch:1, resources: {requests: {cpu: 100m}}}
";

fn quotas(pods: u32, cpu: &str) -> String {
    format!(
        "apiVersion: v1
kind: ResourceQuota
metadata: {{name: two-pods, namespace: capped}}
spec: {{hard: {{pods: '{pods}', count/pods: '10'}}}}
---
apiVersion: v1
kind: ResourceQuota
metadata: {{name: cpu, namespace: cpu-capped}}
spec: {{hard: {{requests.cpu: '{cpu}'}}}}
"
    )
}

fn daemonset(namespace: &str, name: &str, resources: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: agent
        image: registry.example/{name}:1
{resources}"
    )
}

const KEYS: [&str; 3] = ["capped/agent", "cpu-capped/hungry", "cpu-capped/bare"];

/// Each quota's `status.hard` and `status.used`, one line per quota.
fn quota_status(side: &Side) -> Vec<String> {
    let out: Value = serde_json::from_str(&side.kubectl(&["get", "quota", "-A", "-o", "json"]))
        .expect("a quota list");
    let mut lines: Vec<String> = out["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| {
            format!(
                "{}/{} hard={} used={}",
                q["metadata"]["namespace"].as_str().unwrap_or(""),
                q["metadata"]["name"].as_str().unwrap_or(""),
                q["status"]["hard"],
                q["status"]["used"]
            )
        })
        .collect();
    lines.sort();
    lines
}

/// `kubectl get quota -A` without the AGE column.
fn quota_table(side: &Side) -> Vec<String> {
    let out = side.kubectl(&["get", "quota", "-A"]);
    let mut lines: Vec<String> = out
        .lines()
        .map(|l| {
            let (head, _age) = l
                .trim_end()
                .rsplit_once(char::is_whitespace)
                .unwrap_or((l, ""));
            head.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect();
    lines.sort();
    lines
}

/// The DaemonSets' status counts as `kubectl get ds` carries them.
fn ds_status(side: &Side) -> Vec<String> {
    let out = side.kubectl(&[
        "get",
        "ds",
        "-A",
        "-o",
        "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} desired={.status.desiredNumberScheduled} current={.status.currentNumberScheduled} ready={.status.numberReady} updated={.status.updatedNumberScheduled} available={.status.numberAvailable} unavailable={.status.numberUnavailable} misscheduled={.status.numberMisscheduled}{\"\\n\"}{end}",
    ]);
    let mut lines: Vec<String> = out.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// Per DaemonSet: how many cells are missing, and the refusal classified (if any).
fn coverage(side: &Side) -> BTreeMap<String, (usize, Option<Refusal>)> {
    let snapshot = side.live.snapshot();
    KEYS.iter()
        .filter_map(|key| {
            let column = snapshot.daemonsets.iter().position(|c| c.key == *key)?;
            let missing = snapshot
                .nodes
                .iter()
                .filter(|n| n.cells.get(column) == Some(&CellState::Missing))
                .count();
            let refusal = snapshot.daemonsets[column]
                .refused
                .clone()
                .map(|r| masked(r.refusal));
            Some((key.to_string(), (missing, refusal)))
        })
        .collect()
}

/// The refusal with the generated pod name's random characters replaced by `*`
/// (kube-apiserver generates the name before the ResourceQuota admission, at random).
fn masked(mut r: Refusal) -> Refusal {
    if let Some((head, rest)) = r.message.split_once("pods \"") {
        if let Some((name, tail)) = rest.split_once('"') {
            if let Some((prefix, suffix)) = name.rsplit_once('-') {
                r.message = format!(
                    "{head}pods \"{prefix}-{}\"{tail}",
                    "*".repeat(suffix.chars().count())
                );
            }
        }
    }
    r
}

/// Waits until both sides show `missing` cells per DaemonSet (a refusal classified where
/// any are missing) and have held them for a second; returns both coverages.
async fn settle(
    pair: &Pair,
    missing: [usize; 3],
    what: &str,
) -> [BTreeMap<String, (usize, Option<Refusal>)>; 2] {
    let deadline = Instant::now() + Duration::from_secs(90);
    let expected = |c: &BTreeMap<String, (usize, Option<Refusal>)>| {
        KEYS.iter().zip(missing).all(|(key, n)| {
            c.get(*key)
                .is_some_and(|(m, r)| *m == n && (n == 0 || r.is_some()))
        })
    };
    let mut since: Option<Instant> = None;
    loop {
        let (sim, real) = (coverage(&pair.sim), coverage(&pair.real));
        if expected(&sim) && expected(&real) {
            let at = *since.get_or_insert_with(Instant::now);
            if at.elapsed() > Duration::from_secs(1) {
                return [sim, real];
            }
        } else {
            since = None;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not {missing:?} missing on both sides within 90 s:\nsim {sim:#?}\nkubernetes {real:#?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Polls `ok` every 200 ms for at most 30 s.
async fn until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ok() {
        assert!(Instant::now() < deadline, "{what}: not within 30 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn same(pair: &Pair, what: &str) {
    let (a, b) = (quota_status(&pair.sim), quota_status(&pair.real));
    assert_eq!(a, b, "{what}: the quotas' status differs (sim, kubernetes)");
    let (a, b) = (quota_table(&pair.sim), quota_table(&pair.real));
    assert_eq!(
        a, b,
        "{what}: `kubectl get quota -A` differs (sim, kubernetes)"
    );
    for (namespace, name) in [("capped", "two-pods"), ("cpu-capped", "cpu")] {
        let args = ["describe", "quota", "-n", namespace, name];
        let (a, b) = (pair.sim.kubectl(&args), pair.real.kubectl(&args));
        assert_eq!(
            a, b,
            "{what}: `kubectl describe quota` differs (sim, kubernetes)"
        );
    }
    let (a, b) = (ds_status(&pair.sim), ds_status(&pair.real));
    assert_eq!(
        a, b,
        "{what}: the DaemonSets' status differs (sim, kubernetes)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_refusals_status_and_recovery_agree_with_kubernetes() {
    let mut docs: Vec<String> = ["node-a", "node-b", "node-c"].map(node).to_vec();
    docs.extend(["capped", "cpu-capped"].map(namespace));
    let scenario = parse_str(&docs.join("---\n"), "quota.yaml").expect("the scenario parses");
    let replay = prepare(&scenario);
    let cluster = tokio::task::block_in_place(|| {
        RealCluster::start_with(&replay.failing_images, &["resourcequota-controller"])
    });
    let pair = load_both_on(&scenario, replay, cluster).await;
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("a temporary directory");

    // A workload pod that ran and failed: its object count stays, its compute charge goes.
    let batch = write_temp(dir.path(), "batch.yaml", BATCH);
    both(&pair, &["apply", "-f", &batch]);
    for side in [&pair.sim, &pair.real] {
        until("the batch pod running", || {
            side.kubectl(&[
                "get",
                "pod",
                "batch",
                "-n",
                "capped",
                "-o",
                "jsonpath={.status.phase}",
            ]) == "Running"
        })
        .await;
    }
    both(
        &pair,
        &[
            "patch",
            "pod",
            "batch",
            "-n",
            "capped",
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"phase":"Failed"}}"#,
        ],
    );

    // §l.6: what kube-apiserver refuses in `spec.hard`, refused with the same words.
    for (i, hard) in ["{pods: '-1'}", "{foo: '1'}", "{pods: 1500m}", "{pods: 1K}"]
        .into_iter()
        .enumerate()
    {
        let bad = format!(
            "apiVersion: v1\nkind: ResourceQuota\nmetadata: {{name: bad, namespace: capped}}\nspec: {{hard: {hard}}}\n"
        );
        let file = write_temp(dir.path(), &format!("bad-{i}.yaml"), &bad);
        let [sim, real] = [&pair.sim, &pair.real].map(|side| {
            let out = tokio::task::block_in_place(|| {
                crate::support::real_cluster::kubectl(&side.kubeconfig, &["create", "-f", &file])
            });
            assert!(!out.status.success(), "{hard} was stored");
            String::from_utf8_lossy(&out.stderr).trim().to_string()
        });
        eprintln!("kubernetes: {real}");
        assert_eq!(sim, real, "{hard}: the refusal differs (sim, kubernetes)");
    }

    let quota_file = write_temp(dir.path(), "quotas.yaml", &quotas(2, "1"));
    both(&pair, &["apply", "-f", &quota_file]);
    // The admission needs the controller's status first (`status unknown for quota`).
    until("the quotas' status on kubernetes", || {
        let lines = quota_status(&pair.real);
        lines.len() == 2 && lines.iter().all(|l| !l.ends_with("used=null"))
    })
    .await;
    same(&pair, "the quotas before any DaemonSet");
    assert_eq!(
        quota_status(&pair.real)[0],
        r#"capped/two-pods hard={"count/pods":"10","pods":"2"} used={"count/pods":"1","pods":"0"}"#,
        "§l.6: a Failed pod keeps its object count and charges no pod"
    );

    let agents = [
        daemonset(
            "capped",
            "agent",
            "        resources: {requests: {cpu: 100m}}\n",
        ),
        daemonset(
            "cpu-capped",
            "hungry",
            "        resources: {requests: {cpu: 400m}}\n",
        ),
        daemonset("cpu-capped", "bare", ""),
    ]
    .join("---\n");
    let agents = write_temp(dir.path(), "agents.yaml", &agents);
    both(&pair, &["apply", "-f", &agents]);
    let [sim, real] = settle(&pair, [1, 1, 3], "past the quotas").await;
    assert_eq!(
        sim, real,
        "§l.4: the refusals or missing counts differ (sim, kubernetes)"
    );
    let message = |key: &str| real[key].1.clone().expect("a refusal").message;
    assert_eq!(
        message("capped/agent"),
        r#"pods "agent-*****" is forbidden: exceeded quota: two-pods, requested: pods=1, used: pods=2, limited: pods=2"#
    );
    assert_eq!(
        message("cpu-capped/hungry"),
        r#"pods "hungry-*****" is forbidden: exceeded quota: cpu, requested: requests.cpu=400m, used: requests.cpu=800m, limited: requests.cpu=1"#
    );
    assert_eq!(
        message("cpu-capped/bare"),
        r#"pods "bare-*****" is forbidden: failed quota: cpu: must specify requests.cpu for: agent"#
    );
    for key in KEYS {
        let refusal = real[key].1.clone().expect("a refusal");
        assert_eq!(
            refusal.kind,
            RefusalKind::ResourceQuota,
            "{key}: {refusal:?}"
        );
    }
    same(&pair, "past the quotas");
    eprintln!(
        "refusals agree {} ms after the start",
        started.elapsed().as_millis()
    );

    // The test raises both quotas (the dashboard only reads); both sides fill the gaps.
    let raised = write_temp(dir.path(), "raised.yaml", &quotas(3, "2"));
    both(&pair, &["apply", "-f", &raised]);
    let raising = Instant::now();
    settle(&pair, [0, 0, 3], "after raising the quotas").await;
    eprintln!(
        "full coverage on both sides {} ms after raising the quotas",
        raising.elapsed().as_millis()
    );
    same(&pair, "after raising the quotas");
    assert_eq!(
        quota_status(&pair.real),
        [
            r#"capped/two-pods hard={"count/pods":"10","pods":"3"} used={"count/pods":"4","pods":"3"}"#,
            r#"cpu-capped/cpu hard={"requests.cpu":"2"} used={"requests.cpu":"1200m"}"#,
        ]
    );
}
