//! What a page shows when its object cannot be loaded, one look per [`DashboardError`]: a
//! missing object answers 404 with the friendly page; refused, unavailable and malformed
//! requests stay 200 with their own text and a `data-error` attribute naming the kind.
//!
//! Why apart: the DaemonSet page's view is long; this is the part tests and people tell apart.

use crate::components::banner::TopBar;
use crate::live_client::LiveHub;
use crate::server_fns::DashboardError;
use leptos::either::Either;
use leptos::prelude::*;

/// The failure page of an object named by `namespace/name` (a DaemonSet, a pod): a missing
/// one answers 404 with `missing` as its text; refused, unavailable and malformed requests stay
/// 200 and say which. `kind` reads "DaemonSet" or "pod"; `testid` prefixes the test ids.
fn keyed_failure(
    kind: &'static str,
    testid: &'static str,
    missing: &'static str,
    key: String,
    error: DashboardError,
    hub: LiveHub,
) -> impl IntoView {
    let cluster =
        Signal::derive(move || hub.cluster.get().unwrap_or_else(|| "cluster".to_string()));
    let body = if error.is_not_found() {
        super::respond_not_found();
        Either::Left(view! {
            <p class="not-found" data-testid=format!("{testid}-not-found") data-error="not-found">
                {format!("No {kind} ")}<code>{key}</code>{missing}
                <a href=crate::links::matrix()>"Back to the matrix"</a>
            </p>
        })
    } else {
        let lead = match &error {
            DashboardError::Forbidden { .. } => format!("Not allowed to show {kind} "),
            DashboardError::ClusterUnavailable { .. } => {
                format!("The cluster is not available to show {kind} ")
            }
            _ => format!("Cannot show {kind} "),
        };
        Either::Right(view! {
            <p class="not-found" data-testid=format!("{testid}-error") data-error=error.code()>
                {lead}<code>{key}</code>": "{error.to_string()}" "
                <a href=crate::links::matrix()>"Back to the matrix"</a>
            </p>
        })
    };
    view! {
        <TopBar cluster=cluster conn=hub.conn/>
        <div class="content">{body}</div>
    }
}

/// Why the DaemonSet cannot be shown: a missing one answers 404 with the friendly page;
/// refused, unavailable and malformed requests stay 200 with their own text, as the node
/// page's load errors do.
#[component]
pub fn DaemonSetFailed(key: String, error: DashboardError, hub: LiveHub) -> impl IntoView {
    keyed_failure("DaemonSet", "ds", " in this cluster. ", key, error, hub)
}

/// Why the node cannot be shown: a missing one answers 404 with the friendly page; a refused
/// or unlisted node list, or an unreachable server, shows a banner saying which.
#[component]
pub fn NodeFailed(name: String, error: DashboardError, hub: LiveHub) -> impl IntoView {
    if error.is_not_found() {
        super::respond_not_found();
        return Either::Left(view! {
            <TopBar cluster="cluster" conn=hub.conn/>
            <div class="content">
                <p class="not-found" data-testid="node-not-found" data-error="not-found">
                    "No node "<code>{name}</code>" in this cluster. "<a href=crate::links::matrix()>"Back to the matrix"</a>
                </p>
            </div>
        });
    }
    let lead = match &error {
        DashboardError::Forbidden { .. } => "Not allowed to show the node: ",
        DashboardError::ClusterUnavailable { .. } => {
            "The cluster is not available to show the node: "
        }
        _ => "Cannot load the node: ",
    };
    Either::Right(view! {
        <TopBar cluster="unknown cluster" conn=hub.conn/>
        <div class="banner" role="alert" data-testid="node-error" data-error=error.code()>
            {lead}{error.to_string()}
        </div>
    })
}

/// Why the pod cannot be shown: a missing one (deleted, or never there) answers 404 with the
/// friendly page; a refused read or an unreachable API server says which.
#[component]
pub fn PodFailed(key: String, error: DashboardError, hub: LiveHub) -> impl IntoView {
    keyed_failure(
        "pod",
        "pod",
        " in this cluster (it may have been replaced). ",
        key,
        error,
        hub,
    )
}
