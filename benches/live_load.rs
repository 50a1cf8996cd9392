//! The live feed under load (issue 15): many browsers on the 5,000-node cluster while it churns.
//!
//! ```sh
//! cargo build --release --features ssr --bin daemonscope
//! cargo bench --features ssr --bench live_load -- --clients 100 --slow 10 --duration 600
//! ```
//!
//! Three processes, so each figure belongs to one of them: the simulated cluster (this binary
//! re-invoked, preloaded with `--nodes` × `--daemonsets` ready pods, flipping one pod's
//! revision hash `--rate` times a second for `--duration` seconds), the dashboard as users run
//! it (`target/release/daemonscope serve`, or `DAEMONSCOPE_BIN`), and this process holding
//! `--clients` SSE connections to `/api/live` over TCP, `--slow` of which read 8 KiB every
//! `--slow-delay-ms` (default 500) and so fall behind. Measured:
//!
//! - deltas lost: a version that is neither the previous one plus one nor a fresh snapshot.
//!   Must be 0: a client gets every delta in order or, when it falls behind, a snapshot;
//! - per reading client, the changes it saw and the change → delta latency (p50, p99);
//! - for slow clients, how many fresh snapshots they were sent instead;
//! - the dashboard's resident memory when ready, with all clients connected, every minute,
//!   and at the end (it must not grow beyond noise).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use daemonscope::domain::view::{Delta, LiveMessage};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

#[path = "support/sim_child.rs"]
mod sim_child;
use sim_child::{flag, parse_args, parse_flip, rss_mb_of, run_sim, unix_nanos, BenchResult};

/// When each cell was changed (unix nanos), indexed by `node * daemonsets + daemonset`.
type ChangeTimes = Arc<Mutex<Vec<Vec<u64>>>>;

/// What one SSE client saw.
#[derive(Debug, Default)]
struct ClientStats {
    slow: bool,
    snapshots: u64,
    delta_messages: u64,
    /// Versions skipped without a snapshot in their place: lost deltas.
    lost: u64,
    /// Versions that went backwards or repeated.
    out_of_order: u64,
    /// Cell changes matched to a change made in the cluster.
    matched: u64,
    /// Change → arrival, microseconds, of matched changes before any re-snapshot.
    latencies_us: Vec<u64>,
    /// Arrivals whose change time was not known yet: (cell, occurrence, arrival nanos).
    pending: Vec<(usize, usize, u64)>,
    error: Option<String>,
}

/// `node-00042` and `kube-system/agent-07` → the cell index, for the generated names.
fn cell_index(node: &str, daemonset: &str, daemonsets: usize) -> Option<usize> {
    let n: usize = node.strip_prefix("node-")?.parse().ok()?;
    let d: usize = daemonset.strip_prefix("kube-system/agent-")?.parse().ok()?;
    Some(n * daemonsets + d)
}

/// Reads one SSE stream until `stop`, checking version order and timing cell deltas.
async fn client(
    addr: String,
    slow: Option<Duration>,
    daemonsets: usize,
    changes: ChangeTimes,
    stop: Arc<tokio::sync::Notify>,
) -> ClientStats {
    let mut stats = ClientStats {
        slow: slow.is_some(),
        ..ClientStats::default()
    };
    let result = tokio::select! {
        r = read_stream(&addr, slow, daemonsets, &changes, &mut stats) => r,
        _ = stop.notified() => Ok(()),
    };
    if let Err(err) = result {
        stats.error = Some(err.to_string());
    }
    stats
}

async fn read_stream(
    addr: &str,
    slow: Option<Duration>,
    daemonsets: usize,
    changes: &ChangeTimes,
    stats: &mut ClientStats,
) -> BenchResult {
    let mut stream = TcpStream::connect(addr).await?;
    stream
        .write_all(
            format!("GET /api/live HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n")
                .as_bytes(),
        )
        .await?;
    // A slow reader takes 8 KiB at a time: the kernel buffers fill and the server's stream
    // for it stops being polled, as with a browser on a bad link.
    let capacity = if slow.is_some() { 8 * 1024 } else { 64 * 1024 };
    let mut reader = BufReader::with_capacity(capacity, stream);
    let mut line = String::new();
    reader.read_line(&mut line).await?;
    if !line.starts_with("HTTP/1.1 200") {
        return Err(format!("/api/live answered {}", line.trim()).into());
    }
    let mut chunked = false;
    loop {
        line.clear();
        reader.read_line(&mut line).await?;
        if line.trim().is_empty() {
            break;
        }
        chunked |= line
            .to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked");
    }
    if !chunked {
        return Err("/api/live did not answer with a chunked stream".into());
    }
    let mut text = String::new();
    let mut seen: std::collections::HashMap<usize, usize> = Default::default();
    let mut last_version: Option<u64> = None;
    let mut resnapshotted = false;
    loop {
        // One chunk: hex size line, data, CRLF.
        line.clear();
        if reader.read_line(&mut line).await? == 0 {
            return Err("the server closed the stream".into());
        }
        let size = usize::from_str_radix(line.trim(), 16)?;
        if size == 0 {
            return Err("the server ended the stream".into());
        }
        let mut data = vec![0; size + 2];
        reader.read_exact(&mut data).await?;
        data.truncate(size);
        let arrived = unix_nanos() as u64;
        text.push_str(&String::from_utf8_lossy(&data));
        if let Some(delay) = slow {
            tokio::time::sleep(delay).await;
        }
        while let Some(end) = text.find("\n\n") {
            let event: String = text.drain(..end + 2).collect();
            let payload: String = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            if payload.is_empty() {
                continue; // keep-alive comment
            }
            match serde_json::from_str::<LiveMessage>(&payload)? {
                LiveMessage::Snapshot(snapshot) => {
                    if stats.snapshots > 0 {
                        resnapshotted = true;
                    }
                    stats.snapshots += 1;
                    last_version = Some(snapshot.version);
                }
                LiveMessage::Deltas { version, deltas } => {
                    stats.delta_messages += 1;
                    match last_version {
                        Some(last) if version == last + 1 => {}
                        Some(last) if version <= last => stats.out_of_order += 1,
                        Some(last) => stats.lost += version - last - 1,
                        None => stats.lost += 1,
                    }
                    last_version = Some(version);
                    if resnapshotted {
                        continue; // occurrences no longer line up with the changes made
                    }
                    for delta in deltas {
                        let Delta::Cell {
                            node, daemonset, ..
                        } = delta
                        else {
                            continue;
                        };
                        let Some(cell) = cell_index(&node, &daemonset, daemonsets) else {
                            continue;
                        };
                        let k = seen.entry(cell).or_insert(0);
                        let occurrence = *k;
                        *k += 1;
                        let changed = changes
                            .lock()
                            .ok()
                            .and_then(|c| c.get(cell).and_then(|v| v.get(occurrence)).copied());
                        match changed {
                            Some(t0) => {
                                stats.matched += 1;
                                stats.latencies_us.push(arrived.saturating_sub(t0) / 1000);
                            }
                            None => stats.pending.push((cell, occurrence, arrived)),
                        }
                    }
                }
            }
        }
    }
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn wait_ready(addr: &str, pid: u32) -> BenchResult<Duration> {
    let started = Instant::now();
    loop {
        if let Ok(mut s) = TcpStream::connect(addr).await {
            let request =
                format!("GET /readyz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
            if s.write_all(request.as_bytes()).await.is_ok() {
                let mut answer = String::new();
                let _ = s.read_to_string(&mut answer).await;
                if answer.starts_with("HTTP/1.1 200") {
                    return Ok(started.elapsed());
                }
            }
        }
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            return Err("the dashboard exited before it was ready".into());
        }
        if started.elapsed() > Duration::from_secs(600) {
            return Err("the dashboard was not ready within 10 minutes".into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn run_load() -> BenchResult {
    let mut size = parse_args();
    let duration = flag("--duration").unwrap_or(600);
    let clients = flag("--clients").unwrap_or(100) as usize;
    let slow_clients = (flag("--slow").unwrap_or(0) as usize).min(clients);
    let slow_delay = Duration::from_millis(flag("--slow-delay-ms").unwrap_or(500));
    size.events = (size.rate * duration) as usize;
    let dashboard = std::env::var("DAEMONSCOPE_BIN").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/daemonscope").into()
    });
    if !std::path::Path::new(&dashboard).exists() {
        return Err(format!(
            "{dashboard} is missing: cargo build --release --features ssr --bin daemonscope"
        )
        .into());
    }

    let sim_child::SimChild {
        mut child,
        mut lines,
        url,
    } = sim_child::spawn_sim_child().await?;
    let dir = tempfile::tempdir()?;
    let kubeconfig = dir.path().join("kubeconfig");
    daemonscope::sim::kubeconfig::write(&kubeconfig, &url)?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut dash = tokio::process::Command::new(&dashboard)
        .arg("serve")
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--listen")
        .arg(&addr)
        .env("RUST_LOG", "warn")
        .kill_on_drop(true)
        .spawn()?;
    let pid = dash.id().ok_or("the dashboard did not start")?;
    let ready = wait_ready(&addr, pid).await?;
    let pid_s = pid.to_string();
    let rss_ready = rss_mb_of(&pid_s);
    println!(
        "{} nodes × {} DaemonSets; dashboard ready in {:.1} s, RSS {rss_ready:.0} MB",
        size.nodes,
        size.daemonsets,
        ready.as_secs_f64()
    );

    let changes: ChangeTimes = Arc::new(Mutex::new(vec![Vec::new(); size.nodes * size.daemonsets]));
    let stop = Arc::new(tokio::sync::Notify::new());
    let mut tasks = Vec::new();
    for i in 0..clients {
        let slow = (i < slow_clients).then_some(slow_delay);
        tasks.push(tokio::spawn(client(
            addr.clone(),
            slow,
            size.daemonsets,
            changes.clone(),
            stop.clone(),
        )));
    }
    tokio::time::sleep(Duration::from_secs(5)).await;
    let rss_connected = rss_mb_of(&pid_s);
    println!(
        "{clients} clients connected ({slow_clients} slow): dashboard RSS {rss_connected:.0} MB"
    );

    use std::io::Write;
    let mut stdin = child.stdin.take().ok_or("child stdin")?;
    writeln!(stdin, "churn")?;
    stdin.flush()?;
    let started = Instant::now();
    let mut made = 0u64;
    let mut rss_samples = vec![rss_connected];
    let mut next_sample = Duration::from_secs(60);
    while let Some(line) = lines.recv().await {
        if line == "DONE" {
            break;
        }
        if let Some((node, ds, t)) = parse_flip(&line) {
            if let (Some(cell), Ok(mut c)) =
                (cell_index(&node, &ds, size.daemonsets), changes.lock())
            {
                c[cell].push(t as u64);
                made += 1;
            }
        }
        if started.elapsed() >= next_sample {
            let rss = rss_mb_of(&pid_s);
            println!(
                "  after {:.0} s: {made} changes, dashboard RSS {rss:.0} MB",
                started.elapsed().as_secs_f64()
            );
            rss_samples.push(rss);
            next_sample += Duration::from_secs(60);
        }
    }
    let churn_secs = started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let rss_end = rss_mb_of(&pid_s);
    stop.notify_waiters();
    let mut all = Vec::new();
    for task in tasks {
        all.push(task.await?);
    }
    drop(stdin);
    let _ = dash.kill().await;
    let _ = child.kill();
    let _ = child.wait();

    // Arrivals that beat their change's FLIP line to this process.
    if let Ok(c) = changes.lock() {
        for stats in &mut all {
            for (cell, occurrence, arrived) in std::mem::take(&mut stats.pending) {
                if let Some(t0) = c.get(cell).and_then(|v| v.get(occurrence)) {
                    stats.matched += 1;
                    stats.latencies_us.push(arrived.saturating_sub(*t0) / 1000);
                }
            }
        }
    }

    println!(
        "churn: {made} changes in {churn_secs:.0} s ({:.0}/s achieved)",
        made as f64 / churn_secs.max(1e-9)
    );
    for slow in [false, true] {
        let group: Vec<&ClientStats> = all.iter().filter(|s| s.slow == slow).collect();
        if group.is_empty() {
            continue;
        }
        let lost: u64 = group.iter().map(|s| s.lost).sum();
        let disorder: u64 = group.iter().map(|s| s.out_of_order).sum();
        let errors: Vec<&str> = group.iter().filter_map(|s| s.error.as_deref()).collect();
        let resnapshots: Vec<u64> = group
            .iter()
            .map(|s| s.snapshots.saturating_sub(1))
            .collect();
        let kind = if slow { "slow" } else { "reading" };
        println!(
            "{kind} clients ({}): deltas lost {lost}, out of order {disorder}, errors {}{}; fresh snapshots after falling behind: total {}, max per client {}",
            group.len(),
            errors.len(),
            errors.first().map(|e| format!(" (first: {e})")).unwrap_or_default(),
            resnapshots.iter().sum::<u64>(),
            resnapshots.iter().max().copied().unwrap_or(0),
        );
        if !slow {
            let mut p50s = Vec::new();
            let mut p99s = Vec::new();
            let mut min_matched = u64::MAX;
            for s in group.iter().filter(|s| s.snapshots == 1) {
                let mut lat = s.latencies_us.clone();
                lat.sort_unstable();
                p50s.push(percentile(&lat, 0.5));
                p99s.push(percentile(&lat, 0.99));
                min_matched = min_matched.min(s.matched);
            }
            p50s.sort_unstable();
            p99s.sort_unstable();
            println!(
                "  change → delta per client ({} never behind): p50 median {:.1} ms; p99 median {:.1} ms, worst {:.1} ms; changes seen by each: at least {} of {made}",
                p99s.len(),
                percentile(&p50s, 0.5) as f64 / 1e3,
                percentile(&p99s, 0.5) as f64 / 1e3,
                p99s.last().copied().unwrap_or(0) as f64 / 1e3,
                if min_matched == u64::MAX { 0 } else { min_matched },
            );
        }
    }
    println!(
        "dashboard RSS: ready {rss_ready:.0} MB, clients connected {rss_connected:.0} MB, per minute [{}], end {rss_end:.0} MB",
        rss_samples
            .iter()
            .map(|r| format!("{r:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

fn main() -> BenchResult {
    // `cargo bench` passes `--bench`; a test run (`cargo test --benches`) has nothing to do.
    if !std::env::args().any(|a| a == "--bench")
        && std::env::var_os("DAEMONSCOPE_BENCH_SIM").is_none()
    {
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    if std::env::var_os("DAEMONSCOPE_BENCH_SIM").is_some() {
        let mut size = parse_args();
        size.events = (size.rate * flag("--duration").unwrap_or(600)) as usize;
        runtime.block_on(run_sim(size))
    } else {
        runtime.block_on(run_load())
    }
}
