//! Events for the objects shown, end to end: the simulated DaemonSet controller writes
//! `SuccessfulCreate` / `FailedCreate` Events, the dashboard's Events watcher (kube-rs over
//! HTTP) files them on the DaemonSet's page; a 403 on events (a scenario `forbidden:` rule)
//! leaves the matrix untouched (issue 5, Watching).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use daemonscope::cluster::events::Page;
use daemonscope::cluster::{connect, Live};
use daemonscope::domain::view::EventRow;
use daemonscope::sim::{start_in_process, ScenarioSource, SimHandle};
use std::sync::Arc;
use std::time::{Duration, Instant};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Two workers and one DaemonSet with no pods yet; its creation on worker-2 is rejected.
fn scenario(extra_settings: &str) -> String {
    format!(
        r#"apiVersion: daemonscope.dev/v1alpha1
kind: SimulationSettings
metadata: {{name: events-test}}
spec:
  speed: 10
  kubelet: {{scheduleDelay: 100ms, containerCreatingDelay: 100ms, readyDelay: 100ms}}
  blockedCreations:
  - daemonSet: kube-system/log
    nodes: [worker-2]
    message: 'pods "log" is forbidden: exceeded quota: pods'
{extra_settings}
---
apiVersion: v1
kind: Node
metadata: {{name: worker-1}}
status: {{conditions: [{{type: Ready, status: "True"}}]}}
---
apiVersion: v1
kind: Node
metadata: {{name: worker-2}}
status: {{conditions: [{{type: Ready, status: "True"}}]}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: log, namespace: kube-system}}
spec:
  selector: {{matchLabels: {{app: log}}}}
  template:
    metadata: {{labels: {{app: log}}}}
    spec: {{containers: [{{name: c, image: "log:1"}}]}}
"#
    )
}

async fn start(
    extra_settings: &str,
) -> Result<(SimHandle, tempfile::TempDir), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("scenario.yaml");
    std::fs::write(&path, scenario(extra_settings))?;
    Ok((start_in_process(ScenarioSource::File(path)).await?, dir))
}

async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A page of the dashboard rendered on the server from `live`.
async fn page(live: &Arc<Live>, uri: &str) -> Result<String, Box<dyn std::error::Error>> {
    use tower::ServiceExt;
    let app = daemonscope::web::router(daemonscope::web::AppState::new(
        std::net::SocketAddr::from(([127, 0, 0, 1], 3000)),
        live.clone(),
    ));
    let request = axum::http::Request::get(uri).body(axum::body::Body::empty())?;
    let response = app.oneshot(request).await?;
    let body = axum::body::to_bytes(response.into_body(), 1 << 22).await?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

fn ds_events(live: &Live) -> Vec<EventRow> {
    live.events_of(&Page::DaemonSet("kube-system/log".into()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controllers_daemonset_events_reach_the_dashboard_newest_first() -> TestResult {
    let (sim, _dir) = start("").await?;
    let conn = connect::from_config(sim.kube_config(), "sim".into(), "tester".into())?;
    let (live, tasks): (Arc<Live>, _) = daemonscope::web::start_watching(&conn, &[]).await;
    until(
        "SuccessfulCreate and FailedCreate on the DaemonSet page",
        || {
            let rows = ds_events(&live);
            rows.iter().any(|r| r.reason == "SuccessfulCreate")
                && rows.iter().any(|r| r.reason == "FailedCreate")
        },
    )
    .await;
    let rows = ds_events(&live);
    let created = rows
        .iter()
        .find(|r| r.reason == "SuccessfulCreate")
        .ok_or("no SuccessfulCreate")?;
    assert_eq!(created.event_type.as_str(), "Normal");
    assert_eq!(created.object, "DaemonSet");
    assert!(
        created.message.starts_with("Created pod: log-"),
        "{created:?}"
    );
    let failed = rows
        .iter()
        .find(|r| r.reason == "FailedCreate")
        .ok_or("no FailedCreate")?;
    assert_eq!(failed.event_type.as_str(), "Warning");
    assert!(failed.message.contains("exceeded quota"), "{failed:?}");
    assert!(
        rows.windows(2).all(|w| w[0].last_seen >= w[1].last_seen),
        "newest first: {rows:?}"
    );
    // The blocked creation is retried: the same Event's count grows rather than new rows.
    until("the FailedCreate count to grow", || {
        ds_events(&live)
            .iter()
            .any(|r| r.reason == "FailedCreate" && r.count > 1)
    })
    .await;
    assert_eq!(
        ds_events(&live)
            .iter()
            .filter(|r| r.reason == "FailedCreate")
            .count(),
        1
    );
    // The DaemonSet page, rendered on the server, lists them under "Recent events".
    let html = page(&live, "/ds/kube-system/log").await?;
    assert!(html.contains("Recent events"), "{html}");
    assert!(html.contains("data-reason=\"SuccessfulCreate\""), "{html}");
    assert!(html.contains("exceeded quota"), "{html}");
    // A node's events (as the node controller writes them, in `default`) reach its page.
    sim.store
        .create(serde_json::from_value::<k8s_openapi::api::core::v1::Event>(
            serde_json::json!({
                "metadata": {"name": "worker-1.1", "namespace": "default"},
                "involvedObject": {"kind": "Node", "name": "worker-1", "uid": "worker-1"},
                "type": "Normal", "reason": "NodeHasSufficientMemory",
                "message": "Node worker-1 status is now: NodeHasSufficientMemory",
                "count": 1, "lastTimestamp": "2026-12-02T10:00:00Z"
            }),
        )?)?;
    until("the node's event", || {
        live.events_of(&Page::Node("worker-1".into()))
            .iter()
            .any(|r| r.reason == "NodeHasSufficientMemory")
    })
    .await;
    let html = page(&live, "/node/worker-1").await?;
    assert!(
        html.contains("data-reason=\"NodeHasSufficientMemory\""),
        "{html}"
    );
    // Only list and watch were used on events.
    let verbs: std::collections::BTreeSet<String> = sim
        .audit
        .by_user_agent(&connect::user_agent())
        .into_iter()
        .filter(|e| e.resource == "events")
        .map(|e| e.verb)
        .collect();
    assert!(
        !verbs.is_empty() && verbs.iter().all(|v| v == "list" || v == "watch"),
        "{verbs:?}"
    );
    for task in tasks {
        task.abort();
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_403_on_events_leaves_the_matrix_and_its_health_untouched() -> TestResult {
    let (sim, _dir) = start("  forbidden:\n  - {resource: events, verbs: [list, watch]}").await?;
    let conn = connect::from_config(sim.kube_config(), "sim".into(), "tester".into())?;
    let (live, tasks): (Arc<Live>, _) = daemonscope::web::start_watching(&conn, &[]).await;
    until("the matrix to sync", || live.is_ready()).await;
    until("the events watcher to be refused", || {
        sim.audit
            .entries()
            .iter()
            .any(|e| e.resource == "events" && e.code == 403)
    })
    .await;
    until("worker-1's pod to be on the matrix", || {
        live.read(|s| s.cell("worker-1", "kube-system/log"))
            .is_some_and(|c| c != daemonscope::domain::coverage::CellState::Missing)
    })
    .await;
    let snapshot = live.snapshot();
    assert!(
        snapshot.health.iter().all(|h| h.error.is_none()),
        "no banner for optional events: {:?}",
        snapshot.health
    );
    assert!(ds_events(&live).is_empty());
    for task in tasks {
        task.abort();
    }
    Ok(())
}

/// A crash-looping daemon pod's kubelet warnings (BackOff, written before the dashboard
/// started) are filed under its DaemonSet and its node; a node going NotReady brings the node lifecycle
/// controller's NodeNotReady to the node's page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pod_and_node_warnings_reach_the_daemonset_and_node_pages() -> TestResult {
    let (sim, _dir) =
        start("  failingImages:\n  - {image: 'log:1', mode: CrashLoopBackOff}").await?;
    until("the kubelet's BackOff in the sim", || {
        sim.store
            .list::<k8s_openapi::api::core::v1::Event>(Some("kube-system"))
            .iter()
            .any(|e| e.reason.as_deref() == Some("BackOff"))
    })
    .await;
    let conn = connect::from_config(sim.kube_config(), "sim".into(), "tester".into())?;
    let (live, tasks): (Arc<Live>, _) = daemonscope::web::start_watching(&conn, &[]).await;
    until("BackOff on the DaemonSet page", || {
        ds_events(&live).iter().any(|r| r.reason == "BackOff")
    })
    .await;
    let backoff = ds_events(&live)
        .into_iter()
        .find(|r| r.reason == "BackOff")
        .ok_or("no BackOff")?;
    assert_eq!(backoff.event_type.as_str(), "Warning");
    assert!(
        backoff.object.starts_with("Pod kube-system/log-"),
        "{backoff:?}"
    );
    assert!(
        backoff
            .message
            .starts_with("Back-off restarting failed container c in pod log-"),
        "{backoff:?}"
    );

    // The same warning is on the page of the node where the pod crash-loops (worker-2's
    // creation is blocked, so the only pod is on worker-1).
    until("BackOff on the failing pod's node page", || {
        live.events_of(&Page::Node("worker-1".into()))
            .iter()
            .any(|r| r.reason == "BackOff" && r.object == backoff.object)
    })
    .await;
    assert!(live
        .events_of(&Page::Node("worker-2".into()))
        .iter()
        .all(|r| r.reason != "BackOff"));

    daemonscope::sim::kubelet::set_node_ready(
        &sim.store,
        "worker-1",
        false,
        k8s_openapi::jiff::Timestamp::now(),
    )?;
    until("NodeNotReady on the node page", || {
        live.events_of(&Page::Node("worker-1".into()))
            .iter()
            .any(|r| r.reason == "NodeNotReady" && r.message.contains("is now: NodeNotReady"))
    })
    .await;
    let html = page(&live, "/node/worker-1").await?;
    assert!(html.contains("data-reason=\"NodeNotReady\""), "{html}");
    for task in tasks {
        task.abort();
    }
    Ok(())
}
