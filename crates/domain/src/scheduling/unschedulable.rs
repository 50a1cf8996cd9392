//! kube-scheduler's verdict on a daemon pod and node (§k): NodePorts, then NodeResourcesFit, and
//! the `PodScheduled=False` message it writes when the pod does not fit.
//!
//! Why here: the simulated cluster must leave a daemon pod pending with the scheduler's own
//! words so the differential suite can hold it to kube-scheduler, and the dashboard explains a
//! pending cell with the same arithmetic; one rule, written once. The resource arithmetic is
//! §j's ([`crate::resources::fit`]); this module adds the host ports and the message.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::resources::fit::{insufficient, Amounts, Shortfall};

/// NodePorts' reason (`ErrReason` in `plugins/nodeports/node_ports.go`).
pub const PORTS_REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// The reason every other node gets when the pod's node affinity names one node (§k.3): the
/// NodeAffinity PreFilter narrowed the candidates, the rest count as absent nodes.
pub const AFFINITY_REASON: &str = "node(s) didn't satisfy plugin(s) [NodeAffinity]";

/// DefaultPreemption's reason for a node with nothing lower-priority to evict.
pub const NO_VICTIMS_REASON: &str = "No preemption victims found for incoming pod";

/// DefaultPreemption's reason for a node where evicting cannot help (filtered out as
/// unresolvable, or not a candidate).
pub const NOT_HELPFUL_REASON: &str = "Preemption is not helpful for scheduling";

/// One host port a container takes (`containerPort.hostPort`), sanitised as the scheduler does:
/// an empty protocol is `TCP`, an empty host IP is `0.0.0.0` (every address).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct HostPort {
    /// The port on the node.
    pub port: i32,
    /// `TCP`, `UDP` or `SCTP`.
    pub protocol: String,
    /// The node address it binds, `0.0.0.0` for all.
    pub host_ip: String,
}

impl HostPort {
    /// A host port with the scheduler's defaults filled in (`sanitize`).
    pub fn new(port: i32, protocol: &str, host_ip: &str) -> HostPort {
        HostPort {
            port,
            protocol: if protocol.is_empty() { "TCP" } else { protocol }.to_owned(),
            host_ip: if host_ip.is_empty() {
                "0.0.0.0"
            } else {
                host_ip
            }
            .to_owned(),
        }
    }

    /// `HostPortInfo.CheckConflict`: the same protocol and port, on the same address or where
    /// either side binds every address.
    pub fn clashes_with(&self, other: &HostPort) -> bool {
        self.port > 0
            && self.port == other.port
            && self.protocol == other.protocol
            && (self.host_ip == other.host_ip
                || self.host_ip == "0.0.0.0"
                || other.host_ip == "0.0.0.0")
    }
}

/// What the pods bound to one node take of it (§j.3), and what the node offers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRoom {
    /// The node's `status.allocatable` in scheduler units.
    pub allocatable: Amounts,
    /// The summed requests of the non-terminal pods bound to it.
    pub requested: Amounts,
    /// How many such pods.
    pub pods: i64,
    /// The host ports they take.
    pub host_ports: Vec<HostPort>,
}

/// Why one node rejects a pod: the first filter that fails, as the framework stops there
/// (NodePorts runs before NodeResourcesFit in the default profile).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rejection {
    /// A host port the pod asks for is taken (the clashing port).
    Ports(HostPort),
    /// Resources are short (one entry per resource, `fitsRequest`'s order).
    Resources(Vec<Shortfall>),
}

impl Rejection {
    /// The reasons the scheduler counts for this node.
    pub fn reasons(&self) -> Vec<String> {
        match self {
            Rejection::Ports(_) => vec![PORTS_REASON.to_owned()],
            Rejection::Resources(short) => short.iter().map(|s| s.reason.clone()).collect(),
        }
    }

    /// Whether evicting pods cannot help (`UnschedulableAndUnresolvable`): a resource the pod
    /// asks more of than the node's whole allocatable (§k.2).
    pub fn unresolvable(&self) -> bool {
        match self {
            Rejection::Ports(_) => false,
            Rejection::Resources(short) => short
                .iter()
                .any(|s| s.resource != crate::resources::PODS && s.asked > s.capacity),
        }
    }
}

/// NodePorts then NodeResourcesFit for a pod asking `ask` (its total requests in scheduler
/// units, §j.2) and `ports` on a node with `room`; None when the pod fits (§k.1).
pub fn reject(room: &NodeRoom, ask: &Amounts, ports: &[HostPort]) -> Option<Rejection> {
    if let Some(clash) = ports
        .iter()
        .find(|p| room.host_ports.iter().any(|used| p.clashes_with(used)))
    {
        return Some(Rejection::Ports(clash.clone()));
    }
    let short = insufficient(&room.allocatable, &room.requested, room.pods, ask);
    (!short.is_empty()).then_some(Rejection::Resources(short))
}

/// `FitError.Error()`'s histogram: "count reason" strings sorted as strings, joined by ", ".
fn histogram(reasons: &BTreeMap<String, usize>) -> String {
    let mut parts: Vec<String> = reasons
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(r, n)| format!("{n} {r}"))
        .collect();
    parts.sort();
    parts.join(", ")
}

/// What DefaultPreemption found on the pod's node, for the message's second half (§k.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreemptionOutcome<'a> {
    /// Nothing of a lower priority runs there.
    NoVictims,
    /// Even without the lower-priority pods the node rejects the pod, for this reason.
    DoesNotHelp(&'a Rejection),
    /// Victims are being evicted: the message has no preemption part.
    Evicting,
    /// The pod's `preemptionPolicy` is `Never` (`PodEligibleToPreemptOthers`, §k.5): checked
    /// before any node, so the message has no histogram after `preemption:`.
    NotEligible,
}

/// The `PodScheduled=False` message (and `FailedScheduling` event text) kube-scheduler writes
/// for a daemon pod pinned to one node of `all_nodes` that rejects it, when no pod on that
/// node has a lower priority to evict (§k.3).
pub fn unschedulable_message(all_nodes: usize, rejection: &Rejection) -> String {
    fit_error_message(all_nodes, rejection, PreemptionOutcome::NoVictims)
}

/// `FitError.Error()` for a daemon pod pinned to one node of `all_nodes` that rejects it, with
/// what preemption found there (§k.3, §k.4).
pub fn fit_error_message(
    all_nodes: usize,
    rejection: &Rejection,
    preemption: PreemptionOutcome<'_>,
) -> String {
    let others = all_nodes.saturating_sub(1);
    let mut filter = BTreeMap::new();
    for reason in rejection.reasons() {
        *filter.entry(reason).or_insert(0) += 1;
    }
    *filter.entry(AFFINITY_REASON.to_owned()).or_insert(0) += others;
    let head = format!("0/{all_nodes} nodes are available: {}.", histogram(&filter));
    let mut after = BTreeMap::new();
    match preemption {
        PreemptionOutcome::Evicting => return head,
        PreemptionOutcome::NotEligible => {
            return format!("{head} preemption: not eligible due to preemptionPolicy=Never.")
        }
        _ if rejection.unresolvable() => {
            after.insert(NOT_HELPFUL_REASON.to_owned(), all_nodes);
        }
        PreemptionOutcome::NoVictims => {
            after.insert(NO_VICTIMS_REASON.to_owned(), 1);
            after.insert(NOT_HELPFUL_REASON.to_owned(), others);
        }
        PreemptionOutcome::DoesNotHelp(still) => {
            for reason in still.reasons() {
                *after.entry(reason).or_insert(0) += 1;
            }
            *after.entry(NOT_HELPFUL_REASON.to_owned()).or_insert(0) += others;
        }
    }
    format!(
        "{head} preemption: 0/{all_nodes} nodes are available: {}.",
        histogram(&after)
    )
}

#[cfg(test)]
mod tests;
