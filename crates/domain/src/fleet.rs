//! The fleet: one row per cluster and, per DaemonSet (namespace/name across clusters), its
//! problem cells in each cluster.
//!
//! Why a type of its own, in the domain: the fleet page is built two ways (from the clusters
//! one process watches, and from Prometheus' query API over the metrics every daemonscope
//! serves), and both must give the page the same data so that the two pages can be compared
//! cell for cell. Nothing here knows where the numbers came from.

use crate::coverage::CellState;
use crate::view::StateCounts;
use serde::{Deserialize, Serialize};

mod build;
pub mod from_metrics;
pub use build::{assemble, cluster_part, health_of, ClusterPart};

/// Whether a cluster's numbers can be believed now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClusterHealth {
    /// Its watches are synced and its API server answers.
    Live,
    /// Numbers are shown but may be old; `reason` says why, in the words of the stale banner.
    Stale { reason: String },
    /// Nothing could be read (unknown context, refused credentials, down since start).
    Unavailable { reason: String },
}

/// One cluster's line on the fleet page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetCluster {
    /// The kubeconfig context (in process) or the `cluster` label (from Prometheus).
    pub name: String,
    pub health: ClusterHealth,
    pub nodes: usize,
    pub daemonsets: usize,
    /// Cells that count as a problem (`coverage::problem`), summed over its DaemonSets.
    pub problem_cells: usize,
    /// Where this cluster's own daemonscope is, when the fleet is read from Prometheus (from
    /// `--fleet-link-template`, [`LinkTemplate`]); None in process, where the cluster's
    /// pages are this server's own.
    #[serde(default)]
    pub link: Option<String>,
}

/// A URL with `{cluster}` in it, e.g. `https://ds.{cluster}.example.com`: each cluster's own
/// daemonscope, linked from a fleet read from Prometheus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTemplate(String);

/// A link template without `{cluster}`: every cluster would link to the same place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the link template {0:?} has no {{cluster}} in it")]
pub struct BadLinkTemplate(pub String);

impl LinkTemplate {
    /// The template, if it names `{cluster}`.
    pub fn new(template: &str) -> Result<LinkTemplate, BadLinkTemplate> {
        if template.contains("{cluster}") {
            Ok(LinkTemplate(template.to_string()))
        } else {
            Err(BadLinkTemplate(template.to_string()))
        }
    }

    /// The link for `cluster`: the name percent-encoded (a label value may hold any
    /// character; only `A-Z a-z 0-9 - . _ ~` go in as they are), so it cannot leave its
    /// place in the URL.
    pub fn link(&self, cluster: &str) -> String {
        let mut encoded = String::with_capacity(cluster.len());
        for byte in cluster.bytes() {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                encoded.push(char::from(byte));
            } else {
                encoded.push_str(&format!("%{byte:02X}"));
            }
        }
        self.0.replace("{cluster}", &encoded)
    }
}

/// One DaemonSet's problems in one cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetPlacement {
    pub cluster: String,
    /// Cells per state, as the cluster's matrix counts them.
    pub counts: StateCounts,
    /// Creations the API server refused (FailedCreate), 0 when none.
    pub refused: usize,
    /// The rollout stalls; the cause's words when it does.
    pub stalled: Option<String>,
    /// Cells of this DaemonSet that count as a problem (`coverage::problem`), as its column
    /// in the cluster's matrix counts them (`daemonscope_daemonset_problem_nodes`). Added for
    /// the in-process page; a source without it reads 0 and [`Self::has_problem`] still
    /// decides from the counts.
    #[serde(default)]
    pub problem_cells: usize,
}

impl FleetPlacement {
    /// Whether this DaemonSet has anything to look at in this cluster: a problem state, a
    /// refusal or a stall. Why here: the fleet page lists only these, and both sources must
    /// agree on which.
    pub fn has_problem(&self) -> bool {
        self.refused > 0
            || self.problem_cells > 0
            || self.stalled.is_some()
            || [
                CellState::Missing,
                CellState::Unready,
                CellState::Pending,
                CellState::Misscheduled,
            ]
            .into_iter()
            .any(|state| self.counts.get(state) > 0)
    }
}

/// One DaemonSet (by namespace/name) across the fleet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetDaemonSet {
    pub namespace: String,
    pub name: String,
    /// One entry per cluster that has this DaemonSet, in cluster order.
    pub placements: Vec<FleetPlacement>,
}

/// The whole fleet page's data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetSummary {
    /// In the order the clusters were given.
    pub clusters: Vec<FleetCluster>,
    /// Sorted by namespace, then name.
    pub daemonsets: Vec<FleetDaemonSet>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(counts: StateCounts) -> FleetPlacement {
        FleetPlacement {
            cluster: "a".into(),
            counts,
            refused: 0,
            stalled: None,
            problem_cells: 0,
        }
    }

    #[test]
    fn a_link_names_the_cluster_encoded_and_a_template_must_name_it() {
        let template = LinkTemplate::new("https://ds.{cluster}.example.com/").expect("valid");
        assert_eq!(template.link("prod-eu"), "https://ds.prod-eu.example.com/");
        assert_eq!(
            template.link("a/b?c\"é"),
            "https://ds.a%2Fb%3Fc%22%C3%A9.example.com/"
        );
        assert_eq!(
            LinkTemplate::new("https://ds.example.com"),
            Err(BadLinkTemplate("https://ds.example.com".into()))
        );
    }

    #[test]
    fn only_problem_states_refusals_and_stalls_make_a_problem() {
        let healthy =
            StateCounts::of(&[CellState::Ready, CellState::Excluded, CellState::Starting]);
        assert!(!placement(healthy).has_problem());
        let missing = StateCounts::of(&[CellState::Ready, CellState::Missing]);
        assert!(placement(missing).has_problem());
        let mut refused = placement(healthy);
        refused.refused = 2;
        assert!(refused.has_problem());
        let mut stalled = placement(healthy);
        stalled.stalled = Some("pods not ready".into());
        assert!(stalled.has_problem());
    }
}
