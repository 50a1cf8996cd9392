//! One module per route; each owns its resources, Suspense and query parameters.
pub mod daemonset;
pub mod explainer;
pub mod matrix;
pub mod node;

/// On the server, marks the response 404 Not Found while the friendly "no such node /
/// DaemonSet" page is still rendered (issue 15: it answered 200, so scripts and link checkers
/// took a missing object for a page). In the browser there is no response to mark.
pub fn respond_not_found() {
    #[cfg(feature = "ssr")]
    if let Some(options) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
        options.set_status(axum::http::StatusCode::NOT_FOUND);
    }
}
