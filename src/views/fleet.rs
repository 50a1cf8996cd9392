//! The fleet page's view (`/fleet`): every cluster's line and, per DaemonSet across the
//! clusters, where it has problems, filtered as the matrix filters (`ds=`, `state=`).
//!
//! Why the page gets a [`FleetSummary`] and nothing else: the summary can come from the
//! clusters this process watches or from Prometheus (`serve --fleet-prometheus`), and the page
//! must not care which. The filter runs where the summary is made, so a large fleet sends only
//! the rows asked for.

use crate::domain::fleet::{FleetDaemonSet, FleetSummary};
use crate::views::matrix::query::MatrixQuery;
use serde::{Deserialize, Serialize};

/// What the fleet page shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetView {
    /// The clusters (all of them) and the DaemonSets that pass the filter.
    pub summary: FleetSummary,
    /// The filter used (its `ds=` and `state=`), for the form and the links.
    pub query: MatrixQuery,
    /// What was ignored in the query string, one sentence each.
    pub notes: Vec<String>,
    /// DaemonSets across the fleet before the filter.
    pub total_daemonsets: usize,
    /// The summary came from Prometheus (`--fleet-prometheus`): each cluster's matrix is its
    /// own daemonscope (`FleetCluster::link`), not this process's `/c/NAME`.
    #[serde(default)]
    pub remote: bool,
}

/// Where the fleet page links a cluster's matrix. Why a type: in process every cluster is
/// `/c/NAME` here; from Prometheus a cluster is served by its own daemonscope, whose address
/// only the link template knows, and a cluster without one gets no link rather than a link
/// into this process that would not find it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterLinks {
    remote: bool,
    bases: std::collections::BTreeMap<String, Option<String>>,
}

impl ClusterLinks {
    /// The links of `view`'s clusters.
    pub fn of(view: &FleetView) -> Self {
        ClusterLinks {
            remote: view.remote,
            bases: view
                .summary
                .clusters
                .iter()
                .map(|c| (c.name.clone(), c.link.clone()))
                .collect(),
        }
    }

    /// `cluster`'s matrix with `query` (a query string without `?`, or empty); None when the
    /// fleet is remote and the cluster has no link.
    pub fn matrix(&self, cluster: &str, query: &str) -> Option<String> {
        if !self.remote {
            return Some(crate::links::cluster_matrix(cluster, query));
        }
        let base = self.bases.get(cluster)?.as_deref()?.trim_end_matches('/');
        Some(if query.is_empty() {
            format!("{base}/")
        } else {
            format!("{base}/?{query}")
        })
    }
}

/// Keeps the DaemonSets whose `namespace/name` passes `ds=`, and of each only the clusters
/// where it has a cell in `state=` (when given) or a problem (`FleetPlacement::has_problem`,
/// when not); a DaemonSet left with no cluster is dropped. The clusters' lines stay whole.
pub fn filter(summary: FleetSummary, query: &MatrixQuery) -> FleetSummary {
    let daemonsets = summary
        .daemonsets
        .into_iter()
        .filter(|d| query.shows_daemonset(&format!("{}/{}", d.namespace, d.name)))
        .filter_map(|d| {
            let placements: Vec<_> = d
                .placements
                .into_iter()
                .filter(|p| match query.state {
                    Some(state) => p.counts.get(state) > 0,
                    None => p.has_problem(),
                })
                .collect();
            (!placements.is_empty()).then_some(FleetDaemonSet { placements, ..d })
        })
        .collect();
    FleetSummary {
        clusters: summary.clusters,
        daemonsets,
    }
}

/// The query string of a cluster's matrix filtered to one DaemonSet's cells in `state` (or to
/// its problem rows when None): where each fleet cell links.
pub fn matrix_query(namespace: &str, name: &str, state: Option<&str>) -> String {
    let ds = crate::links::encode(&format!("{namespace}/{name}"));
    match state {
        Some(state) => format!("ds={ds}&state={state}"),
        None => format!("ds={ds}&problems=1"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::coverage::CellState;
    use crate::domain::fleet::{ClusterHealth, FleetCluster, FleetPlacement};
    use crate::domain::view::StateCounts;

    fn placement(cluster: &str, cells: &[CellState]) -> FleetPlacement {
        FleetPlacement {
            cluster: cluster.into(),
            counts: StateCounts::of(cells),
            refused: 0,
            stalled: None,
            problem_cells: cells
                .iter()
                .filter(|c| matches!(c, CellState::Missing | CellState::Unready))
                .count(),
        }
    }

    #[test]
    fn in_process_clusters_link_here_and_remote_ones_to_their_own_daemonscope_or_nowhere() {
        let mut view = FleetView {
            summary: fleet(),
            ..FleetView::default()
        };
        let local = ClusterLinks::of(&view);
        assert_eq!(local.matrix("a", "ds=x").as_deref(), Some("/c/a?ds=x"));
        view.remote = true;
        assert_eq!(ClusterLinks::of(&view).matrix("a", "ds=x"), None);
        view.summary.clusters[0].link = Some("https://ds.a.example.com/".into());
        let remote = ClusterLinks::of(&view);
        assert_eq!(
            remote.matrix("a", "ds=x").as_deref(),
            Some("https://ds.a.example.com/?ds=x")
        );
        assert_eq!(
            remote.matrix("a", "").as_deref(),
            Some("https://ds.a.example.com/")
        );
        assert_eq!(remote.matrix("unknown", ""), None);
    }

    fn fleet() -> FleetSummary {
        FleetSummary {
            clusters: vec![FleetCluster {
                name: "a".into(),
                health: ClusterHealth::Live,
                nodes: 2,
                daemonsets: 2,
                problem_cells: 1,
                link: None,
            }],
            daemonsets: vec![
                FleetDaemonSet {
                    namespace: "kube-system".into(),
                    name: "log".into(),
                    placements: vec![
                        placement("a", &[CellState::Missing, CellState::Ready]),
                        placement("b", &[CellState::Ready, CellState::Ready]),
                    ],
                },
                FleetDaemonSet {
                    namespace: "mon".into(),
                    name: "exporter".into(),
                    placements: vec![placement("a", &[CellState::Ready])],
                },
            ],
        }
    }

    fn shown(summary: &FleetSummary) -> Vec<(String, Vec<String>)> {
        summary
            .daemonsets
            .iter()
            .map(|d| {
                (
                    format!("{}/{}", d.namespace, d.name),
                    d.placements.iter().map(|p| p.cluster.clone()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn without_a_filter_only_the_clusters_with_a_problem_are_listed() {
        let out = filter(fleet(), &MatrixQuery::default());
        assert_eq!(
            shown(&out),
            [("kube-system/log".to_string(), vec!["a".to_string()])]
        );
        assert_eq!(out.clusters.len(), 1, "cluster lines are never filtered");
    }

    #[test]
    fn a_state_filter_lists_the_clusters_with_such_a_cell() {
        let query = MatrixQuery {
            state: Some(CellState::Ready),
            columns: "LOG".into(),
            ..MatrixQuery::default()
        };
        assert_eq!(
            shown(&filter(fleet(), &query)),
            [(
                "kube-system/log".to_string(),
                vec!["a".to_string(), "b".to_string()]
            )]
        );
    }

    #[test]
    fn a_cell_links_to_the_matrix_filtered_to_it() {
        assert_eq!(
            matrix_query("kube-system", "log", Some("missing")),
            "ds=kube-system%2Flog&state=missing"
        );
        assert_eq!(
            matrix_query("kube-system", "log", None),
            "ds=kube-system%2Flog&problems=1"
        );
    }
}
