//! Why a rollout stalled, from the facts the store holds: the pods on each node with their
//! readiness and waiting reasons, the nodes' Ready condition, the DaemonSet's FailedCreate
//! events and its budget. Each cause names its nodes and says what would unblock it.
//!
//! Why typed causes: the DaemonSet page lists them with links, the matrix badge's title names
//! the first, and tests check each against the rule (§d.3, §d.4, §c) that makes it block.

use super::budget::Budget;
use super::pods::{is_counted, is_pod_available, is_pod_updated};
use super::NodeSlot;
use crate::facts::{DaemonSetFacts, PodFacts};
use serde::{Deserialize, Serialize};

/// Container waiting reasons of a new pod that will not fix themselves: the kubelet keeps
/// retrying, but the pod never becomes available (§c) and keeps its budget (§d.3).
pub const FAILING_REASONS: &[&str] = &[
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "InvalidImageName",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
];

/// In-flight pods listed at most (the rest are counted): a 10 % maxUnavailable on 5,000 nodes
/// would otherwise put 500 rows in every column summary.
pub const IN_FLIGHT_SHOWN: usize = 20;

/// One pod named by a cause: where it is and why it is stuck.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StuckPod {
    pub node: String,
    pub namespace: String,
    pub pod: String,
    /// The container's waiting reason (CrashLoopBackOff, ImagePullBackOff...), or `Pending`.
    pub reason: String,
    pub restarts: i32,
}

/// Why a rollout does not move, as the data shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum StallCause {
    /// §d.3: nodes that are NotReady keep pods that are not available (an old pod that cannot
    /// be removed while the kubelet is down, a new one that cannot start), and each counts
    /// against the budget; with the budget used up, no further node is started.
    NotReadyNodesHoldBudget {
        nodes: Vec<String>,
        in_use: i64,
        limit: i64,
        /// The budget is maxSurge (surge mode) rather than maxUnavailable.
        surge: bool,
    },
    /// §d.4 + §c: new pods that fail (crash-loop, cannot pull the image) never become
    /// available, so they hold the budget (§d.3) and the rollout cannot pass them.
    NewPodsFailing { pods: Vec<StuckPod> },
    /// §a.7: the controller's pod creation is rejected (a FailedCreate event): the node keeps
    /// no pod, counts as unavailable (§d.3) and the rollout waits for it.
    CreationRejected {
        /// The event's message, e.g. `Error creating: ... exceeded quota`.
        message: String,
        /// Desired nodes that have no pod.
        nodes: Vec<String>,
    },
    /// §d.3 surge: a new pod beside an old one that the scheduler does not bind; it stays in
    /// flight, holding maxSurge.
    SurgePodUnscheduled { pods: Vec<StuckPod> },
    /// Nothing the dashboard holds explains it: the new pods are not becoming available.
    Unexplained,
}

impl StallCause {
    /// A short name for a badge's title and tests.
    pub fn kind(&self) -> &'static str {
        match self {
            StallCause::NotReadyNodesHoldBudget { .. } => "NotReadyNodesHoldBudget",
            StallCause::NewPodsFailing { .. } => "NewPodsFailing",
            StallCause::CreationRejected { .. } => "CreationRejected",
            StallCause::SurgePodUnscheduled { .. } => "SurgePodUnscheduled",
            StallCause::Unexplained => "Unexplained",
        }
    }

    /// One sentence saying what blocks the rollout, naming nodes and pods.
    pub fn summary(&self) -> String {
        match self {
            StallCause::NotReadyNodesHoldBudget {
                nodes,
                in_use,
                limit,
                surge,
            } => format!(
                "NotReady node{} {} hold{} the budget: {in_use} of {} {limit} in use, so no further node is started",
                plural(nodes.len()),
                nodes.join(", "),
                if nodes.len() == 1 { "s" } else { "" },
                if *surge { "maxSurge" } else { "maxUnavailable" },
            ),
            StallCause::NewPodsFailing { pods } => format!(
                "new pods fail: {}",
                pods.iter()
                    .map(|p| format!("{} on {} ({}, {} restarts)", p.pod, p.node, p.reason, p.restarts))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            StallCause::CreationRejected { message, nodes } => format!(
                "pod creation rejected on {}: {message}",
                if nodes.is_empty() { "some nodes".to_string() } else { nodes.join(", ") }
            ),
            StallCause::SurgePodUnscheduled { pods } => format!(
                "surge pod{} not scheduled: {}",
                plural(pods.len()),
                pods.iter()
                    .map(|p| format!("{} for {}", p.pod, p.node))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            StallCause::Unexplained => {
                "the new pods are not becoming available, and no failure is in the data".into()
            }
        }
    }

    /// What would unblock it, with commands to paste (never run by the dashboard).
    pub fn unblock(&self, namespace: &str, name: &str) -> String {
        match self {
            StallCause::NotReadyNodesHoldBudget { nodes, .. } => format!(
                "Bring {} back to Ready, or remove the node{} for good (kubectl delete node {}), or raise the budget (kubectl -n {namespace} patch daemonset {name} --type merge -p '{{\"spec\":{{\"updateStrategy\":{{\"rollingUpdate\":{{\"maxUnavailable\":2}}}}}}}}').",
                nodes.join(", "),
                plural(nodes.len()),
                nodes.join(" "),
            ),
            StallCause::NewPodsFailing { pods } => {
                let first = pods.first().map_or("POD", |p| p.pod.as_str());
                format!(
                    "Read why the new pod fails (kubectl -n {namespace} logs {first} --previous; kubectl -n {namespace} describe pod {first}), then fix the template, or roll back: kubectl -n {namespace} rollout undo daemonset/{name}."
                )
            }
            StallCause::CreationRejected { .. } => format!(
                "Fix what rejects the creation (the message names the webhook, quota or policy); the controller retries by itself. Events: kubectl -n {namespace} get events --field-selector involvedObject.name={name},reason=FailedCreate."
            ),
            StallCause::SurgePodUnscheduled { pods } => {
                let node = pods.first().map_or("NODE", |p| p.node.as_str());
                format!(
                    "Free room on {node} for the new pod beside the old one (kubectl describe node {node}), or replace in place instead of surging (maxSurge: 0, maxUnavailable: 1)."
                )
            }
            StallCause::Unexplained => format!(
                "Look at the new pods' readiness probes and minReadySeconds: kubectl -n {namespace} describe daemonset {name}."
            ),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A pod a rollout is waiting on: a new pod not yet available, or a pod being removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlightPod {
    pub node: String,
    pub namespace: String,
    pub pod: String,
    /// New (current revision, §d.4) or old.
    pub updated: bool,
    /// Terminating, a waiting reason, or the phase.
    pub status: String,
    /// creationTimestamp, unix seconds (the page shows the age).
    pub created: i64,
}

/// A FailedCreate event about the DaemonSet (the controller's "Error creating: ...").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedCreate {
    pub message: String,
    /// When it last happened, unix seconds.
    pub last_seen: i64,
}

/// What the classifier reads.
#[derive(Debug, Clone, Copy)]
pub struct StallFacts<'a> {
    pub ds: &'a DaemonSetFacts,
    /// Every desired node and every node with pods (as for [`super::budget_in_use`]).
    pub slots: &'a [NodeSlot<'a>],
    /// The resolved budget, None when it cannot be resolved.
    pub budget: Option<Budget>,
    /// [`super::budget_in_use`] now.
    pub in_use: i64,
    /// NotReady (or unknown-Ready) nodes by name: their kubelet is not posting status.
    pub not_ready: &'a [&'a str],
    /// The DaemonSet's FailedCreate events.
    pub failed_creates: &'a [FailedCreate],
    /// When progress stopped: events older than this are not the cause.
    pub since: i64,
    pub now: i64,
}

fn live<'a>(pods: &[&'a PodFacts]) -> Vec<&'a PodFacts> {
    pods.iter()
        .copied()
        .filter(|p| is_counted(p) && !p.terminating)
        .collect()
}

fn stuck(node: &str, p: &PodFacts, reason: &str) -> StuckPod {
    StuckPod {
        node: node.to_string(),
        namespace: p.namespace.clone(),
        pod: p.name.clone(),
        reason: reason.to_string(),
        restarts: p.restart_count,
    }
}

/// The causes of a stall the data shows, most specific first (an empty list never: with no
/// cause found, [`StallCause::Unexplained`]). Call it only for a stalled rollout.
pub fn classify_stall(f: &StallFacts<'_>) -> Vec<StallCause> {
    let mut causes = Vec::new();
    let min_ready = f.ds.min_ready_seconds;
    let available = |p: &PodFacts| is_pod_available(p, min_ready, f.now);
    let updated = |p: &PodFacts| is_pod_updated(f.ds, p);

    // §d.4 + §c: new pods that fail never become available.
    let failing: Vec<StuckPod> = f
        .slots
        .iter()
        .flat_map(|s| live(s.pods).into_iter().map(move |p| (s.node, p)))
        .filter(|(_, p)| updated(p))
        .filter_map(|(node, p)| {
            let reason = p.waiting_reason.as_deref()?;
            FAILING_REASONS
                .contains(&reason)
                .then(|| stuck(node, p, reason))
        })
        .collect();
    if !failing.is_empty() {
        causes.push(StallCause::NewPodsFailing { pods: failing });
    }

    // §d.3: NotReady nodes whose pods count against a budget that is used up.
    if let Some(budget) = f.budget {
        let surge = budget.surge_mode();
        let limit = if surge {
            budget.max_surge
        } else {
            budget.max_unavailable
        };
        let holding: Vec<String> = f
            .slots
            .iter()
            .filter(|s| s.should_run || s.gone)
            .filter(|s| f.not_ready.contains(&s.node))
            .filter(|s| {
                let pods = live(s.pods);
                let old = pods.iter().filter(|p| !updated(p)).count();
                let new_unavailable = pods.iter().any(|p| updated(p) && !available(p));
                if surge {
                    // In flight: an old pod beside a new one not yet available.
                    old > 0 && new_unavailable
                } else {
                    // Unavailable: no single available live pod (nodes left for manage,
                    // no live pod, old beside new, a new or old pod not available).
                    !(pods.len() == 1 && pods.iter().all(|p| available(p)))
                }
            })
            .map(|s| s.node.to_string())
            .collect();
        if !holding.is_empty() && f.in_use >= limit {
            causes.push(StallCause::NotReadyNodesHoldBudget {
                nodes: holding,
                in_use: f.in_use,
                limit,
                surge,
            });
        }
    }

    // §a.7: creations rejected while desired nodes have no pod.
    let empty: Vec<String> = f
        .slots
        .iter()
        .filter(|s| s.should_run && !s.gone && live(s.pods).is_empty())
        .map(|s| s.node.to_string())
        .collect();
    if !empty.is_empty() {
        let mut recent: Vec<&FailedCreate> = f
            .failed_creates
            .iter()
            .filter(|e| e.last_seen >= f.since)
            .collect();
        recent.sort_by_key(|e| std::cmp::Reverse(e.last_seen));
        if let Some(newest) = recent.first() {
            causes.push(StallCause::CreationRejected {
                message: newest.message.clone(),
                nodes: empty,
            });
        }
    }

    // §d.3 surge: a new pod beside an old one that is not bound.
    let unscheduled: Vec<StuckPod> = f
        .slots
        .iter()
        .filter(|s| {
            let pods = live(s.pods);
            pods.iter().any(|p| !updated(p))
        })
        .flat_map(|s| live(s.pods).into_iter().map(move |p| (s.node, p)))
        .filter(|(_, p)| updated(p) && !p.bound)
        .map(|(node, p)| stuck(node, p, "Pending"))
        .collect();
    if !unscheduled.is_empty() {
        causes.push(StallCause::SurgePodUnscheduled { pods: unscheduled });
    }

    if causes.is_empty() {
        causes.push(StallCause::Unexplained);
    }
    causes
}

/// The pods a rollout is waiting on, by node: new pods not yet available (§d.4, §c) and
/// terminating pods (being replaced, §d.3). At most [`IN_FLIGHT_SHOWN`], and the total.
pub fn in_flight(
    ds: &DaemonSetFacts,
    slots: &[NodeSlot<'_>],
    now: i64,
) -> (Vec<InFlightPod>, usize) {
    let mut all: Vec<InFlightPod> = slots
        .iter()
        .flat_map(|s| s.pods.iter().map(move |p| (s.node, *p)))
        .filter(|(_, p)| is_counted(p))
        .filter(|(_, p)| {
            p.terminating
                || (is_pod_updated(ds, p) && !is_pod_available(p, ds.min_ready_seconds, now))
        })
        .map(|(node, p)| InFlightPod {
            node: node.to_string(),
            namespace: p.namespace.clone(),
            pod: p.name.clone(),
            updated: is_pod_updated(ds, p),
            status: if p.terminating {
                "Terminating".to_string()
            } else if let Some(reason) = &p.waiting_reason {
                reason.clone()
            } else if !p.bound {
                "Pending (not scheduled)".to_string()
            } else if p.ready {
                "Ready, not yet available (minReadySeconds)".to_string()
            } else {
                p.phase.to_string()
            },
            created: p.created,
        })
        .collect();
    all.sort_by(|a, b| a.node.cmp(&b.node).then_with(|| a.pod.cmp(&b.pod)));
    let total = all.len();
    all.truncate(IN_FLIGHT_SHOWN);
    (all, total)
}

#[cfg(test)]
mod tests;
