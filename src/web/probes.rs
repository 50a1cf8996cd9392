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
/// its restart count and panic message, or the cause and since when). With several clusters:
/// 200 while at least one of them is ready (one cluster down must not take the dashboard of
/// the others out of its Service), with a line per cluster that is not; 503 when none is.
pub async fn readyz(State(state): State<AppState>) -> Response {
    if state.clusters.len() == 1 {
        return match not_ready(&state.first().live) {
            None => (StatusCode::OK, "ready\n").into_response(),
            Some(waiting) => (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("not ready\n{}\n", waiting.join("\n")),
            )
                .into_response(),
        };
    }
    let mut ready = 0;
    let mut lines = Vec::new();
    for cluster in state.clusters.iter() {
        match not_ready(&cluster.live) {
            None => ready += 1,
            Some(waiting) => lines.extend(
                waiting
                    .into_iter()
                    .map(|line| format!("cluster {}: {line}", cluster.name)),
            ),
        }
    }
    let status = if ready > 0 {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let head = format!("{ready} of {} clusters ready", state.clusters.len());
    (status, format!("{head}\n{}", lines.join("\n"))).into_response()
}

/// What keeps one cluster from being ready (None when it is).
fn not_ready(live: &crate::cluster::Live) -> Option<Vec<String>> {
    let unreadable = live.unreadable().map(|(cause, text, since)| {
        format!(
            "cluster unreadable ({}) since {} UTC: {text}",
            cause.label(),
            crate::text::format_utc_time(since)
        )
    });
    let down: Vec<String> = live
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
    if live.is_ready() && down.is_empty() && unreadable.is_none() {
        return None;
    }
    let mut waiting: Vec<String> = live
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
    Some(waiting)
}

/// Prometheus text exposition: the one cluster's series as they always were, or with several
/// clusters each cluster's series with a `cluster` label (`cluster::metrics::fleet`).
pub async fn metrics(State(state): State<AppState>) -> Response {
    for cluster in state.clusters.iter() {
        let (nodes, _, _) = cluster.live.read(|s| s.counts());
        cluster.live.metrics().set_nodes(nodes);
    }
    let encoded = if state.clusters.len() == 1 {
        state.first().live.metrics().encode()
    } else {
        state
            .clusters
            .iter()
            .map(|c| c.live.metrics().encode().map(|text| (c.name.clone(), text)))
            .collect::<Result<Vec<_>, _>>()
            .map(|parts| crate::cluster::metrics::fleet::join_labelled(&parts))
    };
    match encoded {
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
