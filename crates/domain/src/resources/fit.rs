//! Does a pod fit on a node's room? NodeResourcesFit's arithmetic (§j.3, §j.4).
//!
//! Why here: the scheduler leaves a daemon pod pending when its requests exceed the node's
//! allocatable minus what the pods bound there request; the explanation repeats that arithmetic
//! from the watch data (per-node sums, never the pod objects) and the sim's scheduler uses the
//! same function. Mirrors `pkg/scheduler/framework/plugins/noderesources/fit.go` (`fitsRequest`)
//! and `pkg/scheduler/framework/types.go` (`Resource.Add`).

use serde::{Deserialize, Serialize};

use super::{scheduler_amount, ResourceList, CPU, EPHEMERAL_STORAGE, MEMORY, PODS};

/// Amounts in the scheduler's units (cpu in milli-cores, the rest in whole units), sorted by
/// resource name: a node's allocatable, or what the pods bound to it request.
///
/// Why integers and not quantities: the scheduler converts each pod's request once
/// (`MilliValue()`/`Value()`, rounded up) and sums integers; summing the same way gives the
/// same "Insufficient" verdicts at the edge.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Amounts(Vec<(String, i64)>);

/// Whether the scheduler counts a resource (`Resource.Add`): cpu, memory, ephemeral-storage,
/// pods, and the scalar resources (`IsScalarResourceName`: extended resources such as
/// `nvidia.com/gpu`, prefixed native ones, `hugepages-*`, `attachable-volumes-*`). Any other
/// name is ignored by NodeResourcesFit.
pub fn counted_by_scheduler(name: &str) -> bool {
    matches!(name, CPU | MEMORY | EPHEMERAL_STORAGE | PODS)
        || name.contains('/')
        || name.starts_with("hugepages-")
        || name.starts_with("attachable-volumes-")
}

impl Amounts {
    /// No amounts.
    pub fn new() -> Amounts {
        Amounts(Vec::new())
    }

    /// A resource list in scheduler units, keeping only the resources the scheduler counts.
    pub fn from_list(list: &ResourceList) -> Amounts {
        let mut amounts = Amounts::new();
        for (name, q) in list.iter() {
            if counted_by_scheduler(name) {
                amounts.set(name, scheduler_amount(name, q));
            }
        }
        amounts
    }

    /// One resource's amount (zero when absent, as the scheduler's zero-valued fields).
    pub fn get(&self, name: &str) -> i64 {
        self.0
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .map_or(0, |i| self.0[i].1)
    }

    /// Sets one resource's amount.
    pub fn set(&mut self, name: &str, amount: i64) {
        match self.0.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
            Ok(i) => self.0[i].1 = amount,
            Err(i) => self.0.insert(i, (name.to_owned(), amount)),
        }
    }

    /// Adds (or, with `sign` −1, removes) every amount of `other`, saturating; an entry that
    /// drops to zero is removed so a node's sums return to empty when its pods leave.
    pub fn add_signed(&mut self, other: &Amounts, sign: i64) {
        for (name, amount) in other.iter() {
            let sum = self.get(name).saturating_add(amount.saturating_mul(sign));
            if sum == 0 {
                if let Ok(i) = self.0.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
                    self.0.remove(i);
                }
            } else {
                self.set(name, sum);
            }
        }
    }

    /// The entries, sorted by resource name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> + '_ {
        self.0.iter().map(|(n, a)| (n.as_str(), *a))
    }

    /// Whether no resource has an amount.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One resource a node cannot give a pod (`InsufficientResource`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shortfall {
    /// The resource (`cpu`, `memory`, `pods`, `nvidia.com/gpu` …).
    pub resource: String,
    /// The scheduler's reason: `Insufficient cpu`, or `Too many pods`.
    pub reason: String,
    /// What the pod asks, in scheduler units (1 for `pods`).
    pub asked: i64,
    /// What the bound pods already request (the pod count for `pods`).
    pub used: i64,
    /// The node's allocatable.
    pub capacity: i64,
}

impl Shortfall {
    /// How much is missing: the ask minus the room left.
    pub fn short_by(&self) -> i64 {
        self.asked
            .saturating_sub(self.capacity.saturating_sub(self.used))
    }

    /// The room left on the node: the largest request of this resource that fits (never below 0).
    pub fn room(&self) -> i64 {
        self.capacity.saturating_sub(self.used).max(0)
    }
}

/// `fitsRequest`: the resources a node cannot give a pod asking `ask` (already the pod's total
/// requests, §j.2, in scheduler units), given its `allocatable`, the sums `requested` by the
/// `bound_pods` pods bound to it (§j.3). Empty when the pod fits (§j.4).
pub fn insufficient(
    allocatable: &Amounts,
    requested: &Amounts,
    bound_pods: i64,
    ask: &Amounts,
) -> Vec<Shortfall> {
    let mut out = Vec::new();
    let allowed_pods = allocatable.get(PODS);
    if bound_pods.saturating_add(1) > allowed_pods {
        out.push(Shortfall {
            resource: PODS.to_owned(),
            reason: "Too many pods".to_owned(),
            asked: 1,
            used: bound_pods,
            capacity: allowed_pods,
        });
    }
    let ordered =
        [CPU, MEMORY, EPHEMERAL_STORAGE]
            .into_iter()
            .chain(ask.iter().map(|(n, _)| n).filter(|n| {
                !matches!(*n, CPU | MEMORY | EPHEMERAL_STORAGE | PODS) && counted_by_scheduler(n)
            }));
    for name in ordered {
        let asked = ask.get(name);
        let capacity = allocatable.get(name);
        let used = requested.get(name);
        if asked > 0 && asked > capacity.saturating_sub(used) {
            out.push(Shortfall {
                resource: name.to_owned(),
                reason: format!("Insufficient {name}"),
                asked,
                used,
                capacity,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
