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
use crate::web::AppState;
use crate::windows::query::MatrixCut;
use crate::windows::{stream, Windows};
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
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

/// The SSE response of one browser's view, `cut` from `windows` after every change.
pub(crate) fn respond<V, C>(windows: Arc<Windows>, cut: C) -> Response
where
    V: PageView + Send + 'static,
    C: Fn(&Windows) -> Option<V> + Send + 'static,
{
    let live = windows.live().clone();
    live.metrics().client_delta(1);
    let guard = ClientGuard(live);
    let events = stream::follow(windows, cut).filter_map(move |message| {
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

/// `GET /api/view/node/{name}`: the node page's view.
pub async fn node_view(State(state): State<AppState>, Path(name): Path<String>) -> Response {
    if name.is_empty() || name.len() > 253 {
        return bad_request(format!("{name:?} is not a node name"));
    }
    respond(state.windows.clone(), move |windows| windows.node(&name))
}

/// `GET /api/view/ds/{namespace}/{name}`: the DaemonSet page's view.
pub async fn daemonset_view(
    State(state): State<AppState>,
    Path((namespace, name)): Path<(String, String)>,
) -> Response {
    let key = format!("{namespace}/{name}");
    if let Err(err) = crate::server_fns::check_daemonset_key(&key) {
        return bad_request(err.to_string());
    }
    respond(state.windows.clone(), move |windows| {
        windows.daemonset(&key).ok()
    })
}

fn bad_request(message: String) -> Response {
    (StatusCode::BAD_REQUEST, format!("{message}\n")).into_response()
}

/// `GET /api/view?<matrix query>`.
pub async fn view_feed(State(state): State<AppState>, RawQuery(raw): RawQuery) -> Response {
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
    respond(state.windows.clone(), move |windows| {
        Some(windows.matrix(&cut))
    })
}
