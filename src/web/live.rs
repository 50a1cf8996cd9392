//! `/api/live`: the whole matrix as Server-Sent Events, for tools (the pages follow their own
//! views on `/api/view`).
//!
//! The first message is a `LiveMessage::Snapshot` (or, with `Last-Event-ID` / `?since=`, the
//! deltas missed since then while the ring still has them), then one `LiveMessage::Deltas` per
//! version with `id:` = version. A client that falls behind its bounded queue gets a fresh
//! snapshot instead of blocking anyone (docs/architecture.md#slow-clients-never-block).

use crate::cluster::feed::FeedItem;
use crate::cluster::live::Start;
use crate::cluster::Live;
use crate::domain::view::LiveMessage;
use crate::web::select::Selected;
use axum::extract::rejection::QueryRejection;
use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;

/// Query parameters of `/api/live`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveQuery {
    /// Resume after this version (same as the `Last-Event-ID` header).
    pub since: Option<u64>,
}

/// Decrements the live-client gauge when the stream is dropped (the browser went away).
struct ClientGuard(Arc<Live>);

impl Drop for ClientGuard {
    fn drop(&mut self) {
        self.0.metrics().client_delta(-1);
    }
}

fn bad_request(message: String) -> Response {
    (StatusCode::BAD_REQUEST, format!("{message}\n")).into_response()
}

/// One SSE event carrying `message` with `id:` = `version`; `None` if it cannot be encoded.
fn event(version: u64, message: &LiveMessage) -> Option<Event> {
    match serde_json::to_string(message) {
        Ok(json) => Some(Event::default().id(version.to_string()).data(json)),
        Err(err) => {
            tracing::error!(error = %err, version, "cannot encode a live message");
            None
        }
    }
}

/// The event for one feed item.
fn item_event(item: &FeedItem, live: &Live) -> (u64, Option<Event>) {
    match item {
        FeedItem::Deltas { version, deltas } => (
            *version,
            event(
                *version,
                &LiveMessage::Deltas {
                    version: *version,
                    deltas: deltas.as_ref().clone(),
                },
            ),
        ),
        FeedItem::Reset { .. } => snapshot_event(live),
    }
}

fn snapshot_event(live: &Live) -> (u64, Option<Event>) {
    let snapshot = live.snapshot();
    let version = snapshot.version;
    (version, event(version, &LiveMessage::Snapshot(snapshot)))
}

/// The event stream of one client.
fn stream(
    live: Arc<Live>,
    last_event_id: Option<u64>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let (start, version, mut rx) = live.subscribe(last_event_id);
    live.metrics().client_delta(1);
    let guard = ClientGuard(live.clone());
    async_stream::stream! {
        let _guard = guard;
        let mut last = version;
        match start {
            Start::Snapshot(snapshot) => {
                if let Some(e) = event(version, &LiveMessage::Snapshot(*snapshot)) {
                    yield Ok(e);
                }
            }
            Start::Resume(items) => {
                for item in &items {
                    let (v, e) = item_event(item, &live);
                    last = last.max(v);
                    if let Some(e) = e {
                        yield Ok(e);
                    }
                }
            }
        }
        loop {
            let (v, e) = match rx.recv().await {
                Ok(item) if item.version() <= last => continue,
                Ok(item) => item_event(&item, &live),
                Err(RecvError::Lagged(missed)) => {
                    tracing::info!(missed, "live client fell behind, sending a fresh snapshot");
                    live.metrics().resnapshotted("lagged");
                    snapshot_event(&live)
                }
                Err(RecvError::Closed) => break,
            };
            last = last.max(v);
            if let Some(e) = e {
                yield Ok(e);
            }
        }
    }
}

/// `GET /api/live`.
pub async fn live_feed(
    Selected(state): Selected,
    headers: HeaderMap,
    query: Result<Query<LiveQuery>, QueryRejection>,
) -> Response {
    let query = match query {
        Ok(Query(q)) => q,
        Err(rejection) => {
            return bad_request(format!(
                "invalid query string for /api/live ({}); the one parameter is since=<version>; a page's view is /api/view",
                rejection.body_text()
            ))
        }
    };
    let header_id = match headers.get("last-event-id") {
        None => None,
        Some(value) => match crate::domain::resume::parse_last_event_id(value.as_bytes()) {
            Ok(id) => Some(id),
            Err(err) => return bad_request(err.to_string()),
        },
    };
    let last_event_id = header_id.or(query.since);
    Sse::new(stream(state.live.clone(), last_event_id))
        .keep_alive(KeepAlive::default())
        .into_response()
}
