//! The live data path against Kubernetes' own control plane (issue 11 item 4: the live tests
//! run against both backends).
//!
//! The same checks as `live_sim.rs`, `live_forbidden.rs` and `live_events.rs`, but the cluster
//! is kube-apiserver v1.37 with the real DaemonSet, garbage-collector, node-lifecycle,
//! taint-eviction and pod-GC controllers, kube-scheduler and kwok as the kubelets
//! (`tools/k8s/cluster.sh`). The test writes only through the admin client and kubectl; the
//! dashboard watches through the shared TCP proxy (TLS end to end: the server certificate is
//! for 127.0.0.1). "Converged" means what it means against the sim: the dashboard's matrix
//! equals `domain::coverage::build_snapshot` over `cluster::convert` of the objects the API
//! server lists right then. Because the real controllers keep moving after a change, each
//! step first waits until the API server's objects have reached the state the step is about
//! (the evicted pod gone, the new pod Ready), then requires convergence, then checks cells.
//!
//! Each test starts its own control plane (4 to 7 s on a 2-core machine, one start at a time:
//! see `PORTS`) and tears it down when it ends, failed or not; the tests themselves run in
//! parallel as `cargo test` schedules them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use crate::support::live;
use crate::support::real_cluster;

use daemonscope::cluster::events::Page;
use daemonscope::cluster::watch::Freshness;
use daemonscope::domain::coverage::CellState;
use daemonscope::domain::view::{MatrixSnapshot, ResourceHealth};
use daemonscope::sim::replay::prepare;
use daemonscope::sim::scenario;
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ListParams, PostParams};
use kube::Client;
use live::{cell_of, until_within, Dashboard, Mode, Patience, TestResult};
use real_cluster::RealCluster;
use serde_json::json;
use std::time::{Duration, Instant};
use CellState::{Excluded, Ready};

/// The real controllers and kwok take a second or two per step; a busy machine more.
pub(crate) const REAL: Patience = Patience {
    timeout: Duration::from_secs(60),
    poll: Duration::from_millis(250),
};

/// Held while a test's control plane picks its free ports and starts (`cluster.sh up`), and
/// while a stopped kube-apiserver leaves its port free. `cluster.sh` finds a free port by
/// binding port 0 and closing it, so two clusters starting at once (`cargo test` runs two of
/// these tests at a time here) could both be handed the same port, and a cluster starting
/// while another's kube-apiserver is down could take that port: seen as etcd's `bind:
/// address already in use` and a 60 s wait for an etcd that had exited.
pub(crate) static PORTS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

type PortsHeld = tokio::sync::MutexGuard<'static, ()>;

const LOG: &str = "kube-system/log";
const GPU: &str = "kube-system/gpu";
const AGENT: &str = "kube-system/agent";

/// Five nodes: a tainted control plane, a gpu worker, a cordoned worker, a plain worker and a
/// NotReady worker (replay labels it `daemonscope.dev/no-kubelet`, so kwok leaves it alone).
/// Every node has the `kubernetes.io/hostname` label a kubelet sets: kwok v0.8.0 selects the
/// nodes it manages with a label selector, and a node with no labels at all is never matched
/// (it stays without status and its pods Pending);
/// three DaemonSets: `log` everywhere allowed, `gpu` by nodeSelector, `agent` tolerating the
/// control-plane taint. Only what a user creates: the controllers make pods and revisions.
const SCENARIO: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: cp-1, labels: {kubernetes.io/hostname: cp-1, node-role.kubernetes.io/control-plane: ""}}
spec: {taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]}
status: {conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Node
metadata: {name: worker-1, labels: {kubernetes.io/hostname: worker-1, workload-type: gpu}}
status: {conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Node
metadata: {name: worker-2, labels: {kubernetes.io/hostname: worker-2}}
spec: {unschedulable: true}
status: {conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Node
metadata: {name: worker-3, labels: {kubernetes.io/hostname: worker-3}}
status: {conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Node
metadata: {name: worker-4, labels: {kubernetes.io/hostname: worker-4}}
status: {conditions: [{type: Ready, status: "False", reason: KubeletNotReady}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: log, namespace: kube-system}
spec:
  selector: {matchLabels: {app: log}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
  template:
    metadata: {labels: {app: log}}
    spec: {containers: [{name: c, image: "log:1"}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: gpu, namespace: kube-system}
spec:
  selector: {matchLabels: {app: gpu}}
  template:
    metadata: {labels: {app: gpu}}
    spec:
      nodeSelector: {workload-type: gpu}
      containers: [{name: c, image: "gpu:1"}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: "agent:1"}]
"#;

/// The matrix once the controllers have placed every pod of `SCENARIO` and kwok made it
/// Ready. worker-4 is excluded everywhere: the node-lifecycle controller taints a NotReady
/// node `node.kubernetes.io/not-ready:NoSchedule`, which no DaemonSet tolerates by default
/// (§a.2 step 3; the controller adds only the NoExecute not-ready toleration).
const SETTLED: &[(&str, &str, CellState)] = &[
    ("cp-1", LOG, Excluded),
    ("cp-1", GPU, Excluded),
    ("cp-1", AGENT, Ready),
    ("worker-1", LOG, Ready),
    ("worker-1", GPU, Ready),
    ("worker-1", AGENT, Ready),
    ("worker-2", LOG, Ready),
    ("worker-2", GPU, Excluded),
    ("worker-2", AGENT, Ready),
    ("worker-3", LOG, Ready),
    ("worker-3", GPU, Excluded),
    ("worker-3", AGENT, Ready),
    ("worker-4", LOG, Excluded),
    ("worker-4", GPU, Excluded),
    ("worker-4", AGENT, Excluded),
];

// ---- the backend --------------------------------------------------------------------------

/// A control plane with `SCENARIO` loaded and the admin client that loaded it.
pub(crate) struct Backend {
    pub(crate) cluster: RealCluster,
    pub(crate) admin: Client,
}

impl Backend {
    async fn start() -> Result<Backend, Box<dyn std::error::Error>> {
        let cluster = {
            let _ports = PORTS.lock().await;
            tokio::task::block_in_place(|| RealCluster::start(&[]))
        };
        eprintln!("control plane up in {} ms", cluster.startup_ms);
        let admin = cluster.admin().await;
        let replay = prepare(&scenario::parse_str(SCENARIO, "live_k8s")?);
        replay.create_all(&admin).await?;
        Ok(Backend { cluster, admin })
    }

    /// kubectl as an operator would run it; panics with its stderr when it fails.
    fn kubectl(&self, args: &[&str]) -> String {
        let out = tokio::task::block_in_place(|| self.cluster.kubectl(args));
        assert!(
            out.status.success(),
            "kubectl {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// What the rules engine says the matrix is, from the API server's objects right now.
    async fn expected(&self) -> Option<MatrixSnapshot> {
        expected(&self.admin).await
    }

    /// Stops kube-apiserver and waits until its port is free: `cluster.sh stop-apiserver`
    /// sends SIGKILL and returns at once, and a `start-apiserver` right after it can find the
    /// dying process still holding the port ("bind: address already in use"). Returns `PORTS`
    /// held, for [`Backend::start_apiserver`]: no other test's cluster may take the port
    /// meanwhile.
    async fn stop_apiserver(&self) -> PortsHeld {
        let ports = PORTS.lock().await;
        tokio::task::block_in_place(|| self.cluster.stop_apiserver());
        let addr = self
            .cluster
            .server
            .trim_start_matches("https://")
            .to_string();
        let deadline = Instant::now() + REAL.timeout;
        while tokio::net::TcpStream::connect(&addr).await.is_ok() {
            assert!(
                Instant::now() < deadline,
                "kube-apiserver still listens on {addr}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ports
    }

    /// Starts kube-apiserver again on its port, then lets other tests pick ports.
    fn start_apiserver(&self, ports: PortsHeld) {
        tokio::task::block_in_place(|| self.cluster.start_apiserver());
        drop(ports);
    }

    /// Waits until the API server's objects (as the rules engine reads them) satisfy `done`:
    /// the controllers and kwok have finished what the test started.
    pub(crate) async fn settled(&self, what: &str, mut done: impl FnMut(&MatrixSnapshot) -> bool) {
        let deadline = Instant::now() + REAL.timeout;
        let mut last = None;
        loop {
            if let Some(snapshot) = self.expected().await {
                if done(&snapshot) {
                    return;
                }
                last = Some(snapshot);
            }
            assert!(
                Instant::now() < deadline,
                "the control plane did not reach {what} within {:?}: {:#?}",
                REAL.timeout,
                last.map(|s| cells(&s))
            );
            tokio::time::sleep(REAL.poll).await;
        }
    }

    /// Waits until the dashboard shows exactly what the rules engine computes from the API
    /// server's objects.
    pub(crate) async fn converges(&self, dash: &Dashboard, what: &str) {
        live::converges(dash, what, REAL, || expected(&self.admin)).await;
    }
}

async fn expected(admin: &Client) -> Option<MatrixSnapshot> {
    let lp = ListParams::default();
    let nodes = Api::<Node>::all(admin.clone()).list(&lp).await.ok()?;
    let daemonsets = Api::<DaemonSet>::all(admin.clone()).list(&lp).await.ok()?;
    let revisions = Api::<ControllerRevision>::all(admin.clone())
        .list(&lp)
        .await
        .ok()?;
    let pods = Api::<Pod>::all(admin.clone()).list(&lp).await.ok()?;
    Some(live::expected_from(
        &nodes.items,
        &daemonsets.items,
        &revisions.items,
        &pods.items,
    ))
}

/// Every cell of a snapshot, `node × ds: state`, for failure messages.
fn cells(snapshot: &MatrixSnapshot) -> Vec<String> {
    snapshot
        .nodes
        .iter()
        .flat_map(|n| {
            snapshot
                .daemonsets
                .iter()
                .zip(&n.cells)
                .map(move |(d, c)| format!("{} × {}: {c:?}", n.name, d.key))
        })
        .collect()
}

fn has(snapshot: &MatrixSnapshot, want: &[(&str, &str, CellState)]) -> bool {
    want.iter()
        .all(|(node, ds, state)| cell_of(snapshot, node, ds) == Some(*state))
}

/// Whether NotReady worker-4 carries both not-ready taints the node-lifecycle controller gives
/// a node whose Ready condition is False.
fn worker_4_fully_tainted(snapshot: &MatrixSnapshot) -> bool {
    snapshot
        .nodes
        .iter()
        .find(|n| n.name == "worker-4")
        .is_some_and(|n| {
            ["NoSchedule", "NoExecute"].iter().all(|effect| {
                n.taints
                    .iter()
                    .any(|t| *t == format!("node.kubernetes.io/not-ready:{effect}"))
            })
        })
}

fn assert_cells(dash: &Dashboard, want: &[(&str, &str, CellState)]) {
    for (node, ds, state) in want {
        assert_eq!(dash.cell(node, ds), Some(*state), "{node} × {ds}");
    }
}

pub(crate) fn health(dash: &Dashboard, resource: &str) -> Option<ResourceHealth> {
    dash.live
        .snapshot()
        .health
        .into_iter()
        .find(|h| h.resource == resource)
}

/// The four matrix watchers, as the health banner names them.
const MATRIX_RESOURCES: [&str; 4] = ["nodes", "daemonsets", "pods", "controllerrevisions"];

fn all_stale(dash: &Dashboard) -> bool {
    MATRIX_RESOURCES
        .iter()
        .all(|r| health(dash, r).is_some_and(|h| h.stale_since.is_some()))
}

pub(crate) fn all_live(dash: &Dashboard) -> bool {
    dash.live
        .snapshot()
        .health
        .iter()
        .all(|h| h.synced && h.error.is_none() && h.stale_since.is_none())
}

fn worker(name: &str) -> Result<Node, serde_json::Error> {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}
    }))
}

/// A loaded control plane, settled, and the dashboard converged on it.
async fn converged_start() -> Result<(Backend, Dashboard), Box<dyn std::error::Error>> {
    converged_start_tuned(Freshness::default()).await
}

/// [`converged_start`] with the dashboard's freshness checks paced by `freshness`.
pub(crate) async fn converged_start_tuned(
    freshness: Freshness,
) -> Result<(Backend, Dashboard), Box<dyn std::error::Error>> {
    let backend = Backend::start().await?;
    // Quiet means both of the node-lifecycle controller's taints on NotReady worker-4 as well:
    // NoSchedule comes with its first pass, NoExecute with a later, rate-limited one
    // (`doNoExecuteTaintingPass`). A test that snapshots "before" while the second is still on
    // its way sees the node change under it (CI stop 20 failed exactly so).
    backend
        .settled(
            "every pod of the scenario placed and Ready, worker-4 tainted not-ready twice",
            |m| has(m, SETTLED) && worker_4_fully_tainted(m),
        )
        .await;
    let dash = Dashboard::start_tuned(
        backend.cluster.kube_config().await,
        "kubernetes",
        "admin",
        freshness,
    )
    .await?;
    until_within("initial sync", REAL.timeout, || dash.live.is_ready()).await;
    backend.converges(&dash, "the initial list").await;
    Ok((backend, dash))
}

// ---- tests --------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_initial_list_of_a_real_cluster_converges_on_the_rules_engine() -> TestResult {
    let (_backend, dash) = converged_start().await?;
    assert_cells(&dash, SETTLED);
    let snapshot = dash.live.snapshot();
    let row = |name: &str| snapshot.nodes.iter().find(|n| n.name == name);
    assert_eq!(row("worker-4").and_then(|n| n.ready), Some(false));
    assert!(row("worker-2").is_some_and(|n| n.unschedulable));
    assert!(all_live(&dash), "{:?}", snapshot.health);
    let log = dash
        .live
        .read(|s| s.column(LOG).cloned())
        .ok_or("log column")?;
    assert_eq!((log.desired, log.ready, log.updated), (3, 3, 3));
    assert!(log.rollout_done, "{log:?}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taints_labels_node_adds_and_deletes_and_a_rolling_update_reach_the_dashboard() -> TestResult
{
    let (backend, dash) = converged_start().await?;

    // NoExecute: the taint-eviction controller deletes the pods that do not tolerate it.
    backend.kubectl(&["taint", "node", "worker-3", "dedicated=db:NoExecute"]);
    let evicted = [("worker-3", LOG, Excluded), ("worker-3", AGENT, Excluded)];
    backend
        .settled("the pods on worker-3 evicted", |m| has(m, &evicted))
        .await;
    backend
        .converges(&dash, "a NoExecute taint (§a.2 step 3)")
        .await;
    assert_cells(&dash, &evicted);

    // A label that matches gpu's nodeSelector, on the cordoned node (cordon does not stop a
    // DaemonSet: the controller tolerates node.kubernetes.io/unschedulable).
    backend.kubectl(&["label", "node", "worker-2", "workload-type=gpu"]);
    backend
        .settled("gpu's pod on worker-2", |m| {
            cell_of(m, "worker-2", GPU) == Some(Ready)
        })
        .await;
    backend
        .converges(&dash, "a label change (§a.2 step 2 nodeSelector)")
        .await;
    assert_eq!(dash.cell("worker-2", GPU), Some(Ready));

    // A rolling update under maxUnavailable 1 (§d.3): the dashboard shows the old pods as
    // outdated until the controller has replaced them all. (Before the node delete below: a
    // deleted node's daemon pod stays Terminating without a kubelet, the controller counts it
    // unavailable, and the rollout waits for the pod-GC controller, about a minute.)
    let seen = std::sync::Arc::new(std::sync::Mutex::new(std::collections::HashSet::new()));
    let sampler = {
        let (live, seen) = (dash.live.clone(), seen.clone());
        tokio::spawn(async move {
            loop {
                let states: Vec<_> = live.read(|s| {
                    ["worker-1", "worker-2"]
                        .iter()
                        .filter_map(|n| s.cell(n, LOG))
                        .collect()
                });
                seen.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(states);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    backend.kubectl(&["-n", "kube-system", "set", "image", "ds/log", "c=log:2"]);
    backend
        .settled("the rollout of log:2 done", |m| {
            m.daemonsets
                .iter()
                .find(|d| d.key == LOG)
                .is_some_and(|d| d.rollout_done && d.updated == d.desired && d.ready == d.desired)
                && has(m, &[("worker-1", LOG, Ready), ("worker-2", LOG, Ready)])
        })
        .await;
    backend.converges(&dash, "kubectl set image").await;
    sampler.abort();
    let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    assert!(
        seen.contains(&CellState::Outdated),
        "the old pods showed as outdated during the rollout: {seen:?}"
    );
    let log = dash
        .live
        .read(|s| s.column(LOG).cloned())
        .ok_or("log column")?;
    assert_eq!((log.desired, log.updated, log.ready), (2, 2, 2), "{log:?}");

    // A node add: kwok makes it Ready, the controller places log and agent there.
    Api::<Node>::all(backend.admin.clone())
        .create(&PostParams::default(), &worker("worker-5")?)
        .await?;
    let placed = [
        ("worker-5", LOG, Ready),
        ("worker-5", AGENT, Ready),
        ("worker-5", GPU, Excluded),
    ];
    backend
        .settled("pods on the new worker-5", |m| has(m, &placed))
        .await;
    backend.converges(&dash, "a node add").await;
    assert_cells(&dash, &placed);

    // A node delete: the row goes (its pod is the pod-GC controller's to remove, ~40 s later).
    backend.kubectl(&["delete", "node", "worker-5"]);
    backend
        .settled("worker-5 gone", |m| {
            m.nodes.iter().all(|n| n.name != "worker-5")
        })
        .await;
    backend.converges(&dash, "a node delete").await;
    assert_eq!(dash.cell("worker-5", LOG), None);

    // Read-only against a real API server too: kube-apiserver's audit log has every request
    // the dashboard made, and they are gets, lists and watches.
    assert_read_only(&backend).await;
    Ok(())
}

/// The dashboard's requests in kube-apiserver's audit log are only get, list and watch, on the
/// five resources it reads.
async fn assert_read_only(backend: &Backend) {
    let agent = daemonscope::cluster::connect::user_agent();
    let path = backend.cluster.dir().join("audit.log");
    // The audit log is written in batches of at most a second.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let ours: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["userAgent"].as_str() == Some(agent.as_str()))
        .collect();
    let verbs: std::collections::BTreeSet<&str> =
        ours.iter().filter_map(|e| e["verb"].as_str()).collect();
    assert!(
        !verbs.is_empty() && verbs.iter().all(|v| ["get", "list", "watch"].contains(v)),
        "dashboard verbs in the audit log: {verbs:?}"
    );
    let watched: std::collections::BTreeSet<&str> = ours
        .iter()
        .filter(|e| matches!(e["verb"].as_str(), Some("list" | "watch")))
        .filter_map(|e| e["objectRef"]["resource"].as_str())
        .collect();
    assert_eq!(
        watched,
        [
            "controllerrevisions",
            "daemonsets",
            "events",
            "nodes",
            "pods"
        ]
        .into_iter()
        .collect(),
        "resources the dashboard listed or watched"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_api_server_keeps_the_last_state_marks_it_stale_and_recovers_on_restart(
) -> TestResult {
    let (backend, dash) = converged_start().await?;
    let before = dash.live.snapshot();

    let ports = backend.stop_apiserver().await;
    let stopped = Instant::now();
    until_within("every watcher to notice", REAL.timeout, || all_stale(&dash)).await;
    eprintln!("stale after {:?}", stopped.elapsed());
    let stale = dash.live.snapshot();
    assert_eq!(stale.nodes, before.nodes, "the last state stays on screen");
    assert_eq!(stale.daemonsets, before.daemonsets);
    for resource in MATRIX_RESOURCES {
        let h = health(&dash, resource);
        assert!(
            h.as_ref().is_some_and(
                |h| !h.synced && h.error.as_deref().is_some_and(|e| e.contains("connection"))
            ),
            "{resource}: {h:?}"
        );
    }
    // Still the last state a few watcher retries later.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(dash.live.snapshot().nodes, before.nodes);

    backend.start_apiserver(ports);
    let restarted = Instant::now();
    // A change right after the restart (none could be made while it was down).
    Api::<Node>::all(backend.admin.clone())
        .create(&PostParams::default(), &worker("worker-9")?)
        .await?;
    until_within("recovery", REAL.timeout, || all_live(&dash)).await;
    eprintln!("live again {:?} after the restart", restarted.elapsed());
    backend
        .settled("log's pod on worker-9", |m| {
            cell_of(m, "worker-9", LOG) == Some(Ready)
        })
        .await;
    backend
        .converges(&dash, "the API server's restart and a node add")
        .await;
    assert_eq!(dash.cell("worker-9", LOG), Some(Ready));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_connection_to_a_real_api_server_is_stale_then_recovers_with_the_changes_missed(
) -> TestResult {
    let (backend, dash) = converged_start().await?;
    let before = dash.live.snapshot();

    dash.proxy.cut(Mode::Refuse);
    until_within("a stale banner", REAL.timeout, || all_stale(&dash)).await;
    assert_eq!(dash.live.snapshot().nodes, before.nodes);
    assert!(dash
        .live
        .snapshot()
        .health
        .iter()
        .any(|h| h.error.as_deref().is_some_and(|e| e.contains("connection"))));

    // The cluster moves on while the dashboard cannot see it.
    backend.kubectl(&["label", "node", "worker-3", "workload-type=gpu"]);
    backend
        .settled("gpu's pod on worker-3", |m| {
            cell_of(m, "worker-3", GPU) == Some(Ready)
        })
        .await;
    assert_eq!(dash.cell("worker-3", GPU), Some(Excluded), "still stale");

    dash.proxy.set_mode(Mode::Forward);
    until_within("recovery", REAL.timeout, || all_live(&dash)).await;
    backend.converges(&dash, "reconnecting").await;
    assert_eq!(dash.cell("worker-3", GPU), Some(Ready));
    Ok(())
}

/// live_sim's 410 test on the real server: the dashboard's connections are held while
/// kube-apiserver restarts (its watch cache starts again from etcd's current revision) and the
/// cluster changes a lot; released, the watchers resume their watches from their last
/// resourceVersion. Unlike the sim, which always answers 410 past its history, kube-apiserver
/// either answers `too old resource version: 290 (296): Expired` (a 410: the watcher relists)
/// or, when the resumed watch reaches it while its watch cache is still initializing, serves it
/// from etcd and sends the missed changes as events. Either way no row of the deleted node may
/// remain.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_watches_across_an_api_server_restart_relist_and_leave_no_stale_rows() -> TestResult {
    let (backend, dash) = converged_start().await?;
    let relists_before = dash.relists();

    dash.proxy.cut(Mode::Hold);
    let ports = backend.stop_apiserver().await;
    backend.start_apiserver(ports);
    backend.kubectl(&["delete", "node", "worker-3"]);
    let nodes = Api::<Node>::all(backend.admin.clone());
    for n in 0..5 {
        nodes
            .create(&PostParams::default(), &worker(&format!("extra-{n}"))?)
            .await?;
    }
    backend
        .settled("log's pods on the extra nodes", |m| {
            (0..5).all(|n| cell_of(m, &format!("extra-{n}"), LOG) == Some(Ready))
        })
        .await;
    assert!(
        dash.cell("worker-3", LOG).is_some(),
        "held: nothing seen yet"
    );
    dash.proxy.set_mode(Mode::Forward);

    backend
        .converges(&dash, "a restart behind held connections and the relist")
        .await;
    assert_eq!(
        dash.cell("worker-3", LOG),
        None,
        "the deleted node left no stale row"
    );
    eprintln!(
        "relists after the restart: {}",
        dash.relists() - relists_before
    );
    until_within("every watcher healthy", REAL.timeout, || all_live(&dash)).await;
    Ok(())
}

/// A ServiceAccount's token (`kubectl create token`) bound to a ClusterRole with `resources`.
fn service_account_token(
    backend: &Backend,
    name: &str,
    resources: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    backend.kubectl(&["-n", "default", "create", "serviceaccount", name]);
    backend.kubectl(&[
        "create",
        "clusterrole",
        name,
        "--verb=get,list,watch",
        &format!("--resource={resources}"),
    ]);
    backend.kubectl(&[
        "create",
        "clusterrolebinding",
        name,
        &format!("--clusterrole={name}"),
        &format!("--serviceaccount=default:{name}"),
    ]);
    let token = backend.kubectl(&["-n", "default", "create", "token", name]);
    Ok(token.trim().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_without_pods_shows_kube_apiservers_refusal_and_a_later_grant_recovers() -> TestResult
{
    let backend = Backend::start().await?;
    backend
        .settled("every pod of the scenario placed and Ready", |m| {
            has(m, SETTLED)
        })
        .await;
    // Nodes, DaemonSets and revisions, but neither pods nor events.
    let token = service_account_token(
        &backend,
        "limited",
        "nodes,daemonsets.apps,controllerrevisions.apps",
    )?;
    let mut config = backend.cluster.kube_config().await;
    config.auth_info = serde_json::from_value(json!({ "token": token }))?;
    let dash = Dashboard::start(config, "kubernetes", "limited").await?;

    // kube-apiserver refuses the streaming list, which is a watch request:
    // `pods is forbidden: User "system:serviceaccount:default:limited" cannot watch resource
    // "pods" in API group "" at the cluster scope`.
    let want = "cannot watch pods: forbidden for user system:serviceaccount:default:limited";
    until_within("the pods error", REAL.timeout, || {
        health(&dash, "pods").and_then(|h| h.error).as_deref() == Some(want)
    })
    .await;
    until_within("nodes and DaemonSets to sync", REAL.timeout, || {
        dash.live.is_ready()
    })
    .await;
    let snapshot = dash.live.snapshot();
    let nodes: Vec<&str> = snapshot.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        nodes,
        ["cp-1", "worker-1", "worker-2", "worker-3", "worker-4"]
    );
    let daemonsets: Vec<&str> = snapshot.daemonsets.iter().map(|d| d.key.as_str()).collect();
    assert_eq!(daemonsets, [AGENT, GPU, LOG]);
    for resource in ["nodes", "daemonsets", "controllerrevisions"] {
        let h = health(&dash, resource);
        assert!(
            h.as_ref().is_some_and(|h| h.synced && h.error.is_none()),
            "{resource} synced without error: {h:?}"
        );
    }
    let pods = health(&dash, "pods");
    assert!(
        pods.as_ref().is_some_and(|h| h.stale_since.is_none()),
        "a 403 is an answer, not a lost connection: {pods:?}"
    );
    // Events are optional: refused, they leave no banner and empty lists.
    assert!(
        snapshot.health.iter().all(|h| h.resource != "events"),
        "{:?}",
        snapshot.health
    );
    assert!(dash.live.events_of(&Page::DaemonSet(LOG.into())).is_empty());

    // Granting pods later: the watcher's next retry lists them and the banner goes.
    backend.kubectl(&[
        "create",
        "clusterrole",
        "pods-reader",
        "--verb=get,list,watch",
        "--resource=pods",
    ]);
    backend.kubectl(&[
        "create",
        "clusterrolebinding",
        "pods-reader",
        "--clusterrole=pods-reader",
        "--serviceaccount=default:limited",
    ]);
    let granted = Instant::now();
    until_within("pods to sync after the grant", REAL.timeout, || {
        health(&dash, "pods").is_some_and(|h| h.synced && h.error.is_none())
    })
    .await;
    eprintln!("pods synced {:?} after the grant", granted.elapsed());
    backend.converges(&dash, "granting pods").await;
    assert_cells(&dash, SETTLED);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemonset_controllers_events_reach_the_daemonset_and_node_pages() -> TestResult {
    let (backend, dash) = converged_start().await?;
    let ds_page = Page::DaemonSet(LOG.into());

    // One SuccessfulCreate per pod the controller created, "Created pod: NAME".
    let pods = Api::<Pod>::namespaced(backend.admin.clone(), "kube-system")
        .list(&ListParams::default().labels("app=log"))
        .await?;
    let names: Vec<String> = pods
        .items
        .iter()
        .filter_map(|p| p.metadata.name.clone())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    until_within("SuccessfulCreate for every log pod", REAL.timeout, || {
        let rows = dash.live.events_of(&ds_page);
        names.iter().all(|name| {
            rows.iter().any(|r| {
                r.reason == "SuccessfulCreate" && r.message == format!("Created pod: {name}")
            })
        })
    })
    .await;
    let rows = dash.live.events_of(&ds_page);
    for row in rows.iter().filter(|r| r.reason == "SuccessfulCreate") {
        assert_eq!(
            (row.event_type.as_str(), row.object.as_str()),
            ("Normal", "DaemonSet")
        );
    }
    assert!(
        rows.windows(2).all(|w| w[0].last_seen >= w[1].last_seen),
        "newest first: {rows:?}"
    );

    // Events made while watching: a new node brings a new pod and its SuccessfulCreate.
    Api::<Node>::all(backend.admin.clone())
        .create(&PostParams::default(), &worker("worker-6")?)
        .await?;
    backend
        .settled("log's pod on worker-6", |m| {
            cell_of(m, "worker-6", LOG) == Some(Ready)
        })
        .await;
    let on_6 = Api::<Pod>::namespaced(backend.admin.clone(), "kube-system")
        .list(
            &ListParams::default()
                .labels("app=log")
                .fields("spec.nodeName=worker-6"),
        )
        .await?;
    let new_pod = on_6
        .items
        .first()
        .and_then(|p| p.metadata.name.clone())
        .ok_or("no log pod on worker-6")?;
    until_within("the new pod's SuccessfulCreate", REAL.timeout, || {
        dash.live.events_of(&ds_page).iter().any(|r| {
            r.reason == "SuccessfulCreate" && r.message == format!("Created pod: {new_pod}")
        })
    })
    .await;

    // The node lifecycle controller's RegisteredNode is on the node's page.
    until_within("RegisteredNode on worker-6's page", REAL.timeout, || {
        dash.live
            .events_of(&Page::Node("worker-6".into()))
            .iter()
            .any(|r| r.reason == "RegisteredNode" && r.object == "Node")
    })
    .await;
    Ok(())
}
