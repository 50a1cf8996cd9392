//! core/v1 resource fields -> domain amounts: requests (§j.2), allocatable, the scheduler's
//! `PodScheduled` verdict (§j.4), and the compact load of a pod no DaemonSet controls (§j.3).
//!
//! Why here: the quantities arrive as k8s-openapi strings; the domain parses them (§j.1) and
//! the edge only picks the fields. A value the API server would never have stored (it parses
//! every quantity on write) is left out rather than guessed.

use super::events::{cut, MAX_MESSAGE, MAX_REASON};
use crate::domain::resources::fit::Amounts;
use crate::domain::resources::load::{PodLoad, Requests, SchedulingFailure};
use crate::domain::resources::{InitContainerRequests, PodResources, Quantity, ResourceList};
use k8s_openapi::api::core::v1::{Container, Node, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use std::collections::BTreeMap;

/// A k8s-openapi resource map as a domain list; unparsable entries are skipped.
fn list(map: Option<&BTreeMap<String, ApiQuantity>>) -> ResourceList {
    let mut out = ResourceList::new();
    for (name, q) in map.into_iter().flatten() {
        if let Ok(q) = Quantity::parse(&q.0) {
            out.set(name, q);
        }
    }
    out
}

fn container_requests(c: &Container) -> ResourceList {
    list(c.resources.as_ref().and_then(|r| r.requests.as_ref()))
}

/// What a pod of this spec requests of its node (§j.2), in scheduler units.
pub fn spec_requests(spec: &PodSpec) -> Amounts {
    let resources = PodResources {
        containers: spec.containers.iter().map(container_requests).collect(),
        init_containers: spec
            .init_containers
            .iter()
            .flatten()
            .map(|c| InitContainerRequests {
                requests: container_requests(c),
                sidecar: c.restart_policy.as_deref() == Some("Always"),
            })
            .collect(),
        pod_level: list(spec.resources.as_ref().and_then(|r| r.requests.as_ref())),
        overhead: list(spec.overhead.as_ref()),
    };
    Amounts::from_list(&resources.requests())
}

/// A node's `status.allocatable` in scheduler units (what NodeInfo compares with, §j.4).
pub fn node_allocatable(node: &Node) -> Amounts {
    Amounts::from_list(&list(
        node.status.as_ref().and_then(|s| s.allocatable.as_ref()),
    ))
}

/// The pod's `PodScheduled=False` condition, reason and message bounded like an event's.
pub fn scheduling_failure(pod: &Pod) -> Option<Box<SchedulingFailure>> {
    let condition = pod
        .status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "PodScheduled" && c.status == "False")?;
    Some(Box::new(SchedulingFailure {
        reason: cut(condition.reason.as_deref().unwrap_or(""), MAX_REASON),
        message: cut(condition.message.as_deref().unwrap_or(""), MAX_MESSAGE),
    }))
}

/// A pod's own requests, compact.
pub fn pod_requests(pod: &Pod) -> Requests {
    pod.spec
        .as_ref()
        .map(|s| Requests::from_amounts(&spec_requests(s)))
        .unwrap_or_default()
}

/// A pod no DaemonSet controls, as what it adds to its node's sums (§j.3).
pub fn pod_load(pod: &Pod) -> PodLoad {
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
    PodLoad {
        uid: pod.metadata.uid.clone().unwrap_or_default(),
        namespace: pod.metadata.namespace.clone().unwrap_or_default(),
        node_name: pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.clone())
            .filter(|n| !n.is_empty()),
        requests: pod_requests(pod),
        terminal: matches!(phase, Some("Succeeded" | "Failed")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{PodCondition, PodStatus, ResourceRequirements};

    fn reqs(pairs: &[(&str, &str)]) -> Option<ResourceRequirements> {
        Some(ResourceRequirements {
            requests: Some(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), ApiQuantity(v.to_string())))
                    .collect(),
            ),
            ..Default::default()
        })
    }

    #[test]
    fn a_workload_pod_becomes_its_node_and_summed_requests_j2_j3() {
        let pod = Pod {
            metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                uid: Some("u1".into()),
                namespace: Some("shop".into()),
                ..Default::default()
            },
            spec: Some(PodSpec {
                node_name: Some("worker-1".into()),
                containers: vec![
                    Container {
                        resources: reqs(&[("cpu", "250m"), ("memory", "128Mi")]),
                        ..Default::default()
                    },
                    Container {
                        resources: reqs(&[("cpu", "0.5"), ("example.com/dongle", "2")]),
                        ..Default::default()
                    },
                ],
                ..Default::default()
            }),
            status: Some(PodStatus {
                phase: Some("Running".into()),
                ..Default::default()
            }),
        };
        let load = pod_load(&pod);
        assert_eq!(load.counted_on(), Some("worker-1"));
        assert_eq!(load.requests.cpu_milli, 750);
        assert_eq!(load.requests.memory, 128 << 20);
        assert_eq!(load.requests.to_amounts().get("example.com/dongle"), 2);
    }

    #[test]
    fn the_scheduler_verdict_is_quoted_as_written_j4() {
        let pod = Pod {
            status: Some(PodStatus {
                conditions: Some(vec![PodCondition {
                    type_: "PodScheduled".into(),
                    status: "False".into(),
                    reason: Some("Unschedulable".into()),
                    message: Some("0/1 nodes are available: 1 Insufficient cpu.".into()),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
            ..Default::default()
        };
        let failure = scheduling_failure(&pod).unwrap();
        assert_eq!(failure.reason, "Unschedulable");
        assert_eq!(
            failure.message,
            "0/1 nodes are available: 1 Insufficient cpu."
        );
        assert!(scheduling_failure(&Pod::default()).is_none());
    }
}
