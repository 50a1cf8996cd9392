//! Test builders of Kubernetes objects, shared by every crate's tests (one copy instead of one
//! per test module), so a test writes only the JSON that matters to it.
//!
//! Compiled for this crate's own tests and, through the `testing` feature, for the other
//! members' tests (they enable it in their `[dev-dependencies]`); never in a release build.
//! Domain-typed builders live in `daemonscope_domain::testing`.

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Node;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// Any Kubernetes object from JSON as a manifest writes it. A fixture that does not parse is
/// a mistake in the test itself, so it stops the test with serde's message.
#[allow(clippy::panic)]
pub fn object<K: DeserializeOwned>(value: Value) -> K {
    serde_json::from_value(value).unwrap_or_else(|e| panic!("test object: {e}"))
}

/// A Ready node carrying these labels (a JSON object), no taints.
pub fn node(name: &str, labels: Value) -> Node {
    object(json!({"metadata": {"name": name, "labels": labels},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}}))
}

/// A DaemonSet `kube-system/<name>` selecting and labelling its pods `app: <name>`, one
/// container `agent` running `image`, every other field left to the defaults.
pub fn daemonset(name: &str, image: &str) -> DaemonSet {
    object(
        json!({"metadata": {"name": name, "namespace": "kube-system"}, "spec": {
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "agent", "image": image}]}}}}),
    )
}
