//! The in-process fleet: one cluster's part of the [`FleetSummary`] from its matrix, and the
//! parts put together.
//!
//! Why from the matrix and nothing else: the fleet page must list exactly the problem cells
//! each cluster's matrix shows, so it reads the same snapshot the matrix is cut from, its
//! per-column `problem_nodes` (decided by [`crate::coverage::is_problem`], never again here)
//! and its stall signal ([`crate::alerts::rollout_signal`], the one `/metrics` exports).

use super::{ClusterHealth, FleetCluster, FleetDaemonSet, FleetPlacement, FleetSummary};
use crate::view::{DaemonSetColumn, MatrixSnapshot, ResourceHealth, StateCounts};
use std::collections::BTreeMap;

/// One cluster's line and its DaemonSets' placements, before the fleet is put together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterPart {
    /// The cluster's line.
    pub cluster: FleetCluster,
    /// `(namespace, name, placement)` for every DaemonSet of the cluster.
    pub placements: Vec<(String, String, FleetPlacement)>,
}

/// Whether a cluster's numbers can be believed, from the health lines its matrix carries
/// (the stale banner's input) and whether anything was ever listed (`listed`: the matrix has
/// nodes or DaemonSets). Errors, nothing listed and nothing gone stale: unavailable (it never
/// answered). Anything unsynced, stale or failing: stale, with the first failing line's words (and how
/// many more). Else
/// live.
pub fn health_of(health: &[ResourceHealth], listed: bool) -> ClusterHealth {
    let errors: Vec<&str> = health.iter().filter_map(|h| h.error.as_deref()).collect();
    let troubled: Vec<&ResourceHealth> = health
        .iter()
        .filter(|h| !h.synced || h.error.is_some() || h.stale_since.is_some())
        .collect();
    if troubled.is_empty() {
        return ClusterHealth::Live;
    }
    let reason = if errors.is_empty() {
        troubled
            .iter()
            .map(|h| {
                if h.stale_since.is_some() {
                    format!("{}: stale", h.resource)
                } else {
                    format!("{}: waiting for the first sync", h.resource)
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    } else {
        let mut distinct: Vec<&str> = Vec::new();
        for error in &errors {
            if !distinct.contains(error) {
                distinct.push(error);
            }
        }
        match distinct.as_slice() {
            [one] => one.to_string(),
            [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
            [] => String::new(),
        }
    };
    let never_read = !listed && health.iter().all(|h| h.stale_since.is_none());
    if never_read && !errors.is_empty() {
        ClusterHealth::Unavailable { reason }
    } else {
        ClusterHealth::Stale { reason }
    }
}

/// A column's placement: its cells counted per state, the matrix's own problem count, the
/// nodes missing their pod because the API server refuses it, and the stall's causes.
fn placement(
    cluster: &str,
    index: usize,
    column: &DaemonSetColumn,
    snapshot: &MatrixSnapshot,
) -> FleetPlacement {
    let counts = StateCounts::of(snapshot.nodes.iter().filter_map(|row| row.cells.get(index)));
    // The causes `daemonscope_daemonset_rollout_stalled` flags, in the words the fleet read
    // from Prometheus gives them (`from_metrics::stall_words`), so both pages agree.
    let on: Vec<&str> = crate::alerts::stall_flags(column.pace.as_ref())
        .into_iter()
        .filter_map(|(cause, on)| on.then_some(cause))
        .collect();
    let stalled = (!on.is_empty()).then(|| super::from_metrics::stall_words(on));
    FleetPlacement {
        cluster: cluster.to_string(),
        counts,
        refused: column
            .missing_causes
            .as_ref()
            .map_or(0, |m| usize::try_from(m.refused).unwrap_or(0)),
        stalled,
        problem_cells: usize::try_from(column.problem_nodes).unwrap_or(0),
    }
}

/// One cluster's part of the fleet from its matrix snapshot.
pub fn cluster_part(name: &str, snapshot: &MatrixSnapshot) -> ClusterPart {
    let placements: Vec<(String, String, FleetPlacement)> = snapshot
        .daemonsets
        .iter()
        .enumerate()
        .map(|(i, column)| {
            (
                column.namespace.clone(),
                column.name.clone(),
                placement(name, i, column, snapshot),
            )
        })
        .collect();
    ClusterPart {
        cluster: FleetCluster {
            name: name.to_string(),
            health: health_of(
                &snapshot.health,
                !snapshot.nodes.is_empty() || !snapshot.daemonsets.is_empty(),
            ),
            nodes: snapshot.nodes.len(),
            daemonsets: snapshot.daemonsets.len(),
            problem_cells: placements.iter().map(|(_, _, p)| p.problem_cells).sum(),
            link: None,
        },
        placements,
    }
}

/// The fleet from its clusters' parts, clusters in the order given, DaemonSets by
/// namespace then name, each with one placement per cluster that has it.
pub fn assemble(parts: Vec<ClusterPart>) -> FleetSummary {
    let mut by_key: BTreeMap<(String, String), Vec<FleetPlacement>> = BTreeMap::new();
    let mut clusters = Vec::with_capacity(parts.len());
    for part in parts {
        clusters.push(part.cluster);
        for (namespace, name, placement) in part.placements {
            by_key.entry((namespace, name)).or_default().push(placement);
        }
    }
    FleetSummary {
        clusters,
        daemonsets: by_key
            .into_iter()
            .map(|((namespace, name), placements)| FleetDaemonSet {
                namespace,
                name,
                placements,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests;
