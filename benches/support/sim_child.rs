//! Shared by the live benches: the simulated cluster they run in a child process (this bench
//! binary re-invoked with `DAEMONSCOPE_BENCH_SIM=1`), preloaded with every node running every
//! DaemonSet's pod, and the churn it makes on the parent's word: pod revision-hash flips at a
//! set rate, each printed as `FLIP <node> kube-system/<ds> <unix nanos>` when committed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![allow(dead_code)]

use daemonscope::sim::{start_with, SimConfig};
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::json;
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::time::Duration;

/// Errors of a bench run: printed, never recovered from.
pub type BenchResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The value of `--name N` on the command line, if given and a number.
pub fn flag(name: &str) -> Option<u64> {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|pair| pair[0] == name)
        .and_then(|pair| pair[1].parse().ok())
}

/// The simulated cluster child: its process, its stdout lines, and its API URL.
pub struct SimChild {
    pub child: std::process::Child,
    pub lines: tokio::sync::mpsc::UnboundedReceiver<String>,
    pub url: String,
}

/// Starts this binary again as the simulated cluster and waits for its URL.
pub async fn spawn_sim_child() -> BenchResult<SimChild> {
    let exe = std::env::current_exe()?;
    let mut child = std::process::Command::new(exe)
        .args(std::env::args().skip(1))
        .env("DAEMONSCOPE_BENCH_SIM", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("child stdout")?;
    let (lines_tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut url = None;
    while let Some(line) = lines.recv().await {
        if let Some(u) = line.strip_prefix("URL ") {
            url = Some(u.to_string());
            break;
        }
    }
    let url = url.ok_or("the simulated cluster did not start")?;
    Ok(SimChild { child, lines, url })
}

/// One `FLIP` line: (node, `kube-system/<ds>`, unix nanos when committed).
pub fn parse_flip(line: &str) -> Option<(String, String, u128)> {
    let parts: Vec<&str> = line.split(' ').collect();
    match parts[..] {
        ["FLIP", node, ds, t] => Some((node.to_string(), ds.to_string(), t.parse().unwrap_or(0))),
        _ => None,
    }
}

/// The generated cluster and its churn.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    pub nodes: usize,
    pub daemonsets: usize,
    pub events: usize,
    pub rate: u64,
}

/// `--nodes N --daemonsets D --events E --rate R`, each optional.
pub fn parse_args() -> Size {
    let mut size = Size {
        nodes: 5000,
        daemonsets: 30,
        events: 1000,
        rate: 100,
    };
    let args: Vec<String> = std::env::args().collect();
    for pair in args.windows(2) {
        let value = pair[1].parse::<u64>().ok();
        match (pair[0].as_str(), value) {
            ("--nodes", Some(v)) => size.nodes = v as usize,
            ("--daemonsets", Some(v)) => size.daemonsets = v as usize,
            ("--events", Some(v)) => size.events = v as usize,
            ("--rate", Some(v)) => size.rate = v.max(1),
            _ => {}
        }
    }
    size
}

/// This process's resident memory in MB.
pub fn rss_mb() -> f64 {
    rss_mb_of("self")
}

/// Resident memory in MB of `pid` ("self" for this process); 0 when it cannot be read.
pub fn rss_mb_of(pid: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Wall clock shared by the processes of a bench.
pub fn unix_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// The generated node names, `node-00042`.
pub fn node_name(i: usize) -> String {
    format!("node-{i:05}")
}

/// The generated DaemonSet names, `agent-07` (all in kube-system).
pub fn ds_name(d: usize) -> String {
    format!("agent-{d:02}")
}

/// Child process: a simulated cluster with every node running every DaemonSet's pod.
pub async fn run_sim(size: Size) -> BenchResult {
    let sim = start_with(SimConfig::default()).await?;
    let store = &sim.store;
    for i in 0..size.nodes {
        let taints = if i % 10 == 0 {
            json!([{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}])
        } else {
            json!([])
        };
        let node: Node = serde_json::from_value(json!({
            "metadata": {"name": node_name(i), "labels": {"topology.kubernetes.io/zone": format!("zone-{}", i % 3)}},
            "spec": {"taints": taints},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}
        }))?;
        store.create(node)?;
    }
    for d in 0..size.daemonsets {
        let name = ds_name(d);
        let ds: DaemonSet = serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "c", "image": format!("{name}:1")}]}
                }
            }
        }))?;
        let ds = store.create(ds)?;
        let owner = json!([{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": name, "uid": ds.metadata.uid, "controller": true}]);
        for (number, hash) in [(1, "old"), (2, "cur")] {
            let rev: ControllerRevision = serde_json::from_value(json!({
                "metadata": {"name": format!("{name}-{hash}"), "namespace": "kube-system",
                             "labels": {"controller-revision-hash": hash}, "ownerReferences": owner},
                "data": {}, "revision": number
            }))?;
            store.create(rev)?;
        }
        for i in 0..size.nodes {
            let pod: Pod = serde_json::from_value(json!({
                "metadata": {"name": format!("{name}-{}", node_name(i)), "namespace": "kube-system",
                             "labels": {"app": name, "controller-revision-hash": "cur"}, "ownerReferences": owner},
                "spec": {"nodeName": node_name(i), "containers": [{"name": "c", "image": format!("{name}:1")}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
            }))?;
            store.create(pod)?;
        }
    }
    println!("URL {}", sim.url);
    std::io::stdout().flush()?;
    // Wait for "churn" from the parent, then change pods in the store at `rate` per second,
    // printing when each change was committed (wall clock, shared by both processes).
    let command = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
        line
    })
    .await?;
    if command.trim() == "churn" {
        let mut ticker = tokio::time::interval(Duration::from_secs_f64(1.0 / size.rate as f64));
        let mut flipped: HashMap<String, bool> = HashMap::new();
        for n in 0..size.events {
            ticker.tick().await;
            let (d, i) = (n % size.daemonsets, (n * 7919) % size.nodes);
            let name = format!("{}-{}", ds_name(d), node_name(i));
            let old = flipped.entry(name.clone()).or_insert(false);
            *old = !*old;
            let hash = if *old { "old" } else { "cur" };
            let Some(mut pod) = store.get::<Pod>(Some("kube-system"), &name) else {
                continue;
            };
            pod.metadata
                .labels
                .get_or_insert_default()
                .insert("controller-revision-hash".into(), hash.into());
            store.update(pod)?;
            println!(
                "FLIP {} kube-system/{} {}",
                node_name(i),
                ds_name(d),
                unix_nanos()
            );
        }
        println!("DONE");
        std::io::stdout().flush()?;
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            let _ = std::io::stdin().lock().read_line(&mut line);
        })
        .await?;
    }
    Ok(())
}
