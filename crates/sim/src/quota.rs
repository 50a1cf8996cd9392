//! ResourceQuota in the simulated cluster (§l.4, §l.6): API objects turned into the domain's
//! quota facts, the ResourceQuota admission's refusal of a new pod, and the status the quota
//! controller writes.
//!
//! Why one module for the three: the HTTP API and the DaemonSet controller both create pods
//! and must refuse the same ones (`refusal`), and the store keeps every quota's `status.used`
//! current as pods come and go (`store/write/quota.rs`); all of them read pods and quotas the
//! same way, here. The rules themselves are `crate::domain::quota`.
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, ResourceQuota};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use serde_json::{json, Map, Value};

use crate::domain::quota::{self, Amount, AmountList, ContainerQuota, PodQuota, QuotaState};
use crate::store::Store;

/// A resource map as amounts; a value that does not parse (the API refuses it on write, so
/// only a hand-made object holds one) is left out.
fn amounts(map: Option<&BTreeMap<String, ApiQuantity>>) -> AmountList {
    map.into_iter()
        .flatten()
        .filter_map(|(name, q)| Amount::parse(&q.0).ok().map(|a| (name.clone(), a)))
        .collect()
}

/// One container; a limit without a request requests the limit, as the API server's
/// defaulting (`SetDefaults_Pod`) leaves it before admission.
fn container(c: &Container) -> ContainerQuota {
    let resources = c.resources.as_ref();
    let limits = amounts(resources.and_then(|r| r.limits.as_ref()));
    let mut requests = amounts(resources.and_then(|r| r.requests.as_ref()));
    for (name, limit) in &limits {
        requests.entry(name.clone()).or_insert(*limit);
    }
    ContainerQuota {
        name: c.name.clone(),
        requests,
        limits,
        sidecar: c.restart_policy.as_deref() == Some("Always"),
    }
}

/// What the quota reads of a pod: its containers' requests and limits, the overhead, and
/// whether it is terminal.
pub fn pod_quota(pod: &Pod) -> PodQuota {
    let spec = pod.spec.as_ref();
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    PodQuota {
        containers: spec
            .map(|s| s.containers.iter().map(container).collect())
            .unwrap_or_default(),
        init_containers: spec
            .and_then(|s| s.init_containers.as_ref())
            .map(|cs| cs.iter().map(container).collect())
            .unwrap_or_default(),
        overhead: amounts(spec.and_then(|s| s.overhead.as_ref())),
        terminal: matches!(phase, Some("Failed" | "Succeeded")),
    }
}

/// Whether the quota has scopes, which the sim does not evaluate (§l.6): the admission skips
/// such a quota and its status gets `hard` only.
pub fn is_scoped(q: &ResourceQuota) -> bool {
    let spec = q.spec.as_ref();
    spec.and_then(|s| s.scopes.as_ref())
        .is_some_and(|s| !s.is_empty())
        || spec
            .and_then(|s| s.scope_selector.as_ref())
            .and_then(|s| s.match_expressions.as_ref())
            .is_some_and(|e| !e.is_empty())
}

/// The quota as the admission reads it (its status), or None for a scoped one.
pub fn quota_state(q: &ResourceQuota) -> Option<QuotaState> {
    if is_scoped(q) {
        return None;
    }
    let status = q.status.as_ref();
    Some(QuotaState {
        name: q.metadata.name.clone().unwrap_or_default(),
        hard: amounts(status.and_then(|s| s.hard.as_ref())),
        used: amounts(status.and_then(|s| s.used.as_ref())),
    })
}

/// The ResourceQuota admission's refusal of creating `pod` in `namespace`, whole
/// (`pods "NAME" is forbidden: exceeded quota: …`), or None when every quota admits it. A
/// validating plugin, the last one: it names the generated pod, as Pod Security does.
pub fn refusal(store: &Store, namespace: &str, pod: &Pod) -> Option<String> {
    let quotas: Vec<QuotaState> = store
        .list::<ResourceQuota>(Some(namespace))
        .iter()
        .filter_map(quota_state)
        .collect();
    if quotas.is_empty() {
        return None;
    }
    let cause = quota::admit(&quotas, &pod_quota(pod)).err()?;
    Some(format!(
        "pods {:?} is forbidden: {cause}",
        crate::api::pod_security::object_name(pod)
    ))
}

/// A list as the API prints it: each amount canonical (`800m`, `128Mi`).
pub fn to_json(list: &AmountList) -> Value {
    Value::Object(
        list.iter()
            .map(|(name, a)| (name.clone(), json!(a.to_string())))
            .collect::<Map<String, Value>>(),
    )
}

#[cfg(test)]
mod tests;
