//! The fleet page's and the cluster switcher's server functions.
//!
//! Why here and thin: the fleet is put together from each watched cluster's read model
//! (`windows::Windows::fleet_part`, the pure `domain::fleet`), filtered as the matrix filters
//! (`views::fleet`); this only walks the clusters the server provides.

use super::codec::JsonText;
use super::DashboardError;
use crate::views::fleet::FleetView;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// The clusters this dashboard shows, for the switcher in the top bar.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterNav {
    /// Every cluster's name, in the order given to `serve`.
    pub clusters: Vec<String>,
    /// The cluster the page's URL names (`/c/NAME`); None on the single-cluster URLs (they
    /// show the first) and on the fleet page.
    pub current: Option<String>,
    /// The page is the fleet page (all clusters), not one cluster's.
    #[serde(default)]
    pub fleet: bool,
}

/// The clusters and which one the request's page shows.
#[server(endpoint = "clusters", output = JsonText)]
pub async fn get_clusters() -> Result<ClusterNav, DashboardError> {
    let clusters = super::context::clusters()?;
    let parts = use_context::<http::request::Parts>();
    let current = parts
        .as_ref()
        .and_then(|parts| {
            parts
                .extensions
                .get::<crate::links::SelectedCluster>()
                .cloned()
        })
        .map(|selected| selected.0);
    // Read while the page renders (the App's resource), so the path is the page's.
    let fleet = parts.is_some_and(|p| p.uri.path() == crate::links::fleet(""));
    Ok(ClusterNav {
        clusters: clusters.iter().map(|c| c.name.clone()).collect(),
        current,
        fleet,
    })
}

/// The fleet page for the query string `query` (`ds=…&state=…`, as the page's URL has it;
/// garbage becomes notes, as on the matrix).
#[server(endpoint = "fleet_view", output = JsonText)]
pub async fn get_fleet(query: String) -> Result<FleetView, DashboardError> {
    if query.len() > super::MAX_QUERY_STRING {
        return Err(DashboardError::BadRequest {
            detail: format!(
                "fleet query string of {} bytes: at most {} are read",
                query.len(),
                super::MAX_QUERY_STRING
            ),
        });
    }
    let parsed = crate::windows::query::MatrixCut::parse(&query);
    let prometheus = use_context::<super::context::PrometheusFleet>();
    let summary = match &prometheus {
        Some(source) => {
            source
                .0
                .read()
                .await
                .map_err(|err| DashboardError::ClusterUnavailable {
                    detail: err.to_string(),
                })?
        }
        None => {
            let clusters = super::context::clusters()?;
            let parts = clusters
                .iter()
                .map(|c| c.windows.fleet_part(&c.name))
                .collect();
            crate::domain::fleet::assemble(parts)
        }
    };
    let total_daemonsets = summary.daemonsets.len();
    let query = parsed.cut.query;
    Ok(FleetView {
        summary: crate::views::fleet::filter(summary, &query),
        query,
        notes: parsed.notes,
        total_daemonsets,
        remote: prometheus.is_some(),
    })
}
