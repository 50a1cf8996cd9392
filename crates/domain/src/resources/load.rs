//! What one pod takes from its node, compactly (§j.3).
//!
//! Why compact: the store keeps, for every pod bound to a node (workload pods included), only
//! what it adds to the node's sums, so that a 100,000-pod workload costs bytes per pod, not the
//! pod objects (docs/architecture.md#scale). Most pods ask only cpu and memory: those two are
//! inline, anything else (ephemeral-storage, extended resources) is boxed.

use serde::{Deserialize, Serialize};

use super::fit::Amounts;
use super::{CPU, MEMORY};

/// A pod's requests in scheduler units (§j.1, §j.2): 24 bytes when only cpu and memory are
/// asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requests {
    /// cpu in milli-cores.
    pub cpu_milli: i64,
    /// memory in bytes.
    pub memory: i64,
    /// Every other counted resource (ephemeral-storage, extended resources, hugepages).
    pub other: Option<Box<Amounts>>,
}

impl Requests {
    /// The compact form of scheduler amounts.
    pub fn from_amounts(amounts: &Amounts) -> Requests {
        let mut other = Amounts::new();
        for (name, amount) in amounts.iter() {
            if name != CPU && name != MEMORY {
                other.set(name, amount);
            }
        }
        Requests {
            cpu_milli: amounts.get(CPU),
            memory: amounts.get(MEMORY),
            other: (!other.is_empty()).then(|| Box::new(other)),
        }
    }

    /// The amounts again, without zero entries.
    pub fn to_amounts(&self) -> Amounts {
        let mut amounts = self.other.as_deref().cloned().unwrap_or_default();
        if self.cpu_milli != 0 {
            amounts.set(CPU, self.cpu_milli);
        }
        if self.memory != 0 {
            amounts.set(MEMORY, self.memory);
        }
        amounts
    }
}

/// The scheduler's failure to bind a pod: its `PodScheduled=False` condition, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedulingFailure {
    /// The condition's reason (`Unschedulable`, `SchedulerError`).
    pub reason: String,
    /// The condition's message (`0/1 nodes are available: 1 Insufficient cpu.`).
    pub message: String,
}

/// A pod no DaemonSet controls, reduced to what it adds to its node (§j.3): the workload pods
/// that fill nodes. Its uid lets a later event replace or remove it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodLoad {
    pub uid: String,
    pub namespace: String,
    /// `spec.nodeName`: the node it is bound to, if any.
    pub node_name: Option<String>,
    /// Its requests (§j.2).
    pub requests: Requests,
    /// `status.phase` is Succeeded or Failed: the scheduler no longer counts it.
    pub terminal: bool,
}

impl PodLoad {
    /// The node whose sums this pod counts in: bound and not terminal (§j.3).
    pub fn counted_on(&self) -> Option<&str> {
        if self.terminal {
            return None;
        }
        self.node_name.as_deref().filter(|n| !n.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::ResourceList;

    #[test]
    fn cpu_and_memory_are_inline_and_the_rest_boxed_j3() {
        let list =
            ResourceList::parse([("cpu", "250m"), ("memory", "1Gi"), ("nvidia.com/gpu", "1")])
                .unwrap();
        let amounts = Amounts::from_list(&list);
        let requests = Requests::from_amounts(&amounts);
        assert_eq!((requests.cpu_milli, requests.memory), (250, 1 << 30));
        assert_eq!(requests.other.as_ref().unwrap().get("nvidia.com/gpu"), 1);
        assert_eq!(requests.to_amounts(), amounts);
        assert!(Requests::from_amounts(&Amounts::new()).other.is_none());
        assert!(std::mem::size_of::<Requests>() <= 24);
    }

    #[test]
    fn a_terminal_or_unbound_pod_counts_nowhere_j3() {
        let mut load = PodLoad {
            uid: "u".into(),
            namespace: "ns".into(),
            node_name: Some("n1".into()),
            requests: Requests::default(),
            terminal: false,
        };
        assert_eq!(load.counted_on(), Some("n1"));
        load.terminal = true;
        assert_eq!(load.counted_on(), None);
        load.terminal = false;
        load.node_name = Some(String::new());
        assert_eq!(load.counted_on(), None);
    }
}
