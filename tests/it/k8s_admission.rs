//! The same bad objects sent to kube-apiserver v1.37.2 and to the simulated API server: the
//! answers must match in status code, reason, and the field path of every cause (issue 15:
//! "where the real control plane is available, the same bad objects go to both").
//!
//! Why a differential test and not a table of expected answers: the table would be our
//! reading of the API server; here the API server itself is the expectation, so a
//! validation rule the sim gets wrong (or lacks) fails with both answers side by side.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![cfg(feature = "ssr")]

use crate::support::real_cluster;

use daemonscope::sim::{start_with, SimConfig};
use http::Request;
use kube::client::Body;
use kube::Client;
use real_cluster::RealCluster;
use serde_json::{json, Value};

/// What an API server answered to one write, reduced to what must agree.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answer {
    code: u16,
    /// `reason` of the Status (empty for a success).
    reason: String,
    /// `details.causes[].field`, sorted.
    fields: Vec<String>,
    /// A `Warning` header came back (fieldValidation=Warn).
    warned: bool,
}

async fn send(client: &Client, path: &str, body: &Value) -> (Answer, String) {
    let request = Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(serde_json::to_vec(body).expect("json")))
        .expect("request");
    let response = client.send(request).await.expect("the API server answers");
    let code = response.status().as_u16();
    let warned = response.headers().contains_key("warning");
    let bytes = response.into_body().collect_bytes().await.expect("a body");
    let status: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let reason = if code < 300 {
        String::new()
    } else {
        status["reason"].as_str().unwrap_or_default().to_string()
    };
    let mut fields: Vec<String> = status["details"]["causes"]
        .as_array()
        .map(|causes| {
            causes
                .iter()
                .filter_map(|c| c["field"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    fields.sort();
    let message = status["message"].as_str().unwrap_or_default().to_string();
    (
        Answer {
            code,
            reason,
            fields,
            warned,
        },
        message,
    )
}

fn ds(name: &str, spec_patch: Value) -> Value {
    let mut ds = json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "agent", "image": "agent:1"}]}
            }
        }
    });
    merge(&mut ds["spec"], spec_patch);
    ds
}

fn node(name: &str, metadata_patch: Value, spec: Value) -> Value {
    let mut node =
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": spec});
    merge(&mut node["metadata"], metadata_patch);
    node
}

/// JSON merge patch (RFC 7386), enough for building test objects.
fn merge(target: &mut Value, patch: Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(&k);
                } else {
                    merge(t.entry(k).or_insert(Value::Null), v);
                }
            }
        }
        (t, p) => *t = p,
    }
}

const DS_PATH: &str = "/apis/apps/v1/namespaces/default/daemonsets";
const NODE_PATH: &str = "/api/v1/nodes";

/// (what, path, object): each is refused by kube-apiserver, or accepted with a warning.
fn cases() -> Vec<(&'static str, String, Value)> {
    let long = "v".repeat(64);
    vec![
        (
            "selector does not match the template labels",
            DS_PATH.into(),
            ds(
                "sel-miss",
                json!({"template": {"metadata": {"labels": {"app": "other"}}}}),
            ),
        ),
        (
            "empty selector",
            DS_PATH.into(),
            ds("sel-empty", json!({"selector": {"matchLabels": null}})),
        ),
        (
            "maxUnavailable a string that is not a percentage",
            DS_PATH.into(),
            ds(
                "mu-str",
                json!({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "1"}}}),
            ),
        ),
        (
            "maxUnavailable and maxSurge both 0",
            DS_PATH.into(),
            ds(
                "both-zero",
                json!({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}}}),
            ),
        ),
        (
            "maxUnavailable over 100%",
            DS_PATH.into(),
            ds(
                "mu-pct",
                json!({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "150%"}}}),
            ),
        ),
        (
            "negative minReadySeconds",
            DS_PATH.into(),
            ds("mrs-neg", json!({"minReadySeconds": -1})),
        ),
        (
            "toleration Exists with a value",
            DS_PATH.into(),
            ds(
                "tol-exists-value",
                json!({"template": {"spec": {"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}}}),
            ),
        ),
        (
            "tolerationSeconds on a NoSchedule toleration",
            DS_PATH.into(),
            ds(
                "tol-seconds",
                json!({"template": {"spec": {"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}]}}}),
            ),
        ),
        (
            "toleration with an empty key and operator Equal",
            DS_PATH.into(),
            ds(
                "tol-empty-key",
                json!({"template": {"spec": {"tolerations": [{"operator": "Equal", "value": "v"}]}}}),
            ),
        ),
        (
            "DaemonSet name not a DNS subdomain",
            DS_PATH.into(),
            ds("Bad_Name", json!({})),
        ),
        (
            "label value of 64 characters",
            NODE_PATH.into(),
            node("label-long", json!({"labels": {"pool": long}}), json!({})),
        ),
        (
            "label value with '<'",
            NODE_PATH.into(),
            node(
                "label-markup",
                json!({"labels": {"pool": "<b>"}}),
                json!({}),
            ),
        ),
        (
            "label key with a space",
            NODE_PATH.into(),
            node("label-key", json!({"labels": {"bad key": "x"}}), json!({})),
        ),
        (
            "taint with an unknown effect",
            NODE_PATH.into(),
            node(
                "taint-effect",
                json!({}),
                json!({"taints": [{"key": "k", "effect": "Sometimes"}]}),
            ),
        ),
        (
            "taint without a key",
            NODE_PATH.into(),
            node(
                "taint-nokey",
                json!({}),
                json!({"taints": [{"key": "", "effect": "NoSchedule"}]}),
            ),
        ),
        (
            "pod in a namespace that does not exist",
            "/api/v1/namespaces/nowhere/pods".into(),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "nowhere"},
                   "spec": {"containers": [{"name": "c", "image": "c:1"}]}}),
        ),
        (
            "unknown field, fieldValidation=Strict",
            format!("{NODE_PATH}?fieldValidation=Strict"),
            node("strict", json!({}), json!({"noSuchField": true})),
        ),
        (
            "unknown field, fieldValidation=Warn (accepted with a warning)",
            format!("{NODE_PATH}?fieldValidation=Warn"),
            node("warn", json!({}), json!({"noSuchField": true})),
        ),
        (
            "unknown field, fieldValidation=Ignore (accepted silently)",
            format!("{NODE_PATH}?fieldValidation=Ignore"),
            node("ignore", json!({}), json!({"noSuchField": true})),
        ),
        (
            "unknown fieldValidation directive",
            format!("{NODE_PATH}?fieldValidation=Sometimes"),
            node("directive", json!({}), json!({})),
        ),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_objects_get_the_same_answer_from_the_sim_and_from_kube_apiserver() {
    let real = RealCluster::start(&[]);
    let real_client = real.admin().await;
    let sim = start_with(SimConfig::default()).await.expect("sim starts");
    let sim_client = Client::try_from(sim.kube_config()).expect("sim client");

    let mut differences = Vec::new();
    for (what, path, object) in cases() {
        let (want, want_message) = send(&real_client, &path, &object).await;
        let (got, got_message) = send(&sim_client, &path, &object).await;
        eprintln!("{what}: kube-apiserver {want:?} {want_message:?}");
        if want != got {
            differences.push(format!(
                "{what}:\n  kube-apiserver: {want:?}\n    {want_message}\n  sim:            {got:?}\n    {got_message}"
            ));
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {} bad objects were answered differently:\n{}",
        differences.len(),
        cases().len(),
        differences.join("\n")
    );
}
