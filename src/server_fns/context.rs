//! What the server functions need from the server: the live cluster state.
//!
//! Why here, below the server functions: `web` builds this and provides it to every request
//! (`leptos_routes_with_context`), so the server functions never name `web` and the UI
//! modules form no cycle (`web` -> `app` -> `pages` -> `server_fns` stops here).

use super::error::DashboardError;
use crate::cluster::{Live, ReadError, Reader};
use crate::links::SelectedCluster;
use crate::windows::Windows;
use leptos::prelude::use_context;
use std::sync::Arc;

/// One cluster as the server functions and the server-side render see it.
#[derive(Clone, Debug)]
pub struct ServerContext {
    /// The cluster's name in URLs (`/c/NAME/...`) and on the fleet page: the kubeconfig
    /// context, or `demo` for the embedded cluster.
    pub name: String,
    /// The watched cluster.
    pub live: Arc<Live>,
    /// On-demand reads (a pod in full, revision templates); None where no API server is
    /// behind the state (unit tests that fill the store by hand, a cluster that could not be
    /// connected to).
    pub reader: Option<Reader>,
    /// Every page's view, cut from the read model ([`crate::windows`]).
    pub windows: Arc<Windows>,
}

impl ServerContext {
    /// The context for a cluster `name` showing `live` through `windows`.
    pub fn new(
        name: impl Into<String>,
        live: Arc<Live>,
        reader: Option<Reader>,
        windows: Arc<Windows>,
    ) -> Self {
        Self {
            name: name.into(),
            live,
            reader,
            windows,
        }
    }
}

/// Every cluster the process watches, in the order they were given; never empty. Why one
/// list and not a single cluster: `serve --context a --context b` watches each cluster on its
/// own (issue 25), and a request names its cluster in its URL (`/c/NAME/...`); a request
/// without one means the first.
#[derive(Clone, Debug)]
pub struct Clusters(Arc<Vec<ServerContext>>);

impl Clusters {
    /// The clusters in order; `None` when there is none (a server needs at least one).
    pub fn new(clusters: Vec<ServerContext>) -> Option<Self> {
        (!clusters.is_empty()).then(|| Self(Arc::new(clusters)))
    }

    /// A fleet of one.
    pub fn one(cluster: ServerContext) -> Self {
        Self(Arc::new(vec![cluster]))
    }

    /// The first cluster: what the URLs without `/c/NAME` show.
    pub fn first(&self) -> &ServerContext {
        // `new` refuses an empty list and `one` has one.
        &self.0[0]
    }

    /// The cluster named `name`, if watched.
    pub fn get(&self, name: &str) -> Option<&ServerContext> {
        self.0.iter().find(|c| c.name == name)
    }

    /// The cluster a request selected (its `/c/NAME`), else the first.
    pub fn selected(&self, selected: Option<&SelectedCluster>) -> Option<&ServerContext> {
        match selected {
            Some(SelectedCluster(name)) => self.get(name),
            None => Some(self.first()),
        }
    }

    /// Every cluster, in order.
    pub fn iter(&self) -> impl Iterator<Item = &ServerContext> {
        self.0.iter()
    }

    /// How many clusters.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Never true (kept for clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn unavailable() -> DashboardError {
    DashboardError::ClusterUnavailable {
        detail: "the dashboard's cluster state is not available".to_string(),
    }
}

/// The cluster this request is about: the one its URL names (`/c/NAME/...`, noted on the
/// request by the server), else the first.
pub(crate) fn current() -> Result<ServerContext, DashboardError> {
    let clusters = use_context::<Clusters>().ok_or_else(unavailable)?;
    let selected = use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<SelectedCluster>().cloned());
    clusters
        .selected(selected.as_ref())
        .cloned()
        .ok_or_else(|| DashboardError::ClusterUnavailable {
            detail: format!(
                "this dashboard watches no cluster named {:?}",
                selected.map(|s| s.0).unwrap_or_default()
            ),
        })
}

/// Every cluster, for the fleet page.
pub(crate) fn clusters() -> Result<Clusters, DashboardError> {
    use_context::<Clusters>().ok_or_else(unavailable)
}

/// The live state of the request's cluster; without one (a render outside the server's
/// router) the cluster is unavailable.
pub(crate) fn live() -> Result<Arc<Live>, DashboardError> {
    current().map(|ctx| ctx.live)
}

/// The windows of the request's cluster, for cutting a page's view.
pub(crate) fn windows() -> Result<Arc<Windows>, DashboardError> {
    current().map(|ctx| ctx.windows)
}

/// The on-demand reader of the request's cluster; without one, the objects it would read are
/// unavailable (the page says so rather than showing nothing). While the cluster cannot be
/// read (the API server lost its storage, is unreachable, a watch went quiet) a read would
/// only wait for kube-apiserver's 60 s timeout and kube-client's retries, minutes in all, so
/// the page says why at once instead (issue 26).
pub(crate) fn reader() -> Result<Reader, DashboardError> {
    let ctx = current()?;
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

/// The fleet's Prometheus source (`serve --fleet-prometheus`), provided beside [`Clusters`]
/// when it is set: the fleet page then shows the clusters Prometheus has, not the ones this
/// process watches.
#[derive(Clone, Debug)]
pub struct PrometheusFleet(pub Arc<crate::fleet_prometheus::FleetSource>);
