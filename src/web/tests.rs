//! HTTP tests through `router()` with `oneshot`: no socket, no cluster; the live state is
//! seeded with facts the way the watchers would.

use super::*;
use crate::cluster::projection::{Projection, RevisionFacts};
use crate::cluster::state::{ClusterState, Scope};
use crate::domain::testing::{self, node, PodExt};
use crate::domain::view::LiveMessage;
use crate::domain::{DaemonSetFacts, PodFacts};
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use futures::StreamExt;
use std::time::Duration;
use tower::ServiceExt;

/// The one DaemonSet of these tests, `kube-system/log`.
fn ds() -> DaemonSetFacts {
    testing::daemonset("log")
}

/// A Ready pod of `log` on `node` at revision `h1`.
fn pod(node: &str) -> PodFacts {
    testing::pod(&format!("log-{node}"))
        .on(node)
        .hash("h1")
        .owner("uid-log")
        .with(|p| p.uid = format!("pod-{node}"))
}

fn scopes() -> Vec<Scope> {
    vec![
        Scope::Nodes,
        Scope::DaemonSets(None),
        Scope::Pods(None),
        Scope::Revisions(None),
    ]
}

/// A live state as the watchers leave it after their first lists.
pub(super) fn synced() -> Arc<Live> {
    let live = Live::new(ClusterState::new("test-cluster"), &scopes());
    live.replace(
        &Scope::Nodes,
        vec![Projection::Node(node("a")), Projection::Node(node("b"))],
    );
    live.replace(&Scope::DaemonSets(None), vec![Projection::DaemonSet(ds())]);
    live.replace(
        &Scope::Revisions(None),
        vec![Projection::Revision(RevisionFacts {
            namespace: "kube-system".into(),
            name: "log-h1".into(),
            owner_uid: "uid-log".into(),
            revision: 1,
            hash: "h1".into(),
        })],
    );
    live.replace(&Scope::Pods(None), vec![Projection::Pod(pod("a"))]);
    live
}

pub(super) fn app(live: Arc<Live>) -> Router {
    router(AppState::new(
        SocketAddr::from(([127, 0, 0, 1], 3000)),
        live,
    ))
}

pub(super) async fn get(
    app: Router,
    uri: &str,
    headers: &[(&str, &str)],
) -> axum::response::Response {
    let mut request = Request::get(uri);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let request = request.body(Body::empty()).expect("a valid request");
    app.oneshot(request)
        .await
        .expect("the router is infallible")
}

pub(super) async fn text(response: axum::response::Response) -> String {
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .expect("a finite body");
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Reads SSE frames until `n` events (blocks separated by a blank line) have arrived.
async fn sse_events(response: axum::response::Response, n: usize) -> Vec<(String, LiveMessage)> {
    sse_messages(response, n).await
}

/// The first `n` SSE events of `response` as (id, message).
pub(super) async fn sse_messages<T: serde::de::DeserializeOwned + std::fmt::Debug>(
    response: axum::response::Response,
    n: usize,
) -> Vec<(String, T)> {
    sse_messages_until(response, |events: &[(String, T)]| events.len() >= n).await
}

/// The feed's messages until `done` says the ones read so far are enough (each read waits at
/// most 5 s): for a test that must skip messages whose number depends on timing.
pub(super) async fn sse_messages_until<T: serde::de::DeserializeOwned + std::fmt::Debug>(
    response: axum::response::Response,
    done: impl Fn(&[(String, T)]) -> bool,
) -> Vec<(String, T)> {
    let mut stream = response.into_body().into_data_stream();
    let mut buffer = String::new();
    let mut events = Vec::new();
    while !done(&events) {
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next()).await;
        let Ok(Some(Ok(bytes))) = chunk else {
            panic!("the feed ended or stalled after {events:?}")
        };
        buffer.push_str(&String::from_utf8_lossy(&bytes));
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let id = block
                .lines()
                .find_map(|l| l.strip_prefix("id:"))
                .map(|s| s.trim().to_string());
            let data: String = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            if let Some(id) = id {
                let message: T = serde_json::from_str(&data).expect("a feed message");
                events.push((id, message));
            }
        }
    }
    events
}

#[tokio::test]
async fn healthz_answers_while_the_process_is_up() {
    let response = get(app(synced()), "/healthz", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn readyz_is_503_until_every_watcher_has_listed_then_200() {
    let live = Live::new(ClusterState::new("c"), &scopes());
    live.replace(&Scope::Nodes, vec![]);
    let response = get(app(live.clone()), "/readyz", &[]).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body = text(response).await;
    assert!(body.contains("pods: listing"), "{body}");
    for scope in &scopes()[1..] {
        live.replace(scope, vec![]);
    }
    assert_eq!(
        get(app(live), "/readyz", &[]).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_forbidden_resource_does_not_keep_the_rest_off_the_air() {
    let live = Live::new(ClusterState::new("c"), &scopes());
    live.replace(&Scope::Nodes, vec![Projection::Node(node("a"))]);
    live.replace(&Scope::DaemonSets(None), vec![Projection::DaemonSet(ds())]);
    live.replace(&Scope::Revisions(None), vec![]);
    live.watch_denied(
        &Scope::Pods(None),
        "cannot list pods: forbidden for user bob".into(),
    );
    assert_eq!(
        get(app(live.clone()), "/readyz", &[]).await.status(),
        StatusCode::OK
    );
    let snapshot = live.snapshot();
    assert_eq!(snapshot.nodes.len(), 1, "nodes still shown");
    let pods = snapshot.health.iter().find(|h| h.resource == "pods");
    assert_eq!(
        pods.and_then(|h| h.error.as_deref()),
        Some("cannot list pods: forbidden for user bob")
    );
}

#[tokio::test]
async fn readyz_fails_while_a_background_task_is_down_after_a_panic_and_recovers() {
    // Issue 15: no task of the dashboard dies silently. A watcher that panics is logged,
    // started again after its backoff, and /readyz says so meanwhile.
    let live = synced();
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counter = runs.clone();
    let _task = live.tasks().spawn("pods", move || {
        let first = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
        async move {
            if first {
                panic!("watcher bug on a hostile object");
            }
            std::future::pending::<()>().await;
        }
    });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let response = get(app(live.clone()), "/readyz", &[]).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body = text(response).await;
    assert!(
        body.contains(
            "pods: task panicked, restarting (restarts so far 0): watcher bug on a hostile object"
        ),
        "{body}"
    );
    // The 1 s backoff passes, the task runs again and stays up: ready again.
    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 2);
    assert_eq!(
        get(app(live), "/readyz", &[]).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn readyz_says_which_resource_is_forbidden() {
    let live = Live::new(ClusterState::new("c"), &scopes());
    live.watch_failed(
        &Scope::Pods(None),
        "cannot list pods: forbidden for user bob".into(),
        false,
    );
    let body = text(get(app(live), "/readyz", &[]).await).await;
    assert!(
        body.contains("pods: cannot list pods: forbidden for user bob"),
        "{body}"
    );
}

#[tokio::test]
async fn metrics_are_prometheus_text_with_per_daemonset_counts_and_watch_state() {
    let live = synced();
    // Node b has no pod (missing); a node that joined 10 s ago has none yet: within the
    // default two-minute new-node grace it is starting, exported apart (issue 14 item 5).
    let mut young = node("young");
    young.created = Some(crate::cluster::live::unix_now() - 10);
    live.apply(&Scope::Nodes, Projection::Node(young));
    live.snapshot();
    let response = get(app(live), "/metrics", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = text(response).await;
    assert!(
        body.contains("daemonscope_daemonset_missing{daemonset=\"kube-system/log\"} 1\n"),
        "{body}"
    );
    assert!(
        body.contains("daemonscope_daemonset_starting{daemonset=\"kube-system/log\"} 1\n"),
        "{body}"
    );
    assert!(
        body.contains("daemonscope_daemonset_problem_nodes{daemonset=\"kube-system/log\"} 1\n"),
        "b's missing pod is a problem, the young node's starting one is not: {body}"
    );
    assert!(
        body.contains("daemonscope_daemonset_desired{daemonset=\"kube-system/log\"}"),
        "{body}"
    );
    assert!(
        body.contains("daemonscope_daemonset_missing{daemonset=\"kube-system/log\"}"),
        "{body}"
    );
    assert!(
        body.contains("daemonscope_watch_synced{resource=\"pods\"} 1"),
        "{body}"
    );
    assert!(
        body.contains("daemonscope_watch_relists_total{resource=\"nodes\"} 1"),
        "{body}"
    );
    assert!(body.contains("daemonscope_live_clients 0"), "{body}");
    assert!(body.ends_with("# EOF\n"));
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let response = get(app(synced()), "/healthz", &[]).await;
    let csp = response
        .headers()
        .get(header::CONTENT_SECURITY_POLICY)
        .and_then(|v| v.to_str().ok());
    assert_eq!(csp, Some(headers::CSP));
    assert_eq!(
        response
            .headers()
            .get(header::X_CONTENT_TYPE_OPTIONS)
            .and_then(|v| v.to_str().ok()),
        Some("nosniff")
    );
    assert_eq!(
        response
            .headers()
            .get(header::X_FRAME_OPTIONS)
            .and_then(|v| v.to_str().ok()),
        Some("DENY")
    );
}

#[tokio::test]
async fn the_live_feed_starts_with_a_snapshot_then_sends_deltas_with_increasing_ids() {
    let live = synced();
    let response = get(app(live.clone()), "/api/live", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
        Some("text/event-stream")
    );
    let version = live.snapshot().version;
    let writer = live.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        writer.apply(&Scope::Pods(None), Projection::Pod(pod("b")));
        writer.apply(&Scope::Nodes, Projection::Node(node("c")));
    });
    let events = sse_events(response, 3).await;
    match &events[0] {
        (id, LiveMessage::Snapshot(snapshot)) => {
            assert_eq!(id, &version.to_string());
            assert_eq!(snapshot.cluster, "test-cluster");
            assert_eq!(snapshot.nodes.len(), 2);
        }
        other => panic!("first message must be a snapshot, got {other:?}"),
    }
    let ids: Vec<u64> = events
        .iter()
        .map(|(id, _)| id.parse().unwrap_or(0))
        .collect();
    assert_eq!(ids, vec![version, version + 1, version + 2]);
    assert!(matches!(&events[1].1, LiveMessage::Deltas { version: v, .. } if *v == version + 1));
}

#[tokio::test]
async fn a_reconnecting_browser_gets_exactly_the_deltas_it_missed() {
    let live = synced();
    let seen = live.snapshot().version;
    live.apply(&Scope::Pods(None), Projection::Pod(pod("b")));
    live.apply(&Scope::Nodes, Projection::Node(node("c")));
    let response = get(
        app(live.clone()),
        "/api/live",
        &[("last-event-id", &seen.to_string())],
    )
    .await;
    let events = sse_events(response, 2).await;
    let versions: Vec<u64> = events
        .iter()
        .map(|(_, m)| match m {
            LiveMessage::Deltas { version, .. } => *version,
            LiveMessage::Snapshot(s) => {
                panic!("a resume must not resend the snapshot (v{})", s.version)
            }
        })
        .collect();
    assert_eq!(versions, vec![seen + 1, seen + 2]);
}

#[tokio::test]
async fn a_browser_too_far_behind_gets_a_fresh_snapshot() {
    let live = synced();
    // The watchers' relists are resets: nothing before them can be resumed.
    let response = get(app(live.clone()), "/api/live?since=1", &[]).await;
    let events = sse_events(response, 1).await;
    let LiveMessage::Snapshot(snapshot) = &events[0].1 else {
        panic!("expected a snapshot")
    };
    assert_eq!(snapshot.version, live.snapshot().version);
}

#[tokio::test]
async fn query_string_garbage_gets_a_clear_400() {
    for uri in [
        "/api/live?since=abc",
        "/api/live?since=-1",
        "/api/live?bogus=1",
        "/api/live?since=%ZZ",
    ] {
        let response = get(app(synced()), uri, &[]).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{uri}");
        assert!(text(response).await.contains("since=<version>"), "{uri}");
    }
    let response = get(
        app(synced()),
        "/api/live",
        &[("last-event-id", "yesterday")],
    )
    .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert!(text(response).await.contains("Last-Event-ID"));
}

#[tokio::test]
async fn explain_cell_of_an_unknown_node_is_an_error_naming_it() {
    use leptos::server_fn::ServerFn;
    let path = <crate::server_fns::ExplainCell as ServerFn>::PATH;
    let request = Request::post(path)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from("node=ghost&daemonset=kube-system%2Flog"))
        .expect("a valid request");
    let response = app(synced()).oneshot(request).await.expect("infallible");
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert!(text(response).await.contains("ghost"));
}

#[tokio::test]
async fn the_page_is_rendered_on_the_server_from_the_live_state() {
    let response = get(app(synced()), "/", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let html = text(response).await;
    assert!(html.contains("data-node=\"a\""), "{html}");
    assert!(
        html.contains("data-daemonset=\"kube-system/log\""),
        "{html}"
    );
}

#[tokio::test]
async fn an_unknown_path_is_a_404_page_not_a_panic() {
    let response = get(app(synced()), "/no/such/page", &[]).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn pages_are_gzipped_when_asked_but_the_live_feed_never_is() {
    let response = get(app(synced()), "/", &[("accept-encoding", "gzip")]).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response
            .headers()
            .get(header::CONTENT_ENCODING)
            .map(|v| v.as_bytes()),
        Some(&b"gzip"[..]),
        "the matrix page is compressed"
    );
    let live = get(app(synced()), "/api/live", &[("accept-encoding", "gzip")]).await;
    assert_eq!(live.status(), StatusCode::OK);
    assert!(
        live.headers().get(header::CONTENT_ENCODING).is_none(),
        "an event stream must reach the browser as each event is written"
    );
    let plain = get(app(synced()), "/", &[]).await;
    assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
}

#[test]
fn a_debug_sized_wasm_is_sent_as_is_while_release_sized_files_and_streamed_pages_are_gzipped() {
    let with_length = |len: u64| {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(header::CONTENT_LENGTH, len.into());
        small_enough_to_compress(
            StatusCode::OK,
            axum::http::Version::HTTP_11,
            &headers,
            &axum::http::Extensions::new(),
        )
    };
    assert!(with_length(1_873_731), "a release WASM is compressed");
    assert!(
        !with_length(103_007_289),
        "a debug WASM would take seconds to gzip"
    );
    assert!(small_enough_to_compress(
        StatusCode::OK,
        axum::http::Version::HTTP_11,
        &axum::http::HeaderMap::new(),
        &axum::http::Extensions::new(),
    ));
}
