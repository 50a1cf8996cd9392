//! Workload pods in the differential comparisons (§j.3, §k.3): what each side's scheduler says
//! of the pods it did not bind, and how full a generated seed's nodes may be made without the
//! outcome depending on which agent the scheduler tries first.
//!
//! Why apart: the matrix shows a full node's agent only as `pending`; the words behind it are
//! compared here, and the choice of a workload share is its own small piece of arithmetic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use super::{diff, generated, on_both, Pair, Side};
use std::time::{Duration, Instant};

/// What the scheduler says of each pod it did not bind, and where each workload pod is: one
/// line per daemon pod whose `PodScheduled` is False (`ns/ds × node: reason message`, the
/// words kube-scheduler wrote, §k.3), one per workload pod not being deleted. The matrix
/// shows such a cell only as `pending`; this is the why.
fn scheduling_lines(side: &Side) -> Vec<String> {
    let list: serde_json::Value =
        serde_json::from_str(&side.run(&["get", "pods", "-A", "-o", "json"])).expect("a pod list");
    let mut lines = Vec::new();
    for pod in list["items"].as_array().into_iter().flatten() {
        let (meta, spec) = (&pod["metadata"], &pod["spec"]);
        let namespace = meta["namespace"].as_str().unwrap_or_default();
        let Some(owner) = meta["ownerReferences"][0]["name"].as_str() else {
            if meta["deletionTimestamp"].is_null() {
                lines.push(format!(
                    "workload {namespace}/{} on {}",
                    meta["name"].as_str().unwrap_or_default(),
                    spec["nodeName"].as_str().unwrap_or("(unbound)")
                ));
            }
            continue;
        };
        let node = spec["affinity"]["nodeAffinity"]
            ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
            ["matchFields"][0]["values"][0]
            .as_str()
            .unwrap_or("?");
        let unscheduled = pod["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == "PodScheduled" && c["status"] == "False");
        if let Some(c) = unscheduled {
            lines.push(format!(
                "{namespace}/{owner} × {node}: {} {}",
                c["reason"].as_str().unwrap_or_default(),
                c["message"].as_str().unwrap_or_default()
            ));
        }
    }
    lines.sort();
    lines
}

/// Both sides' [`scheduling_lines`] once they agree (kube-scheduler rewrites a message on
/// each retry, so a moment's difference is waited out, at most 20 s); the real side's lines.
pub(super) async fn same_scheduling(pair: &Pair, what: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (a, b) = on_both(pair, scheduling_lines);
        if a == b {
            return b;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: why pods are not bound differs (§k.3):\n{}",
            diff(&a, &b)
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

type Amounts =
    std::collections::BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>;

/// cpu in millicores and memory in bytes of a requests or allocatable map.
fn cpu_memory(map: Option<&Amounts>) -> (i64, i64) {
    use daemonscope::domain::resources::Quantity;
    let get = |key: &str| {
        map.and_then(|m| m.get(key))
            .and_then(|q| Quantity::parse(&q.0).ok())
    };
    (
        get("cpu").map_or(0, Quantity::milli_value),
        get("memory").map_or(0, Quantity::value),
    )
}

/// The requests of one pod spec's containers, as [`cpu_memory`].
fn asks(spec: Option<&k8s_openapi::api::core::v1::PodSpec>) -> (i64, i64) {
    spec.map(|s| s.containers.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|c| cpu_memory(c.resources.as_ref().and_then(|r| r.requests.as_ref())))
        .fold((0, 0), |sum, one| (sum.0 + one.0, sum.1 + one.1))
}

/// The lowest workload share (of 0.9 to 1) at which some agent does not fit beside a workload
/// pod and nothing depends on the order the schedulers try the agents: on every node with a
/// workload pod, no agent fits in what is left, or all of them fit together (counting every
/// DaemonSet, as if all ran there). Which of two agents gets the last room is a race on both
/// sides; and kube-scheduler does not retry a pod that failed for room when another pod binds,
/// so its message keeps the room it saw then (measured: seed 7 at 0.999, where one agent bound
/// on a node and the others' messages on the real side did or did not count it).
pub(super) fn order_free_share(spec: &str) -> f64 {
    const SHARES: [f64; 7] = [0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1.0];
    let order_free = |share: f64| {
        let scenario = generated(&format!("{spec},workload={share}"));
        let agents: Vec<(i64, i64)> = scenario
            .daemonsets
            .iter()
            .map(|ds| asks(ds.spec.template.spec.as_ref()))
            .collect();
        let mut blocked = false;
        let order_free = scenario.pods.iter().all(|pod| {
            let node = scenario.nodes.iter().find(|n| {
                n.metadata.name.as_deref() == pod.spec.as_ref().and_then(|s| s.node_name.as_deref())
            });
            let (cpu, memory) = cpu_memory(
                node.and_then(|n| n.status.as_ref())
                    .and_then(|s| s.allocatable.as_ref()),
            );
            let taken = asks(pod.spec.as_ref());
            let left = (cpu - taken.0, memory - taken.1);
            let alone: Vec<_> = agents
                .iter()
                .filter(|a| a.0 <= left.0 && a.1 <= left.1)
                .collect();
            blocked |= alone.len() < agents.len();
            alone.is_empty()
                || (alone.len() == agents.len()
                    && alone.iter().map(|a| a.0).sum::<i64>() <= left.0
                    && alone.iter().map(|a| a.1).sum::<i64>() <= left.1)
        });
        order_free && blocked
    };
    SHARES.into_iter().find(|s| order_free(*s)).unwrap_or(1.0)
}
