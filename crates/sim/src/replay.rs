//! A scenario replayed into a real API server, and the same scenario as the simulated cluster
//! gets it: the two sides of the differential tests against Kubernetes' own control plane.
//!
//! Why: the sim's controller calls the same `domain` rules the dashboard draws with, so a
//! wrong rule is wrong on both sides. Kubernetes' own kube-controller-manager is the reference;
//! both clusters must start from the same objects for their matrices to be comparable. Only
//! what a user creates is replayed (Namespaces, PriorityClasses, Nodes, workload pods,
//! DaemonSets): daemon pods, ControllerRevisions and every status but a node's are the
//! controllers' to make, on both sides. A workload pod is one no DaemonSet owns, bound by
//! `spec.nodeName`: it is created before the DaemonSets, so the scheduler sees its node's room
//! taken (§j.3, §k) and the kubelet stand-in runs it.
//!
//! Nodes whose Ready condition is not True get the label [`NO_KUBELET_LABEL`]: the test
//! harness's kubelet stand-in (kwok) leaves them alone, so they stay NotReady with their pods
//! Pending, as the sim's kubelet keeps them. This module writes to a cluster: it is test
//! tooling (the differential tests, `examples/replay.rs`) and never reachable from `serve`.

use super::scenario::settings::{FailureMode, SimulationSettings};
use super::scenario::Scenario;
use crate::domain::names;
use crate::domain::scheduling::priority_class;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Namespace, Node, Pod, PodSpec};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, PostParams};
use kube::Client;

/// Label on nodes the kubelet stand-in must not manage (no heartbeats, no pod status).
pub const NO_KUBELET_LABEL: &str = "daemonscope.dev/no-kubelet";

/// The objects a user would create for a scenario, with everything the server sets removed.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    pub namespaces: Vec<Namespace>,
    /// Created after the namespaces, before the DaemonSets whose pods name them (§k.5).
    pub priority_classes: Vec<PriorityClass>,
    pub nodes: Vec<Node>,
    /// Pods no DaemonSet owns, bound by `spec.nodeName`; created after the nodes, before the
    /// DaemonSets.
    pub pods: Vec<Pod>,
    pub daemonsets: Vec<DaemonSet>,
    /// Images whose pods crash-loop (the kubelet stand-in's `KWOK_FAILING_IMAGES`).
    pub failing_images: Vec<String>,
}

/// Why a replay into a cluster failed, naming the object.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("cannot create {kind} {name}: {source}")]
    Create {
        kind: &'static str,
        name: String,
        source: kube::Error,
    },
    #[error("cannot write the sim scenario: {0}")]
    Serialize(#[from] serde_json::Error),
}

/// What is left of an object's metadata when a user writes it: name, namespace, labels,
/// annotations (minus the controller's own), owner references dropped (uids would not match).
fn user_metadata(meta: &ObjectMeta) -> ObjectMeta {
    let annotations = meta.annotations.clone().map(|mut a| {
        a.remove(names::TEMPLATE_GENERATION_ANNOTATION);
        a.remove("kubectl.kubernetes.io/last-applied-configuration");
        a
    });
    ObjectMeta {
        name: meta.name.clone(),
        namespace: meta.namespace.clone(),
        labels: meta.labels.clone(),
        annotations: annotations.filter(|a| !a.is_empty()),
        ..ObjectMeta::default()
    }
}

fn node_is_ready(node: &Node) -> bool {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
        .is_some_and(|c| c.status == "True")
}

/// A pod a user made and bound: owned by no DaemonSet, with a `spec.nodeName`. Its spec loses
/// what the Priority admission writes (`priority`, `preemptionPolicy`), which each API server
/// computes again from the class, and it has no status.
fn workload_pod(pod: &Pod) -> Option<Pod> {
    let owned_by_daemonset = pod
        .metadata
        .owner_references
        .iter()
        .flatten()
        .any(|o| o.kind == "DaemonSet");
    let spec = pod.spec.as_ref()?;
    if owned_by_daemonset || spec.node_name.as_deref().unwrap_or_default().is_empty() {
        return None;
    }
    Some(Pod {
        metadata: user_metadata(&pod.metadata),
        spec: Some(PodSpec {
            priority: None,
            preemption_policy: None,
            ..spec.clone()
        }),
        status: None,
    })
}

/// The user-made objects of `scenario`, ready to be created in any API server.
pub fn prepare(scenario: &Scenario) -> Replay {
    let namespaces = scenario
        .namespaces
        .iter()
        .map(|ns| Namespace {
            metadata: user_metadata(&ns.metadata),
            ..Namespace::default()
        })
        .collect();
    let nodes = scenario
        .nodes
        .iter()
        .map(|node| {
            let mut metadata = user_metadata(&node.metadata);
            if !node_is_ready(node) {
                metadata
                    .labels
                    .get_or_insert_with(Default::default)
                    .insert(NO_KUBELET_LABEL.into(), "true".into());
            }
            // Node status is the kubelet's; a node created with one keeps it (the API server
            // accepts status on a Node's create), which is how a NotReady node is made here.
            let status = node
                .status
                .as_ref()
                .map(|s| k8s_openapi::api::core::v1::NodeStatus {
                    conditions: s.conditions.as_ref().map(|c| {
                        c.iter()
                            .map(|c| k8s_openapi::api::core::v1::NodeCondition {
                                type_: c.type_.clone(),
                                status: c.status.clone(),
                                reason: c.reason.clone(),
                                message: c.message.clone(),
                                ..Default::default()
                            })
                            .collect()
                    }),
                    capacity: s.capacity.clone(),
                    allocatable: s.allocatable.clone(),
                    ..Default::default()
                });
            Node {
                metadata,
                spec: node.spec.clone(),
                status,
            }
        })
        .collect();
    let daemonsets = scenario
        .daemonsets
        .iter()
        .map(|ds| DaemonSet {
            metadata: user_metadata(&ds.metadata),
            spec: ds.spec.clone(),
            status: None,
        })
        .collect();
    let failing_images = scenario
        .settings
        .failing_images
        .iter()
        .filter(|f| f.mode == FailureMode::CrashLoopBackOff)
        .map(|f| f.image.clone())
        .collect();
    // The built-in classes exist on both sides from the start (§k.5): creating them again
    // would be refused as AlreadyExists.
    let priority_classes = scenario
        .priority_classes
        .iter()
        .filter(|c| {
            priority_class::system_class(c.metadata.name.as_deref().unwrap_or_default()).is_none()
        })
        .map(|c| PriorityClass {
            metadata: user_metadata(&c.metadata),
            ..c.clone()
        })
        .collect();
    Replay {
        namespaces,
        priority_classes,
        nodes,
        pods: scenario.pods.iter().filter_map(workload_pod).collect(),
        daemonsets,
        failing_images,
    }
}

impl Replay {
    /// The same objects as a scenario file for the simulated cluster: one JSON document each
    /// (YAML is a superset of JSON), and settings that keep only the crash-looping images,
    /// the one failure both sides can produce, with a kubelet as quick as the harness's
    /// (a pod bound, running and ready within a second), so both sides settle alike.
    pub fn to_sim_scenario(&self) -> Result<String, ReplayError> {
        let mut settings = SimulationSettings::default();
        settings.kubelet.schedule_delay = std::time::Duration::from_millis(100);
        settings.kubelet.container_creating_delay = std::time::Duration::from_millis(200);
        settings.kubelet.ready_delay = std::time::Duration::from_millis(200);
        settings.kubelet.termination_grace_period = std::time::Duration::from_millis(200);
        settings.failing_images = self
            .failing_images
            .iter()
            .map(|image| super::scenario::settings::FailingImage {
                image: image.clone(),
                mode: FailureMode::CrashLoopBackOff,
                message: None,
            })
            .collect();
        let mut docs = vec![serde_json::to_string(&serde_json::json!({
            "apiVersion": super::scenario::settings::SETTINGS_API_VERSION,
            "kind": super::scenario::settings::SETTINGS_KIND,
            "metadata": {"name": "replay"},
            "spec": settings,
        }))?];
        for ns in &self.namespaces {
            docs.push(with_kind(ns, "v1", "Namespace")?);
        }
        for class in &self.priority_classes {
            docs.push(with_kind(class, "scheduling.k8s.io/v1", "PriorityClass")?);
        }
        for node in &self.nodes {
            docs.push(with_kind(node, "v1", "Node")?);
        }
        for pod in &self.pods {
            docs.push(with_kind(pod, "v1", "Pod")?);
        }
        for ds in &self.daemonsets {
            docs.push(with_kind(ds, "apps/v1", "DaemonSet")?);
        }
        Ok(docs
            .iter()
            .map(|d| format!("---\n{d}\n"))
            .collect::<String>())
    }

    /// Creates every object in the cluster `client` talks to (namespaces that exist already
    /// are kept), in the order a user would: namespaces, PriorityClasses, nodes, workload pods,
    /// then DaemonSets.
    pub async fn create_all(&self, client: &Client) -> Result<(), ReplayError> {
        let pp = PostParams::default();
        let namespaces: Api<Namespace> = Api::all(client.clone());
        for ns in &self.namespaces {
            match namespaces.create(&pp, ns).await {
                Ok(_) => {}
                Err(kube::Error::Api(status)) if status.code == 409 => {}
                Err(source) => return Err(create_error("Namespace", &ns.metadata, source)),
            }
        }
        let classes: Api<PriorityClass> = Api::all(client.clone());
        for class in &self.priority_classes {
            classes
                .create(&pp, class)
                .await
                .map_err(|source| create_error("PriorityClass", &class.metadata, source))?;
        }
        let nodes: Api<Node> = Api::all(client.clone());
        for node in &self.nodes {
            nodes
                .create(&pp, node)
                .await
                .map_err(|source| create_error("Node", &node.metadata, source))?;
        }
        for pod in &self.pods {
            let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
            Api::<Pod>::namespaced(client.clone(), namespace)
                .create(&pp, pod)
                .await
                .map_err(|source| create_error("Pod", &pod.metadata, source))?;
        }
        for ds in &self.daemonsets {
            let namespace = ds.metadata.namespace.as_deref().unwrap_or("default");
            Api::<DaemonSet>::namespaced(client.clone(), namespace)
                .create(&pp, ds)
                .await
                .map_err(|source| create_error("DaemonSet", &ds.metadata, source))?;
        }
        Ok(())
    }
}

fn create_error(kind: &'static str, meta: &ObjectMeta, source: kube::Error) -> ReplayError {
    let name = match &meta.namespace {
        Some(ns) => format!("{ns}/{}", meta.name.as_deref().unwrap_or("")),
        None => meta.name.clone().unwrap_or_default(),
    };
    ReplayError::Create { kind, name, source }
}

fn with_kind<T: serde::Serialize>(
    object: &T,
    api_version: &str,
    kind: &str,
) -> Result<String, serde_json::Error> {
    let mut value = serde_json::to_value(object)?;
    if let Some(map) = value.as_object_mut() {
        map.insert("apiVersion".into(), api_version.into());
        map.insert("kind".into(), kind.into());
    }
    serde_json::to_string(&value)
}

#[cfg(test)]
mod tests;
