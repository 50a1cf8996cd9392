//! The live path at Kubernetes' documented limit: 5,000 nodes × 30 DaemonSets (150,000 pods).
//!
//! Run with `cargo bench --features ssr --bench live` (add `-- --nodes N --daemonsets D
//! --events E --rate R` to change the size). The simulated cluster runs in a *child* process
//! (this binary, re-invoked), so the resident memory measured is the dashboard's alone:
//! watchers, compact store, cells and the live feed. Measured:
//!
//! - time from starting the watchers to ready (every watcher listed);
//! - resident memory (VmRSS) after the sync;
//! - what one browser's matrix view costs (`/api/view`): the window cut, its size, a patch;
//! - latency from a change sent to the API server to the delta leaving `/api/live`
//!   (p50, p99), under a churn of `rate` pod events per second.
//!
//! A change is a pod's `controller-revision-hash` label patched between the current and an
//! old revision, so each one flips one cell between `ready` and `outdated`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use axum::body::Body;
use axum::http::Request;
use daemonscope::cluster::connect;
use daemonscope::cluster::projection::Projection;
use daemonscope::cluster::state::Scope;
use daemonscope::domain::coverage::CellState;
use daemonscope::domain::view::{Delta, LiveMessage};
use daemonscope::views::matrix::patch::{diff, ViewMessage};
use daemonscope::views::matrix::window::cut_window;
use futures::StreamExt;
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tower::ServiceExt;

#[path = "support/sim_child.rs"]
mod sim_child;
use sim_child::{
    node_name, parse_args, parse_flip, rss_mb, run_sim, spawn_sim_child, unix_nanos, BenchResult,
    Size,
};

/// When each cell's deltas arrived (unix nanoseconds), by (node, DaemonSet key).
type Arrivals = HashMap<(String, String), Vec<u128>>;

/// The n-th change of a cell is matched with the n-th delta of that cell; sorted latencies.
fn latencies(changes: &[(String, String, u128)], arrivals: &Arrivals) -> Vec<Duration> {
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let mut lat: Vec<Duration> = Vec::new();
    for (node, ds, t0) in changes {
        let key = (node.clone(), ds.clone());
        let i = seen.entry(key.clone()).or_insert(0);
        if let Some(t1) = arrivals.get(&key).and_then(|v| v.get(*i)) {
            lat.push(Duration::from_nanos(t1.saturating_sub(*t0) as u64));
        }
        *i += 1;
    }
    lat.sort();
    lat
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Parent: the dashboard against the child's cluster.
async fn run_dashboard(size: Size) -> BenchResult {
    let rss_start = rss_mb();
    let sim_child::SimChild {
        mut child,
        mut lines,
        url,
    } = spawn_sim_child().await?;
    eprintln!(
        "simulated cluster with {} nodes × {} DaemonSets at {url}",
        size.nodes, size.daemonsets
    );

    let conn = connect::from_config(
        kube::Config::new(url.parse()?),
        "bench".into(),
        "bench".into(),
    )?;
    let started = Instant::now();
    let (live, _tasks) = daemonscope::web::start_watching(&conn, &[]).await;
    while !live.is_ready() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let ready_after = started.elapsed();
    let (nodes, dss, pods) = live.read(|s| s.counts());
    let rss_synced = rss_mb();
    println!(
        "time to ready: {:.2} s ({nodes} nodes, {dss} DaemonSets, {pods} pods)",
        ready_after.as_secs_f64()
    );
    println!("resident memory after sync: {rss_synced:.0} MB (process start: {rss_start:.0} MB)");

    let started = Instant::now();
    let snapshot = live.snapshot();
    let built = started.elapsed();
    let json = serde_json::to_string(&snapshot)
        .map(|j| j.len())
        .unwrap_or(0);
    println!(
        "snapshot: built in {:.1} ms, {:.1} MB as JSON",
        built.as_secs_f64() * 1e3,
        json as f64 / 1e6
    );

    // What one browser's view costs the server (`/api/view`): cutting its window from the
    // matrix (once per change burst per browser), its size, and the patch for one changed cell.
    for qs in [
        "",
        "problems=1&sort=problems",
        "problems=0&group=none",
        "ds=monitoring/&state=missing",
        "selector=&q=00042",
    ] {
        let query = daemonscope::windows::query::MatrixCut::parse(qs).cut.query;
        let mut times = Vec::new();
        let mut window = cut_window(&snapshot, &query);
        for _ in 0..20 {
            let t = Instant::now();
            window = cut_window(&snapshot, &query);
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        let size = serde_json::to_string(&ViewMessage::Window(window.clone()))
            .map(|j| j.len())
            .unwrap_or(0);
        let mut changed = snapshot.clone();
        let patch = match window.rows.first() {
            Some(first) => {
                if let Some(row) = changed.nodes.iter_mut().find(|r| r.name == first.name) {
                    if let Some(cell) = row.cells.first_mut() {
                        *cell = if *cell == CellState::Ready {
                            CellState::Outdated
                        } else {
                            CellState::Ready
                        };
                    }
                }
                diff(&window, &cut_window(&changed, &query))
                    .and_then(|m| serde_json::to_string(&m).ok())
                    .map_or(0, |j| j.len())
            }
            None => 0,
        };
        println!(
            "view ?{qs}: cut p50 {:.1} ms, max {:.1} ms; {} rows, window {:.1} KB JSON; one-cell patch {patch} B",
            times[times.len() / 2],
            times[times.len() - 1],
            window.rows.len(),
            size as f64 / 1e3,
        );
    }

    // The dashboard's own cost per pod event, without the network: flip one pod's revision.
    // The pod is read from the simulated cluster and projected as the watcher projects it.
    let ds_uid = live
        .read(|s| s.daemonset("kube-system/agent-00").map(|d| d.uid.clone()))
        .unwrap_or_default();
    let pods: kube::Api<k8s_openapi::api::core::v1::Pod> =
        kube::Api::namespaced(conn.client.clone(), "kube-system");
    let on_node =
        kube::api::ListParams::default().fields(&format!("spec.nodeName={}", node_name(1)));
    let sample = pods
        .list(&on_node)
        .await?
        .items
        .iter()
        .map(daemonscope::edge::convert::pod_facts)
        .find(|p| p.owner_uid.as_deref() == Some(ds_uid.as_str()));
    if let Some(pod) = sample {
        let rounds = 500;
        let started = Instant::now();
        for n in 0..rounds {
            let hash = if n % 2 == 0 { "old" } else { "cur" };
            let facts = daemonscope::domain::PodFacts {
                revision_hash: hash.into(),
                ..pod.clone()
            };
            live.apply(&Scope::Pods(None), Projection::Pod(facts));
        }
        let per = started.elapsed() / rounds;
        println!(
            "state update per pod event (in process): {:.2} ms",
            per.as_secs_f64() * 1e3
        );
    }

    // One live client through the real router, as a browser.
    let state = daemonscope::web::AppState::new(([127, 0, 0, 1], 0).into(), live.clone());
    let app = daemonscope::web::router(state);
    let response = app
        .oneshot(Request::get("/api/live").body(Body::empty())?)
        .await?;
    let mut body = response.into_body().into_data_stream();
    let arrivals: Arc<Mutex<Arrivals>> = Arc::default();
    let reader_arrivals = arrivals.clone();
    let reader = tokio::spawn(async move {
        let mut buffer = String::new();
        // Where the search for the end of the current event resumes: a snapshot of 150,000
        // cells arrives in many chunks, and rescanning it from the start would be quadratic.
        let mut scanned: usize = 0;
        while let Some(Ok(chunk)) = body.next().await {
            let arrived = unix_nanos();
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            loop {
                let from = scanned.saturating_sub(1);
                let Some(found) = buffer[from..].find("\n\n") else {
                    scanned = buffer.len();
                    break;
                };
                let end = from + found;
                scanned = 0;
                let block: String = buffer.drain(..end + 2).collect();
                let data: String = block
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                let Ok(LiveMessage::Deltas { deltas, .. }) =
                    serde_json::from_str::<LiveMessage>(&data)
                else {
                    continue;
                };
                for delta in deltas {
                    if let (
                        Delta::Cell {
                            node, daemonset, ..
                        },
                        Ok(mut a),
                    ) = (delta, reader_arrivals.lock())
                    {
                        a.entry((node, daemonset)).or_default().push(arrived);
                    }
                }
            }
        }
    });

    // The same deltas where the dashboard publishes them (before SSE encoding), to tell the
    // watch path's share of the latency from the live feed's.
    let published: Arc<Mutex<Arrivals>> = Arc::default();
    let probe_published = published.clone();
    let (_, _, mut feed) = live.subscribe(None);
    let probe = tokio::spawn(async move {
        while let Ok(item) = feed.recv().await {
            let arrived = unix_nanos();
            if let daemonscope::cluster::feed::FeedItem::Deltas { deltas, .. } = item {
                for delta in deltas.iter() {
                    if let (
                        Delta::Cell {
                            node, daemonset, ..
                        },
                        Ok(mut p),
                    ) = (delta, probe_published.lock())
                    {
                        p.entry((node.clone(), daemonset.clone()))
                            .or_default()
                            .push(arrived);
                    }
                }
            }
        }
    });

    // Churn in the simulated cluster: `rate` pod changes per second, committed in its store.
    let mut stdin = child.stdin.take().ok_or("child stdin")?;
    writeln!(stdin, "churn")?;
    stdin.flush()?;
    let churn_started = Instant::now();
    let mut changes: Vec<(String, String, u128)> = Vec::new();
    while let Some(line) = lines.recv().await {
        if line == "DONE" {
            break;
        }
        if let Some(change) = parse_flip(&line) {
            changes.push(change);
        }
    }
    let churn_secs = churn_started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(2)).await;
    reader.abort();
    probe.abort();
    for (what, arrivals) in [
        ("change -> delta published in the dashboard", &published),
        ("change -> delta leaves /api/live", &arrivals),
    ] {
        let arrivals = arrivals.lock().map(|a| a.clone()).unwrap_or_default();
        let lat = latencies(&changes, &arrivals);
        if std::env::var_os("DAEMONSCOPE_BENCH_SLOW").is_some() {
            let t_first = changes.first().map(|c| c.2).unwrap_or(0);
            let mut seen: HashMap<(String, String), usize> = HashMap::new();
            for (node, ds, t0) in &changes {
                let key = (node.clone(), ds.clone());
                let i = seen.entry(key.clone()).or_insert(0);
                if let Some(t1) = arrivals.get(&key).and_then(|v| v.get(*i)) {
                    let ms = t1.saturating_sub(*t0) as f64 / 1e6;
                    if ms > 50.0 {
                        eprintln!(
                            "  slow: at {:.0} ms: {ms:.1} ms",
                            (*t0 - t_first) as f64 / 1e6
                        );
                    }
                }
                *i += 1;
            }
        }
        println!(
            "{what}: {} of {} changes ({:.0}/s achieved): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            lat.len(),
            changes.len(),
            changes.len() as f64 / churn_secs.max(1e-9),
            percentile(&lat, 0.50).as_secs_f64() * 1e3,
            percentile(&lat, 0.99).as_secs_f64() * 1e3,
            lat.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        );
    }
    println!("resident memory after churn: {:.0} MB", rss_mb());
    drop(stdin);
    let _ = child.wait();
    Ok(())
}

fn main() -> BenchResult {
    // `cargo bench` passes `--bench`; a test run (`cargo test --benches`) has nothing to do.
    if !std::env::args().any(|a| a == "--bench")
        && std::env::var_os("DAEMONSCOPE_BENCH_SIM").is_none()
    {
        return Ok(());
    }
    let size = parse_args();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    if std::env::var_os("DAEMONSCOPE_BENCH_SIM").is_some() {
        runtime.block_on(run_sim(size))
    } else {
        runtime.block_on(run_dashboard(size))
    }
}
