//! `/healthz`, `/readyz` and `/metrics`.
//!
//! Why separate probes: `/healthz` says the process serves requests (restart it if not);
//! `/readyz` says every watcher finished its first list, so the page would not show a
//! half-listed cluster as if it were complete, and that the cluster can be read now: while
//! the API server is unreachable, has lost its storage, or a watch went quiet, a load
//! balancer should send people to a replica that can read it (503 with the cause). `/metrics` encodes values kept current on
//! write (cheap at 150,000 pods).

use crate::web::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// Process liveness: always 200 while the server answers.
pub async fn healthz() -> &'static str {
    "ok\n"
}

/// Readiness: 200 once every watcher has synced, no background task is down after a panic
/// and the cluster can be read now, else 503 with what is missing, down or unreadable (with
/// its restart count and panic message, or the cause and since when).
pub async fn readyz(State(state): State<AppState>) -> Response {
    let unreadable = state.live.unreadable().map(|(cause, text, since)| {
        format!(
            "cluster unreadable ({}) since {} UTC: {text}",
            cause.label(),
            crate::text::format_utc_time(since)
        )
    });
    let down: Vec<String> = state
        .live
        .tasks()
        .report()
        .into_iter()
        .filter(|(_, h)| !h.running && !h.finished)
        .map(|(name, h)| {
            format!(
                "{name}: task panicked, restarting (restarts so far {}): {}",
                h.restarts,
                h.last_panic.as_deref().unwrap_or("no message")
            )
        })
        .collect();
    if state.live.is_ready() && down.is_empty() && unreadable.is_none() {
        return (StatusCode::OK, "ready\n").into_response();
    }
    let mut waiting: Vec<String> = state
        .live
        .read(|s| s.health())
        .into_iter()
        .filter(|h| !h.synced)
        .map(|h| match h.error {
            Some(err) => format!("{}: {err}", h.resource),
            None => format!("{}: listing", h.resource),
        })
        .collect();
    waiting.extend(down);
    waiting.extend(unreadable);
    (
        StatusCode::SERVICE_UNAVAILABLE,
        format!("not ready\n{}\n", waiting.join("\n")),
    )
        .into_response()
}

/// Prometheus text exposition.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let (nodes, _, _) = state.live.read(|s| s.counts());
    state.live.metrics().set_nodes(nodes);
    match state.live.metrics().encode() {
        Ok(text) => (
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(err) => {
            tracing::error!(error = %err, "cannot encode metrics");
            (StatusCode::INTERNAL_SERVER_ERROR, "cannot encode metrics\n").into_response()
        }
    }
}
