//! "Live" only when it is (issue 26): an API server that lost its storage, and a watch that
//! stays open but delivers nothing, show as stale with the cause, on the simulated cluster and
//! on Kubernetes' own control plane.
//!
//! The dashboard runs with short freshness settings (`/readyz` read every 250 ms, a quiet
//! bound of seconds), so each outage is seen in seconds; the bounds are asserted, not slept.
//! The sim's storage is switched off in process (`SimHandle::storage`); on the real control
//! plane etcd is killed and restarted (`cluster.sh stop-etcd` / `start-etcd`). A silenced
//! proxy (`Proxy::silence`: connections kept, nothing forwarded) stands for a stuck proxy or
//! load balancer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use crate::live_k8s::{self, all_live, health, REAL};
use crate::support::live::{
    self, expected_from_store as expected, until_within, Dashboard, Patience, TestResult,
};

use axum::body::Body;
use daemonscope::cluster::live::{Cause, API_SERVER};
use daemonscope::cluster::watch::Freshness;
use daemonscope::cluster::Live;
use daemonscope::sim::{start_in_process, ScenarioSource, SimHandle};
use http::{Request, StatusCode};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower::ServiceExt;

/// Two nodes, one DaemonSet, bookmarks every second: the controllers make the pods.
const SCENARIO: &str = r#"
apiVersion: daemonscope.dev/v1alpha1
kind: SimulationSettings
metadata: {name: stale}
spec:
  kubelet: {scheduleDelay: 100ms, containerCreatingDelay: 100ms, readyDelay: 100ms}
  apiServer: {bookmarkInterval: 1s}
---
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
status: {conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b}}
status: {conditions: [{type: Ready, status: "True"}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: "agent:1"}]}
"#;

/// The storage outage must show within this (issue 26: "within 10 s").
const STORAGE_SEEN: Duration = Duration::from_secs(10);

const TUNED_SIM: Freshness = Freshness {
    quiet_after: Duration::from_secs(3),
    readyz_every: Duration::from_millis(250),
};

/// For the idle-then-silenced watch test: six bookmark intervals (the scenario's 1 s) of quiet,
/// not three, as margin for `make test`, whose `it` suite runs three tests at once on two cores
/// beside two control planes while the in-process sim and the dashboard share this test's
/// runtime. The "restart" CI later counted was a watcher's first list arriving during the idle
/// wait (3 relists of 4 at its start), which the test now waits out; the bound under test is
/// still the one the dashboard applies, only longer.
const TUNED_IDLE: Freshness = Freshness {
    quiet_after: Duration::from_secs(6),
    readyz_every: Duration::from_millis(250),
};

async fn sim() -> Result<(SimHandle, tempfile::TempDir), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("stale.yaml");
    std::fs::write(&path, SCENARIO)?;
    let sim = start_in_process(ScenarioSource::File(path)).await?;
    Ok((sim, dir))
}

/// The dashboard's own `/readyz`: status and body.
async fn readyz(live: &Arc<Live>) -> (StatusCode, String) {
    let app = daemonscope::web::router(daemonscope::web::AppState::new(
        "127.0.0.1:0".parse().expect("an address"),
        live.clone(),
    ));
    let response = app
        .oneshot(
            Request::get("/readyz")
                .body(Body::empty())
                .expect("a request"),
        )
        .await
        .expect("an answer");
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

fn metric_line(live: &Live, name: &str) -> Vec<String> {
    live.metrics()
        .encode()
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(name))
        .map(str::to_string)
        .collect()
}

/// Everything a user sees of a storage outage: the banner's `API server` line with the
/// storage cause and a since, `/readyz` 503 naming it, the gauge at 0 with the cause.
fn storage_outage_shown(live: &Live) -> bool {
    let h = live
        .snapshot()
        .health
        .into_iter()
        .find(|h| h.resource == API_SERVER);
    h.is_some_and(|h| {
        h.error.as_deref() == Some("the API server cannot reach its storage (etcd)")
            && h.stale_since.is_some()
    }) && live.unreadable().map(|c| c.0) == Some(Cause::StorageUnavailable)
}

async fn assert_storage_outage_answers(live: &Arc<Live>) {
    let (status, body) = readyz(live).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(
        body.contains("cluster unreadable (storage_unavailable) since")
            && body.contains("the API server cannot reach its storage (etcd)"),
        "{body}"
    );
    assert_eq!(
        metric_line(live, "daemonscope_cluster_reachable"),
        vec![r#"daemonscope_cluster_reachable{cause="storage_unavailable"} 0"#.to_string()]
    );
}

async fn assert_back(live: &Arc<Live>) {
    let (status, body) = readyz(live).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        metric_line(live, "daemonscope_cluster_reachable"),
        vec![r#"daemonscope_cluster_reachable{cause="none"} 1"#.to_string()]
    );
}

// ---- the simulated cluster ----------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sim_without_its_storage_is_shown_stale_with_the_cause_and_recovers() -> TestResult {
    let (sim, _dir) = sim().await?;
    let dash = Dashboard::start_tuned(sim.kube_config(), "sim", "tester", TUNED_SIM).await?;
    live::converges(&dash, "the initial list", Patience::SIM, || {
        std::future::ready(Some(expected(&sim.store)))
    })
    .await;
    assert_back(&dash.live).await;

    sim.storage.set_available(false);
    let off = Instant::now();
    until_within("the storage outage on the page", STORAGE_SEEN, || {
        storage_outage_shown(&dash.live)
    })
    .await;
    eprintln!("storage outage shown after {:?}", off.elapsed());
    assert_storage_outage_answers(&dash.live).await;
    // The watches stay open and silent: the matrix stays as it was, not emptied.
    assert_eq!(dash.live.snapshot().nodes.len(), 2);

    sim.storage.set_available(true);
    until_within("recovery", STORAGE_SEEN, || {
        dash.live.unreadable().is_none() && all_live_sim(&dash.live)
    })
    .await;
    assert_back(&dash.live).await;
    live::converges(&dash, "after the outage", Patience::SIM, || {
        std::future::ready(Some(expected(&sim.store)))
    })
    .await;
    Ok(())
}

fn all_live_sim(live: &Live) -> bool {
    live.snapshot()
        .health
        .iter()
        .all(|h| h.synced && h.error.is_none() && h.stale_since.is_none())
}

/// The four matrix watchers.
const MATRIX: [&str; 4] = ["nodes", "daemonsets", "pods", "controllerrevisions"];

/// Silences the proxy and requires every matrix watcher to be found quiet, shown stale with
/// the quiet message, within the bound (plus the check period and some scheduling slack),
/// then lets traffic through and requires a relist and a clean page.
async fn silenced_watches_are_restarted(dash: &Dashboard, bound: Duration) {
    let relists = dash.relists();
    dash.proxy.silence(true);
    let silenced = Instant::now();
    let quiet = |r: &str| {
        dash.live.snapshot().health.into_iter().any(|h| {
            h.resource == r
                && h.stale_since.is_some()
                && h.error
                    .as_deref()
                    .is_some_and(|e| e.starts_with("no event or bookmark from the"))
        })
    };
    until_within("every silenced watch found quiet", bound * 2, || {
        MATRIX.iter().all(|r| quiet(r))
    })
    .await;
    let seen = silenced.elapsed();
    eprintln!("quiet watches restarted {seen:?} after the silence (bound {bound:?})");
    // Nothing arrived since at most the silence: restarted within the bound, its check
    // period (a tenth) and scheduling slack.
    assert!(
        seen <= bound + bound / 2,
        "found quiet only after {seen:?} (bound {bound:?})"
    );
    dash.proxy.silence(false);
    until_within("relisted and live again", bound * 4, || {
        dash.relists() >= relists + 4 && all_live_sim(&dash.live)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_held_open_but_silenced_is_restarted_within_the_bound() -> TestResult {
    let (sim, _dir) = sim().await?;
    let dash = Dashboard::start_tuned(sim.kube_config(), "sim", "tester", TUNED_IDLE).await?;
    live::converges(&dash, "the initial list", Patience::SIM, || {
        std::future::ready(Some(expected(&sim.store)))
    })
    .await;
    // The matrix can match before the last watcher's first list is in (CI once counted 3
    // of the 4): only then is every watch idle, and a later list is a restart.
    until_within(
        "every matrix watcher listed once",
        Patience::SIM.timeout,
        || dash.relists_by_resource().len() >= MATRIX.len() && all_live_sim(&dash.live),
    )
    .await;
    // Idle but healthy for twice the bound: the bookmarks keep every watch alive.
    let relists = dash.relists_by_resource();
    tokio::time::sleep(TUNED_IDLE.quiet_after * 2).await;
    assert_eq!(
        dash.relists_by_resource(),
        relists,
        "an idle healthy watch was restarted"
    );
    assert!(all_live_sim(&dash.live));

    silenced_watches_are_restarted(&dash, TUNED_IDLE.quiet_after).await;
    live::converges(&dash, "after the silence", Patience::SIM, || {
        std::future::ready(Some(expected(&sim.store)))
    })
    .await;
    Ok(())
}

// ---- Kubernetes' own control plane --------------------------------------------------------

/// kube-apiserver sends an idle watch a bookmark only once a minute, so this bound relies on
/// the shortened watch timeout (half the bound, `watch/quiet.rs`).
const TUNED_REAL: Freshness = Freshness {
    quiet_after: Duration::from_secs(6),
    readyz_every: Duration::from_millis(500),
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_apiserver_without_etcd_is_stale_with_the_storage_cause_and_a_silenced_watch_restarts(
) -> TestResult {
    let (backend, dash) = live_k8s::converged_start_tuned(TUNED_REAL).await?;
    until_within("every matrix watcher listed once", REAL.timeout, || {
        dash.relists_by_resource().len() >= MATRIX.len() && all_live(&dash)
    })
    .await;
    // Idle but healthy for one and a half bounds: no watch is taken for quiet.
    let relists = dash.relists_by_resource();
    tokio::time::sleep(TUNED_REAL.quiet_after * 3 / 2).await;
    assert_eq!(
        dash.relists_by_resource(),
        relists,
        "an idle healthy watch was restarted"
    );
    assert!(all_live(&dash));

    {
        // etcd's ports stay reserved while it is down (see `live_k8s::PORTS`).
        let _ports = live_k8s::PORTS.lock().await;
        tokio::task::block_in_place(|| backend.cluster.stop_etcd());
        let killed = Instant::now();
        until_within("the storage outage on the page", STORAGE_SEEN, || {
            storage_outage_shown(&dash.live)
        })
        .await;
        eprintln!("etcd outage shown after {:?}", killed.elapsed());
        assert_storage_outage_answers(&dash.live).await;
        tokio::task::block_in_place(|| backend.cluster.start_etcd());
    }
    let restarted = Instant::now();
    until_within("recovery after etcd returned", REAL.timeout, || {
        dash.live.unreadable().is_none() && all_live(&dash)
    })
    .await;
    eprintln!("live again {:?} after etcd returned", restarted.elapsed());
    assert_back(&dash.live).await;
    backend.converges(&dash, "etcd's return").await;
    assert!(health(&dash, API_SERVER).is_some_and(|h| h.error.is_none()));

    silenced_watches_are_restarted(&dash, TUNED_REAL.quiet_after).await;
    backend.converges(&dash, "the silence").await;
    Ok(())
}

// ---- the sim's wire behaviour ---------------------------------------------------------------

/// A whole watch response (the watch ends after `timeoutSeconds`), or a read's status and body.
async fn get_text(client: &kube::Client, path: &str) -> (u16, String) {
    let request = Request::get(path).body(Vec::new()).expect("a request");
    let response = client
        .send(request.map(kube::client::Body::from))
        .await
        .expect("an answer");
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect_bytes()
        .await
        .unwrap_or_default();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn the_sim_sends_bookmarks_only_when_asked_and_without_storage_only_bookmarks_and_504s() {
    use daemonscope::sim::api::ApiSettings;
    let sim = daemonscope::sim::start_with(daemonscope::sim::SimConfig {
        api: ApiSettings {
            bookmark_interval: Duration::from_millis(300),
            request_timeout: Duration::from_millis(500),
            ..ApiSettings::default()
        },
        ..daemonscope::sim::SimConfig::default()
    })
    .await
    .expect("a sim");
    // kube-client retries a 504 up to 15 times (server_retry): one answer is what is checked.
    let mut config = sim.kube_config();
    config.default_retry = false;
    let client = kube::Client::try_from(config).expect("a client");
    let (_, list) = get_text(&client, "/api/v1/nodes").await;
    let list: serde_json::Value = serde_json::from_str(&list).expect("a NodeList");
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .expect("a resourceVersion");
    let watch = format!("/api/v1/nodes?watch=true&resourceVersion={rv}&timeoutSeconds=1");
    let with_bookmarks = format!("{watch}&allowWatchBookmarks=true");
    let (asked, not_asked) = tokio::join!(
        get_text(&client, &with_bookmarks),
        get_text(&client, &watch)
    );
    assert!(asked.1.contains(r#""type":"BOOKMARK""#), "{asked:?}");
    assert!(!not_asked.1.contains("BOOKMARK"), "{not_asked:?}");

    sim.storage.set_available(false);
    let (watched, listed) = tokio::join!(
        get_text(&client, &with_bookmarks),
        get_text(&client, "/api/v1/nodes?limit=500")
    );
    assert!(watched.1.contains(r#""type":"BOOKMARK""#), "{watched:?}");
    assert_eq!(listed.0, 504, "{listed:?}");
    assert_eq!(
        listed.1,
        r#"{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}"#
    );
    let (code, readyz) = get_text(&client, "/readyz?verbose").await;
    assert_eq!(code, 500);
    assert!(
        readyz.contains("[-]etcd failed: reason withheld\n"),
        "{readyz}"
    );
}
