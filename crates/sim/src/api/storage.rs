//! The simulated API server's storage switch: while the storage is "unavailable" the server
//! behaves as kube-apiserver v1.37.2 does with etcd killed (measured): open watches stay open
//! and deliver no event and no error, only their bookmarks (kube-apiserver serves them from
//! its watch cache, whose bookmark timer keeps running); a read or write waits for the
//! storage up to the request timeout (60 s) and then gets 504 Timeout; `/readyz` fails its
//! `etcd` and `etcd-readiness` checks.
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
use std::time::Duration;

use super::ApiState;

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

    /// Waits for the storage like kube-apiserver's etcd client does: `Ok` once it is (or
    /// stays) available, else kube-apiserver's 504 after `timeout`.
    pub async fn wait(&self, timeout: Duration) -> Result<(), Response> {
        if self.is_available() {
            return Ok(());
        }
        match tokio::time::timeout(timeout, self.wait_available()).await {
            Ok(()) => Ok(()),
            Err(_) => Err(timed_out()),
        }
    }
}

/// kube-apiserver's `--request-timeout` default: a request waiting for etcd fails after it.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// What kube-apiserver v1.37.2 answers a list or get it could not serve in time without etcd,
/// byte for byte (its timeout filter writes a Status without kind and apiVersion).
pub fn timed_out() -> Response {
    let mut response = Response::new(axum::body::Body::from(
        r#"{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}"#,
    ));
    *response.status_mut() = StatusCode::GATEWAY_TIMEOUT;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
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
