//! The live data path against the embedded simulated cluster, over real HTTP through kube-rs.
//!
//! Each test starts a simulated API server, puts a small TCP proxy in front of it (so a test
//! can cut, hold or redirect the dashboard's connections), starts the dashboard's watchers and
//! waits until the dashboard's matrix equals the one the rules engine computes from the sim's
//! own objects (`domain::coverage::build_snapshot` over `cluster::convert` of the store).
//! The proxy, the dashboard, the matrix computation and the waits are `support/live.rs`,
//! shared with `live_k8s.rs` (the same tests against Kubernetes' own control plane).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use crate::support::live;
use crate::support::live::expected_from_store as expected;

use daemonscope::cluster::connect;
use daemonscope::domain::coverage::CellState;
use daemonscope::sim::store::{Store, StoreSettings};
use daemonscope::sim::{start_with, SimConfig, SimHandle};
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use live::{until, Dashboard, Mode, Patience, TestResult};
use serde_json::json;

// ---- the dashboard under test -------------------------------------------------------------

async fn dashboard(sim: &SimHandle) -> Result<Dashboard, Box<dyn std::error::Error>> {
    Dashboard::start(sim.kube_config(), "sim", "tester").await
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

/// Waits until the dashboard shows exactly what the rules engine computes from the sim.
async fn converges(dash: &Dashboard, store: &Store, what: &str) {
    live::converges(dash, what, Patience::SIM, || {
        std::future::ready(Some(expected(store)))
    })
    .await;
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
    dash.cell(node, ds)
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
    dash.relists()
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
