//! The simulated API server refuses what kube-apiserver refuses, with the same status code,
//! reason and field path (issue 15 items 1 and 6).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![cfg(feature = "ssr")]

use daemonscope::sim::{start_with, SimConfig, SimHandle};
use daemonscope_edge::testing::object;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::Client;
use serde_json::json;

async fn sim() -> SimHandle {
    start_with(SimConfig::default()).await.expect("sim starts")
}

fn client(sim: &SimHandle) -> Client {
    Client::try_from(sim.kube_config()).expect("client")
}

fn daemonset(
    name: &str,
    selector: serde_json::Value,
    template_labels: serde_json::Value,
) -> DaemonSet {
    object(
        json!({"metadata": {"name": name, "namespace": "kube-system"}, "spec": {
        "selector": selector,
        "template": {"metadata": {"labels": template_labels},
            "spec": {"containers": [{"name": "agent", "image": "agent:1"}]}}}}),
    )
}

/// (code, reason, message) of an API error.
fn refusal(result: Result<impl std::fmt::Debug, kube::Error>) -> (u16, String, String) {
    match result {
        Err(kube::Error::Api(s)) => (s.code, s.reason.clone(), s.message.clone()),
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_daemonset_whose_selector_misses_its_template_is_a_422_at_the_template_labels() {
    // Issue 15 reproduction 1; AV ValidateDaemonSetSpec: kube-apiserver answers 422 Invalid,
    // field spec.template.metadata.labels, "`selector` does not match template `labels`".
    let sim = sim().await;
    let dss: Api<DaemonSet> = Api::namespaced(client(&sim), "kube-system");
    let bad = daemonset(
        "lost",
        json!({"matchLabels": {"app": "a"}}),
        json!({"app": "b"}),
    );
    let (code, reason, message) = refusal(dss.create(&PostParams::default(), &bad).await);
    assert_eq!((code, reason.as_str()), (422, "Invalid"));
    assert!(
        message.starts_with(
            "DaemonSet.apps \"lost\" is invalid: spec.template.metadata.labels: Invalid value:"
        ),
        "{message}"
    );
    assert!(
        message.ends_with("`selector` does not match template `labels`"),
        "{message}"
    );
    assert!(
        dss.get_opt("lost").await.expect("get").is_none(),
        "nothing stored"
    );

    // The same through an update: a valid DaemonSet patched to a template its selector misses.
    let good = daemonset(
        "kept",
        json!({"matchLabels": {"app": "a"}}),
        json!({"app": "a"}),
    );
    dss.create(&PostParams::default(), &good)
        .await
        .expect("a valid DaemonSet is created");
    let patch = json!({"spec": {"template": {"metadata": {"labels": {"app": "z"}}}}});
    let (code, _, message) = refusal(
        dss.patch("kept", &PatchParams::default(), &Patch::Merge(&patch))
            .await,
    );
    assert_eq!(code, 422, "{message}");
    assert!(
        message.contains("spec.template.metadata.labels"),
        "{message}"
    );

    // An empty selector: 422 at spec.selector.
    let empty = daemonset("all", json!({}), json!({"app": "a"}));
    let (code, _, message) = refusal(dss.create(&PostParams::default(), &empty).await);
    assert_eq!(code, 422);
    assert!(
        message
            .contains("spec.selector: Invalid value: {}: empty selector is invalid for daemonset"),
        "{message}"
    );
    sim.shutdown().await;
}

#[tokio::test]
async fn invalid_labels_and_a_missing_namespace_are_refused_as_kube_apiserver_does() {
    // Issue 15 item 6: metav1validation ValidateLabels (63 characters, no `<`), and a
    // namespaced object in a namespace that does not exist is 404 `namespaces "x" not found`.
    let sim = sim().await;
    let c = client(&sim);
    let nodes: Api<Node> = Api::all(c.clone());
    for value in ["a".repeat(64), "a<b".to_string()] {
        let node: Node =
            serde_json::from_value(json!({"metadata": {"name": "n1", "labels": {"rack": value}}}))
                .expect("node json");
        let (code, reason, message) = refusal(nodes.create(&PostParams::default(), &node).await);
        assert_eq!((code, reason.as_str()), (422, "Invalid"), "{message}");
        assert!(
            message.starts_with("Node \"n1\" is invalid: metadata.labels: Invalid value:"),
            "{message}"
        );
    }
    let pods: Api<Pod> = Api::namespaced(c, "nowhere");
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i"}]}}))
    .expect("pod json");
    let (code, reason, message) = refusal(pods.create(&PostParams::default(), &pod).await);
    assert_eq!(
        (code, reason.as_str(), message.as_str()),
        (404, "NotFound", "namespaces \"nowhere\" not found")
    );
    sim.shutdown().await;
}

#[tokio::test]
async fn a_body_over_three_mebibytes_is_kube_apiservers_413_status() {
    // Issue 15 item 5 on the simulated API: kube-apiserver refuses a body over
    // MaxRequestBodyBytes (3 MiB) with a Status 413 RequestEntityTooLarge, "Request entity too
    // large: limit is 3145728"; the sim answered axum's plain-text 413 at 2 MiB, which kube-rs
    // could not parse as a Status.
    let sim = sim().await;
    let body = serde_json::to_vec(
        &json!({"metadata": {"name": "p", "annotations": {"big": "a".repeat(3 * 1024 * 1024)}},
        "spec": {"containers": [{"name": "c", "image": "i"}]}}),
    )
    .expect("json");
    let request = http::Request::post("/api/v1/namespaces/default/pods")
        .header("content-type", "application/json")
        .body(body)
        .expect("request");
    let (code, reason, message) = refusal(client(&sim).request_text(request).await);
    assert_eq!(
        (code, reason.as_str()),
        (413, "RequestEntityTooLarge"),
        "{message}"
    );
    assert_eq!(message, "Request entity too large: limit is 3145728");
    // Under the limit (2.5 MiB, over axum's default 2 MiB) a body is read and decoded.
    let env = json!([{"name": "BIG", "value": "a".repeat(5 * 512 * 1024)}]);
    let body = serde_json::to_vec(&json!({"metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i", "env": env}]}}))
    .expect("json");
    let request = http::Request::post("/api/v1/namespaces/default/pods")
        .header("content-type", "application/json")
        .body(body)
        .expect("request");
    let stored = client(&sim).request_text(request).await;
    assert!(stored.is_ok(), "{stored:?}");
    sim.shutdown().await;
}
