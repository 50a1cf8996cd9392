//! `/api/view?<matrix query>`, `/api/view/node/{name}`, `/api/view/ds/{namespace}/{name}`:
//! one browser's view (the matrix window, the node page, the DaemonSet page) as Server-Sent
//! Events.
//!
//! The first message is the whole view, then one patch whenever what it shows changed; `id:`
//! is the version the view is at. The windows room cuts and diffs ([`crate::windows`]); this
//! only reads the request and frames the messages. The matrix's query string is the page's
//! own (`problems=1&group=…&page=2`), parsed by the same code, so the server cuts exactly the
//! window the page shows.
//!
//! Why not `/api/live`: that sends the whole matrix, megabytes at 5,000 nodes, and every change
//! in it; a browser shows 50 rows.

use crate::cluster::Live;
use crate::server_fns::MAX_QUERY_STRING;
use crate::views::page::PageView;
use crate::web::select::Selected;
use crate::windows::query::MatrixCut;
use crate::windows::{stream, Windows};
use axum::extract::{Path, RawQuery};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use std::convert::Infallible;
use std::sync::Arc;

/// Decrements the live-client gauge when the stream is dropped (the browser went away).
struct ClientGuard(Arc<Live>);

impl Drop for ClientGuard {
    fn drop(&mut self) {
        self.0.metrics().client_delta(-1);
    }
}

fn event<V: PageView>(message: &V::Message) -> Option<Event> {
    match serde_json::to_string(message) {
        Ok(json) => Some(
            Event::default()
                .id(V::message_version(message).to_string())
                .data(json),
        ),
        Err(err) => {
            tracing::error!(error = %err, "cannot encode a view message");
            None
        }
    }
}

/// The version of the view the browser holds: its last message's (`Last-Event-ID`, sent by the
/// browser when it reconnects), else the one its page was rendered with (`since=`). Anything
/// unreadable counts as nothing held: the feed then starts with the whole view.
fn held_version(headers: &HeaderMap, raw_query: &str) -> Option<u64> {
    let header = headers
        .get("last-event-id")
        .and_then(|v| crate::domain::resume::parse_last_event_id(v.as_bytes()).ok());
    header.or_else(|| {
        form_urlencoded::parse(raw_query.as_bytes())
            .find(|(k, _)| k == "since")
            .and_then(|(_, v)| v.parse().ok())
    })
}

/// The SSE response of one browser's view, `cut` from `windows` after every change, starting
/// from `base` (the view it holds) when known.
pub(crate) fn respond<V, C>(windows: Arc<Windows>, base: Option<Arc<V>>, cut: C) -> Response
where
    V: PageView + Send + Sync + 'static,
    C: Fn(&Windows) -> Option<V> + Send + 'static,
{
    let live = windows.live().clone();
    live.metrics().client_delta(1);
    let guard = ClientGuard(live);
    let events = stream::follow(windows, base, cut).filter_map(move |message| {
        let _keep = &guard;
        futures::future::ready(event::<V>(&message).map(Ok::<_, Infallible>))
    });
    sse(events)
}

fn sse(events: impl Stream<Item = Result<Event, Infallible>> + Send + 'static) -> Response {
    Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// `GET /api/view/node/{name}[?since=<version>]`: the node page's view.
pub async fn node_view(
    Selected(state): Selected,
    Path(name): Path<String>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    if name.is_empty() || name.len() > 253 {
        return bad_request(format!("{name:?} is not a node name"));
    }
    let base = held_version(&headers, raw.as_deref().unwrap_or_default())
        .and_then(|v| state.windows.node_at(&name, v));
    respond(state.windows.clone(), base, move |windows: &Windows| {
        windows.node(&name)
    })
}

/// `GET /api/view/ds/{namespace}/{name}[?since=<version>]`: the DaemonSet page's view.
pub async fn daemonset_view(
    Selected(state): Selected,
    Path((namespace, name)): Path<(String, String)>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let key = format!("{namespace}/{name}");
    if let Err(err) = crate::server_fns::check_daemonset_key(&key) {
        return bad_request(err.to_string());
    }
    let base = held_version(&headers, raw.as_deref().unwrap_or_default())
        .and_then(|v| state.windows.daemonset_at(&key, v));
    respond(state.windows.clone(), base, move |windows: &Windows| {
        windows.daemonset(&key).ok()
    })
}

fn bad_request(message: String) -> Response {
    (StatusCode::BAD_REQUEST, format!("{message}\n")).into_response()
}

/// `GET /api/view?<matrix query>[&since=<version>]`.
pub async fn view_feed(
    Selected(state): Selected,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let raw = raw.unwrap_or_default();
    if raw.len() > MAX_QUERY_STRING {
        return (
            StatusCode::BAD_REQUEST,
            format!(
                "query string of {} bytes for /api/view: at most {MAX_QUERY_STRING} are read\n",
                raw.len()
            ),
        )
            .into_response();
    }
    // Bad parameters become defaults, as on the page (which shows the notes): the same
    // string must cut the same window in both places.
    let cut = MatrixCut::parse(&raw).cut;
    let base = held_version(&headers, &raw).and_then(|v| state.windows.matrix_at(&cut, v));
    respond(state.windows.clone(), base, move |windows: &Windows| {
        Some(windows.matrix(&cut))
    })
}
