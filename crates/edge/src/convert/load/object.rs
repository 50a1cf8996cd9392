//! One object document, already split out of its file, to its typed k8s-openapi object.
//!
//! Why shared: the offline commands (one object per file) and the simulated cluster's
//! scenarios (many documents per file) read the same kinds at the same apiVersions, and a
//! field of the wrong type must be reported with its path in both. Each caller wraps
//! [`DocumentError`] with where the document sat in its file.

use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Namespace, Node, Pod};
use serde_json::Value;

/// The Kubernetes objects daemonscope reads from files, typed by their kind.
#[derive(Debug, Clone)]
pub enum KubeObject {
    /// `v1` Node.
    Node(Node),
    /// `v1` Namespace.
    Namespace(Namespace),
    /// `v1` Pod.
    Pod(Pod),
    /// `apps/v1` DaemonSet.
    DaemonSet(DaemonSet),
    /// `apps/v1` ControllerRevision.
    ControllerRevision(ControllerRevision),
}

/// Why a document is not an object of its kind: the field (serde's path, `.` for the whole
/// document) and the parser's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field {path}: {message}")]
pub struct DocumentError {
    /// The offending field, `spec.updateStrategy.rollingUpdate.maxSurge`.
    pub path: String,
    /// What the parser found wrong there.
    pub message: String,
}

impl DocumentError {
    /// The field path, or `None` when the error is about the document as a whole.
    pub fn field(&self) -> Option<String> {
        (self.path != "." && !self.path.is_empty()).then(|| self.path.clone())
    }
}

/// The apiVersion at which a kind daemonscope reads is served; `None` for other kinds.
pub fn served_api_version(kind: &str) -> Option<&'static str> {
    match kind {
        "Node" | "Namespace" | "Pod" => Some("v1"),
        "DaemonSet" | "ControllerRevision" => Some("apps/v1"),
        _ => None,
    }
}

/// The typed parse of one document, with the path of the offending field in the error.
pub fn typed<T: serde::de::DeserializeOwned>(doc: Value) -> Result<T, DocumentError> {
    serde_path_to_error::deserialize(doc).map_err(|e| DocumentError {
        path: e.path().to_string(),
        message: e.into_inner().to_string(),
    })
}

impl KubeObject {
    /// The typed object of a document whose `kind` is `kind` (its apiVersion checked against
    /// [`served_api_version`] by the caller).
    pub fn from_document(kind: &str, doc: Value) -> Result<KubeObject, DocumentError> {
        Ok(match kind {
            "Node" => KubeObject::Node(typed(doc)?),
            "Namespace" => KubeObject::Namespace(typed(doc)?),
            "Pod" => KubeObject::Pod(typed(doc)?),
            "DaemonSet" => KubeObject::DaemonSet(typed(doc)?),
            "ControllerRevision" => KubeObject::ControllerRevision(typed(doc)?),
            other => {
                return Err(DocumentError {
                    path: "kind".to_string(),
                    message: format!("{other:?} is not a kind daemonscope reads"),
                })
            }
        })
    }
}

/// A JSON value's type as a person names it, for "expected a mapping, found a list".
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}
