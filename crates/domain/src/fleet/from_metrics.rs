//! The fleet from the metrics every daemonscope serves, as Prometheus answers instant queries
//! over them: the queries, and their answers turned into a [`FleetSummary`].
//!
//! Why pure and here: the fleet read from Prometheus must count the same cells as each
//! cluster's own matrix, so what the numbers mean is decided once, beside the type, and is
//! tested without a Prometheus; the server room only sends the queries and decodes JSON.
//! Every query aggregates `by` the cluster label (and the series' own labels), so two
//! replicas of one cluster's daemonscope count once and Prometheus' `job`/`instance` labels
//! never split a cluster.

use super::{ClusterHealth, FleetCluster, FleetDaemonSet, FleetPlacement, FleetSummary};
use crate::coverage::CellState;
use crate::view::StateCounts;
use std::collections::{BTreeMap, BTreeSet};

/// How long after its last scrape a cluster's daemonscope still has a line (shown
/// unavailable); older ones have left the fleet.
pub const FORGET_AFTER: &str = "1h";

/// One of the instant queries the fleet is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FleetQuery {
    /// Per cluster: 1 when every daemonscope Prometheus scrapes for it answers (`up`).
    Up,
    /// Per cluster and cause: `daemonscope_cluster_reachable`.
    Reachable,
    /// Per cluster and resource: watchers that are not synced.
    Unsynced,
    /// Per cluster: `daemonscope_nodes`.
    Nodes,
    /// Per cluster, DaemonSet and state: `daemonscope_daemonset_cells`.
    Cells,
    /// Per cluster and DaemonSet: `daemonscope_daemonset_problem_nodes`.
    Problems,
    /// Per cluster and DaemonSet: nodes missing their pod past the grace because the API
    /// server refuses it (what the in-process fleet counts, `missing_causes.refused`).
    Refused,
    /// Per cluster, DaemonSet and cause: the causes of a stalled rollout.
    Stalled,
}

impl FleetQuery {
    /// Every query, in the order they are sent.
    pub const ALL: [FleetQuery; 8] = [
        FleetQuery::Up,
        FleetQuery::Reachable,
        FleetQuery::Unsynced,
        FleetQuery::Nodes,
        FleetQuery::Cells,
        FleetQuery::Problems,
        FleetQuery::Refused,
        FleetQuery::Stalled,
    ];

    /// A short name for logs and errors.
    pub fn name(self) -> &'static str {
        match self {
            FleetQuery::Up => "up",
            FleetQuery::Reachable => "reachable",
            FleetQuery::Unsynced => "unsynced",
            FleetQuery::Nodes => "nodes",
            FleetQuery::Cells => "cells",
            FleetQuery::Problems => "problems",
            FleetQuery::Refused => "refused",
            FleetQuery::Stalled => "stalled",
        }
    }

    /// The PromQL, grouped by the cluster label `label` (a [`ClusterLabel`]).
    pub fn promql(self, label: &ClusterLabel) -> String {
        let l = label.as_str();
        match self {
            // `up` of the targets that served daemonscope's metrics within FORGET_AFTER: a
            // daemonscope that stopped answering keeps its line, as unavailable.
            FleetQuery::Up => format!(
                "min by ({l}) (up and on (job, instance) last_over_time(daemonscope_cluster_reachable[{FORGET_AFTER}]))"
            ),
            FleetQuery::Reachable => {
                format!("max by ({l}, cause) (daemonscope_cluster_reachable)")
            }
            FleetQuery::Unsynced => {
                format!("max by ({l}, resource) (daemonscope_watch_synced) == 0")
            }
            FleetQuery::Nodes => format!("max by ({l}) (daemonscope_nodes)"),
            FleetQuery::Cells => {
                format!("max by ({l}, daemonset, state) (daemonscope_daemonset_cells)")
            }
            FleetQuery::Problems => {
                format!("max by ({l}, daemonset) (daemonscope_daemonset_problem_nodes)")
            }
            FleetQuery::Refused => {
                format!(
                    "max by ({l}, daemonset) (daemonscope_daemonset_missing_past_grace{{cause=\"refused\"}})"
                )
            }
            FleetQuery::Stalled => format!(
                "max by ({l}, daemonset, cause) (daemonscope_daemonset_rollout_stalled) == 1"
            ),
        }
    }
}

/// The label that names the cluster (Prometheus' target or external label, `cluster` by
/// default), checked to be a Prometheus label name so it can go into PromQL as is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterLabel(String);

/// A cluster label that Prometheus would not accept as a label name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)")]
pub struct BadClusterLabel(pub String);

impl ClusterLabel {
    /// The label named `name`, if it is a valid Prometheus label name.
    pub fn new(name: &str) -> Result<ClusterLabel, BadClusterLabel> {
        let mut chars = name.chars();
        let first_ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
            Ok(ClusterLabel(name.to_string()))
        } else {
            Err(BadClusterLabel(name.to_string()))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One sample of an instant query's vector: its labels and value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sample {
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

impl Sample {
    fn label(&self, name: &str) -> Option<&str> {
        self.labels.get(name).map(String::as_str)
    }

    /// The value as a count (NaN, negatives and fractions cut to a whole number ≥ 0).
    fn count(&self) -> usize {
        if self.value.is_finite() && self.value > 0.0 {
            self.value as usize
        } else {
            0
        }
    }
}

/// Words for a `daemonscope_cluster_reachable` cause, as the fleet page shows them.
fn unreachable_words(cause: &str) -> String {
    match cause {
        "apiserver_unreachable" => "its daemonscope cannot reach the API server".into(),
        "storage_unavailable" => "the API server cannot reach its storage (etcd)".into(),
        "apiserver_not_ready" => "the API server is not ready".into(),
        "watch_silent" => "a watch of its daemonscope went silent".into(),
        other => format!("its daemonscope cannot read it ({other})"),
    }
}

/// The words of a stalled rollout's causes (the `cause` labels of
/// `daemonscope_daemonset_rollout_stalled`, [`crate::alerts::STALL_CAUSE_LABELS`]), in that
/// order. Why shared: the in-process fleet names a stall the same way (with
/// [`crate::alerts::stall_flags`]), so the two fleet pages can be compared word for word.
pub fn stall_words<'a>(causes: impl IntoIterator<Item = &'a str>) -> String {
    let on: BTreeSet<&str> = causes.into_iter().collect();
    let mut words: Vec<&str> = crate::alerts::STALL_CAUSE_LABELS
        .iter()
        .copied()
        .filter(|c| on.contains(c))
        .collect();
    // A cause newer than this build still shows.
    words.extend(
        on.iter()
            .copied()
            .filter(|c| !crate::alerts::STALL_CAUSE_LABELS.contains(c)),
    );
    words
        .iter()
        .map(|c| c.replace('_', " "))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What one cluster's answers hold, while they are gathered.
#[derive(Default)]
struct Gathered {
    up: Option<bool>,
    unreachable: Vec<String>,
    unsynced: Vec<String>,
    nodes: usize,
    problem_cells: usize,
    daemonsets: BTreeMap<(String, String), FleetPlacement>,
    /// Stall causes per DaemonSet, worded at the end ([`stall_words`]).
    stalls: BTreeMap<(String, String), Vec<String>>,
}

/// Splits `namespace/name`; a key without a `/` is a name in no namespace.
fn split_key(key: &str) -> (String, String) {
    match key.split_once('/') {
        Some((ns, name)) => (ns.to_string(), name.to_string()),
        None => (String::new(), key.to_string()),
    }
}

/// The placement of the sample's DaemonSet in this cluster, made on first sight; None for a
/// sample without a `daemonset` label.
fn placement_of<'g>(
    gathered: &'g mut Gathered,
    cluster: &str,
    sample: &Sample,
) -> Option<&'g mut FleetPlacement> {
    let key = split_key(sample.label("daemonset")?);
    Some(
        gathered
            .daemonsets
            .entry(key)
            .or_insert_with(|| FleetPlacement {
                cluster: cluster.to_string(),
                counts: StateCounts::default(),
                refused: 0,
                stalled: None,
                problem_cells: 0,
            }),
    )
}

/// The fleet from the answers to [`FleetQuery::ALL`] (`answers` by query; a missing query
/// counts as no samples). Clusters are sorted by name, DaemonSets by namespace and name.
/// Health: `up` 0 → unavailable (Prometheus cannot scrape its daemonscope); a
/// `cluster_reachable` cause or an unsynced watcher → stale, with why; otherwise live.
pub fn fleet_from_metrics(
    label: &ClusterLabel,
    answers: &BTreeMap<FleetQuery, Vec<Sample>>,
) -> FleetSummary {
    let mut clusters: BTreeMap<String, Gathered> = BTreeMap::new();
    let empty = Vec::new();
    for query in FleetQuery::ALL {
        for sample in answers.get(&query).unwrap_or(&empty) {
            let Some(cluster) = sample.label(label.as_str()) else {
                continue;
            };
            let gathered = clusters.entry(cluster.to_string()).or_default();
            match query {
                FleetQuery::Up => gathered.up = Some(sample.value >= 1.0),
                FleetQuery::Reachable => {
                    if sample.value < 1.0 {
                        let cause = sample.label("cause").unwrap_or("unknown");
                        gathered.unreachable.push(unreachable_words(cause));
                    }
                }
                FleetQuery::Unsynced => {
                    let resource = sample.label("resource").unwrap_or("a resource");
                    gathered.unsynced.push(resource.to_string());
                }
                FleetQuery::Nodes => gathered.nodes = sample.count(),
                FleetQuery::Cells => {
                    let state = sample.label("state").and_then(CellState::parse);
                    if let (Some(state), Some(placement)) =
                        (state, placement_of(gathered, cluster, sample))
                    {
                        placement.counts.set(state, sample.count());
                    }
                }
                FleetQuery::Problems => {
                    gathered.problem_cells += sample.count();
                    if let Some(placement) = placement_of(gathered, cluster, sample) {
                        placement.problem_cells = sample.count();
                    }
                }
                FleetQuery::Refused => {
                    if let Some(placement) = placement_of(gathered, cluster, sample) {
                        placement.refused = sample.count();
                    }
                }
                FleetQuery::Stalled => {
                    let cause = sample.label("cause").unwrap_or("unexplained").to_string();
                    if placement_of(gathered, cluster, sample).is_some() {
                        if let Some(key) = sample.label("daemonset").map(split_key) {
                            gathered.stalls.entry(key).or_default().push(cause);
                        }
                    }
                }
            }
        }
    }
    let mut summary = FleetSummary::default();
    let mut by_key: BTreeMap<(String, String), Vec<FleetPlacement>> = BTreeMap::new();
    for (name, mut gathered) in clusters {
        for (key, causes) in &gathered.stalls {
            if let Some(placement) = gathered.daemonsets.get_mut(key) {
                placement.stalled = Some(stall_words(causes.iter().map(String::as_str)));
            }
        }
        let health = if gathered.up == Some(false) {
            ClusterHealth::Unavailable {
                reason: "Prometheus cannot scrape its daemonscope (up is 0)".into(),
            }
        } else if !gathered.unreachable.is_empty() {
            ClusterHealth::Stale {
                reason: gathered.unreachable.join("; "),
            }
        } else if !gathered.unsynced.is_empty() {
            ClusterHealth::Stale {
                reason: format!("not synced: {}", gathered.unsynced.join(", ")),
            }
        } else {
            ClusterHealth::Live
        };
        summary.clusters.push(FleetCluster {
            name,
            health,
            nodes: gathered.nodes,
            daemonsets: gathered.daemonsets.len(),
            problem_cells: gathered.problem_cells,
            link: None,
        });
        for (key, placement) in gathered.daemonsets {
            by_key.entry(key).or_default().push(placement);
        }
    }
    summary.daemonsets = by_key
        .into_iter()
        .map(|((namespace, name), placements)| FleetDaemonSet {
            namespace,
            name,
            placements,
        })
        .collect();
    summary
}

#[cfg(test)]
mod tests;
