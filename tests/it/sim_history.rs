//! The sim's watch history is a time window, as etcd's compaction is (wire §2, paging): a
//! continue token stays valid however many changes are made within the window and expires
//! after it with kube-apiserver's 410 and its token to finish the list inconsistently.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use daemonscope::sim::store::StoreSettings;
use daemonscope::sim::{start_with, SimConfig, SimHandle};
use daemonscope_edge::testing::node;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::Client;
use serde_json::{json, Value};

/// GET `path` on the sim; the status code and the JSON body.
async fn get_json(sim: &SimHandle, path: &str) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(sim.addr)
        .await
        .expect("connect");
    s.write_all(
        format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            sim.addr
        )
        .as_bytes(),
    )
    .await
    .expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).await.expect("read");
    let code = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status line");
    let body = out.split("\r\n\r\n").nth(1).unwrap_or_default();
    // A chunked body: the JSON sits between the chunk sizes.
    let start = body.find('{').expect("a JSON body");
    let end = body.rfind('}').expect("a JSON body");
    (
        code,
        serde_json::from_str(&body[start..=end]).expect("JSON"),
    )
}

#[tokio::test]
async fn an_expired_continue_token_is_kube_apiservers_410_with_a_token_to_finish_the_list() {
    let secs = Arc::new(AtomicU64::new(0));
    let clock = secs.clone();
    let sim = start_with(SimConfig {
        store: StoreSettings {
            history_clock: Arc::new(move || Duration::from_secs(clock.load(Ordering::SeqCst))),
            ..StoreSettings::default()
        },
        ..SimConfig::default()
    })
    .await
    .expect("sim starts");
    let nodes: Api<Node> = Api::all(Client::try_from(sim.kube_config()).expect("client"));
    for name in ["n0", "n1", "n2", "n3"] {
        nodes
            .create(&PostParams::default(), &node(name, json!({})))
            .await
            .expect("create");
    }
    let (code, first) = get_json(&sim, "/api/v1/nodes?limit=2").await;
    assert_eq!(code, 200);
    let token = first["metadata"]["continue"]
        .as_str()
        .expect("a token")
        .to_string();
    let relabel = |i: u64| {
        let nodes = nodes.clone();
        async move {
            nodes
                .patch(
                    "n3",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"metadata": {"labels": {"i": i.to_string()}}})),
                )
                .await
                .expect("patch")
        }
    };
    relabel(1).await;
    secs.store(290, Ordering::SeqCst);
    let (code, _) = get_json(&sim, &format!("/api/v1/nodes?limit=2&continue={token}")).await;
    assert_eq!(code, 200, "within the 5-minute window");

    secs.store(301, Ordering::SeqCst);
    relabel(2).await;
    let (code, status) = get_json(&sim, &format!("/api/v1/nodes?limit=2&continue={token}")).await;
    assert_eq!(code, 410);
    assert_eq!(status["reason"], "Expired");
    assert_eq!(
        status["message"],
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
    );
    let latest = status["metadata"]["continue"]
        .as_str()
        .expect("a token back");
    let rest = nodes
        .list(&ListParams::default().continue_token(latest))
        .await
        .expect("the returned token continues at the latest state");
    let names: Vec<_> = rest
        .items
        .iter()
        .filter_map(|n| n.metadata.name.clone())
        .collect();
    assert_eq!(names, ["n2", "n3"]);
    let n3 = rest.items.last().expect("n3");
    assert_eq!(
        n3.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("i"))
            .map(String::as_str),
        Some("2")
    );
}
