//! The live data path against the embedded simulated cluster, over real HTTP through kube-rs.
//!
//! Each test starts a simulated API server, puts a small TCP proxy in front of it (so a test
//! can cut, hold or redirect the dashboard's connections), starts the dashboard's watchers and
//! waits until the dashboard's matrix equals the one the rules engine computes from the sim's
//! own objects (`domain::coverage::build_snapshot` over `cluster::convert` of the store).

use daemonscope::cluster::connect;
use daemonscope::cluster::Live;
use daemonscope::domain::coverage::{build_snapshot, CellState};
use daemonscope::domain::view::MatrixSnapshot;
use daemonscope::sim::store::{Store, StoreSettings};
use daemonscope::sim::{start_with, SimConfig, SimHandle};
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

type TestResult = Result<(), Box<dyn std::error::Error>>;

// ---- a proxy the test controls ------------------------------------------------------------

/// Whether the proxy forwards, holds new connections, or refuses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Forward,
    Hold,
    Refuse,
}

/// A TCP proxy in front of the sim: the dashboard only ever talks to it.
struct Proxy {
    addr: SocketAddr,
    upstream: Arc<Mutex<SocketAddr>>,
    mode: watch::Sender<Mode>,
    connections: Arc<Mutex<JoinSet<()>>>,
    _accept: tokio::task::JoinHandle<()>,
}

impl Proxy {
    async fn start(upstream: SocketAddr) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let upstream = Arc::new(Mutex::new(upstream));
        let (mode, mode_rx) = watch::channel(Mode::Forward);
        let connections = Arc::new(Mutex::new(JoinSet::new()));
        let (up, conns) = (upstream.clone(), connections.clone());
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let mut mode_rx = mode_rx.clone();
                let up = up.clone();
                let task = async move {
                    loop {
                        let mode = *mode_rx.borrow_and_update();
                        match mode {
                            Mode::Forward => break,
                            Mode::Refuse => return,
                            Mode::Hold => {
                                if mode_rx.changed().await.is_err() {
                                    return;
                                }
                            }
                        }
                    }
                    let target = *up.lock().unwrap_or_else(|e| e.into_inner());
                    if let Ok(mut outbound) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                };
                conns.lock().unwrap_or_else(|e| e.into_inner()).spawn(task);
            }
        });
        Ok(Proxy {
            addr,
            upstream,
            mode,
            connections,
            _accept: accept,
        })
    }

    /// Drops every open connection (watches included) and applies `mode` to new ones.
    fn cut(&self, mode: Mode) {
        let _ = self.mode.send(mode);
        self.connections
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .abort_all();
    }

    fn set_mode(&self, mode: Mode) {
        let _ = self.mode.send(mode);
    }

    fn redirect(&self, upstream: SocketAddr) {
        *self.upstream.lock().unwrap_or_else(|e| e.into_inner()) = upstream;
    }
}

// ---- the dashboard under test -------------------------------------------------------------

struct Dashboard {
    live: Arc<Live>,
    proxy: Proxy,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Dashboard {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

async fn dashboard(sim: &SimHandle) -> Result<Dashboard, Box<dyn std::error::Error>> {
    let proxy = Proxy::start(sim.addr).await?;
    let mut config = sim.kube_config();
    config.cluster_url = format!("http://{}", proxy.addr).parse()?;
    let conn = connect::from_config(config, "sim".into(), "tester".into())?;
    let (live, tasks) = daemonscope::web::start_watching(&conn, &[]).await;
    Ok(Dashboard { live, proxy, tasks })
}

async fn sim(history_limit: Option<usize>) -> Result<SimHandle, Box<dyn std::error::Error>> {
    let mut config = SimConfig::default();
    if let Some(limit) = history_limit {
        config.store = StoreSettings {
            history_limit: limit,
            ..StoreSettings::default()
        };
    }
    Ok(start_with(config).await?)
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// What the rules engine says the matrix is, from the sim's own objects.
fn expected(store: &Store) -> MatrixSnapshot {
    use daemonscope::cluster::convert::{daemonset_facts, node_facts, pod_facts};
    let mut nodes: Vec<_> = store.list::<Node>(None).iter().map(node_facts).collect();
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    let revisions = store.list::<ControllerRevision>(None);
    let mut daemonsets: Vec<_> = store
        .list::<DaemonSet>(None)
        .iter()
        .filter_map(|d| daemonset_facts(d).ok())
        .map(|mut ds| {
            // §d.4: the current revision is the owned ControllerRevision with the highest number.
            let current = revisions
                .iter()
                .filter(|r| {
                    r.metadata
                        .owner_references
                        .iter()
                        .flatten()
                        .any(|o| o.uid == ds.uid && o.controller == Some(true))
                })
                .max_by_key(|r| r.revision.unwrap_or_default());
            if let Some(hash) = current.and_then(|r| {
                r.metadata
                    .labels
                    .as_ref()?
                    .get("controller-revision-hash")
                    .cloned()
            }) {
                ds.current_revision_hash = hash;
            }
            ds
        })
        .collect();
    daemonsets.sort_by_key(|d| d.key());
    let pods: Vec<_> = store.list::<Pod>(None).iter().map(pod_facts).collect();
    build_snapshot(&nodes, &daemonsets, &pods, now(), "")
}

/// Waits until the dashboard shows exactly what the rules engine computes from the sim.
async fn converges(dash: &Dashboard, store: &Store, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let want = expected(store);
        let got = dash.live.snapshot();
        if got.nodes == want.nodes && got.daemonsets == want.daemonsets {
            return;
        }
        if Instant::now() > deadline {
            panic!(
                "after {what}, the dashboard did not converge.\n dashboard: {:#?}\n rules engine: {:#?}\n health: {:#?}",
                (&got.daemonsets, &got.nodes),
                (&want.daemonsets, &want.nodes),
                got.health
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---- objects ------------------------------------------------------------------------------

fn node(
    name: &str,
    labels: serde_json::Value,
    taints: serde_json::Value,
) -> Result<Node, serde_json::Error> {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": taints},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}
    }))
}

fn daemonset(name: &str, node_selector: serde_json::Value) -> Result<DaemonSet, serde_json::Error> {
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": "kube-system"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"nodeSelector": node_selector, "containers": [{"name": "c", "image": format!("{name}:1")}]}
            },
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}}
        }
    }))
}

fn owner(ds: &DaemonSet) -> serde_json::Value {
    json!([{
        "apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds.metadata.name, "uid": ds.metadata.uid,
        "controller": true, "blockOwnerDeletion": true
    }])
}

fn revision(
    ds: &DaemonSet,
    number: i64,
    hash: &str,
) -> Result<ControllerRevision, serde_json::Error> {
    let name = ds.metadata.name.clone().unwrap_or_default();
    serde_json::from_value(json!({
        "metadata": {
            "name": format!("{name}-{hash}"), "namespace": "kube-system",
            "labels": {"app": name, "controller-revision-hash": hash},
            "ownerReferences": owner(ds)
        },
        "data": {},
        "revision": number
    }))
}

fn pod(ds: &DaemonSet, node: &str, hash: &str, ready: bool) -> Result<Pod, serde_json::Error> {
    let name = ds.metadata.name.clone().unwrap_or_default();
    serde_json::from_value(json!({
        "metadata": {
            "name": format!("{name}-{node}-{hash}"), "namespace": "kube-system",
            "labels": {"app": name, "controller-revision-hash": hash},
            "ownerReferences": owner(ds)
        },
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": format!("{name}:{hash}")}]},
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }, "lastTransitionTime": "2026-01-01T00:00:00Z"}]
        }
    }))
}

/// Three workers and a tainted control plane; `log` everywhere it is allowed, `gpu` on
/// labelled nodes; pods on revision `a` everywhere except worker-2 for `log` (missing).
fn seed(store: &Store) -> Result<(DaemonSet, DaemonSet), Box<dyn std::error::Error>> {
    store.create(node(
        "cp-1",
        json!({"node-role.kubernetes.io/control-plane": ""}),
        json!([{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]),
    )?)?;
    store.create(node(
        "worker-1",
        json!({"workload-type": "gpu"}),
        json!([]),
    )?)?;
    store.create(node("worker-2", json!({}), json!([]))?)?;
    store.create(node("worker-3", json!({}), json!([]))?)?;
    let log = store.create(daemonset("log", json!({}))?)?;
    let gpu = store.create(daemonset("gpu", json!({"workload-type": "gpu"}))?)?;
    store.create(revision(&log, 1, "a")?)?;
    store.create(revision(&gpu, 1, "a")?)?;
    store.create(pod(&log, "worker-1", "a", true)?)?;
    store.create(pod(&log, "worker-3", "a", false)?)?;
    store.create(pod(&gpu, "worker-1", "a", true)?)?;
    Ok((log, gpu))
}

fn cell(dash: &Dashboard, node: &str, ds: &str) -> Option<CellState> {
    dash.live.read(|s| s.cell(node, ds))
}

// ---- tests --------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_converges_on_the_rules_engine_after_node_adds_deletes_taints_and_labels(
) -> TestResult {
    let sim = sim(None).await?;
    let (log, _gpu) = seed(&sim.store)?;
    let dash = dashboard(&sim).await?;
    until("initial sync", || dash.live.is_ready()).await;
    converges(&dash, &sim.store, "the initial list").await;
    assert_eq!(
        cell(&dash, "worker-2", "kube-system/log"),
        Some(CellState::Missing)
    );
    assert_eq!(
        cell(&dash, "cp-1", "kube-system/log"),
        Some(CellState::Excluded)
    );

    sim.store.create(node("worker-4", json!({}), json!([]))?)?;
    converges(&dash, &sim.store, "a node add").await;
    assert_eq!(
        cell(&dash, "worker-4", "kube-system/log"),
        Some(CellState::Missing)
    );

    let mut tainted: Node = sim.store.get(None, "worker-4").ok_or("worker-4")?;
    tainted.spec.get_or_insert_default().taints = Some(vec![serde_json::from_value(
        json!({"key": "dedicated", "value": "db", "effect": "NoSchedule"}),
    )?]);
    sim.store.update(tainted)?;
    converges(&dash, &sim.store, "a taint (§a.2 step 3)").await;
    assert_eq!(
        cell(&dash, "worker-4", "kube-system/log"),
        Some(CellState::Excluded)
    );

    let mut labelled: Node = sim.store.get(None, "worker-2").ok_or("worker-2")?;
    labelled
        .metadata
        .labels
        .get_or_insert_default()
        .insert("workload-type".into(), "gpu".into());
    sim.store.update(labelled)?;
    converges(
        &dash,
        &sim.store,
        "a label change (§a.2 step 2 nodeSelector)",
    )
    .await;
    assert_eq!(
        cell(&dash, "worker-2", "kube-system/gpu"),
        Some(CellState::Missing)
    );

    sim.store.remove::<Node>(None, "worker-4")?;
    converges(&dash, &sim.store, "a node delete").await;
    assert_eq!(cell(&dash, "worker-4", "kube-system/log"), None);

    sim.store.create(pod(&log, "worker-2", "a", true)?)?;
    converges(&dash, &sim.store, "a pod add").await;
    assert_eq!(
        cell(&dash, "worker-2", "kube-system/log"),
        Some(CellState::Ready)
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_rolling_update_moves_every_cell_from_the_old_to_the_new_revision() -> TestResult {
    let sim = sim(None).await?;
    let (log, _gpu) = seed(&sim.store)?;
    sim.store.create(pod(&log, "worker-2", "a", true)?)?;
    let dash = dashboard(&sim).await?;
    until("initial sync", || dash.live.is_ready()).await;
    converges(&dash, &sim.store, "the initial list").await;

    // A template change: the controller creates revision 2 (§d.4) ...
    sim.store.create(revision(&log, 2, "b")?)?;
    converges(&dash, &sim.store, "a new revision").await;
    assert_eq!(
        cell(&dash, "worker-1", "kube-system/log"),
        Some(CellState::Outdated)
    );
    // ... and replaces the pods node by node (maxUnavailable 1, §d.3).
    for worker in ["worker-1", "worker-2", "worker-3"] {
        sim.store
            .remove::<Pod>(Some("kube-system"), &format!("log-{worker}-a"))?;
        converges(
            &dash,
            &sim.store,
            &format!("deleting the old pod on {worker}"),
        )
        .await;
        assert_eq!(
            cell(&dash, worker, "kube-system/log"),
            Some(CellState::Missing)
        );
        sim.store.create(pod(&log, worker, "b", true)?)?;
        converges(&dash, &sim.store, &format!("the new pod on {worker}")).await;
        assert_eq!(
            cell(&dash, worker, "kube-system/log"),
            Some(CellState::Ready)
        );
    }
    let column = dash
        .live
        .read(|s| s.column("kube-system/log").cloned())
        .ok_or("log column")?;
    assert_eq!((column.desired, column.updated), (3, 3));
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_410_relists_and_leaves_no_stale_cells() -> TestResult {
    // A short watch history: a watcher that misses more changes than this gets 410 Expired.
    let sim = sim(Some(5)).await?;
    let (log, _gpu) = seed(&sim.store)?;
    let dash = dashboard(&sim).await?;
    until("initial sync", || dash.live.is_ready()).await;
    converges(&dash, &sim.store, "the initial list").await;
    let relists_before = relists(&dash);

    // The watches drop and their reconnects are held while the cluster changes a lot.
    dash.proxy.cut(Mode::Hold);
    sim.store.remove::<Node>(None, "worker-3")?;
    for n in 0..10 {
        sim.store
            .create(node(&format!("extra-{n}"), json!({}), json!([]))?)?;
    }
    sim.store.create(pod(&log, "worker-2", "a", true)?)?;
    dash.proxy.set_mode(Mode::Forward);

    converges(&dash, &sim.store, "a 410 and the relist").await;
    assert_eq!(
        cell(&dash, "worker-3", "kube-system/log"),
        None,
        "the deleted node left no stale row"
    );
    assert!(relists(&dash) > relists_before, "the watchers relisted");
    Ok(())
}

fn relists(dash: &Dashboard) -> u64 {
    let text = dash.live.metrics().encode().unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with("daemonscope_watch_relists_total"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_connection_keeps_the_last_state_marks_it_stale_and_recovers() -> TestResult {
    let sim = sim(None).await?;
    seed(&sim.store)?;
    let dash = dashboard(&sim).await?;
    until("initial sync", || dash.live.is_ready()).await;
    converges(&dash, &sim.store, "the initial list").await;
    let before = dash.live.snapshot();

    dash.proxy.cut(Mode::Refuse);
    until("a stale banner", || {
        dash.live
            .snapshot()
            .health
            .iter()
            .any(|h| h.stale_since.is_some())
    })
    .await;
    let stale = dash.live.snapshot();
    assert_eq!(stale.nodes, before.nodes, "the last state stays on screen");
    assert!(stale
        .health
        .iter()
        .any(|h| h.error.as_deref().is_some_and(|e| e.contains("connection"))));

    sim.store.create(node("worker-9", json!({}), json!([]))?)?;
    dash.proxy.set_mode(Mode::Forward);
    until("recovery", || {
        dash.live
            .snapshot()
            .health
            .iter()
            .all(|h| h.synced && h.stale_since.is_none())
    })
    .await;
    converges(&dash, &sim.store, "reconnecting").await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_sim_restart_the_dashboard_shows_the_new_cluster() -> TestResult {
    let first = sim(None).await?;
    seed(&first.store)?;
    let dash = dashboard(&first).await?;
    until("initial sync", || dash.live.is_ready()).await;
    converges(&dash, &first.store, "the initial list").await;

    // The API server goes away (every watcher notices), then comes back as a new incarnation
    // with other objects and resourceVersions that start again from 1.
    dash.proxy.cut(Mode::Refuse);
    until("every watcher to notice", || {
        dash.live
            .snapshot()
            .health
            .iter()
            .all(|h| h.stale_since.is_some())
    })
    .await;
    first.shutdown().await;
    let second = sim(None).await?;
    second
        .store
        .create(node("fresh-1", json!({}), json!([]))?)?;
    let log = second.store.create(daemonset("log", json!({}))?)?;
    second.store.create(revision(&log, 1, "z")?)?;
    second.store.create(pod(&log, "fresh-1", "z", true)?)?;
    dash.proxy.redirect(second.addr);
    dash.proxy.set_mode(Mode::Forward);

    converges(&dash, &second.store, "a restart with different objects").await;
    assert_eq!(
        cell(&dash, "worker-1", "kube-system/log"),
        None,
        "nothing of the old cluster is left"
    );
    assert_eq!(
        cell(&dash, "fresh-1", "kube-system/log"),
        Some(CellState::Ready)
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_the_dashboard_makes_is_a_get_list_or_watch() -> TestResult {
    let sim = sim(None).await?;
    seed(&sim.store)?;
    let dash = dashboard(&sim).await?;
    until("initial sync", || dash.live.is_ready()).await;

    // Changes driven with kubectl, as an operator would.
    let dir = tempfile::tempdir()?;
    let kubeconfig = dir.path().join("config");
    sim.write_kubeconfig(&kubeconfig)?;
    for args in [
        vec!["taint", "node", "worker-2", "dedicated=db:NoSchedule"],
        vec!["label", "node", "worker-3", "workload-type=gpu"],
    ] {
        let out = tokio::process::Command::new("kubectl")
            .args(&args)
            .env("KUBECONFIG", &kubeconfig)
            .env("KUBECACHEDIR", dir.path().join("cache"))
            .output()
            .await?;
        assert!(
            out.status.success(),
            "kubectl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    converges(&dash, &sim.store, "kubectl taint and label").await;
    assert_eq!(
        cell(&dash, "worker-2", "kube-system/log"),
        Some(CellState::Excluded)
    );

    let agent = connect::user_agent();
    let ours = sim.audit.by_user_agent(&agent);
    let watched: std::collections::BTreeSet<&str> = ours
        .iter()
        .filter(|e| e.verb == "watch" || e.verb == "list")
        .map(|e| e.resource.as_str())
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
        "the dashboard's requests are in the audit log: {ours:?}"
    );
    let verbs = sim.audit.verbs_of(&agent);
    assert!(
        verbs
            .iter()
            .all(|v| ["get", "list", "watch"].contains(&v.as_str())),
        "dashboard verbs: {verbs:?}"
    );
    assert!(verbs.contains("list") || verbs.contains("watch"));
    // The audit log does record writes: kubectl's patches are there.
    let all = sim.audit.entries();
    assert!(all
        .iter()
        .any(|e| e.verb == "patch" && !e.user_agent.starts_with("daemonscope/")));
    Ok(())
}
