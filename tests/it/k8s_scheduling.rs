//! Differential: where kube-scheduler v1.37.2 leaves a daemon pod pending, the sim does too,
//! with the same `PodScheduled` reason and message (§k), and the dashboards' matrices agree.
//!
//! One scenario of three nodes covers the cases at once, in seconds: `full` (1 cpu, one
//! `nvidia.com/gpu`) holds a workload pod that takes 900m of its cpu, its GPU and hostPort
//! 9100; `tiny` allows one pod and holds one; `roomy` has room but no GPU. Three DaemonSets
//! then ask 200m cpu, hostPort 9100 and one GPU: pending for cpu, for the port and for the
//! GPU on `full`, for the pod count on `tiny`, for the GPU (unresolvable) on `roomy` and
//! `tiny`, running elsewhere. On `busy` (1 cpu) a workload pod of priority 0 takes 800m; a
//! `system-node-critical` agent asking 500m there evicts it (§k.4) and runs. On `packed`
//! (1 cpu) a workload pod takes 800m; an agent of the custom PriorityClass `agent-priority`
//! (value 1000000, §k.5) asking 500m evicts it too, and an agent naming a class that does not
//! exist gets no pod, only the Priority admission's refusal, classified the same on both sides.
//! An agent of the same value but `preemptionPolicy: Never` stays pending on `full` and
//! evicts nothing. Then, on the same pair, the PriorityClasses themselves are compared
//! (`k8s_priority_classes`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::k8s_differential::{both, compare, load_both, write_temp, Pair, Side};
use daemonscope::domain::admission::Refusal;
use daemonscope::sim::scenario;
use daemonscope::sim::ScenarioSource;
use serde_json::Value;

fn node(name: &str, allocatable: &str) -> String {
    format!(
        "apiVersion: v1
kind: Node
metadata:
  name: {name}
  creationTimestamp: '2026-11-30T08:00:00Z'
  labels: {{kubernetes.io/hostname: {name}, kubernetes.io/os: linux, role: {name}}}
status:
  capacity: {allocatable}
  allocatable: {allocatable}
  conditions:
  - {{type: Ready, status: 'True', lastHeartbeatTime: '2026-12-02T14:01:00Z', lastTransitionTime: '2026-11-30T08:00:00Z', reason: KubeletReady, message: kubelet is posting ready status}}
"
    )
}

const WORKLOADS: &str = "apiVersion: v1
kind: Pod
metadata: {name: filler, namespace: default}
spec:
  nodeName: full
  containers:
  - name: c
    image: registry.example/batch:1
    ports: [{containerPort: 9100, hostPort: 9100}]
    resources:
      requests: {cpu: 900m, memory: 100Mi, nvidia.com/gpu: '1'}
      limits: {nvidia.com/gpu: '1'}
---
apiVersion: v1
kind: Pod
metadata: {name: tiny-filler, namespace: default}
spec:
  nodeName: tiny
  containers:
  - {name: c, image: registry.example/batch:1}
---
apiVersion: v1
kind: Pod
metadata: {name: victim, namespace: default}
spec:
  nodeName: busy
  containers:
  - {name: c, image: registry.example/batch:1, resources: {requests: {cpu: 800m}}}
---
apiVersion: v1
kind: Pod
metadata: {name: packed-victim, namespace: default}
spec:
  nodeName: packed
  containers:
  - {name: c, image: registry.example/batch:1, resources: {requests: {cpu: 800m}}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: agent-priority}
value: 1000000
description: node agents above workloads
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: polite-priority}
value: 1000000
preemptionPolicy: Never
description: high, but never evicts
";

fn daemonset(name: &str, container_extra: &str) -> String {
    daemonset_in("default", name, "", container_extra)
}

fn daemonset_in(namespace: &str, name: &str, pod_extra: &str, container_extra: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
{pod_extra}      containers:
      - name: agent
        image: registry.example/{name}:1
{container_extra}"
    )
}

/// `DaemonSet × node → PodScheduled status/reason/message` of every daemon pod on one side.
fn scheduled(side: &Side) -> BTreeMap<String, String> {
    let out = side.kubectl(&["get", "pods", "-A", "-o", "json"]);
    let list: Value = serde_json::from_str(&out).expect("a pod list");
    let mut cells = BTreeMap::new();
    for pod in list["items"].as_array().into_iter().flatten() {
        let Some(owner) = pod["metadata"]["ownerReferences"][0]["name"].as_str() else {
            if pod["metadata"]["deletionTimestamp"].is_null() {
                cells.insert(
                    format!("workload {}", pod["metadata"]["name"]),
                    "bound".into(),
                );
            }
            continue;
        };
        let node = pod["spec"]["affinity"]["nodeAffinity"]
            ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
            ["matchFields"][0]["values"][0]
            .as_str()
            .unwrap_or("?");
        let condition = pod["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == "PodScheduled");
        let text = condition.map_or("no PodScheduled".to_string(), |c| {
            format!(
                "{} {} {}",
                c["status"].as_str().unwrap_or(""),
                c["reason"].as_str().unwrap_or(""),
                c["message"].as_str().unwrap_or("")
            )
        });
        cells.insert(format!("{owner} × {node}"), text);
    }
    cells
}

async fn same_conditions(pair: &Pair) -> BTreeMap<String, String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (sim, real) =
            tokio::task::block_in_place(|| (scheduled(&pair.sim), scheduled(&pair.real)));
        let evicted = ["workload \"victim\"", "workload \"packed-victim\""];
        if sim == real && sim.len() == 20 && !evicted.iter().any(|v| sim.contains_key(*v)) {
            return real;
        }
        assert!(
            Instant::now() < deadline,
            "PodScheduled differs:\n  sim:        {sim:#?}\n  kubernetes: {real:#?}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Run by a lane of `k8s_lane` (each lane runs one comparison at a time).
pub(crate) async fn pending_daemon_pods_carry_kube_schedulers_reason_and_message_in_the_sim_too() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let nodes = [
        node(
            "full",
            "{cpu: '1', memory: 1Gi, pods: '110', nvidia.com/gpu: '1'}",
        ),
        node("roomy", "{cpu: '4', memory: 8Gi, pods: '110'}"),
        node("tiny", "{cpu: '4', memory: 8Gi, pods: '1'}"),
        node("busy", "{cpu: '1', memory: 1Gi, pods: '110'}"),
        node("packed", "{cpu: '1', memory: 1Gi, pods: '110'}"),
    ]
    .join("---\n");
    let file = write_temp(dir.path(), "nodes.yaml", &nodes);
    let scenario = scenario::load(&ScenarioSource::File(file.into())).expect("scenario");
    let pair = load_both(scenario, |_| {}).await;
    let workloads = write_temp(dir.path(), "workloads.yaml", WORKLOADS);
    both(&pair, &["apply", "-f", &workloads]);
    let agents = [
        daemonset(
            "cpu-agent",
            "        resources: {requests: {cpu: 200m, memory: 50Mi}}\n",
        ),
        daemonset(
            "port-agent",
            "        ports: [{containerPort: 9100, hostPort: 9100}]\n",
        ),
        daemonset(
            "gpu-agent",
            "        resources: {requests: {nvidia.com/gpu: '1'}, limits: {nvidia.com/gpu: '1'}}\n",
        ),
        daemonset_in(
            "kube-system",
            "critical-agent",
            "      priorityClassName: system-node-critical\n      nodeSelector: {role: busy}\n",
            "        resources: {requests: {cpu: 500m}}\n",
        ),
        daemonset_in(
            "default",
            "priority-agent",
            "      priorityClassName: agent-priority\n      nodeSelector: {role: packed}\n",
            "        resources: {requests: {cpu: 500m}}\n",
        ),
        daemonset_in(
            "default",
            "polite-agent",
            "      priorityClassName: polite-priority\n      nodeSelector: {role: full}\n",
            "        resources: {requests: {cpu: 200m}}\n",
        ),
        daemonset_in(
            "default",
            "ghost-agent",
            "      priorityClassName: no-such-class\n      nodeSelector: {role: roomy}\n",
            "",
        ),
    ]
    .join("---\n");
    let agents = write_temp(dir.path(), "agents.yaml", &agents);
    both(&pair, &["apply", "-f", &agents]);
    compare(
        &pair,
        "full nodes, a taken host port, an extended resource, preempting agents, an unknown class",
    )
    .await;
    let cells = same_conditions(&pair).await;
    let affinity = "4 node(s) didn't satisfy plugin(s) [NodeAffinity]";
    let no_victims = "preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.";
    let expected = [
        ("cpu-agent × full", format!("False Unschedulable 0/5 nodes are available: 1 Insufficient cpu, {affinity}. {no_victims}")),
        ("port-agent × full", format!("False Unschedulable 0/5 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, {affinity}. {no_victims}")),
        ("gpu-agent × full", format!("False Unschedulable 0/5 nodes are available: 1 Insufficient nvidia.com/gpu, {affinity}. {no_victims}")),
        ("gpu-agent × roomy", format!("False Unschedulable 0/5 nodes are available: 1 Insufficient nvidia.com/gpu, {affinity}. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.")),
        ("polite-agent × full", format!("False Unschedulable 0/5 nodes are available: 1 Insufficient cpu, {affinity}. preemption: not eligible due to preemptionPolicy=Never.")),
        ("cpu-agent × roomy", "True  ".to_string()),
        ("critical-agent × busy", "True  ".to_string()),
        ("priority-agent × packed", "True  ".to_string()),
        ("cpu-agent × packed", "True  ".to_string()),
        ("cpu-agent × busy", "True  ".to_string()),
    ];
    for (cell, text) in expected {
        assert_eq!(cells.get(cell), Some(&text), "{cell} (§k.3): {cells:#?}");
    }
    assert!(
        cells["cpu-agent × tiny"].contains("1 Too many pods"),
        "§j.4: {cells:#?}"
    );
    let (sim, real) = same_refusal(&pair, "default/ghost-agent").await;
    assert_eq!(sim, real, "§k.5: the unknown class's refusal differs");
    assert_eq!(
        real.message,
        "pods \"ghost-agent-\" is forbidden: no PriorityClass with name no-such-class was found",
        "§k.5"
    );
    crate::k8s_priority_classes::priority_classes_agree(&pair).await;
}

/// The refusal the dashboard classified for DaemonSet `key` on each side (sim, kubernetes),
/// once both have one. Unmasked: the Priority admission is a mutating plugin, and runs before
/// kube-apiserver generates the pod's name, so the message names the `generateName`.
async fn same_refusal(pair: &Pair, key: &str) -> (Refusal, Refusal) {
    let refused = |side: &Side| {
        let snapshot = side.live.snapshot();
        let column = snapshot.daemonsets.iter().find(|c| c.key == key)?;
        Some(column.refused.clone()?.refusal)
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let (Some(sim), Some(real)) = (refused(&pair.sim), refused(&pair.real)) {
            return (sim, real);
        }
        assert!(
            Instant::now() < deadline,
            "no refusal of {key} on both sides within 30 s: sim {:?}, kubernetes {:?}",
            refused(&pair.sim),
            refused(&pair.real)
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}
