//! Why a daemon pod waits for its node: the scheduler's words and daemonscope's arithmetic
//! (§j.4), and what to change.
//!
//! Why both: the `PodScheduled` condition is the scheduler's verdict, quoted as written; the
//! arithmetic (allocatable, what the bound pods request, what the pod asks) says by how much
//! and so what to paste: the largest request that fits, a priority that preempts, or the nodes
//! of the same pool with room.

use serde::{Deserialize, Serialize};

use crate::facts::{DaemonSetFacts, NodeFacts, PodFacts};
use crate::resources::fit::{insufficient, Amounts, Shortfall};
use crate::resources::load::SchedulingFailure;
use crate::resources::{CPU, PODS};
use crate::scheduling::{Fix, FixAction};
use crate::shell::shell_command;

/// At most this many nodes with room are named.
pub const MAX_ROOMY_NODES: usize = 5;

/// The room on a node as the store keeps it: allocatable, the bound pods' sums and count.
#[derive(Debug, Clone, Copy)]
pub struct Room<'a> {
    pub allocatable: &'a Amounts,
    pub requested: &'a Amounts,
    pub pods: i64,
}

impl Room<'_> {
    /// `fitsRequest` for `ask` on this room (§j.4).
    pub fn shortfalls(&self, ask: &Amounts) -> Vec<Shortfall> {
        insufficient(self.allocatable, self.requested, self.pods, ask)
    }
}

/// The explanation of one pending daemon pod (§j.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingExplanation {
    /// The pending pod.
    pub pod: String,
    /// Its `PodScheduled=False` condition, as the scheduler wrote it; None when it has none yet.
    pub scheduler: Option<SchedulingFailure>,
    /// The node's allocatable, in scheduler units.
    pub allocatable: Amounts,
    /// What the pods bound to the node request (all pods, §j.3).
    pub requested: Amounts,
    /// How many pods are bound to the node.
    pub bound_pods: i64,
    /// What the pending pod asks (§j.2).
    pub asked: Amounts,
    /// What the node lacks, per resource; empty when the arithmetic says the pod fits.
    pub shortfalls: Vec<Shortfall>,
    /// The node's pool (label key and value), if it has one.
    pub pool: Option<(String, String)>,
    /// Up to [`MAX_ROOMY_NODES`] nodes of that pool where the pod's ask fits now.
    pub nodes_with_room: Vec<String>,
    /// One sentence over all of it.
    pub sentence: String,
    /// What to paste (run by the user, never by the dashboard).
    pub fixes: Vec<Fix>,
}

/// A node's room for the node page (§j.3–§j.5): what its bound pods request, the DaemonSet
/// tax, and why each of its pending daemon pods waits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRoom {
    /// What the pods bound to the node request (all pods).
    pub requested: Amounts,
    /// How many pods are bound to it.
    pub pods: i64,
    /// The DaemonSet tax.
    pub tax: crate::resources::tax::NodeTax,
    /// Per DaemonSet (`namespace/name`) with a pending pod here, why it waits.
    pub pending: Vec<(String, PendingExplanation)>,
}

/// A DaemonSet's cost for its page (§j.5): its template's requests times the nodes where it
/// should run, and why each of its pending pods waits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonSetRoom {
    /// What one pod requests (§j.2).
    pub per_pod: Amounts,
    /// How many nodes it should run on (§a).
    pub nodes: usize,
    /// `per_pod` times `nodes`: its cluster-wide tax.
    pub total: Amounts,
    /// Per node with a pending pod of it, why that pod waits.
    pub pending: Vec<(String, PendingExplanation)>,
}

/// A scheduler amount as a quantity a person reads and `kubectl` accepts: cpu in cores or
/// milli-cores, byte resources in the largest whole binary unit, counts as they are.
pub fn format_amount(resource: &str, amount: i64) -> String {
    if resource == CPU {
        return if amount % 1000 == 0 {
            format!("{}", amount / 1000)
        } else {
            format!("{amount}m")
        };
    }
    let bytes =
        matches!(resource, "memory" | "ephemeral-storage") || resource.starts_with("hugepages-");
    if bytes && amount != 0 {
        for (suffix, shift) in [("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)] {
            if amount % (1i64 << shift) == 0 {
                return format!("{}{suffix}", amount >> shift);
            }
        }
    }
    amount.to_string()
}

/// Explains a pending daemon pod on `node` (§j.4): None when the pod is bound (scheduled; it
/// waits for the kubelet, not for room). `peers` are the other nodes of the node's pool where
/// the DaemonSet should run, with their room.
pub fn explain_pending(
    node: &NodeFacts,
    room: Room<'_>,
    ds: &DaemonSetFacts,
    pod: &PodFacts,
    peers: &[(&str, Room<'_>)],
) -> Option<PendingExplanation> {
    if pod.bound {
        return None;
    }
    let asked = pod.requests.to_amounts();
    let shortfalls = room.shortfalls(&asked);
    let pool = crate::names::POOL_LABELS
        .iter()
        .find_map(|k| node.labels.get(*k).map(|v| ((*k).to_owned(), v.clone())));
    let nodes_with_room: Vec<String> = peers
        .iter()
        .filter(|(name, r)| *name != node.name && r.shortfalls(&asked).is_empty())
        .take(MAX_ROOMY_NODES)
        .map(|(name, _)| (*name).to_owned())
        .collect();
    let sentence = sentence(pod, &shortfalls);
    let fixes = fixes(ds, &shortfalls);
    Some(PendingExplanation {
        pod: pod.name.clone(),
        scheduler: pod.unschedulable.as_deref().cloned(),
        allocatable: room.allocatable.clone(),
        requested: room.requested.clone(),
        bound_pods: room.pods,
        asked,
        shortfalls,
        pool,
        nodes_with_room,
        sentence,
        fixes,
    })
}

fn sentence(pod: &PodFacts, shortfalls: &[Shortfall]) -> String {
    let short: Vec<String> = shortfalls
        .iter()
        .map(|s| {
            if s.resource == PODS {
                format!("pods (all {} taken)", s.capacity)
            } else {
                format!(
                    "{} by {}",
                    s.resource,
                    format_amount(&s.resource, s.short_by())
                )
            }
        })
        .collect();
    match (pod.unschedulable.is_some(), short.is_empty()) {
        (_, false) => format!(
            "The scheduler does not bind this pod: the node is short of {}.",
            short.join(", ")
        ),
        (true, true) => "The scheduler does not bind this pod; by the requests the dashboard sees, it would fit now, so the scheduler's reason is another (its message above) or the room was freed since.".into(),
        (false, true) => "The pod is not bound to the node yet and the scheduler has not reported why; by the requests the dashboard sees, it fits.".into(),
    }
}

fn fixes(ds: &DaemonSetFacts, shortfalls: &[Shortfall]) -> Vec<Fix> {
    let mut out = Vec::new();
    for s in shortfalls.iter().filter(|s| s.resource != PODS) {
        let room = s.room();
        if room > 0 {
            let value = format_amount(&s.resource, room);
            out.push(Fix {
                description: format!(
                    "Lower the {} request to {value}, the largest that fits on this node now (for a single-container agent; with several containers their sum must fit).",
                    s.resource
                ),
                action: FixAction::Command {
                    command: shell_command(&[
                        "kubectl",
                        "set",
                        "resources",
                        "daemonset",
                        &ds.name,
                        "-n",
                        &ds.namespace,
                        &format!("--requests={}={value}", s.resource),
                    ]),
                },
            });
        }
    }
    if !shortfalls.is_empty() {
        out.push(Fix {
            description: "Or give the agent the node-critical priority: the scheduler then preempts lower-priority pods on this node to make room (those pods are evicted).".into(),
            action: FixAction::Command {
                command: shell_command(&[
                    "kubectl",
                    "patch",
                    "daemonset",
                    &ds.name,
                    "-n",
                    &ds.namespace,
                    "--type=merge",
                    "-p",
                    r#"{"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}"#,
                ]),
            },
        });
    }
    out
}

#[cfg(test)]
mod tests;
