//! Workload pods of a generated cluster: one per untainted node, owned by no DaemonSet, bound
//! to its node and requesting a chosen share of its allocatable cpu and memory.
//!
//! Why: a DaemonSet pod competes for a node's room with everything else bound there (§j.3),
//! and at `workload=0.97` the agents that ask more than the rest stay pending as on a full
//! real node (§k), so the matrix, the scheduler's messages and the memory the dashboard spends
//! on non-daemon pods can be seen and measured at scale.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Node, Pod, PodSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::domain::resources::Quantity;

/// The namespace the workload pods live in.
pub const NAMESPACE: &str = "workloads";

/// `share` of an allocatable quantity, in the unit the scheduler counts (milli for cpu).
fn part(alloc: Option<&ApiQuantity>, share: f64, milli: bool) -> Option<String> {
    let q = Quantity::parse(&alloc?.0).ok()?;
    let whole = if milli { q.milli_value() } else { q.value() };
    let amount = (whole as f64 * share).floor() as i64;
    Some(if milli {
        format!("{amount}m")
    } else {
        amount.to_string()
    })
}

/// One workload pod per node without taints, asking `share` (0..=1) of its cpu and memory;
/// none when `share` is 0.
pub fn pods(nodes: &[Node], share: f64) -> Vec<Pod> {
    if share <= 0.0 {
        return Vec::new();
    }
    nodes
        .iter()
        .filter(|n| {
            n.spec
                .as_ref()
                .and_then(|s| s.taints.as_ref())
                .is_none_or(Vec::is_empty)
        })
        .filter_map(|node| {
            let name = node.metadata.name.clone()?;
            let alloc = node.status.as_ref()?.allocatable.as_ref()?;
            let mut requests = BTreeMap::new();
            if let Some(cpu) = part(alloc.get("cpu"), share, true) {
                requests.insert("cpu".to_string(), ApiQuantity(cpu));
            }
            if let Some(memory) = part(alloc.get("memory"), share, false) {
                requests.insert("memory".to_string(), ApiQuantity(memory));
            }
            Some(Pod {
                metadata: ObjectMeta {
                    name: Some(format!("workload-{name}")),
                    namespace: Some(NAMESPACE.into()),
                    labels: Some(BTreeMap::from([("app".into(), "workload".into())])),
                    ..Default::default()
                },
                spec: Some(PodSpec {
                    node_name: Some(name),
                    containers: vec![Container {
                        name: "batch".into(),
                        image: Some("registry.example/batch:1".into()),
                        resources: Some(ResourceRequirements {
                            requests: Some(requests),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
                status: None,
            })
        })
        .collect()
}
