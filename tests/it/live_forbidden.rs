//! A 403 end to end: the simulated API server refuses pods the way kube-apiserver's RBAC
//! does, and the dashboard (kube-rs watchers over HTTP) shows "cannot list pods: forbidden for
//! user X" for pods while nodes and DaemonSets still sync and show (issue 5, Errors).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use daemonscope::cluster::{connect, watch, Live};
use daemonscope::domain::view::ResourceHealth;
use daemonscope::sim::api::ApiSettings;
use daemonscope::sim::scenario::settings::ForbiddenRule;
use daemonscope::sim::store::Store;
use daemonscope::sim::{start_with, SimConfig, SimHandle};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Node;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The service account daemonscope runs as in `deploy/`, impersonated as `kubectl --as` does.
const SERVICE_ACCOUNT: &str = "system:serviceaccount:default:daemonscope";

async fn sim_refusing_pods() -> Result<SimHandle, Box<dyn std::error::Error>> {
    let config = SimConfig {
        api: ApiSettings {
            forbidden: vec![ForbiddenRule {
                resource: "pods".into(),
                verbs: vec!["list".into(), "watch".into()],
            }],
            ..ApiSettings::default()
        },
        ..SimConfig::default()
    };
    let sim = start_with(config).await?;
    seed(&sim.store)?;
    Ok(sim)
}

fn seed(store: &Store) -> Result<(), Box<dyn std::error::Error>> {
    for name in ["worker-1", "worker-2"] {
        store.create(serde_json::from_value::<Node>(json!({
            "metadata": {"name": name},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}
        }))?)?;
    }
    store.create(serde_json::from_value::<DaemonSet>(json!({
        "metadata": {"name": "log", "namespace": "kube-system"},
        "spec": {
            "selector": {"matchLabels": {"app": "log"}},
            "template": {
                "metadata": {"labels": {"app": "log"}},
                "spec": {"containers": [{"name": "c", "image": "log:1"}]}
            }
        }
    }))?)?;
    Ok(())
}

fn health(live: &Live, resource: &str) -> Option<ResourceHealth> {
    live.snapshot()
        .health
        .into_iter()
        .find(|h| h.resource == resource)
}

async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The rest keeps working: nodes and the DaemonSet are synced and on the page.
fn assert_the_rest_is_shown(live: &Live) {
    let snapshot = live.snapshot();
    let nodes: Vec<&str> = snapshot.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(nodes, ["worker-1", "worker-2"], "nodes still show");
    assert!(
        snapshot
            .daemonsets
            .iter()
            .any(|d| d.namespace == "kube-system" && d.name == "log"),
        "the DaemonSet still shows: {:?}",
        snapshot.daemonsets
    );
    for resource in ["nodes", "daemonsets", "controllerrevisions"] {
        let h = health(live, resource);
        assert!(
            h.as_ref().is_some_and(|h| h.synced && h.error.is_none()),
            "{resource} synced without error: {h:?}"
        );
    }
    assert!(live.is_ready(), "a 403 does not hold /readyz back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_pod_list_is_shown_for_the_user_while_nodes_and_daemonsets_still_show(
) -> TestResult {
    let sim = sim_refusing_pods().await?;
    // Paginated lists (servers before WatchList): the refused request is the pod list.
    let mut config = sim.kube_config();
    config.headers.push((
        http::HeaderName::from_static("impersonate-user"),
        http::HeaderValue::from_static(SERVICE_ACCOUNT),
    ));
    let conn = connect::from_config(config, "sim".into(), "kubeconfig-user".into())?;
    let scopes = watch::scopes(&[]);
    let live = Live::new(
        daemonscope::cluster::state::ClusterState::new("sim"),
        &scopes,
    );
    let dog = watch::Watchdog {
        activity: conn.activity.clone(),
        freshness: conn.freshness,
    };
    let tasks = watch::spawn_all(&conn.client, &scopes, &live, &conn.user, false, &dog);
    let want = format!("cannot list pods: forbidden for user {SERVICE_ACCOUNT}");
    until("the pods error", || {
        health(&live, "pods").and_then(|h| h.error) == Some(want.clone())
    })
    .await;
    until("nodes and DaemonSets to sync", || live.is_ready()).await;
    assert_the_rest_is_shown(&live);

    // The audit log records the refused requests with their 403.
    let refused: Vec<_> = sim
        .audit
        .by_user_agent(&connect::user_agent())
        .into_iter()
        .filter(|e| e.resource == "pods")
        .collect();
    assert!(
        !refused.is_empty() && refused.iter().all(|e| e.code == 403 && e.verb == "list"),
        "pod requests are audited as 403 lists: {refused:?}"
    );
    for task in tasks {
        task.abort();
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anonymous_streaming_dashboard_names_the_refused_watch_and_the_anonymous_user(
) -> TestResult {
    let sim = sim_refusing_pods().await?;
    // As `serve --demo` connects: the sim's own config (no credentials: anonymous) and, the
    // sim being 1.37, streaming lists, whose first request is a watch.
    let conn = connect::from_config(sim.kube_config(), "sim".into(), "daemonscope-sim".into())?;
    let (live, tasks) = daemonscope::web::start_watching(&conn, &[]).await;
    let live: Arc<Live> = live;
    until("the pods error", || {
        health(&live, "pods").and_then(|h| h.error)
            == Some("cannot watch pods: forbidden for user system:anonymous".into())
    })
    .await;
    until("nodes and DaemonSets to sync", || live.is_ready()).await;
    assert_the_rest_is_shown(&live);
    let pods = health(&live, "pods");
    assert!(
        pods.as_ref().is_some_and(|h| h.stale_since.is_none()),
        "a 403 is an answer, not a lost connection: {pods:?}"
    );
    assert!(
        sim.audit
            .entries()
            .iter()
            .any(|e| e.resource == "pods" && e.verb == "watch" && e.code == 403),
        "the refused watch is in the audit log"
    );
    for task in tasks {
        task.abort();
    }
    Ok(())
}
