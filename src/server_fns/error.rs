//! The one error type of the server functions, as the browser receives it.
//!
//! Why typed: the pages answer differently to a missing object (404 and "no such DaemonSet"),
//! a refused one (the dashboard's account may not read it) and an unavailable cluster; with
//! every error flattened to text a page could only search the message for "not found".
//! Server and browser are built together, so the serde form is free to change.

use super::codec::JsonTextEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The kinds of object a page asks for by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ObjectKind {
    /// A node (`/node/:name`).
    Node,
    /// A DaemonSet (`/ds/:namespace/:name`).
    DaemonSet,
    /// A pod (`/pod/:namespace/:name`).
    Pod,
}

impl fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ObjectKind::Node => "node",
            ObjectKind::DaemonSet => "DaemonSet",
            ObjectKind::Pod => "pod",
        })
    }
}

/// Why a server function could not answer. The texts are what the pages show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum DashboardError {
    /// The object is not in the cluster (any more): the page answers 404.
    #[error("no {kind} {name:?} in this cluster")]
    NotFound {
        /// What was asked for.
        kind: ObjectKind,
        /// Its name (`namespace/name` for a DaemonSet).
        name: String,
    },
    /// The API server refuses the dashboard's account the list the object would be in.
    #[error("the dashboard may not read {resource}: {detail}")]
    Forbidden {
        /// The watcher's scope, e.g. `daemonsets in kube-system`.
        resource: String,
        /// The API server's message.
        detail: String,
    },
    /// The cluster's state is not there yet, or not at all (start-up, API server down).
    #[error("the cluster is not available: {detail}")]
    ClusterUnavailable {
        /// What is missing.
        detail: String,
    },
    /// The request itself is malformed (e.g. a DaemonSet key without `namespace/`).
    #[error("bad request: {detail}")]
    BadRequest {
        /// What is wrong with it.
        detail: String,
    },
    /// The call did not get through (network, encoding): from the server function machinery.
    #[error("cannot reach the dashboard server: {0}")]
    ServerFn(ServerFnErrorErr),
}

impl DashboardError {
    /// A short stable name of the variant, for `data-error` attributes and logs.
    pub fn code(&self) -> &'static str {
        match self {
            DashboardError::NotFound { .. } => "not-found",
            DashboardError::Forbidden { .. } => "forbidden",
            DashboardError::ClusterUnavailable { .. } => "unavailable",
            DashboardError::BadRequest { .. } => "bad-request",
            DashboardError::ServerFn(_) => "transport",
        }
    }

    /// True for a missing object (the page answers 404).
    pub fn is_not_found(&self) -> bool {
        matches!(self, DashboardError::NotFound { .. })
    }
}

impl FromServerFnError for DashboardError {
    /// The same decoder as the answers' (one `from_str` copy of the serde code in the WASM).
    type Encoder = JsonTextEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        DashboardError::ServerFn(value)
    }
}

/// A lookup in the live state, as the browser should hear it.
#[cfg(feature = "ssr")]
impl From<crate::cluster::LookupError> for DashboardError {
    fn from(err: crate::cluster::LookupError) -> Self {
        use crate::cluster::LookupError;
        match err {
            LookupError::NodeNotFound(name) => DashboardError::NotFound {
                kind: ObjectKind::Node,
                name,
            },
            LookupError::DaemonSetNotFound(name) => DashboardError::NotFound {
                kind: ObjectKind::DaemonSet,
                name,
            },
            LookupError::Denied { resource, detail } => {
                DashboardError::Forbidden { resource, detail }
            }
            not_listed @ LookupError::NotListed { .. } => DashboardError::ClusterUnavailable {
                detail: not_listed.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variant_reads_differently_and_round_trips_through_its_encoding() {
        let errors = [
            DashboardError::NotFound {
                kind: ObjectKind::DaemonSet,
                name: "nowhere/nothing".into(),
            },
            DashboardError::Forbidden {
                resource: "daemonsets".into(),
                detail: "forbidden".into(),
            },
            DashboardError::ClusterUnavailable {
                detail: "nodes not listed yet".into(),
            },
            DashboardError::BadRequest {
                detail: "no namespace".into(),
            },
            DashboardError::ServerFn(ServerFnErrorErr::Request("offline".into())),
        ];
        let codes: std::collections::HashSet<_> = errors.iter().map(|e| e.code()).collect();
        assert_eq!(codes.len(), errors.len());
        for e in errors {
            assert_eq!(DashboardError::de(e.ser()), e);
        }
    }

    #[test]
    fn not_found_names_the_object() {
        let e = DashboardError::NotFound {
            kind: ObjectKind::Node,
            name: "ghost".into(),
        };
        assert!(e.is_not_found());
        assert_eq!(e.to_string(), "no node \"ghost\" in this cluster");
    }
}
