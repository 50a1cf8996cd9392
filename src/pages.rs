//! One module per route; each owns its resources, Suspense and query parameters, and is
//! the only place that calls the server functions. Layer: imports `components`,
//! `live_client`, `server_fns` and `domain`; never `app` or `web`.
pub mod daemonset;
pub mod explainer;
pub mod failed;
pub mod fleet;
pub mod matrix;
pub mod node;
pub mod pod;
pub mod poll;
pub mod whatif;

use crate::domain::view::{EventRow, EventScope};
use crate::server_fns::{get_events, DashboardError};
use leptos::prelude::*;
use std::time::Duration;

/// How often an open page re-reads its events and a node's labels: a repeated Event or a
/// label no rule reads changes no cell, so no live delta brings it.
pub(crate) const POLL: Duration = Duration::from_secs(10);

/// The recent events of one page's object, re-read when `refresh` changes and every `POLL`.
pub fn events_resource(
    scope: EventScope,
    name: String,
    refresh: Signal<u64>,
) -> Resource<Result<Vec<EventRow>, DashboardError>> {
    let poll = poll::poll_tick(POLL);
    Resource::new(
        move || (name.clone(), refresh.get(), poll.get()),
        move |(name, _, _)| get_events(scope, name),
    )
}

/// On the server, marks the response 404 Not Found while the friendly "no such node /
/// DaemonSet" page is still rendered (issue 15: it answered 200, so scripts and link checkers
/// took a missing object for a page). In the browser there is no response to mark.
pub fn respond_not_found() {
    #[cfg(feature = "ssr")]
    if let Some(options) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
        options.set_status(axum::http::StatusCode::NOT_FOUND);
    }
}
