//! What the server functions need from the server: the live cluster state.
//!
//! Why here, below the server functions: `web` builds this and provides it to every request
//! (`leptos_routes_with_context`), so the server functions never name `web` and the UI
//! modules form no cycle (`web` -> `app` -> `pages` -> `server_fns` stops here).

use super::error::DashboardError;
use crate::cluster::Live;
use leptos::prelude::use_context;
use std::sync::Arc;

/// The request context of the server functions and the server-side render.
#[derive(Clone, Debug)]
pub struct ServerContext {
    /// The watched cluster.
    pub live: Arc<Live>,
}

impl ServerContext {
    /// The context for a server showing `live`.
    pub fn new(live: Arc<Live>) -> Self {
        Self { live }
    }
}

/// The live state from the request context; without one (a render outside the server's
/// router) the cluster is unavailable.
pub(crate) fn live() -> Result<Arc<Live>, DashboardError> {
    use_context::<ServerContext>()
        .map(|ctx| ctx.live)
        .ok_or_else(|| DashboardError::ClusterUnavailable {
            detail: "the dashboard's cluster state is not available".to_string(),
        })
}
