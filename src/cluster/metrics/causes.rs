//! The series the alert rules read (`deploy/prometheus/`): each DaemonSet's rollout budget,
//! whether its rollout progresses or stalled and why, and its nodes without a running pod
//! past the new-node grace by cause.
//!
//! Why a section of its own: these are the alerting contract (a rename breaks a rule, which
//! `tests/it/alert_rules.rs` catches), and the causes are decided in `domain::alerts`, never
//! here. Why no `cluster` label: Prometheus adds it as a target or external label, so one
//! daemonscope per cluster needs no configuration of its own. Low cardinality: per DaemonSet
//! at most 1 + 1 + 1 + 5 + 4 series, none per node or pod.

use super::Labels;
use crate::domain::alerts::{rollout_signal, stall_flags, MissingCause, RolloutSignal};
use crate::domain::view::DaemonSetColumn;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// The cause-carrying families, registered into the dashboard's registry.
#[derive(Debug, Default)]
pub(super) struct CauseMetrics {
    max_unavailable: Family<Labels, Gauge>,
    max_surge: Family<Labels, Gauge>,
    progressing: Family<Labels, Gauge>,
    stalled: Family<Labels, Gauge>,
    missing_past_grace: Family<Labels, Gauge>,
}

fn with_cause(key: &str, cause: &str) -> Labels {
    vec![("daemonset", key.to_string()), ("cause", cause.to_string())]
}

impl CauseMetrics {
    /// Registers every family (names under the registry's `daemonscope` prefix).
    pub(super) fn register(&self, registry: &mut Registry) {
        registry.register(
            "daemonset_max_unavailable",
            "maxUnavailable resolved to nodes against desired, as the controller does (RollingUpdate with a valid budget only)",
            self.max_unavailable.clone(),
        );
        registry.register(
            "daemonset_max_surge",
            "maxSurge resolved to pods against desired, as the controller does (RollingUpdate with a valid budget only)",
            self.max_surge.clone(),
        );
        registry.register(
            "daemonset_rollout_progressing",
            "1 while a RollingUpdate rollout is incomplete and not stalled",
            self.progressing.clone(),
        );
        registry.register(
            "daemonset_rollout_stalled",
            "1 for each cause of a stalled rollout (not_ready_nodes_hold_budget, new_pods_failing, creation_rejected, surge_pod_unscheduled, unexplained), else 0",
            self.stalled.clone(),
        );
        registry.register(
            "daemonset_missing_past_grace",
            "Nodes that should run the pod and have no running pod past the new-node grace, by cause (refused, node_not_ready, unschedulable, unexplained)",
            self.missing_past_grace.clone(),
        );
    }

    /// Records a column: every series of the DaemonSet is rewritten (a budget that no longer
    /// resolves, or missing causes not known, remove theirs).
    pub(super) fn set_column(&self, column: &DaemonSetColumn) {
        let key = column.key.as_str();
        let labels = super::ds_labels(key);
        for (family, value) in [
            (&self.max_unavailable, column.max_unavailable),
            (&self.max_surge, column.max_surge),
        ] {
            match value {
                Some(v) => {
                    family.get_or_create(&labels).set(v);
                }
                None => {
                    family.remove(&labels);
                }
            }
        }
        let pace = column.pace.as_ref();
        self.progressing.get_or_create(&labels).set(i64::from(
            rollout_signal(pace) == RolloutSignal::Progressing,
        ));
        for (cause, on) in stall_flags(pace) {
            self.stalled
                .get_or_create(&with_cause(key, cause))
                .set(i64::from(on));
        }
        for cause in MissingCause::ALL {
            let labels = with_cause(key, cause.label());
            match column.missing_causes {
                Some(counts) => {
                    self.missing_past_grace
                        .get_or_create(&labels)
                        .set(counts.get(cause));
                }
                None => {
                    self.missing_past_grace.remove(&labels);
                }
            }
        }
    }

    /// Forgets a deleted DaemonSet's series.
    pub(super) fn remove_column(&self, key: &str) {
        let labels = super::ds_labels(key);
        self.max_unavailable.remove(&labels);
        self.max_surge.remove(&labels);
        self.progressing.remove(&labels);
        for (cause, _) in stall_flags(None) {
            self.stalled.remove(&with_cause(key, cause));
        }
        for cause in MissingCause::ALL {
            self.missing_past_grace
                .remove(&with_cause(key, cause.label()));
        }
    }
}

#[cfg(test)]
mod tests;
