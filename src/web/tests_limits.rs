//! HTTP limits and status codes (issue 15 items 5 and 9), through `router()` with `oneshot`
//! like `tests.rs`, whose seeded live state they reuse.

use super::tests::{app, synced, text};
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use tower::ServiceExt;

#[tokio::test]
async fn a_server_function_body_over_the_limit_is_413_not_500() {
    // Issue 15 reproduction 5: a body over the limit sent to /api/* got 500 "length limit
    // exceeded"; HTTP's answer for it is 413 Payload Too Large (RFC 9110 §15.5.14).
    use leptos::server_fn::ServerFn;
    let path = <crate::server_fns::GetMatrixWindow as ServerFn>::PATH;
    let big = format!("query={}", "a".repeat(3 * 1024 * 1024));
    let request = Request::post(path)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(big))
        .expect("a valid request");
    let response = app(synced()).oneshot(request).await.expect("infallible");
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    // A body under the limit still works.
    let request = Request::post(path)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from("query=problems%3D0"))
        .expect("a valid request");
    let response = app(synced()).oneshot(request).await.expect("infallible");
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "{}",
        text(response).await
    );
}

#[tokio::test]
async fn an_unknown_node_or_daemonset_page_is_a_404_with_the_friendly_page() {
    // Issue 15 item 9: /node/X and /ds/A/B of objects the cluster does not have answered 200;
    // the page stays (it names the object and links back), the status says Not Found.
    for (uri, testid) in [
        ("/node/ghost", "node-not-found"),
        ("/ds/kube-system/ghost", "ds-not-found"),
    ] {
        let response = get(app(synced()), uri).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{uri}");
        let html = text(response).await;
        assert!(html.contains(testid), "{uri}: {html}");
    }
    for uri in ["/node/a", "/ds/kube-system/log"] {
        let response = get(app(synced()), uri).await;
        assert_eq!(response.status(), StatusCode::OK, "{uri}");
    }
}

async fn get(app: axum::Router, uri: &str) -> axum::response::Response {
    let request = Request::get(uri)
        .body(Body::empty())
        .expect("a valid request");
    app.oneshot(request).await.expect("infallible")
}

#[tokio::test]
async fn a_refused_or_unlisted_resource_is_not_a_404_and_says_which() {
    // Issue 12: absence proves nothing when the list was refused (403) or never came; the
    // page stays 200 and names the kind in `data-error` instead of claiming "not found".
    use crate::cluster::state::{ClusterState, Scope};
    use crate::cluster::Live;
    let scopes = [Scope::Nodes, Scope::DaemonSets(None), Scope::Pods(None)];
    let denied = Live::new(ClusterState::new("c"), &scopes);
    denied.replace(&Scope::Nodes, Vec::new());
    denied.watch_denied(&Scope::DaemonSets(None), "forbidden: no list".to_string());
    let response = get(app(denied), "/ds/kube-system/ghost").await;
    assert_eq!(response.status(), StatusCode::OK);
    let html = text(response).await;
    assert!(html.contains(r#"data-error="forbidden""#), "{html}");

    let unlisted = Live::new(ClusterState::new("c"), &scopes);
    let response = get(app(unlisted), "/node/ghost").await;
    assert_eq!(response.status(), StatusCode::OK);
    let html = text(response).await;
    assert!(html.contains(r#"data-error="unavailable""#), "{html}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_render_to_their_end_while_other_routers_are_built_beside_them() {
    // Issue 27: building a router generated leptos_axum's route list, which renders the app
    // under a process-global "suppress resource loads" flag; a page whose resource was first
    // polled meanwhile never ended its stream (the SSR unit tests hung side by side). The
    // route list is generated once per process (`web::route_list`).
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;
    /// Stops the builder however the test ends: a failed render must fail, not wait for it.
    struct StopOnDrop(Arc<AtomicBool>);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let guard = StopOnDrop(stop.clone());
    let building = tokio::task::spawn_blocking(move || {
        while !stop.load(Ordering::Relaxed) {
            drop(app(synced()));
        }
    });
    for uri in ["/", "/node/a", "/ds/kube-system/log", "/node/ghost"].repeat(5) {
        let page = tokio::time::timeout(Duration::from_secs(10), async {
            text(get(app(synced()), uri).await).await
        })
        .await
        .unwrap_or_else(|_| panic!("{uri} did not end within 10 s beside a router being built"));
        assert!(page.trim_end().ends_with("</script>"), "{uri}: {page}");
    }
    drop(guard);
    building.await.expect("the router builder ended");
}
