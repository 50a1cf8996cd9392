//! Per-node sums of what the pods bound there request (§j.3), kept per event.
//!
//! Why sums and not pods: the scheduler's verdict on a pending daemon pod depends on every pod
//! bound to its node, workload pods included, and a cluster has far more of those than daemon
//! pods. The store keeps, per workload pod, only its key, node, namespace and requests (about
//! 48 bytes of table entry; README, Performance), and per node the running sums. Daemon pods'
//! requests live in their `PodFacts` already: the caller adds and removes them here with
//! [`NodeLoads::add_daemon`] so they are never held twice.

use crate::domain::resources::fit::Amounts;
use crate::domain::resources::load::{PodLoad, Requests};
use crate::domain::{PodFacts, PodPhase};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// What the pods bound to one node request, in scheduler units, and how many there are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeLoad {
    /// The summed requests (§j.2 per pod, summed as NodeInfo does).
    pub requested: Amounts,
    /// Pods counted (bound, not terminal), against allocatable `pods`.
    pub pods: i64,
}

/// One workload pod's entry: where it counts and what it adds.
#[derive(Debug)]
struct Entry {
    node: u32,
    namespace: u32,
    requests: Requests,
}

/// A pod uid as 128 bits: a UUID's own bits, else a hash of the string (two keyed SipHashes; a
/// collision between two pods of one cluster is not a practical concern at 2⁻¹²⁸).
fn uid_key(uid: &str) -> u128 {
    let hex: Vec<u8> = uid.bytes().filter(|b| *b != b'-').collect();
    if hex.len() == 32 {
        if let Ok(text) = std::str::from_utf8(&hex) {
            if let Ok(v) = u128::from_str_radix(text, 16) {
                return v;
            }
        }
    }
    let half = |salt: u8| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        salt.hash(&mut h);
        uid.hash(&mut h);
        h.finish()
    };
    (u128::from(half(1)) << 64) | u128::from(half(2))
}

/// Interned names (nodes, namespaces): a workload pod holds a 4-byte index, not a String.
#[derive(Debug, Default)]
struct Names {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }
}

/// The per-node sums and the workload pods they come from.
#[derive(Debug, Default)]
pub(crate) struct NodeLoads {
    nodes: Names,
    namespaces: Names,
    workload: HashMap<u128, Entry>,
    sums: HashMap<u32, NodeLoad>,
}

/// Whether a daemon pod counts in its node's sums (§j.3): the what-if's own-pod part must
/// be the same part the sums hold.
pub(crate) fn counts_on_node(pod: &PodFacts) -> bool {
    daemon_node(pod).is_some()
}

/// The node a daemon pod counts on (§j.3): bound (`spec.nodeName`, not the affinity pin) and
/// not terminal.
fn daemon_node(pod: &PodFacts) -> Option<&str> {
    if !pod.bound || matches!(pod.phase, PodPhase::Succeeded | PodPhase::Failed) {
        return None;
    }
    pod.node_name.as_deref()
}

impl NodeLoads {
    /// What the pods bound to `node` request (empty when none is).
    pub(crate) fn of(&self, node: &str) -> NodeLoad {
        self.nodes
            .ids
            .get(node)
            .and_then(|id| self.sums.get(id))
            .cloned()
            .unwrap_or_default()
    }

    /// Number of workload pods held (for counts and the memory figures).
    pub(crate) fn workload_len(&self) -> usize {
        self.workload.len()
    }

    fn change(&mut self, node: u32, requests: &Requests, sign: i64) {
        let sum = self.sums.entry(node).or_default();
        sum.requested.add_signed(&requests.to_amounts(), sign);
        sum.pods = sum.pods.saturating_add(sign);
        if sum.pods == 0 && sum.requested.is_empty() {
            self.sums.remove(&node);
        }
    }

    /// Adds (`sign` 1) or removes (−1) a daemon pod's requests on its node, if it counts.
    pub(crate) fn add_daemon(&mut self, pod: &PodFacts, sign: i64) {
        if let Some(node) = daemon_node(pod) {
            let id = self.nodes.id(node);
            self.change(id, &pod.requests, sign);
        }
    }

    /// Records a workload pod, replacing what it added before (nothing when it counts nowhere).
    pub(crate) fn upsert_workload(&mut self, load: PodLoad) {
        self.remove_workload(&load.uid);
        let Some(node) = load.counted_on() else {
            return;
        };
        let node = self.nodes.id(node);
        let namespace = self.namespaces.id(&load.namespace);
        self.change(node, &load.requests, 1);
        self.workload.insert(
            uid_key(&load.uid),
            Entry {
                node,
                namespace,
                requests: load.requests,
            },
        );
    }

    /// Forgets a workload pod by uid.
    pub(crate) fn remove_workload(&mut self, uid: &str) {
        if let Some(old) = self.workload.remove(&uid_key(uid)) {
            self.change(old.node, &old.requests, -1);
        }
    }

    /// Forgets the workload pods of one namespace (None: all), before a relist re-adds them.
    pub(crate) fn clear_workload(&mut self, namespace: Option<&str>) {
        let ns = namespace.map(|n| self.namespaces.id(n));
        let gone: Vec<u128> = self
            .workload
            .iter()
            .filter(|(_, e)| ns.is_none_or(|ns| e.namespace == ns))
            .map(|(k, _)| *k)
            .collect();
        for key in gone {
            if let Some(old) = self.workload.remove(&key) {
                self.change(old.node, &old.requests, -1);
            }
        }
        self.workload.shrink_to_fit();
    }

    /// Forgets every daemon pod's part of the sums (before re-adding the relisted pods); the
    /// workload pods' part stays.
    pub(crate) fn rebuild_daemon<'a>(&mut self, pods: impl Iterator<Item = &'a PodFacts>) {
        let workload: Vec<(u32, Requests)> = self
            .workload
            .values()
            .map(|e| (e.node, e.requests.clone()))
            .collect();
        self.sums.clear();
        for (node, requests) in workload {
            self.change(node, &requests, 1);
        }
        for pod in pods {
            self.add_daemon(pod, 1);
        }
    }
}

#[cfg(test)]
mod tests;
