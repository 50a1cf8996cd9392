//! The simulated API server at Kubernetes' documented limit: 5,000 nodes × 30 DaemonSets
//! (150,000 pods). Run with `cargo bench --features ssr --bench sim_api` (add
//! `-- --nodes N --daemonsets D --events E` to change the size). Measured:
//!
//! - store writes: pods created per second through the typed store API;
//! - memory: resident set (VmRSS) growth for the pods, and their stored JSON bytes;
//! - LIST of all pods paginated at 500: objects/s and MB/s as raw HTTP bodies (the server's
//!   cost), and through kube-rs typed lists (what a client sees, decoding included);
//! - watch fan-out: 10 kube-rs watches receiving E pod changes each (events/s delivered).
//!
//! The pods are written directly (no controller), each shaped as a DaemonSet pod: owner
//! reference, labels, the automatic tolerations, the node-affinity pin and a Running status.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use std::time::{Duration, Instant};

use daemonscope::sim::store::StoreSettings;
use daemonscope::sim::{start_with, SimConfig};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ListParams, WatchEvent, WatchParams};
use serde_json::json;

type BenchResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|w| w[0] == name)
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(default)
}

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .map(|v| v.trim().trim_end_matches("kB").trim().to_string())
        })
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn daemon_pod(ds: &str, uid: &str, node: &str, i: usize) -> BenchResult<Pod> {
    let toleration =
        |key: &str, effect: &str| json!({"key": key, "operator": "Exists", "effect": effect});
    Ok(serde_json::from_value(json!({
        "metadata": {"name": format!("{ds}-{i:05x}"), "generateName": format!("{ds}-"), "namespace": "kube-system",
            "labels": {"app": ds, "controller-revision-hash": "5d8f7c9b4", "pod-template-generation": "1"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds, "uid": uid, "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"nodeName": node, "containers": [{"name": "agent", "image": format!("registry.example.com/{ds}:1.4.2"),
                "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}}}],
            "tolerations": [toleration("node.kubernetes.io/not-ready", "NoExecute"), toleration("node.kubernetes.io/unreachable", "NoExecute"),
                toleration("node.kubernetes.io/disk-pressure", "NoSchedule"), toleration("node.kubernetes.io/memory-pressure", "NoSchedule"),
                toleration("node.kubernetes.io/pid-pressure", "NoSchedule"), toleration("node.kubernetes.io/unschedulable", "NoSchedule")],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}},
        "status": {"phase": "Running", "podIP": format!("10.{}.{}.{}", i % 200, (i / 200) % 250, i % 250), "hostIP": "10.0.0.1",
            "startTime": "2026-01-01T00:00:00Z",
            "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"},
                {"type": "ContainersReady", "status": "True"}, {"type": "PodScheduled", "status": "True"}],
            "containerStatuses": [{"name": "agent", "image": format!("registry.example.com/{ds}:1.4.2"), "imageID": "", "ready": true,
                "restartCount": 0, "started": true, "state": {"running": {"startedAt": "2026-01-01T00:00:05Z"}}}]}
    }))?)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> BenchResult {
    let nodes = arg("--nodes", 5000);
    let daemonsets = arg("--daemonsets", 30);
    let events = arg("--events", 10_000);
    println!(
        "sim_api bench: {nodes} nodes x {daemonsets} DaemonSets = {} pods",
        nodes * daemonsets
    );
    let rss_start = rss_mb();
    let sim = start_with(SimConfig {
        store: StoreSettings {
            history_limit: 200_000,
            ..StoreSettings::default()
        },
        ..SimConfig::default()
    })
    .await?;
    for n in 0..nodes {
        let node: Node = serde_json::from_value(
            json!({"metadata": {"name": format!("node-{n:05}"), "labels": {"pool": "general"}}}),
        )?;
        sim.store.create(node)?;
    }
    let t = Instant::now();
    for d in 0..daemonsets {
        let name = format!("agent-{d:02}");
        let ds: DaemonSet = serde_json::from_value(
            json!({"metadata": {"name": name, "namespace": "kube-system"}, "spec": {
            "selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "agent", "image": "img:1"}]}}}}),
        )?;
        let uid = sim.store.create(ds)?.metadata.uid.unwrap_or_default();
        for n in 0..nodes {
            sim.store
                .create(daemon_pod(&name, &uid, &format!("node-{n:05}"), n)?)?;
        }
    }
    let pods = nodes * daemonsets;
    let created = t.elapsed();
    let page = sim.store.list_page(
        daemonscope::sim::store::Kind::Pod,
        None,
        None,
        None,
        &|_| true,
    );
    let stored_bytes: usize = page.items.iter().map(|o| o.raw.len()).sum();
    drop(page);
    let rss_loaded = rss_mb();
    println!(
        "store: {pods} pods created in {:.2}s ({:.0} pods/s)",
        created.as_secs_f64(),
        pods as f64 / created.as_secs_f64()
    );
    println!(
        "memory: stored pod JSON {:.1} MB ({:.0} B/pod); RSS {:.1} MB -> {:.1} MB (+{:.1} MB, {:.0} B/pod incl. history)",
        stored_bytes as f64 / 1e6,
        stored_bytes as f64 / pods as f64,
        rss_start,
        rss_loaded,
        rss_loaded - rss_start,
        (rss_loaded - rss_start) * 1024.0 * 1024.0 / pods as f64
    );

    let client = kube::Client::try_from(sim.kube_config())?;
    for round in 1..=2 {
        let t = Instant::now();
        let (mut bytes, mut items, mut token) = (0usize, 0usize, String::new());
        loop {
            let mut uri = "/api/v1/pods?limit=500".to_string();
            if !token.is_empty() {
                uri.push_str(&format!("&continue={token}"));
            }
            let body = client
                .request_text(http::Request::get(uri).body(Vec::new())?)
                .await?;
            bytes += body.len();
            items += body.matches("\"kind\":\"Pod\"").count();
            token = body
                .split_once("\"continue\":\"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(t, _)| t.to_string())
                .unwrap_or_default();
            if token.is_empty() {
                break;
            }
        }
        let s = t.elapsed().as_secs_f64();
        println!("LIST raw (round {round}): {items} pods, {:.1} MB in {s:.2}s = {:.0} objects/s, {:.1} MB/s", bytes as f64 / 1e6, items as f64 / s, bytes as f64 / 1e6 / s);
    }
    let api: Api<Pod> = Api::all(client.clone());
    let t = Instant::now();
    let (mut items, mut lp) = (0usize, ListParams::default().limit(500));
    loop {
        let list = api.list(&lp).await?;
        items += list.items.len();
        match list.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(c) => lp = ListParams::default().limit(500).continue_token(&c),
            None => break,
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "LIST kube-rs typed: {items} pods in {s:.2}s = {:.0} objects/s",
        items as f64 / s
    );

    let rv = sim.store.resource_version().to_string();
    let mut watchers = Vec::new();
    for _ in 0..10 {
        let api = api.clone();
        let rv = rv.clone();
        watchers.push(tokio::spawn(async move {
            let mut stream = api
                .watch(&WatchParams::default().timeout(600), &rv)
                .await?
                .boxed();
            let mut seen = 0usize;
            while seen < events {
                match stream.try_next().await? {
                    Some(WatchEvent::Modified(_)) => seen += 1,
                    Some(_) => {}
                    None => break,
                }
            }
            Ok::<(usize, Instant), kube::Error>((seen, Instant::now()))
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t = Instant::now();
    let store = sim.store.clone();
    let writer = tokio::task::spawn_blocking(move || -> BenchResult {
        for i in 0..events {
            let d = i % daemonsets;
            let n = (i / daemonsets) % nodes;
            let name = format!("agent-{d:02}-{n:05x}");
            if let Some(mut pod) = store.get::<Pod>(Some("kube-system"), &name) {
                pod.metadata
                    .labels
                    .get_or_insert_default()
                    .insert("bench".into(), i.to_string());
                store.update(pod)?;
            }
        }
        Ok(())
    });
    writer.await??;
    let wrote = t.elapsed().as_secs_f64();
    let mut last = t;
    let mut delivered = 0;
    for w in watchers {
        let (seen, at) = w.await??;
        delivered += seen;
        last = last.max(at);
    }
    let s = last.duration_since(t).as_secs_f64();
    println!(
        "watch fan-out: {events} pod updates written in {wrote:.2}s; 10 watchers received {delivered} events in {s:.2}s = {:.0} events/s delivered ({:.0}/s per watcher)",
        delivered as f64 / s,
        delivered as f64 / s / 10.0
    );
    println!("RSS at end: {:.1} MB", rss_mb());
    Ok(())
}
