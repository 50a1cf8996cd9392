//! The simulated cluster at Kubernetes' documented limit: how long the DaemonSet controller and
//! the kubelet stand-in take to schedule 5,000 nodes × 30 DaemonSets from an empty cluster, and
//! how much memory the simulation holds then.
//!
//! Run with `cargo bench --features ssr --bench sim_schedule` (pass another generator spec as
//! the argument, e.g. `-- nodes=1000,daemonsets=10,seed=2`). The clock runs at speed 1000, so
//! the kubelet's delays (seconds of simulated time) cost milliseconds and the figures measure
//! the controllers and the store. Measured:
//!
//! - time to generate and apply the scenario;
//! - time until every DaemonSet has a pod on every node that should run one
//!   (`currentNumberScheduled == desiredNumberScheduled`), and until all of them are available
//!   (`numberAvailable == desiredNumberScheduled`);
//! - pods and events in the store, resident memory (VmRSS) before and after.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use daemonscope::sim::clock::SimClock;
use daemonscope::sim::controller;
use daemonscope::sim::generator::generate_from_str;
use daemonscope::sim::kubelet::{is_node_ready, target_node};
use daemonscope::sim::scenario::apply;
use daemonscope::sim::store::{Store, StoreSettings};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Event, Node, Pod};
use std::collections::HashSet;
use std::time::{Duration, Instant};

type BenchResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Daemon pods that can become available: those on Ready nodes (a NotReady node's kubelet
/// never reports its pods ready).
fn can_become_available(store: &Store) -> i64 {
    let ready: HashSet<String> = store
        .list::<Node>(None)
        .iter()
        .filter(|n| is_node_ready(n))
        .filter_map(|n| n.metadata.name.clone())
        .collect();
    store
        .list::<Pod>(None)
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .filter(|p| target_node(p).is_some_and(|n| ready.contains(&n)))
        .count() as i64
}

fn progress(store: &Store) -> (i64, i64, i64) {
    store
        .list::<DaemonSet>(None)
        .iter()
        .fold((0, 0, 0), |(d, c, a), ds| {
            let s = ds.status.clone().unwrap_or_default();
            (
                d + i64::from(s.desired_number_scheduled),
                c + i64::from(s.current_number_scheduled),
                a + i64::from(s.number_available.unwrap_or(0)),
            )
        })
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> BenchResult {
    // RUST_LOG=info shows when a controller falls behind the change stream and relists.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let spec = std::env::args()
        .skip(1)
        .find(|a| a.contains('='))
        .unwrap_or_else(|| "nodes=5000,daemonsets=30,seed=1,rollouts=0".to_string());
    let rss_start = rss_mib();
    let t0 = Instant::now();
    let mut scenario = generate_from_str(&spec)?;
    scenario.settings.speed = 1000.0;
    let clock = SimClock::new(scenario.settings.speed);
    let store = Store::new(StoreSettings {
        now: clock.now_fn(),
        ..StoreSettings::default()
    });
    apply(&scenario, &store)?;
    let applied = t0.elapsed();
    println!("spec: {spec}");
    println!(
        "generate + apply: {:.2} s ({} nodes, {} DaemonSets)",
        applied.as_secs_f64(),
        scenario.nodes.len(),
        scenario.daemonsets.len()
    );

    let t1 = Instant::now();
    let controllers = controller::spawn(store.clone(), scenario.settings.clone(), clock);
    let mut scheduled_at = None;
    let deadline = Duration::from_secs(900);
    // Pods on the generated NotReady nodes never become available, so "available" is done
    // when every pod on a Ready node is; a stall (60 s without change) ends the run too, and
    // says so.
    let (mut last_available, mut stable_since) = (-1, Instant::now());
    let mut expected = None;
    let (desired, available, converged, stalled) = loop {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let (desired, current, available) = progress(&store);
        let seconds = t1.elapsed().as_secs();
        if seconds > 0 && seconds.is_multiple_of(10) && t1.elapsed().subsec_millis() < 250 {
            println!("  {seconds:>4} s: desired {desired}, scheduled {current}, available {available}, {:.0} MiB", rss_mib());
        }
        if desired > 0 && current == desired && scheduled_at.is_none() {
            scheduled_at = Some(t1.elapsed());
            expected = Some(can_become_available(&store));
        }
        if available != last_available {
            (last_available, stable_since) = (available, Instant::now());
        }
        if expected.is_some_and(|e| available >= e) {
            break (desired, available, t1.elapsed(), false);
        }
        if scheduled_at.is_some() && stable_since.elapsed() > Duration::from_secs(60) {
            break (desired, available, stable_since.duration_since(t1), true);
        }
        if t1.elapsed() > deadline {
            return Err(format!("not converged after {deadline:?}: desired {desired}, scheduled {current}, available {available}").into());
        }
    };
    let pods = store.list::<Pod>(None).len();
    let events = store.list::<Event>(None).len();
    println!("desired daemon pods: {desired}; pods in store: {pods}; events in store: {events}");
    if let Some(s) = scheduled_at {
        println!(
            "time to every pod created (current == desired): {:.2} s ({:.0} pods/s)",
            s.as_secs_f64(),
            desired as f64 / s.as_secs_f64()
        );
    }
    let expected = expected.unwrap_or_default();
    if stalled {
        println!(
            "STALLED: availability stopped at {available} of the {expected} pods on Ready nodes after {:.2} s",
            converged.as_secs_f64()
        );
    } else {
        println!(
            "time until every pod on a Ready node is available: {:.2} s ({available} of {desired}; the other {} are on NotReady nodes)",
            converged.as_secs_f64(),
            desired - available
        );
    }
    println!(
        "resident memory: {:.0} MiB at start, {:.0} MiB after convergence",
        rss_start,
        rss_mib()
    );
    controllers.shutdown().await;
    Ok(())
}
