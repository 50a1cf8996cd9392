//! What the per-node sums of requests (§j.3) cost in memory: 150,000 daemon pods on 5,000
//! nodes, then 100,000 workload pods (no DaemonSet owner) bound to them; prints the resident
//! memory (VmRSS) before and after the workload pods and the bytes per workload pod.
//!
//! Run with `cargo run --features ssr --example node_loads_memory` (a debug build: the store's
//! allocations are the same size as in a release build; only the time differs). Why an
//! in-process store and not the `live` bench: the generator makes no workload pods yet, and
//! the store is where they are kept.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a measurement stops where it failed

use daemonscope::cluster::projection::Projection;
use daemonscope::cluster::state::{ClusterState, Scope};
use daemonscope::domain::resources::load::{PodLoad, Requests};
use daemonscope::domain::testing::{daemonset, node, pod, PodExt};
use daemonscope::domain::PodFacts;

const NODES: usize = 5_000;
const DAEMONSETS: usize = 30;
const WORKLOAD: usize = 100_000;

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// A UUID-shaped uid, as the API server assigns.
fn uuid(i: usize, salt: u32) -> String {
    let x = (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) ^ u128::from(salt);
    let h = format!("{x:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn main() {
    let mut state = ClusterState::new("memory");
    let nodes: Vec<_> = (0..NODES)
        .map(|i| {
            let mut n = node(&format!("node-{i:05}"));
            n.allocatable.set("cpu", 16_000);
            n.allocatable.set("memory", 64 << 30);
            n.allocatable.set("pods", 110);
            Projection::Node(n)
        })
        .collect();
    state.replace(&Scope::Nodes, nodes);
    let sets: Vec<_> = (0..DAEMONSETS)
        .map(|d| {
            let mut ds = daemonset(&format!("agent-{d:02}"));
            ds.uid = uuid(d, 7);
            Projection::DaemonSet(ds)
        })
        .collect();
    state.replace(&Scope::DaemonSets(None), sets);
    let mut pods: Vec<Projection> = Vec::with_capacity(NODES * DAEMONSETS);
    for d in 0..DAEMONSETS {
        for n in 0..NODES {
            let p: PodFacts = pod(&format!("agent-{d:02}-{n:05}"))
                .on(&format!("node-{n:05}"))
                .owner(&uuid(d, 7))
                .with(|p| {
                    p.uid = uuid(d * NODES + n, 1);
                    p.requests.cpu_milli = 100;
                    p.requests.memory = 128 << 20;
                });
            pods.push(Projection::Pod(p));
        }
    }
    state.replace(&Scope::Pods(None), pods);
    let (n, d, p) = state.counts();
    let before = rss_kb();
    for i in 0..WORKLOAD {
        state.apply(Projection::Load(PodLoad {
            uid: uuid(i, 3),
            namespace: format!("team-{}", i % 40),
            node_name: Some(format!("node-{:05}", i % NODES)),
            requests: Requests {
                cpu_milli: 250,
                memory: 512 << 20,
                other: None,
            },
            terminal: false,
        }));
    }
    let after = rss_kb();
    let load = state.node_load("node-00000");
    println!(
        "{n} nodes, {d} DaemonSets, {p} daemon pods, {} workload pods",
        state.workload_pods()
    );
    println!(
        "node-00000: {} pods bound, cpu {}m requested",
        load.pods,
        load.requested.get("cpu")
    );
    println!(
        "VmRSS before the workload pods: {:.1} MB, after: {:.1} MB",
        before as f64 / 1024.0,
        after as f64 / 1024.0
    );
    println!(
        "growth per workload pod: {:.0} bytes",
        (after.saturating_sub(before) * 1024) as f64 / WORKLOAD as f64
    );
    println!(
        "size of PodFacts (each daemon pod's projection): {} bytes",
        std::mem::size_of::<PodFacts>()
    );
}
