//! `/api/view` (a browser's matrix window) and the node and DaemonSet pages' views
//! (`/api/view/node/…`, `/api/view/ds/…`),
//! through `router()` with `oneshot`, on the seeded state of `tests.rs` (nodes a and b, one
//! DaemonSet kube-system/log, its pod on a).

use super::tests::{app, get, sse_messages, sse_messages_until, synced, text};
use crate::cluster::projection::Projection;
use crate::cluster::state::Scope;
use crate::domain::testing::node;
use crate::views::daemonset::DaemonSetMessage;
use crate::views::matrix::patch::ViewMessage;
use crate::views::node::NodeMessage;
use axum::http::StatusCode;
use std::time::Duration;

#[tokio::test]
async fn a_view_starts_with_its_window_then_patches_only_what_changed_in_it() {
    let live = synced();
    let router = app(live.clone());
    let response = get(router, "/api/view?problems=0&group=none", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let writer = live.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        writer.apply(&Scope::Nodes, Projection::Node(node("0-first")));
        writer.flush().await;
    });
    let events: Vec<(String, ViewMessage)> = sse_messages(response, 2).await;
    let ViewMessage::Window(window) = &events[0].1 else {
        panic!(
            "the first message must be the window, got {:?}",
            events[0].1
        )
    };
    let names: Vec<&str> = window.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(window.cluster, "test-cluster");
    let ViewMessage::Patch(patch) = &events[1].1 else {
        panic!("then a patch, got {:?}", events[1].1)
    };
    let sent: Vec<&str> = patch.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(sent, ["0-first"], "only the new row travels");
    assert_eq!(
        patch.order.as_deref(),
        Some(&["0-first".to_string(), "a".into(), "b".into()][..])
    );
    assert!(events[1].0.parse::<u64>().unwrap() > events[0].0.parse::<u64>().unwrap());
}

#[tokio::test]
async fn a_view_cuts_the_window_its_query_string_names() {
    // `q=b`: the page's name filter; the window holds b only, and says 2 nodes in all.
    let response = get(app(synced()), "/api/view?q=b&problems=0", &[]).await;
    let events: Vec<(String, ViewMessage)> = sse_messages(response, 1).await;
    let ViewMessage::Window(window) = &events[0].1 else {
        panic!("expected the window")
    };
    assert_eq!(window.rows.len(), 1);
    assert_eq!(window.rows[0].name, "b");
    assert_eq!((window.total_nodes, window.matched_nodes), (2, 1));
}

#[tokio::test]
async fn view_query_garbage_becomes_the_default_view_and_an_oversized_one_a_400() {
    let response = get(
        app(synced()),
        "/api/view?page=%ZZ&state=nonsense&sort=%3Cscript%3E&selector=a%20in%20(",
        &[],
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let events: Vec<(String, ViewMessage)> = sse_messages(response, 1).await;
    assert!(matches!(&events[0].1, ViewMessage::Window(w) if w.rows.len() == 2));
    let huge = format!("/api/view?q={}", "a".repeat(20_000));
    let response = get(app(synced()), &huge, &[]).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert!(text(response).await.contains("at most"));
}

#[tokio::test]
async fn a_node_feed_carries_that_nodes_row_and_none_of_the_others_changes() {
    let live = synced();
    let response = get(app(live.clone()), "/api/view/node/a", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let writer = live.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        // b changes first (not this page's node), then a.
        let mut b = node("b");
        b.unschedulable = true;
        writer.apply(&Scope::Nodes, Projection::Node(b));
        writer.flush().await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut a = node("a");
        a.unschedulable = true;
        writer.apply(&Scope::Nodes, Projection::Node(a));
        writer.flush().await;
    });
    // Until the patch that carries a row: b's change may come before it as a patch that only
    // moves `columns_at` (a DaemonSet's summary changed, so the page reads its rules again),
    // when the first window was cut before b changed; it must carry nothing of b's.
    let events: Vec<(String, NodeMessage)> = sse_messages_until(response, |events| {
        events.len() >= 5
            || events
                .iter()
                .any(|(_, m)| matches!(m, NodeMessage::Patch(p) if p.row.is_some()))
    })
    .await;
    let NodeMessage::Window(detail) = &events[0].1 else {
        panic!("expected the node's view whole first")
    };
    assert_eq!(detail.row.name, "a");
    assert_eq!(detail.daemonsets.len(), 1, "every column's key");
    let (last, between) = events[1..].split_last().expect("a patch after the window");
    for (_, message) in between {
        let NodeMessage::Patch(patch) = message else {
            panic!("expected patches after the window, got {message:?}")
        };
        assert!(
            patch.row.is_none() && patch.daemonsets.is_none() && patch.health.is_none(),
            "b's change reached a's feed: {patch:?}"
        );
    }
    let NodeMessage::Patch(patch) = &last.1 else {
        panic!("expected a patch")
    };
    assert!(
        patch
            .row
            .as_ref()
            .is_some_and(|r| r.name == "a" && r.unschedulable),
        "{patch:?}"
    );
}

#[tokio::test]
async fn a_daemonset_feed_carries_its_rollout_on_every_node() {
    let response = get(app(synced()), "/api/view/ds/kube-system/log", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let events: Vec<(String, DaemonSetMessage)> = sse_messages(response, 1).await;
    let DaemonSetMessage::Window(window) = &events[0].1 else {
        panic!("expected the DaemonSet's view whole first")
    };
    assert_eq!(window.column.key, "kube-system/log");
    assert_eq!(
        window.nodes.len() + window.hidden,
        2,
        "every node, listed or counted"
    );
    assert!(window
        .nodes
        .iter()
        .any(|n| n.node == "a" && !n.pods.is_empty()));
}

#[tokio::test]
async fn a_view_that_makes_no_sense_is_a_clear_400() {
    let long = format!("/api/view/node/{}", "n".repeat(300));
    for (uri, says) in [
        (long.as_str(), "not a node name"),
        ("/api/view/ds/kube-system%2Flog/x", "namespace/name"),
        ("/api/live?node=a", "/api/view"),
        ("/api/live?ds=kube-system%2Flog", "/api/view"),
    ] {
        let response = get(app(synced()), uri, &[]).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{uri}");
        assert!(text(response).await.contains(says), "{uri}");
    }
}

#[tokio::test]
async fn a_feed_that_starts_from_the_rendered_view_does_not_send_it_again() {
    let router = app(synced());
    let first: Vec<(String, ViewMessage)> = sse_messages(
        get(router.clone(), "/api/view?problems=0&group=none", &[]).await,
        1,
    )
    .await;
    let ViewMessage::Window(window) = &first[0].1 else {
        panic!("without a version held, the window whole")
    };
    let uri = format!("/api/view?problems=0&group=none&since={}", window.version);
    let resumed: Vec<(String, ViewMessage)> =
        sse_messages(get(router.clone(), &uri, &[]).await, 1).await;
    let ViewMessage::Patch(patch) = &resumed[0].1 else {
        panic!("the view held is current: a patch, got {:?}", resumed[0].1)
    };
    assert!(
        patch.is_empty() && patch.version == window.version,
        "{patch:?}"
    );
    // A version the server no longer keeps (or never cut) gets the window whole.
    let unknown: Vec<(String, ViewMessage)> = sse_messages(
        get(router, "/api/view?problems=0&group=none&since=999999", &[]).await,
        1,
    )
    .await;
    assert!(matches!(unknown[0].1, ViewMessage::Window(_)));
}
