//! `/api/view?<matrix query>`: one browser's view as Server-Sent Events.
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
use axum::extract::{RawQuery, State};
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
