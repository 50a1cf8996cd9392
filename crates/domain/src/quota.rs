//! ResourceQuota on pods (§l.4): what a pod charges, what the quota controller writes in
//! `status.used`, and the ResourceQuota admission's verdict on a new pod, in kube-apiserver's
//! words (`exceeded quota: …`, `failed quota: …: must specify …`, `status unknown for quota: …`).
//!
//! Why pure and here: the sim refuses the creations a real API server would refuse and keeps
//! the quota's status as kube-controller-manager does; the rule lives once, tested beside the
//! code, and the sim only converts API objects into these facts. Mirrors
//! `pkg/quota/v1/evaluator/core/pods.go` (`PodUsageFunc`, `Constraints`, `MatchingResources`),
//! `staging/.../admission/plugin/resourcequota/controller.go` (`CheckRequest`) and
//! `staging/.../quota/v1/resources.go` (`Add`, `Mask`, `LessThanOrEqual`).
//! Quota scopes (`scopes`, `scopeSelector`) are not evaluated: the caller leaves a scoped quota
//! out (docs/kubernetes-rules.md §l.6).

use std::collections::BTreeMap;

use crate::resources::{InitContainerRequests, PodResources, ResourceList};

pub mod amount;
pub mod validation;

pub use amount::{Amount, Format};

/// Which rule of `docs/kubernetes-rules.md` each public function of this module mirrors.
pub const RULES: &[(&str, &str)] = &[
    ("pod_usage", "§l.6 (what a pod charges)"),
    (
        "matching_resources",
        "§l.6 (the resources a pod quota tracks)",
    ),
    ("constraints", "§l.4, §l.6 (must specify)"),
    ("used", "§l.6 (status.used)"),
    ("admit", "§l.4, §l.6 (the admission's check)"),
    (
        "validation::validate_hard",
        "§l.6 (spec.hard on create and update)",
    ),
];

/// A resource list with formats, sorted by name (`v1.ResourceList` as quota prints it).
pub type AmountList = BTreeMap<String, Amount>;

/// `count/pods`: every pod in storage, terminal or not.
pub const COUNT_PODS: &str = "count/pods";

/// The fixed names the pod evaluator tracks (`podResources`).
const POD_RESOURCES: &[&str] = &[
    COUNT_PODS,
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
];

/// The quota resources a container must request when a quota tracks them (`validationSet`:
/// "it was a mistake", kept for compatibility).
const VALIDATION_SET: &[&str] = &[
    "cpu",
    "memory",
    "requests.cpu",
    "requests.memory",
    "limits.cpu",
    "limits.memory",
];

/// One container's resources as the quota reads them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContainerQuota {
    /// The container's name (named in `must specify … for: NAME`).
    pub name: String,
    /// `resources.requests`, after the API server's defaulting (a limit without a request
    /// requests the limit).
    pub requests: AmountList,
    /// `resources.limits`.
    pub limits: AmountList,
    /// A restartable init container (`restartPolicy: Always`).
    pub sidecar: bool,
}

/// The parts of a pod the quota charges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodQuota {
    /// The app containers.
    pub containers: Vec<ContainerQuota>,
    /// The init containers, in order.
    pub init_containers: Vec<ContainerQuota>,
    /// `spec.overhead`.
    pub overhead: AmountList,
    /// `status.phase` is Failed or Succeeded: no compute charge (`QuotaV1Pod`).
    pub terminal: bool,
}

/// A quota as the admission reads it: `status.hard` and `status.used` (not the spec: the
/// controller copies it into the status).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuotaState {
    /// The quota's name.
    pub name: String,
    /// `status.hard`.
    pub hard: AmountList,
    /// `status.used`.
    pub used: AmountList,
}

fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `MatchingResources`: the names of `hard` the pod evaluator tracks: the fixed ones, hugepages
/// and `requests.<extended resource>`.
pub fn matching_resources<'a>(hard: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    hard.into_iter()
        .filter(|name| {
            POD_RESOURCES.contains(name)
                || name.starts_with("hugepages-")
                || name.starts_with("requests.hugepages-")
                || (!is_native(name) && name.starts_with("requests."))
        })
        .map(str::to_string)
        .collect()
}

/// The pod-wide sum of one kind of list (`PodRequests`/`PodLimits`, §j.2), each resource in the
/// format of the first container that names it.
fn pod_sum(pod: &PodQuota, pick: impl Fn(&ContainerQuota) -> &AmountList) -> AmountList {
    let plain = |list: &AmountList| {
        let mut out = ResourceList::new();
        for (name, amount) in list {
            out.set(name, amount.quantity);
        }
        out
    };
    let resources = PodResources {
        containers: pod.containers.iter().map(|c| plain(pick(c))).collect(),
        init_containers: pod
            .init_containers
            .iter()
            .map(|c| InitContainerRequests {
                requests: plain(pick(c)),
                sidecar: c.sidecar,
            })
            .collect(),
        pod_level: ResourceList::new(),
        overhead: plain(&pod.overhead),
    };
    let formats = pod
        .containers
        .iter()
        .chain(&pod.init_containers)
        .map(&pick)
        .chain([&pod.overhead]);
    let mut format_of: BTreeMap<&str, Format> = BTreeMap::new();
    for list in formats {
        for (name, amount) in list {
            format_of.entry(name.as_str()).or_insert(amount.format);
        }
    }
    resources
        .requests()
        .iter()
        .map(|(name, quantity)| {
            let format = format_of.get(name).copied().unwrap_or_default();
            (name.to_string(), Amount { quantity, format })
        })
        .collect()
}

/// `podComputeUsageHelper`: `pods=1` and the compute names of the requests and limits given.
fn compute_usage(requests: &AmountList, limits: &AmountList) -> AmountList {
    let mut out = AmountList::new();
    out.insert("pods".into(), Amount::units(1));
    for resource in ["cpu", "memory", "ephemeral-storage"] {
        if let Some(request) = requests.get(resource) {
            out.insert(resource.into(), *request);
            out.insert(format!("requests.{resource}"), *request);
        }
        if let Some(limit) = limits.get(resource) {
            out.insert(format!("limits.{resource}"), *limit);
        }
    }
    for (name, request) in requests {
        if name.starts_with("hugepages-") {
            out.insert(name.clone(), *request);
            out.insert(format!("requests.{name}"), *request);
        } else if !is_native(name) && !name.starts_with("requests.") {
            out.insert(format!("requests.{name}"), *request);
        }
    }
    out
}

/// `PodUsageFunc`: `count/pods=1` always; unless the pod is terminal, `pods=1` and its
/// requests and limits under every quota name (`cpu` and `requests.cpu` alike).
pub fn pod_usage(pod: &PodQuota) -> AmountList {
    let mut out = AmountList::new();
    out.insert(COUNT_PODS.into(), Amount::units(1));
    if pod.terminal {
        return out;
    }
    let requests = pod_sum(pod, |c| &c.requests);
    let limits = pod_sum(pod, |c| &c.limits);
    out.extend(compute_usage(&requests, &limits));
    out
}

/// `Constraints`: with a quota on cpu or memory (`validationSet`), every container must
/// name it: `must specify requests.cpu for: agent; requests.memory for: a,b`.
pub fn constraints(required: &[String], pod: &PodQuota) -> Result<(), String> {
    let required: Vec<&str> = required
        .iter()
        .map(String::as_str)
        .filter(|r| VALIDATION_SET.contains(r))
        .collect();
    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for container in pod.containers.iter().chain(&pod.init_containers) {
        let has = compute_usage(&container.requests, &container.limits);
        for resource in &required {
            if !has.contains_key(*resource) {
                let names = missing.entry(resource).or_default();
                if !names.contains(&container.name.as_str()) {
                    names.push(&container.name);
                }
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let parts: Vec<String> = missing
        .into_iter()
        .map(|(resource, mut names)| {
            names.sort_unstable();
            format!("{resource} for: {}", names.join(","))
        })
        .collect();
    Err(format!("must specify {}", parts.join("; ")))
}

/// What the quota controller writes in `status.used` for the pod resources of `hard`: each
/// starts at `0` and adds every pod's usage (`CalculateUsageStats`).
pub fn used<'a>(hard: &AmountList, pods: impl IntoIterator<Item = &'a AmountList>) -> AmountList {
    let tracked = matching_resources(hard.keys().map(String::as_str));
    let mut out: AmountList = tracked
        .iter()
        .map(|name| (name.clone(), Amount::default()))
        .collect();
    for usage in pods {
        for name in &tracked {
            if let (Some(sum), Some(add)) = (out.get_mut(name), usage.get(name)) {
                *sum = sum.plus(*add);
            }
        }
    }
    out
}

/// `prettyPrint`: `name=value` sorted by name, joined by `,`.
fn pretty(list: &AmountList, names: &[&str]) -> String {
    names
        .iter()
        .filter_map(|n| list.get(*n).map(|a| format!("{n}={a}")))
        .collect::<Vec<_>>()
        .join(",")
}

/// `CheckRequest` for a pod create: the first quota the pod fails, in kube-apiserver's words
/// (without the `pods "NAME" is forbidden: ` envelope), or Ok. Quotas are checked in the order
/// given; `Constraints` and the usage-stats check come before any arithmetic.
pub fn admit(quotas: &[QuotaState], pod: &PodQuota) -> Result<(), String> {
    let mut interesting = Vec::new();
    for quota in quotas {
        let restricted = matching_resources(quota.hard.keys().map(String::as_str));
        if restricted.is_empty() {
            continue;
        }
        constraints(&restricted, pod).map_err(|e| format!("failed quota: {}: {e}", quota.name))?;
        let mut unknown: Vec<&str> = restricted
            .iter()
            .map(String::as_str)
            .filter(|r| !quota.used.contains_key(*r))
            .collect();
        if !unknown.is_empty() {
            unknown = restricted.iter().map(String::as_str).collect();
            unknown.sort_unstable();
            return Err(format!(
                "status unknown for quota: {}, resources: {}",
                quota.name,
                unknown.join(",")
            ));
        }
        interesting.push(quota);
    }
    let usage: AmountList = pod_usage(pod)
        .into_iter()
        .filter(|(_, a)| !a.quantity.is_zero())
        .collect();
    for quota in interesting {
        let requested: AmountList = usage
            .iter()
            .filter(|(name, _)| quota.hard.contains_key(*name))
            .map(|(n, a)| (n.clone(), *a))
            .collect();
        let exceeded: Vec<&str> = requested
            .iter()
            .filter(|(name, add)| {
                let after = quota
                    .used
                    .get(*name)
                    .copied()
                    .unwrap_or_default()
                    .plus(**add);
                quota
                    .hard
                    .get(*name)
                    .is_some_and(|hard| after.quantity > hard.quantity)
            })
            .map(|(n, _)| n.as_str())
            .collect();
        if !exceeded.is_empty() {
            return Err(format!(
                "exceeded quota: {}, requested: {}, used: {}, limited: {}",
                quota.name,
                pretty(&requested, &exceeded),
                pretty(&quota.used, &exceeded),
                pretty(&quota.hard, &exceeded)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
