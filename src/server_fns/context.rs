//! What the server functions need from the server: the live cluster state.
//!
//! Why here, below the server functions: `web` builds this and provides it to every request
//! (`leptos_routes_with_context`), so the server functions never name `web` and the UI
//! modules form no cycle (`web` -> `app` -> `pages` -> `server_fns` stops here).

use super::error::DashboardError;
use crate::cluster::{Live, ReadError, Reader};
use crate::windows::Windows;
use leptos::prelude::use_context;
use std::sync::Arc;

/// The request context of the server functions and the server-side render.
#[derive(Clone, Debug)]
pub struct ServerContext {
    /// The watched cluster.
    pub live: Arc<Live>,
    /// On-demand reads (a pod in full, revision templates); None where no API server is
    /// behind the state (unit tests that fill the store by hand).
    pub reader: Option<Reader>,
    /// Every page's view, cut from the read model ([`crate::windows`]).
    pub windows: Arc<Windows>,
}

impl ServerContext {
    /// The context for a server showing `live` through `windows`.
    pub fn new(live: Arc<Live>, reader: Option<Reader>, windows: Arc<Windows>) -> Self {
        Self {
            live,
            reader,
            windows,
        }
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

/// The windows, for cutting a page's view.
pub(crate) fn windows() -> Result<Arc<Windows>, DashboardError> {
    use_context::<ServerContext>()
        .map(|ctx| ctx.windows)
        .ok_or_else(|| DashboardError::ClusterUnavailable {
            detail: "the dashboard's cluster state is not available".to_string(),
        })
}

/// The on-demand reader from the request context; without one, the objects it would read are
/// unavailable (the page says so rather than showing nothing). While the cluster cannot be
/// read (the API server lost its storage, is unreachable, a watch went quiet) a read would
/// only wait for kube-apiserver's 60 s timeout and kube-client's retries, minutes in all, so
/// the page says why at once instead (issue 26).
pub(crate) fn reader() -> Result<Reader, DashboardError> {
    let ctx = use_context::<ServerContext>().ok_or_else(|| DashboardError::ClusterUnavailable {
        detail: "the dashboard's cluster state is not available".to_string(),
    })?;
    if let Some((_, cause, _)) = ctx.live.unreadable() {
        return Err(DashboardError::ClusterUnavailable { detail: cause });
    }
    ctx.reader
        .ok_or_else(|| DashboardError::ClusterUnavailable {
            detail: "this dashboard reads no single objects from an API server".to_string(),
        })
}

/// An on-demand read's failure, as the browser should hear it: a refused read names what may
/// not be read; a missing object becomes `not_found` (the caller knows its kind, for the 404).
pub(crate) fn read_failed(err: ReadError, not_found: DashboardError) -> DashboardError {
    match err {
        ReadError::NotFound { .. } => not_found,
        ReadError::Forbidden { what, detail } => DashboardError::Forbidden {
            resource: what,
            detail,
        },
        unavailable @ ReadError::Unavailable { .. } => DashboardError::ClusterUnavailable {
            detail: unavailable.to_string(),
        },
    }
}
