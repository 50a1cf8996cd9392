//! What the alert rules read: why a DaemonSet's pod is missing past the new-node grace, and
//! whether its rollout progresses or stalled, as small label sets for `/metrics`.
//!
//! Why here: an alert must name the cause a person sees on the page, so the causes come from
//! the same rules the matrix and the DaemonSet page use (cell states from §a shouldRun and §c
//! counted pods, the stall classifier of [`crate::rollout::classify_stall`], the new-node
//! grace of [`crate::coverage::NewNodeGrace`]), decided here once; the server only encodes
//! them. Why counts per cause, not per node: a series per node × DaemonSet would be 150,000
//! series on a 5,000-node cluster; the page names the nodes.

use crate::coverage::NewNodeGrace;
use crate::rollout::{is_counted, FailedCreate, NodeSlot, StallCause};
use crate::view::RolloutPace;
use serde::{Deserialize, Serialize};

/// A FailedCreate newer than this (seconds) makes the DaemonSet's pod-less nodes `refused`.
/// Why 20 minutes: a refused create is retried by the controller with the workqueue's
/// exponential backoff, capped at 1,000 s, and each retry refreshes the event, so a refusal
/// that still holds is never older than that; an older one was fixed (§a.7).
pub const REFUSAL_RECENT_SECONDS: i64 = 1_200;

/// Why a node that should run the DaemonSet's pod has no running pod, past its grace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MissingCause {
    /// No pod, and the API server refused the controller's create recently (FailedCreate,
    /// §a.7): an admission webhook, a policy, Pod Security or a quota.
    Refused,
    /// No pod, and the node is not Ready (its kubelet does not post status).
    NodeNotReady,
    /// A pod exists but the scheduler has not bound it for longer than the grace (a pod
    /// created for a node that has no room, a host port taken).
    Unschedulable,
    /// No pod, and nothing the dashboard holds says why (the controller has not acted).
    Unexplained,
}

impl MissingCause {
    /// Every cause, in the order the metric lists them.
    pub const ALL: [MissingCause; 4] = [
        MissingCause::Refused,
        MissingCause::NodeNotReady,
        MissingCause::Unschedulable,
        MissingCause::Unexplained,
    ];

    /// The `cause` label value (a public contract: the alert rules match on it).
    pub fn label(self) -> &'static str {
        match self {
            MissingCause::Refused => "refused",
            MissingCause::NodeNotReady => "node_not_ready",
            MissingCause::Unschedulable => "unschedulable",
            MissingCause::Unexplained => "unexplained",
        }
    }
}

/// Nodes without a running pod of one DaemonSet, past the grace, counted by cause.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingCauses {
    pub refused: i64,
    pub node_not_ready: i64,
    pub unschedulable: i64,
    pub unexplained: i64,
    /// When the clock alone changes these counts next (an unbound pod outgrows the grace, a
    /// refusal ages out), unix seconds; None when only an event can. Why: the store re-checks
    /// exactly the columns due, not every column short of ready pods every second. The
    /// server's own bookkeeping: never sent.
    #[serde(skip)]
    pub recheck_at: Option<i64>,
}

impl MissingCauses {
    /// The count for one cause.
    pub fn get(&self, cause: MissingCause) -> i64 {
        match cause {
            MissingCause::Refused => self.refused,
            MissingCause::NodeNotReady => self.node_not_ready,
            MissingCause::Unschedulable => self.unschedulable,
            MissingCause::Unexplained => self.unexplained,
        }
    }

    fn add(&mut self, cause: MissingCause) {
        let slot = match cause {
            MissingCause::Refused => &mut self.refused,
            MissingCause::NodeNotReady => &mut self.node_not_ready,
            MissingCause::Unschedulable => &mut self.unschedulable,
            MissingCause::Unexplained => &mut self.unexplained,
        };
        *slot += 1;
    }
}

/// What [`missing_causes`] reads for one DaemonSet.
#[derive(Clone, Copy)]
pub struct MissingFacts<'a> {
    /// One slot per node (as for the column summary; slots of deleted nodes are skipped).
    pub slots: &'a [NodeSlot<'a>],
    /// Whether a node is within its new-node grace ([`NewNodeGrace::covers`]).
    pub young: &'a dyn Fn(&str) -> bool,
    /// Whether a node's Ready condition is True (None: unknown node, treated as Ready).
    pub node_ready: &'a dyn Fn(&str) -> Option<bool>,
    /// The DaemonSet's FailedCreate events.
    pub failed_creates: &'a [FailedCreate],
    /// The grace, also applied to an unbound pod's age.
    pub grace: NewNodeGrace,
    pub now: i64,
}

/// The DaemonSet's nodes without a running pod, past the grace, by cause:
///
/// - shouldRun (§a) and no counted pod (§c: the cell is `missing`), on a node past its grace:
///   `refused` when a FailedCreate (§a.7) was seen in the last [`REFUSAL_RECENT_SECONDS`], else
///   `node_not_ready` when the node is not Ready, else `unexplained`;
/// - shouldRun, and every live pod (counted, not terminating) unbound, the oldest created at
///   least the grace ago, on a node past its grace: `unschedulable`. A bound pod that is still
///   starting, a surge pod beside a running one (the stall's cause) and a node with only a
///   terminating pod (its replacement waits, §a.7) are not counted.
pub fn missing_causes(f: &MissingFacts<'_>) -> MissingCauses {
    let newest_refusal = f
        .failed_creates
        .iter()
        .map(|e| e.last_seen)
        .filter(|&seen| seen >= f.now.saturating_sub(REFUSAL_RECENT_SECONDS))
        .max();
    let refused = newest_refusal.is_some();
    let mut out = MissingCauses::default();
    let mut due = |at: i64| {
        out.recheck_at = Some(out.recheck_at.map_or(at, |t: i64| t.min(at)));
    };
    if let Some(seen) = newest_refusal {
        due(seen
            .saturating_add(REFUSAL_RECENT_SECONDS)
            .saturating_add(1));
    }
    let mut counts = MissingCauses::default();
    for slot in f
        .slots
        .iter()
        .filter(|s| s.should_run && !s.gone && !(f.young)(s.node))
    {
        let counted: Vec<_> = slot.pods.iter().filter(|p| is_counted(p)).collect();
        if counted.is_empty() {
            counts.add(if refused {
                MissingCause::Refused
            } else if (f.node_ready)(slot.node) == Some(false) {
                MissingCause::NodeNotReady
            } else {
                MissingCause::Unexplained
            });
            continue;
        }
        let live: Vec<_> = counted.iter().filter(|p| !p.terminating).collect();
        let oldest = live.iter().map(|p| p.created).min();
        if let Some(oldest) = oldest {
            if live.iter().all(|p| !p.bound) {
                if f.grace.covers(Some(oldest), f.now) {
                    if let Some(end) = f.grace.ends_at(Some(oldest)) {
                        due(end);
                    }
                } else {
                    counts.add(MissingCause::Unschedulable);
                }
            }
        }
    }
    MissingCauses {
        recheck_at: out.recheck_at,
        ..counts
    }
}

/// The `cause` label values of `daemonscope_daemonset_rollout_stalled`, in order (a public
/// contract: the alert rules match on them).
pub const STALL_CAUSE_LABELS: [&str; 5] = [
    "not_ready_nodes_hold_budget",
    "new_pods_failing",
    "creation_rejected",
    "surge_pod_unscheduled",
    "unexplained",
];

/// The `cause` label of one stall cause (§d.3, §d.4, §c, §a.7; see [`StallCause`]).
pub fn stall_cause_label(cause: &StallCause) -> &'static str {
    match cause {
        StallCause::NotReadyNodesHoldBudget { .. } => STALL_CAUSE_LABELS[0],
        StallCause::NewPodsFailing { .. } => STALL_CAUSE_LABELS[1],
        StallCause::CreationRejected { .. } => STALL_CAUSE_LABELS[2],
        StallCause::SurgePodUnscheduled { .. } => STALL_CAUSE_LABELS[3],
        StallCause::Unexplained => STALL_CAUSE_LABELS[4],
    }
}

/// A rollout as the alerts see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RolloutSignal {
    /// No RollingUpdate pace, §e done, or incomplete with nothing moving and not yet stalled
    /// (a node that never got its pod, as the demo's falco: a coverage gap, not a rollout).
    Idle,
    /// Incomplete, not stalled, and moving: pods in flight (new ones starting, old ones
    /// terminating) or progress within the pace window. Coverage alerts stay silent.
    Progressing,
    /// No progress for the stall threshold: the stall alert fires with the causes.
    Stalled,
}

/// The signal of a column's pace (None for OnDelete and offline snapshots). Why "moving"
/// and not just "incomplete": §e calls a rollout incomplete while one node lacks its pod for
/// any reason, and silencing the coverage alert for that would hide a refused pod for the
/// whole stall threshold.
pub fn rollout_signal(pace: Option<&RolloutPace>) -> RolloutSignal {
    match pace {
        Some(p) if !p.complete && p.stalled_since.is_some() => RolloutSignal::Stalled,
        Some(p) if !p.complete && (p.in_flight_total > 0 || p.per_minute_tenths > Some(0)) => {
            RolloutSignal::Progressing
        }
        _ => RolloutSignal::Idle,
    }
}

/// For each of [`STALL_CAUSE_LABELS`], whether the pace names that cause now (all false
/// unless stalled).
pub fn stall_flags(pace: Option<&RolloutPace>) -> [(&'static str, bool); 5] {
    let present: Vec<&'static str> = match pace {
        Some(p) if rollout_signal(pace) == RolloutSignal::Stalled => {
            p.causes.iter().map(stall_cause_label).collect()
        }
        _ => Vec::new(),
    };
    STALL_CAUSE_LABELS.map(|l| (l, present.contains(&l)))
}

mod unschedulable;
pub use unschedulable::{unschedulable_by_reason, UNSCHEDULABLE_REASONS};

#[cfg(test)]
mod tests;
