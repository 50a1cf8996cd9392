//! Prometheus metrics of the live path, kept current as events arrive.
//!
//! Why updated on write: a scrape must be cheap at 150,000 pods, so it only encodes values
//! that the state already holds (no recompute). Uses the maintained `prometheus-client` crate
//! for the text format instead of formatting by hand.

use crate::domain::admission::RefusalKind;
use crate::domain::alerts::UNSCHEDULABLE_REASONS;
use crate::domain::coverage::CellState;
use crate::domain::view::DaemonSetColumn;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

mod causes;
pub mod fleet;

type Labels = Vec<(&'static str, String)>;

/// Every metric the dashboard exports, with the registry that encodes them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    ds_desired: Family<Labels, Gauge>,
    ds_ready: Family<Labels, Gauge>,
    ds_updated: Family<Labels, Gauge>,
    ds_missing: Family<Labels, Gauge>,
    ds_starting: Family<Labels, Gauge>,
    ds_misscheduled: Family<Labels, Gauge>,
    ds_problem_nodes: Family<Labels, Gauge>,
    ds_creation_refused: Family<Labels, Gauge>,
    ds_unschedulable: Family<Labels, Gauge>,
    ds_budget_in_use: Family<Labels, Gauge>,
    /// Cells per state (9 series per DaemonSet): what a fleet read from Prometheus shows.
    ds_cells: Family<Labels, Gauge>,
    nodes: Gauge,
    watch_synced: Family<Labels, Gauge>,
    watch_last_event: Family<Labels, Gauge>,
    watch_relists: Family<Labels, Counter>,
    watch_errors: Family<Labels, Counter>,
    live_clients: Gauge,
    cluster_reachable: Family<Labels, Gauge>,
    live_resnapshots: Family<Labels, Counter>,
    /// The series the alert rules read: budget, rollout progress and stall causes, missing
    /// causes (`metrics/causes.rs`).
    causes: causes::CauseMetrics,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

fn ds_labels(key: &str) -> Labels {
    vec![("daemonset", key.to_string())]
}

/// The labels of `daemonscope_daemonset_unschedulable`: one of
/// [`UNSCHEDULABLE_REASONS`], so at most four series per DaemonSet.
fn reason_labels(key: &str, reason: &str) -> Labels {
    vec![
        ("daemonset", key.to_string()),
        ("reason", reason.to_string()),
    ]
}

/// The labels of `daemonscope_daemonset_creation_refused`; the encoder escapes the values
/// as the Prometheus text format asks (`\\`, `\"`, `\n`).
fn refused_labels(key: &str, kind: RefusalKind) -> Labels {
    vec![
        ("daemonset", key.to_string()),
        ("kind", kind.as_str().to_string()),
    ]
}

fn cell_labels(key: &str, state: CellState) -> Labels {
    vec![
        ("daemonset", key.to_string()),
        ("state", state.as_str().to_string()),
    ]
}

fn resource_labels(resource: &str) -> Labels {
    vec![("resource", resource.to_string())]
}

impl Metrics {
    /// A fresh registry with every metric registered.
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("daemonscope");
        let m = Self {
            ds_desired: Family::default(),
            ds_ready: Family::default(),
            ds_updated: Family::default(),
            ds_missing: Family::default(),
            ds_starting: Family::default(),
            ds_misscheduled: Family::default(),
            ds_problem_nodes: Family::default(),
            ds_creation_refused: Family::default(),
            ds_unschedulable: Family::default(),
            ds_budget_in_use: Family::default(),
            ds_cells: Family::default(),
            nodes: Gauge::default(),
            watch_synced: Family::default(),
            watch_last_event: Family::default(),
            watch_relists: Family::default(),
            watch_errors: Family::default(),
            live_clients: Gauge::default(),
            cluster_reachable: Family::default(),
            live_resnapshots: Family::default(),
            causes: causes::CauseMetrics::default(),
            registry: Registry::default(),
        };
        registry.register(
            "daemonset_desired",
            "Nodes that should run the DaemonSet's pod",
            m.ds_desired.clone(),
        );
        registry.register(
            "daemonset_ready",
            "Nodes whose daemon pod is ready",
            m.ds_ready.clone(),
        );
        registry.register(
            "daemonset_updated",
            "Nodes whose daemon pod is on the current revision",
            m.ds_updated.clone(),
        );
        registry.register(
            "daemonset_missing",
            "Nodes that should run the pod and have none, past their new-node grace",
            m.ds_missing.clone(),
        );
        registry.register(
            "daemonset_starting",
            "New nodes (within --new-node-grace) that should run the pod and have none yet",
            m.ds_starting.clone(),
        );
        registry.register(
            "daemonset_misscheduled",
            "Nodes that run the pod but should not",
            m.ds_misscheduled.clone(),
        );
        registry.register(
            "daemonset_problem_nodes",
            "Nodes whose cell of the DaemonSet is a problem (missing, misscheduled, unready, pending; outdated only when the rollout stalled)",
            m.ds_problem_nodes.clone(),
        );
        registry.register(
            "daemonset_creation_refused",
            "Nodes missing the DaemonSet's pod while the API server refuses its creations, by who refuses (webhook, validating_admission_policy, pod_security, resource_quota, limit_range, other)",
            m.ds_creation_refused.clone(),
        );
        registry.register(
            "daemonset_unschedulable",
            "The DaemonSet's pods the scheduler does not bind, by their PodScheduled=False reason (Unschedulable, SchedulerError, SchedulingGated, other)",
            m.ds_unschedulable.clone(),
        );
        registry.register(
            "daemonset_budget_in_use",
            "Rollout budget in use now (unavailable nodes, or surge pods in flight)",
            m.ds_budget_in_use.clone(),
        );
        registry.register(
            "daemonset_cells",
            "The DaemonSet's matrix cells per state (ready, outdated, surge, unready, pending, starting, missing, misscheduled, excluded)",
            m.ds_cells.clone(),
        );
        registry.register(
            "nodes",
            "Nodes in the cluster (the matrix's rows)",
            m.nodes.clone(),
        );
        registry.register(
            "watch_synced",
            "1 when the watcher has completed its (re)list",
            m.watch_synced.clone(),
        );
        registry.register(
            "watch_last_event_timestamp_seconds",
            "Unix time of the last event received by the watcher",
            m.watch_last_event.clone(),
        );
        registry.register(
            "watch_relists",
            "Full (re)lists done by the watcher",
            m.watch_relists.clone(),
        );
        registry.register(
            "watch_errors",
            "Errors seen by the watcher",
            m.watch_errors.clone(),
        );
        registry.register(
            "live_clients",
            "Browsers connected to /api/live",
            m.live_clients.clone(),
        );
        registry.register(
            "live_resnapshots",
            "Live clients sent a fresh snapshot instead of deltas, by reason",
            m.live_resnapshots.clone(),
        );
        registry.register(
            "cluster_reachable",
            "1 when the cluster can be read now; 0 with the cause (apiserver_unreachable, storage_unavailable, apiserver_not_ready, watch_silent)",
            m.cluster_reachable.clone(),
        );
        m.causes.register(&mut registry);
        m.cluster_reachable
            .get_or_create(&vec![("cause", "none".to_string())])
            .set(1);
        Self { registry, ..m }
    }

    /// Records whether the cluster can be read now: one series, `cause="none"` at 1, or the
    /// cause at 0 (the previous cause's series is removed, so a query sees only the current).
    pub fn set_reachable(&self, cause: Option<&'static str>) {
        self.cluster_reachable.clear();
        let label = vec![("cause", cause.unwrap_or("none").to_string())];
        self.cluster_reachable
            .get_or_create(&label)
            .set(i64::from(cause.is_none()));
    }

    /// Records a DaemonSet's current column.
    pub fn set_column(&self, column: &DaemonSetColumn) {
        let labels = ds_labels(&column.key);
        self.ds_desired.get_or_create(&labels).set(column.desired);
        self.ds_ready.get_or_create(&labels).set(column.ready);
        self.ds_updated.get_or_create(&labels).set(column.updated);
        self.ds_missing.get_or_create(&labels).set(column.missing);
        self.ds_starting.get_or_create(&labels).set(column.starting);
        self.ds_misscheduled
            .get_or_create(&labels)
            .set(column.misscheduled);
        self.ds_budget_in_use
            .get_or_create(&labels)
            .set(column.budget_in_use);
        self.ds_problem_nodes
            .get_or_create(&labels)
            .set(column.problem_nodes);
        for state in CellState::ALL {
            let count = i64::try_from(column.cells.get(state)).unwrap_or(i64::MAX);
            self.ds_cells
                .get_or_create(&cell_labels(&column.key, state))
                .set(count);
        }
        // One series for the current refuser only: a refusal that changed kind or ended
        // leaves no stale series behind.
        self.remove_refused(&column.key);
        if let Some(refused) = &column.refused {
            self.ds_creation_refused
                .get_or_create(&refused_labels(&column.key, refused.refusal.kind))
                .set(column.missing);
        }
        for reason in UNSCHEDULABLE_REASONS {
            let labels = reason_labels(&column.key, reason);
            match column.unschedulable.iter().find(|(r, _)| r == reason) {
                Some((_, n)) => {
                    self.ds_unschedulable.get_or_create(&labels).set(*n);
                }
                None => {
                    self.ds_unschedulable.remove(&labels);
                }
            }
        }
        self.causes.set_column(column);
    }

    /// Removes a DaemonSet's `creation_refused` series, of every kind.
    fn remove_refused(&self, key: &str) {
        for kind in RefusalKind::ALL {
            self.ds_creation_refused.remove(&refused_labels(key, kind));
        }
    }

    /// Forgets a deleted DaemonSet.
    pub fn remove_column(&self, key: &str) {
        self.remove_refused(key);
        for state in CellState::ALL {
            self.ds_cells.remove(&cell_labels(key, state));
        }
        for reason in UNSCHEDULABLE_REASONS {
            self.ds_unschedulable.remove(&reason_labels(key, reason));
        }
        let labels = ds_labels(key);
        for family in [
            &self.ds_desired,
            &self.ds_ready,
            &self.ds_updated,
            &self.ds_missing,
            &self.ds_starting,
            &self.ds_misscheduled,
            &self.ds_problem_nodes,
            &self.ds_budget_in_use,
        ] {
            family.remove(&labels);
        }
        self.causes.remove_column(key);
    }

    /// Records the cluster's node count (set as `/metrics` is read: a length, no recompute).
    pub fn set_nodes(&self, nodes: usize) {
        self.nodes.set(i64::try_from(nodes).unwrap_or(i64::MAX));
    }

    /// Records whether a watcher is synced.
    pub fn set_synced(&self, resource: &str, synced: bool) {
        self.watch_synced
            .get_or_create(&resource_labels(resource))
            .set(i64::from(synced));
    }

    /// Records the time of a watcher's last event.
    pub fn event_seen(&self, resource: &str, unix_seconds: i64) {
        self.watch_last_event
            .get_or_create(&resource_labels(resource))
            .set(unix_seconds);
    }

    /// Counts a (re)list.
    pub fn relisted(&self, resource: &str) {
        self.watch_relists
            .get_or_create(&resource_labels(resource))
            .inc();
    }

    /// Counts a watcher error.
    pub fn errored(&self, resource: &str) {
        self.watch_errors
            .get_or_create(&resource_labels(resource))
            .inc();
    }

    /// A live client connected (+1) or left (-1).
    pub fn client_delta(&self, change: i64) {
        self.live_clients.inc_by(change);
    }

    /// A live client got a snapshot instead of deltas; `reason` is "lagged" or "resume".
    pub fn resnapshotted(&self, reason: &'static str) {
        self.live_resnapshots
            .get_or_create(&vec![("reason", reason.to_string())])
            .inc();
    }

    /// The Prometheus text exposition of every metric.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut out = String::new();
        encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
