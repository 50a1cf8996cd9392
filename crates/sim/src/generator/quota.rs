//! `quota=SHARE` in a generate spec: a ResourceQuota on the log agent's namespace that allows
//! that share of the cluster's node count in pods, so the log agent's pods past it are refused
//! by the ResourceQuota admission with kube-apiserver's words (§l.4, §l.6).
//!
//! Why: a generated cluster can then show quota refusals at any size, as the demo (whose cells
//! the browser specs count) does not.
use k8s_openapi::api::core::v1::{ResourceQuota, ResourceQuotaSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::scenario::Scenario;

/// The quota's name.
pub const NAME: &str = "log-agents";

/// The quota `share` asks for, in the namespace of `daemonset` (the first DaemonSet when it is
/// not generated); None for a share of 0.
pub fn log_agent_quota(scenario: &Scenario, daemonset: &str, share: f64) -> Option<ResourceQuota> {
    if share <= 0.0 {
        return None;
    }
    let ds = scenario
        .daemonsets
        .iter()
        .find(|d| d.metadata.name.as_deref() == Some(daemonset))
        .or_else(|| scenario.daemonsets.first())?;
    let pods = (share * scenario.nodes.len() as f64).floor() as u64;
    Some(ResourceQuota {
        metadata: ObjectMeta {
            name: Some(NAME.into()),
            namespace: ds.metadata.namespace.clone(),
            ..ObjectMeta::default()
        },
        spec: Some(ResourceQuotaSpec {
            hard: Some([("pods".to_string(), Quantity(pods.to_string()))].into()),
            ..ResourceQuotaSpec::default()
        }),
        status: None,
    })
}
