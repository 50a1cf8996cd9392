//! `/api/view?<matrix query>`: one browser's matrix window as Server-Sent Events.
//!
//! The first message is the whole window (`ViewMessage::Window`), then one `Patch` whenever
//! the window changed: rows that entered or changed, the new row order, changed column
//! summaries, group headers and figures. The query string is the matrix page's own
//! (`problems=1&group=…&page=2`), parsed by the same code, so the server cuts exactly the
//! window the page shows. A reconnect starts again with a whole window (50 rows is cheaper
//! than keeping a per-client history).
//!
//! Why not `/api/live`: that sends the whole matrix, megabytes at 5,000 nodes, and every change
//! in it; a browser shows 50 rows. Changes are coalesced ([`COALESCE`]) so a rollout's burst
//! of versions costs one cut per browser, not one per version, while the first change after a
//! quiet period is cut at once ([`wait_before_cut`]).

use crate::cluster::Live;
use crate::server_fns::views::{parse_query_string, MatrixCache};
use crate::server_fns::MAX_QUERY_STRING;
use crate::views::matrix::patch::{diff, ViewMessage};
use crate::views::matrix::query::MatrixQuery;
use crate::web::AppState;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The shortest time between two cuts of one view, so a burst of versions is a few patches a
/// second rather than one per version. Short enough that a burst still moves within a blink.
pub const COALESCE: Duration = Duration::from_millis(200);

/// How long to wait before cutting a view again after a change, given when it was last cut:
/// nothing after a quiet period (the leading edge: a single `kubectl taint` repaints in the
/// time the cut takes), else until [`COALESCE`] has passed since the last cut (the trailing
/// edge: the rest of a burst is one patch at most every `COALESCE`).
pub fn wait_before_cut(last_cut: Instant, now: Instant) -> Duration {
    (last_cut + COALESCE).saturating_duration_since(now)
}

/// Decrements the live-client gauge when the stream is dropped (the browser went away).
struct ClientGuard(Arc<Live>);

impl Drop for ClientGuard {
    fn drop(&mut self) {
        self.0.metrics().client_delta(-1);
    }
}

fn event(message: &ViewMessage) -> Option<Event> {
    match serde_json::to_string(message) {
        Ok(json) => Some(
            Event::default()
                .id(message.version().to_string())
                .data(json),
        ),
        Err(err) => {
            tracing::error!(error = %err, "cannot encode a view message");
            None
        }
    }
}

/// The event stream of one browser's window.
fn stream(
    live: Arc<Live>,
    views: Arc<MatrixCache>,
    query: MatrixQuery,
) -> impl Stream<Item = Result<Event, Infallible>> {
    live.metrics().client_delta(1);
    let guard = ClientGuard(live.clone());
    async_stream::stream! {
        let _guard = guard;
        let mut changes = views.changes();
        changes.mark_unchanged();
        let mut shown = views.window(&live, &query);
        let mut last_cut = Instant::now();
        if let Some(e) = event(&ViewMessage::Window(shown.clone())) {
            yield Ok(e);
        }
        while changes.changed().await.is_ok() {
            let wait = wait_before_cut(last_cut, Instant::now());
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
            changes.mark_unchanged();
            last_cut = Instant::now();
            let next = views.window(&live, &query);
            if let Some(message) = diff(&shown, &next) {
                if let Some(e) = event(&message) {
                    yield Ok(e);
                }
            }
            shown = next;
        }
    }
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
    let query = parse_query_string(&raw).query;
    Sse::new(stream(state.live.clone(), state.views.clone(), query))
        .keep_alive(KeepAlive::default())
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_change_after_a_quiet_period_is_cut_at_once() {
        let now = Instant::now();
        let long_ago = now - COALESCE - Duration::from_millis(1);
        assert_eq!(wait_before_cut(long_ago, now), Duration::ZERO);
        assert_eq!(wait_before_cut(now - COALESCE, now), Duration::ZERO);
    }

    #[test]
    fn a_change_within_the_window_waits_until_the_window_has_passed_since_the_last_cut() {
        let now = Instant::now();
        let cut = now - Duration::from_millis(50);
        assert_eq!(
            wait_before_cut(cut, now),
            COALESCE - Duration::from_millis(50)
        );
        assert_eq!(wait_before_cut(now, now), COALESCE);
    }
}
