//! The simulated API server's storage switch: while the storage is "unavailable" the server
//! behaves as kube-apiserver does with etcd down. Open watches stay open and deliver nothing
//! (kube-apiserver keeps serving them from its watch cache, with no event, no bookmark and no
//! error), reads and writes fail, and `/readyz` fails its `etcd` check.
//!
//! Why: the dashboard must notice this outage from the API server's own readiness (issue 26),
//! and a test needs to cause it and end it at run time, on the sim as on the real control
//! plane (`tools/k8s/cluster.sh stop-etcd`). `PUT /debug/storage` flips it, beside
//! `/debug/audit`; the scenario's `spec.apiServer.storageUnavailable` sets it at start.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

use super::{ApiError, ApiState};

/// Whether the storage is reachable, shared by every handler and open watch.
#[derive(Debug, Clone)]
pub struct StorageSwitch {
    available: Arc<tokio::sync::watch::Sender<bool>>,
}

impl Default for StorageSwitch {
    fn default() -> Self {
        Self::new(true)
    }
}

impl StorageSwitch {
    /// A switch, initially `available` or not.
    pub fn new(available: bool) -> Self {
        StorageSwitch {
            available: Arc::new(tokio::sync::watch::Sender::new(available)),
        }
    }

    /// True while the storage answers.
    pub fn is_available(&self) -> bool {
        *self.available.borrow()
    }

    /// Takes the storage away (`false`) or gives it back (`true`).
    pub fn set_available(&self, available: bool) {
        self.available.send_replace(available);
        tracing::info!(available, "simulated storage switched");
    }

    /// Resolves once the storage is available (at once when it is).
    pub async fn wait_available(&self) {
        let mut rx = self.available.subscribe();
        // An error means the sender is gone, which cannot happen while `self` holds it.
        let _ = rx.wait_for(|available| *available).await;
    }

    /// The error a read or write gets while the storage is away, else `Ok`.
    pub fn check(&self) -> Result<(), ApiError> {
        if self.is_available() {
            Ok(())
        } else {
            Err(unavailable())
        }
    }
}

/// What kube-apiserver answers a list, get or write when it cannot reach etcd.
pub fn unavailable() -> ApiError {
    ApiError {
        code: 500,
        reason: "InternalError",
        message: "etcdserver: request timed out".into(),
        details: None,
    }
}

/// `GET /debug/storage`: `{"available": bool}`.
pub(super) async fn get(State(state): State<ApiState>) -> Response {
    body(state.settings.storage.is_available())
}

/// `PUT /debug/storage` with `{"available": bool}`: the run-time switch.
pub(super) async fn put(State(state): State<ApiState>, request: Bytes) -> Response {
    let wanted = serde_json::from_slice::<serde_json::Value>(&request)
        .ok()
        .and_then(|v| v.get("available").and_then(serde_json::Value::as_bool));
    match wanted {
        Some(available) => {
            state.settings.storage.set_available(available);
            body(available)
        }
        None => (
            StatusCode::BAD_REQUEST,
            "expected a JSON body {\"available\": true|false}\n",
        )
            .into_response(),
    }
}

fn body(available: bool) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::json!({ "available": available }).to_string(),
    )
        .into_response()
}
