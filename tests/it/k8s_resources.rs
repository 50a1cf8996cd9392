//! The per-node sums of requests (docs/kubernetes-rules.md §j.3) against Kubernetes' own
//! control plane: the dashboard's sums for a node equal what `kubectl describe node` prints
//! under "Allocated resources" for the same pods (issue 24 item 6).
//!
//! Why against kube-apiserver: the quantities go through its own parsing and canonical form
//! (§j.1), and kubectl sums them with `resourcehelper.PodRequestsAndLimits` (§j.2); the
//! dashboard must get the same figures from the watch data alone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use crate::support::real_cluster::{eventually, RealCluster};

use daemonscope::cluster::connect;
use daemonscope::domain::resources::{scheduler_amount, Quantity};
use std::time::Duration;

/// Four workload pods bound to one node, in several quantity forms: app containers summed,
/// an init container larger than them, a sidecar, pod without requests.
const MANIFESTS: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: res-1, labels: {kubernetes.io/hostname: res-1}}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Pod
metadata: {name: two-containers, namespace: default}
spec:
  nodeName: res-1
  containers:
  - {name: a, image: "a:1", resources: {requests: {cpu: 250m, memory: 64Mi}}}
  - {name: b, image: "b:1", resources: {requests: {cpu: "0.1", memory: 0.5Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: big-init, namespace: default}
spec:
  nodeName: res-1
  initContainers:
  - {name: init, image: "i:1", resources: {requests: {cpu: "2", memory: 16Mi}}}
  containers:
  - {name: app, image: "a:1", resources: {requests: {cpu: 500m, memory: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: with-sidecar, namespace: default}
spec:
  nodeName: res-1
  initContainers:
  - {name: side, image: "s:1", restartPolicy: Always, resources: {requests: {cpu: 100m, memory: 32Mi}}}
  containers:
  - {name: app, image: "a:1", resources: {requests: {cpu: 1e-1, memory: 1e8}}}
---
apiVersion: v1
kind: Pod
metadata: {name: best-effort, namespace: default}
spec:
  nodeName: res-1
  containers:
  - {name: app, image: "a:1"}
"#;

/// The requests column of one row of "Allocated resources" (`  cpu   2550m (31%)   0 (0%)`).
fn allocated(describe: &str, resource: &str) -> Quantity {
    let block = describe
        .split("Allocated resources:")
        .nth(1)
        .expect("kubectl describe node has an Allocated resources block");
    let line = block
        .lines()
        .find(|l| l.split_whitespace().next() == Some(resource))
        .unwrap_or_else(|| panic!("no {resource} row in:\n{block}"));
    let requests = line.split_whitespace().nth(1).expect("a requests column");
    Quantity::parse(requests).unwrap_or_else(|e| panic!("{requests}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_node_sums_equal_kubectl_describe_node_allocated_resources_j3() {
    let cluster = RealCluster::start(&[]);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("res.yaml");
    std::fs::write(&file, MANIFESTS).expect("write the manifests");
    let out = cluster.kubectl(&["create", "-f", file.to_str().expect("utf-8 path")]);
    assert!(
        out.status.success(),
        "kubectl create: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conn = connect::from_config(cluster.kube_config().await, "real".into(), "tester".into())
        .expect("a client");
    let (live, tasks) = daemonscope::web::start_watching(&conn, &[]).await;
    eventually(
        "the dashboard counts the four pods on res-1",
        Duration::from_secs(60),
        || live.is_ready() && live.node_room("res-1").is_ok_and(|r| r.pods == 4),
    )
    .await;
    let out = cluster.kubectl(&["describe", "node", "res-1"]);
    let describe = String::from_utf8_lossy(&out.stdout).into_owned();
    let room = live.node_room("res-1").expect("res-1 is known");
    for resource in ["cpu", "memory"] {
        let kubectl = scheduler_amount(resource, allocated(&describe, resource));
        assert_eq!(
            room.requested.get(resource),
            kubectl,
            "{resource}: the dashboard's sum against kubectl describe node:\n{describe}"
        );
    }
    // The figures themselves (§j.2): 350m + max(500m, 2) + (100m + 100m) = 2550m.
    assert_eq!(room.requested.get("cpu"), 2_550);
    assert_eq!(
        room.requested.get("memory"),
        (64 << 20) + (512 << 20) + (1 << 30) + (32 << 20) + 100_000_000
    );
    for task in tasks {
        task.abort();
    }
}
