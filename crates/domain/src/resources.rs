//! Resource requests: quantities, resource lists and what a pod asks of its node (§j).
//!
//! Why here: the scheduler refuses to bind a daemon pod when the node's allocatable minus what
//! its bound pods request cannot hold what the pod asks (NodeResourcesFit), and the dashboard
//! explains a pending agent and the DaemonSet tax with that same arithmetic, in the server and
//! in the browser. The sim's scheduler uses the same functions, so the rule is written once.

pub mod fit;
pub mod quantity;

pub use quantity::{Quantity, QuantityError, QUANTITY_REGEX};

use serde::{Deserialize, Serialize};

/// `cpu`, counted by the scheduler in milli-cores (`MilliValue()`).
pub const CPU: &str = "cpu";
/// `memory`, in bytes.
pub const MEMORY: &str = "memory";
/// `ephemeral-storage`, in bytes.
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
/// `pods`: the node's pod capacity; every pod counts one against it.
pub const PODS: &str = "pods";

/// The amount the scheduler compares for one resource (`framework.Resource.Add`): cpu in
/// milli-units, every other resource in whole units, both rounded up (§j.1).
pub fn scheduler_amount(name: &str, quantity: Quantity) -> i64 {
    if name == CPU {
        quantity.milli_value()
    } else {
        quantity.value()
    }
}

/// A resource list (`v1.ResourceList`): resource name → quantity, sorted by name, each name once.
///
/// Why a sorted vector rather than a map: lists hold a handful of entries and are summed per pod;
/// a vector is smaller and iterates in a stable order for display.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceList(Vec<(String, Quantity)>);

/// A request or capacity that is not a quantity: the resource and Kubernetes' reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{resource}: {error}")]
pub struct ResourceListError {
    /// The resource whose value was refused.
    pub resource: String,
    /// Why, in kube-apiserver's words.
    pub error: QuantityError,
}

impl ResourceList {
    /// An empty list.
    pub fn new() -> ResourceList {
        ResourceList(Vec::new())
    }

    /// Parses name → quantity-string pairs (a `requests:` or `allocatable:` block); the first
    /// value Kubernetes would refuse is the error. A repeated name keeps the last value, as
    /// decoding a JSON object does.
    pub fn parse<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<ResourceList, ResourceListError> {
        let mut list = ResourceList::new();
        for (name, text) in pairs {
            let quantity = Quantity::parse(text).map_err(|error| ResourceListError {
                resource: name.to_owned(),
                error,
            })?;
            list.set(name, quantity);
        }
        Ok(list)
    }

    /// Sets one resource's quantity.
    pub fn set(&mut self, name: &str, quantity: Quantity) {
        match self.0.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
            Ok(i) => self.0[i].1 = quantity,
            Err(i) => self.0.insert(i, (name.to_owned(), quantity)),
        }
    }

    /// One resource's quantity, if the list names it.
    pub fn get(&self, name: &str) -> Option<Quantity> {
        self.0
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|i| self.0[i].1)
    }

    /// The entries, sorted by resource name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Quantity)> + '_ {
        self.0.iter().map(|(n, q)| (n.as_str(), *q))
    }

    /// Whether the list names no resource.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `addResourceList`: adds every entry of `other` (a missing entry counts as zero).
    pub fn add(&mut self, other: &ResourceList) {
        for (name, q) in other.iter() {
            let sum = self.get(name).unwrap_or_default().saturating_add(q);
            self.set(name, sum);
        }
    }

    /// `maxResourceList`: keeps, per resource, the larger of the two.
    pub fn max(&mut self, other: &ResourceList) {
        for (name, q) in other.iter() {
            match self.get(name) {
                Some(mine) if mine >= q => {}
                _ => self.set(name, q),
            }
        }
    }
}

/// One init container's requests, and whether it is a sidecar (`restartPolicy: Always`), which
/// keeps running beside the app containers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitContainerRequests {
    /// `resources.requests`.
    pub requests: ResourceList,
    /// `restartPolicy: Always` (a restartable init container, a sidecar).
    pub sidecar: bool,
}

/// The resource parts of a pod spec that decide what the pod asks of its node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodResources {
    /// Each app container's `resources.requests`.
    pub containers: Vec<ResourceList>,
    /// The init containers, in order.
    pub init_containers: Vec<InitContainerRequests>,
    /// `spec.resources.requests` (pod-level resources).
    pub pod_level: ResourceList,
    /// `spec.overhead` (set by the RuntimeClass admission).
    pub overhead: ResourceList,
}

/// Resources that pod-level requests may set (`IsSupportedPodLevelResource`).
const POD_LEVEL_RESOURCES: &[&str] = &[CPU, MEMORY];

impl PodResources {
    /// What the pod requests of its node, as `k8s.io/component-helpers/resource.PodRequests`
    /// computes it (§j.2): the app containers and sidecars summed, the larger of that and each
    /// init container's request (plus the sidecars started before it), pod-level requests in
    /// place of the aggregate for cpu and memory, then the overhead added.
    pub fn requests(&self) -> ResourceList {
        let mut reqs = ResourceList::new();
        for container in &self.containers {
            reqs.add(container);
        }
        let mut sidecars = ResourceList::new();
        let mut init = ResourceList::new();
        for container in &self.init_containers {
            if container.sidecar {
                reqs.add(&container.requests);
                sidecars.add(&container.requests);
                init.max(&sidecars);
            } else {
                let mut with_sidecars = container.requests.clone();
                with_sidecars.add(&sidecars);
                init.max(&with_sidecars);
            }
        }
        reqs.max(&init);
        for (name, q) in self.pod_level.iter() {
            if POD_LEVEL_RESOURCES.contains(&name) {
                reqs.set(name, q);
            }
        }
        reqs.add(&self.overhead);
        reqs
    }
}

#[cfg(test)]
mod tests;
