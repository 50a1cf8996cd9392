//! The recent events of a DaemonSet's, a node's or a daemon pod's page.
//!
//! Why a server function of its own: events are optional data kept apart from the matrix
//! (`cluster::events`), read when the page loads, again when the page's live signal says the
//! object changed, and on a timer in the browser: a crash-looping pod's repeated BackOff
//! changes no cell, so no live delta would bring it.

use super::codec::JsonText;
use super::error::DashboardError;
use crate::domain::view::{EventRow, EventScope};
use leptos::prelude::*;

/// The newest events of one page, newest first: `scope` says whether `name` is a DaemonSet
/// (`namespace/name`), a node or a pod (`namespace/name`). An object with no events (or not
/// known) has an empty list.
#[server(endpoint = "events", output = JsonText)]
pub async fn get_events(scope: EventScope, name: String) -> Result<Vec<EventRow>, DashboardError> {
    use crate::cluster::events::Page;
    if name.is_empty() {
        return Err(DashboardError::BadRequest {
            detail: "events of an object without a name".to_string(),
        });
    }
    let live = super::context::live()?;
    let page = match scope {
        EventScope::DaemonSet => Page::DaemonSet(name),
        EventScope::Node => Page::Node(name),
        EventScope::Pod => {
            return match name.split_once('/') {
                Some((ns, pod)) if !ns.is_empty() && !pod.is_empty() => {
                    Ok(live.pod_events(ns, pod))
                }
                _ => Err(DashboardError::BadRequest {
                    detail: format!("pod {name:?} is not namespace/name"),
                }),
            };
        }
    };
    Ok(live.events_of(&page))
}
