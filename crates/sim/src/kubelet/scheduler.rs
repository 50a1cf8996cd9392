//! The scheduler half of the kubelet stand-in's bind step: a daemon pod is bound only when
//! kube-scheduler would bind it (NodePorts, NodeResourcesFit), and otherwise left pending with
//! `PodScheduled=False`, reason `Unschedulable`, and a `FailedScheduling` event in the
//! scheduler's words (§k).
//!
//! Why per-node sums kept here: a bind asks "what do the pods on this node take?", and
//! decoding every pod of the node at each bind would cost a 5,000-node cluster millions of
//! decodes; the kubelet stand-in already sees every pod change, so it keeps each bound pod's
//! requests and host ports and the sums per node (§j.3), as the scheduler's cache does.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use super::PodKey;
use crate::domain::resources::fit::Amounts;
use crate::domain::resources::{InitContainerRequests, PodResources, ResourceList};
use crate::domain::scheduling::preemption::{
    builtin_priority, select_victims, Preemption, Resident,
};
use crate::domain::scheduling::unschedulable::{
    fit_error_message, reject, HostPort, NodeRoom, PreemptionOutcome,
};

/// What kwok reports for a node created without `status.allocatable` (the differential
/// harness's node agent, `tools/k8s/kwok-stages.yaml`): the sim's nodes get the same room.
const KWOK_ALLOCATABLE: [(&str, &str); 3] = [("cpu", "1k"), ("memory", "1Ti"), ("pods", "1M")];

/// How soon an unschedulable pod is tried again (simulated): the scheduler retries when the
/// cluster changes, with a back-off of 1 to 10 seconds.
const RETRY: Duration = Duration::from_secs(1);

/// A resource list in scheduler units; a value the API server would have refused counts as
/// absent (it cannot be in a stored object that came through validation).
fn amounts<'a>(list: impl IntoIterator<Item = (&'a String, &'a ApiQuantity)>) -> ResourceList {
    let mut out = ResourceList::new();
    for (name, q) in list {
        if let Ok(parsed) = ResourceList::parse([(name.as_str(), q.0.as_str())]) {
            out.add(&parsed);
        }
    }
    out
}

/// What a pod asks of its node (§j.2) and the host ports it takes (§k.1; with hostNetwork the
/// API server defaults a container port's hostPort to its containerPort).
fn pod_use(pod: &Pod) -> (Amounts, Vec<HostPort>) {
    let Some(spec) = pod.spec.as_ref() else {
        return (Amounts::new(), Vec::new());
    };
    let requests = |c: &k8s_openapi::api::core::v1::Container| {
        amounts(c.resources.iter().flat_map(|r| r.requests.iter().flatten()))
    };
    let resources = PodResources {
        containers: spec.containers.iter().map(requests).collect(),
        init_containers: spec
            .init_containers
            .iter()
            .flatten()
            .map(|c| InitContainerRequests {
                requests: requests(c),
                sidecar: c.restart_policy.as_deref() == Some("Always"),
            })
            .collect(),
        pod_level: amounts(
            spec.resources
                .iter()
                .flat_map(|r| r.requests.iter().flatten()),
        ),
        overhead: amounts(spec.overhead.iter().flatten()),
    };
    let host_network = spec.host_network.unwrap_or(false);
    let ports = spec
        .containers
        .iter()
        .flat_map(|c| c.ports.iter().flatten())
        .filter_map(|p| {
            let host = match p.host_port {
                Some(h) if h > 0 => h,
                _ if host_network => p.container_port,
                _ => return None,
            };
            Some(HostPort::new(
                host,
                p.protocol.as_deref().unwrap_or_default(),
                p.host_ip.as_deref().unwrap_or_default(),
            ))
        })
        .collect();
    (Amounts::from_list(&resources.requests()), ports)
}

/// The pod's priority: `spec.priority` as the Priority admission set it (the store's defaults
/// do, from a built-in class), else the built-in class's value, else 0 (§k.4).
fn priority(pod: &Pod) -> i32 {
    let Some(spec) = pod.spec.as_ref() else {
        return 0;
    };
    spec.priority
        .or_else(|| {
            spec.priority_class_name
                .as_deref()
                .and_then(builtin_priority)
        })
        .unwrap_or(0)
}

/// One pod the scheduler counts on a node.
#[derive(Debug, Clone)]
struct Counted {
    node: String,
    ask: Amounts,
    ports: Vec<HostPort>,
    priority: i32,
    terminating: bool,
}

/// What the bind step does with a pod (§k).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Bind it.
    Fits,
    /// Leave it pending with this message.
    Pending(String),
    /// Evict these lower-priority pods, then leave it pending (nominated) with this message.
    Preempt(Vec<PodKey>, String),
    /// Lower-priority pods are already terminating for it: wait, change nothing.
    Wait,
}

/// Whether the scheduler counts the pod on its node: bound and not terminal (§j.3).
fn counted(pod: &Pod) -> Option<String> {
    let node = pod
        .spec
        .as_ref()?
        .node_name
        .clone()
        .filter(|n| !n.is_empty())?;
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    (!matches!(phase, Some("Succeeded" | "Failed"))).then_some(node)
}

/// The scheduler's view of every node: allocatable, and what the pods bound there take.
#[derive(Debug, Default)]
pub(super) struct Rooms {
    allocatable: HashMap<String, Amounts>,
    usage: HashMap<String, NodeRoom>,
    pods: HashMap<PodKey, Counted>,
    by_node: HashMap<String, HashSet<PodKey>>,
}

impl Rooms {
    /// A node appeared or changed.
    pub(super) fn node(&mut self, node: &Node) {
        let Some(name) = node.metadata.name.clone() else {
            return;
        };
        let list = match node.status.as_ref().and_then(|s| s.allocatable.as_ref()) {
            Some(alloc) => amounts(alloc),
            None => ResourceList::parse(KWOK_ALLOCATABLE).unwrap_or_default(),
        };
        self.allocatable.insert(name, Amounts::from_list(&list));
    }

    /// A node was deleted.
    pub(super) fn remove_node(&mut self, name: &str) {
        self.allocatable.remove(name);
    }

    /// How many nodes the scheduler sees.
    pub(super) fn nodes(&self) -> usize {
        self.allocatable.len()
    }

    /// A pod changed: count it on its node if it is bound and not terminal.
    pub(super) fn pod(&mut self, key: &PodKey, pod: &Pod) {
        self.forget(key);
        if let Some(node) = counted(pod) {
            let (ask, ports) = pod_use(pod);
            let room = self.usage.entry(node.clone()).or_default();
            room.requested.add_signed(&ask, 1);
            room.pods += 1;
            room.host_ports.extend(ports.iter().cloned());
            self.by_node
                .entry(node.clone())
                .or_default()
                .insert(key.clone());
            let counted = Counted {
                node,
                ask,
                ports,
                priority: priority(pod),
                terminating: pod.metadata.deletion_timestamp.is_some(),
            };
            self.pods.insert(key.clone(), counted);
        }
    }

    /// A pod is gone (or no longer counts).
    pub(super) fn forget(&mut self, key: &PodKey) {
        let Some(Counted {
            node, ask, ports, ..
        }) = self.pods.remove(key)
        else {
            return;
        };
        if let Some(keys) = self.by_node.get_mut(&node) {
            keys.remove(key);
            if keys.is_empty() {
                self.by_node.remove(&node);
            }
        }
        if let Some(room) = self.usage.get_mut(&node) {
            room.requested.add_signed(&ask, -1);
            room.pods -= 1;
            for port in &ports {
                if let Some(i) = room.host_ports.iter().position(|p| p == port) {
                    room.host_ports.swap_remove(i);
                }
            }
            if room.pods <= 0 {
                self.usage.remove(&node);
            }
        }
    }

    /// What the scheduler does with `pod` on `node`: bind, leave pending with its message, or
    /// evict lower-priority pods first (§k.1–§k.4).
    pub(super) fn verdict(&self, pod: &Pod, node: &str) -> Verdict {
        let mut room = self.usage.get(node).cloned().unwrap_or_default();
        room.allocatable = self.allocatable.get(node).cloned().unwrap_or_default();
        let (ask, ports) = pod_use(pod);
        let Some(rejection) = reject(&room, &ask, &ports) else {
            return Verdict::Fits;
        };
        let nodes = self.nodes();
        let never = pod
            .spec
            .as_ref()
            .and_then(|s| s.preemption_policy.as_deref())
            == Some("Never");
        if never {
            let message = fit_error_message(nodes, &rejection, PreemptionOutcome::NotEligible);
            return Verdict::Pending(message);
        }
        if rejection.unresolvable() {
            let message = fit_error_message(nodes, &rejection, PreemptionOutcome::NoVictims);
            return Verdict::Pending(message);
        }
        let mine = priority(pod);
        let residents: Vec<Resident<PodKey>> = self
            .by_node
            .get(node)
            .into_iter()
            .flatten()
            .filter_map(|k| self.pods.get(k).map(|c| (k, c)))
            .map(|(k, c)| Resident {
                key: k.clone(),
                priority: c.priority,
                ask: c.ask.clone(),
                ports: c.ports.clone(),
            })
            .collect();
        let terminating_lower = residents
            .iter()
            .any(|r| r.priority < mine && self.pods.get(&r.key).is_some_and(|c| c.terminating));
        if terminating_lower {
            return Verdict::Wait;
        }
        match select_victims(&room, &residents, mine, &ask, &ports) {
            Preemption::NoVictims => Verdict::Pending(fit_error_message(
                nodes,
                &rejection,
                PreemptionOutcome::NoVictims,
            )),
            Preemption::DoesNotHelp(still) => Verdict::Pending(fit_error_message(
                nodes,
                &rejection,
                PreemptionOutcome::DoesNotHelp(&still),
            )),
            Preemption::Evict(victims) => Verdict::Preempt(
                victims,
                fit_error_message(nodes, &rejection, PreemptionOutcome::Evicting),
            ),
        }
    }
}

mod bind;

#[cfg(test)]
mod tests;
