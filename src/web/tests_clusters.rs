//! Several clusters behind one router: every page and API path under `/c/NAME/`, the plain
//! URLs meaning the first cluster, `/metrics` with a `cluster` label, `/readyz` per cluster.

use super::tests::{get, synced, text};
use super::*;
use crate::cluster::projection::Projection;
use crate::cluster::state::{ClusterState, Scope};
use crate::domain::testing::node;
use axum::http::StatusCode;

/// A second cluster with a single node `w-1` and no DaemonSet.
fn west() -> Arc<Live> {
    let scopes = [Scope::Nodes, Scope::DaemonSets(None), Scope::Pods(None)];
    let live = Live::new(ClusterState::new("west-cluster"), &scopes);
    live.replace(&Scope::Nodes, vec![Projection::Node(node("w-1"))]);
    live.replace(&Scope::DaemonSets(None), vec![]);
    live.replace(&Scope::Pods(None), vec![]);
    live
}

/// A cluster that could not be connected to.
fn broken() -> Arc<Live> {
    Live::not_connected(
        "broken (not connected)".into(),
        "cannot connect to context broken: no user \"ghost\"".into(),
    )
}

fn context(name: &str, live: Arc<Live>) -> ServerContext {
    let windows = Windows::start(&live);
    ServerContext::new(name, live, None, windows)
}

fn fleet_app(clusters: Vec<ServerContext>) -> Router {
    let clusters = Clusters::new(clusters).expect("clusters");
    router(AppState::with_clusters(
        SocketAddr::from(([127, 0, 0, 1], 3000)),
        clusters,
        site::Site::default(),
    ))
}

fn east_and_west() -> Router {
    fleet_app(vec![context("east", synced()), context("west", west())])
}

#[tokio::test]
async fn each_clusters_pages_live_under_its_name_and_the_plain_urls_mean_the_first() {
    let page = get(east_and_west(), "/c/west/node/w-1", &[]).await;
    assert_eq!(page.status(), StatusCode::OK);
    let html = text(page).await;
    assert!(
        html.contains("west-cluster"),
        "the header names the cluster"
    );
    assert_eq!(
        get(east_and_west(), "/node/w-1", &[]).await.status(),
        StatusCode::NOT_FOUND,
        "the first cluster (east) has no node w-1"
    );
    let matrix = get(east_and_west(), "/c/west", &[]).await;
    assert_eq!(matrix.status(), StatusCode::OK);
    let matrix = text(matrix).await;
    assert!(
        matrix.contains("href=\"/c/west/node/w-1\""),
        "a cluster's links keep its prefix"
    );
    let plain = text(get(east_and_west(), "/", &[]).await).await;
    assert!(
        plain.contains("href=\"/node/a\""),
        "the plain URLs keep theirs"
    );
}

#[tokio::test]
async fn the_api_paths_of_a_cluster_read_that_cluster() {
    let response = get(east_and_west(), "/c/west/api/view/node/w-1", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let events: Vec<(String, serde_json::Value)> = super::tests::sse_messages(response, 1).await;
    assert!(
        events[0].1.to_string().contains("w-1"),
        "west's node view: {:?}",
        events[0].1
    );
}

#[tokio::test]
async fn an_unknown_cluster_is_a_404_naming_the_known_ones_and_a_trailing_slash_redirects() {
    let response = get(east_and_west(), "/c/nowhere/api/view", &[]).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let body = text(response).await;
    assert!(
        body.contains("\"nowhere\"") && body.contains("east, west"),
        "{body}"
    );
    let response = get(east_and_west(), "/c/west/?state=missing", &[]).await;
    assert_eq!(response.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(response.headers()["location"], "/c/west?state=missing");
}

#[tokio::test]
async fn metrics_of_several_clusters_carry_a_cluster_label_and_one_is_unchanged() {
    let several = text(get(east_and_west(), "/metrics", &[]).await).await;
    assert!(
        several.contains(
            "daemonscope_daemonset_desired{cluster=\"east\",daemonset=\"kube-system/log\"}"
        ),
        "{several}"
    );
    assert!(several.contains("cluster=\"west\""));
    assert_eq!(
        several
            .matches("# TYPE daemonscope_daemonset_desired ")
            .count(),
        1
    );
    let one = text(get(super::tests::app(synced()), "/metrics", &[]).await).await;
    assert!(
        !one.contains("cluster=\""),
        "a single cluster's series have no cluster label"
    );
}

#[tokio::test]
async fn a_broken_cluster_shows_its_error_and_leaves_the_others_ready() {
    let app = || fleet_app(vec![context("east", synced()), context("broken", broken())]);
    let response = get(app(), "/readyz", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = text(response).await;
    assert!(body.starts_with("1 of 2 clusters ready"), "{body}");
    assert!(
        body.contains("cluster broken: cluster: cannot connect to context broken"),
        "{body}"
    );
    let page = get(app(), "/c/broken", &[]).await;
    assert_eq!(page.status(), StatusCode::OK);
    let page = text(page).await;
    assert!(
        page.contains("cannot connect to context broken"),
        "its page says why"
    );
    let only_broken = fleet_app(vec![context("broken", broken())]);
    assert_eq!(
        get(only_broken, "/readyz", &[]).await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
}
