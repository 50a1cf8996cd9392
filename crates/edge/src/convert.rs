//! k8s-openapi objects -> domain facts: the one place the two type families meet.
//!
//! Why one place: the rules in `domain` must not depend on API structs (they also run in the
//! browser), and every defaulting decision (§i.1) must be made once, identically for a
//! watched object and a hand-written file. `load` turns text into API objects for the CLI.

pub mod events;
mod history;
pub mod load;
pub mod pod;
pub mod resources;
mod revision;

pub use history::{controlled_by, revision_record};
pub use revision::{daemonset_identity, revision_facts};

use crate::domain::facts::*;
use crate::domain::names;
use k8s_openapi::api::apps::v1::DaemonSet;
#[cfg(any(test, feature = "testing"))]
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::api::core::v1::{Node, NodeSelectorRequirement, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{OwnerReference, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

/// Why an object cannot be read: names the object and the problem, for a one-line error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    /// The text is neither JSON nor YAML.
    #[error("not valid {format}: {detail}")]
    Syntax {
        format: &'static str,
        detail: String,
    },
    /// The file holds no document.
    #[error("the file is empty: expected one {expected} object")]
    Empty { expected: &'static str },
    /// More than one object where one was expected.
    #[error("holds {count} objects; expected exactly one {expected}")]
    Multiple {
        count: usize,
        expected: &'static str,
    },
    /// The document is not a mapping with a `kind`.
    #[error("has no kind field; expected kind {expected} (as kubectl get -o yaml|json prints it)")]
    MissingKind { expected: &'static str },
    /// The document is the wrong kind of object.
    #[error("is a {found}, not a {expected}")]
    WrongKind {
        expected: &'static str,
        found: String,
    },
    /// The kind is right but the API group/version is one daemonscope does not read.
    #[error("has apiVersion {found}; expected {expected}")]
    WrongApiVersion {
        expected: &'static str,
        found: String,
    },
    /// A field has a value the API type cannot hold.
    #[error("{kind} {name}: field {path}: {detail}")]
    Shape {
        kind: &'static str,
        name: String,
        path: String,
        detail: String,
    },
    /// A field every such object needs is missing.
    #[error("{kind} {name} has no {field}")]
    Missing {
        kind: &'static str,
        name: String,
        field: &'static str,
    },
}

/// Unix seconds of an API timestamp.
fn unix_seconds(t: &Time) -> i64 {
    t.0.as_second()
}

/// A Node's placement-relevant facts. Readiness comes from the `Ready` condition (§a.6:
/// shown, never read by the rules).
pub fn node_facts(node: &Node) -> NodeFacts {
    let spec = node.spec.as_ref();
    let taints = spec
        .and_then(|s| s.taints.as_ref())
        .map(|taints| {
            taints
                .iter()
                .map(|t| Taint {
                    key: t.key.clone(),
                    value: t.value.clone().unwrap_or_default(),
                    effect: taint_effect(&t.effect),
                })
                .collect()
        })
        .unwrap_or_default();
    let ready = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|conditions| conditions.iter().find(|c| c.type_ == "Ready"))
        .and_then(|c| match c.status.as_str() {
            "True" => Some(true),
            "False" => Some(false),
            _ => None,
        });
    NodeFacts {
        name: node.metadata.name.clone().unwrap_or_default(),
        uid: node.metadata.uid.clone().unwrap_or_default(),
        labels: node.metadata.labels.clone().unwrap_or_default(),
        taints,
        unschedulable: spec.and_then(|s| s.unschedulable).unwrap_or(false),
        ready,
        created: node.metadata.creation_timestamp.as_ref().map(unix_seconds),
        allocatable: resources::node_allocatable(node),
    }
}

/// A taint effect string as the domain enum; unknown effects are kept, not dropped.
fn taint_effect(effect: &str) -> TaintEffect {
    match effect {
        "NoSchedule" => TaintEffect::NoSchedule,
        "PreferNoSchedule" => TaintEffect::PreferNoSchedule,
        "NoExecute" => TaintEffect::NoExecute,
        other => TaintEffect::Other(other.to_string()),
    }
}

/// A DaemonSet's `spec.selector` for the claim rules (§f).
pub fn label_selector_facts(
    selector: &k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
) -> crate::domain::controller::LabelSelectorFacts {
    crate::domain::controller::LabelSelectorFacts {
        match_labels: selector.match_labels.clone().unwrap_or_default(),
        match_expressions: selector
            .match_expressions
            .iter()
            .flatten()
            .map(|r| SelectorRequirement {
                key: r.key.clone(),
                operator: r.operator.clone(),
                values: r.values.clone().unwrap_or_default(),
            })
            .collect(),
    }
}

fn requirement(r: &NodeSelectorRequirement) -> SelectorRequirement {
    SelectorRequirement {
        key: r.key.clone(),
        operator: r.operator.clone(),
        values: r.values.clone().unwrap_or_default(),
    }
}

/// The parts of a pod spec the placement rules read (§a.2, §b). A template without a spec
/// gives empty facts; `daemonset_facts` rejects that case first. Only the members' tests call
/// it (the `testing` feature); the code itself goes through [`pod_spec_facts`].
#[cfg(any(test, feature = "testing"))]
pub fn template_facts(template: &PodTemplateSpec) -> TemplateFacts {
    template
        .spec
        .as_ref()
        .map(pod_spec_facts)
        .unwrap_or_default()
}

/// The placement-relevant facts of a pod spec (a template's, or a created pod's own).
pub fn pod_spec_facts(spec: &PodSpec) -> TemplateFacts {
    let required = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|na| {
            na.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .map(|selector| {
            selector
                .node_selector_terms
                .iter()
                .map(|term| NodeSelectorTerm {
                    match_expressions: term
                        .match_expressions
                        .iter()
                        .flatten()
                        .map(requirement)
                        .collect(),
                    match_fields: term
                        .match_fields
                        .iter()
                        .flatten()
                        .map(requirement)
                        .collect(),
                })
                .collect()
        });
    TemplateFacts {
        node_name: spec.node_name.clone().unwrap_or_default(),
        node_selector: spec.node_selector.clone().unwrap_or_default(),
        required_node_affinity: required,
        tolerations: spec
            .tolerations
            .iter()
            .flatten()
            .map(|t| Toleration {
                key: t.key.clone().unwrap_or_default(),
                operator: t.operator.clone().unwrap_or_default(),
                value: t.value.clone().unwrap_or_default(),
                effect: t.effect.clone().unwrap_or_default(),
                toleration_seconds: t.toleration_seconds,
            })
            .collect(),
        host_network: spec.host_network.unwrap_or(false),
        requests: resources::spec_requests(spec),
    }
}

fn int_or_percent(v: &IntOrString) -> IntOrPercent {
    match v {
        IntOrString::Int(n) => IntOrPercent::Int(i64::from(*n)),
        IntOrString::String(s) => IntOrPercent::Str(s.clone()),
    }
}

/// `spec.updateStrategy` after `SetDefaults_DaemonSet` (§d.1, §i.1): an empty type is
/// RollingUpdate; RollingUpdate gets a `rollingUpdate` block, maxUnavailable 1, maxSurge 0.
fn defaulted_strategy(ds: &DaemonSet) -> UpdateStrategy {
    let strategy = ds.spec.update_strategy.as_ref();
    let kind = strategy
        .and_then(|s| s.type_.as_deref())
        .filter(|t| !t.is_empty())
        .unwrap_or("RollingUpdate");
    match kind {
        "RollingUpdate" => {
            let block = strategy.and_then(|s| s.rolling_update.as_ref());
            UpdateStrategy::RollingUpdate {
                rolling_update_block: true,
                max_unavailable: Some(
                    block
                        .and_then(|b| b.max_unavailable.as_ref())
                        .map(int_or_percent)
                        .unwrap_or(IntOrPercent::Int(1)),
                ),
                max_surge: Some(
                    block
                        .and_then(|b| b.max_surge.as_ref())
                        .map(int_or_percent)
                        .unwrap_or(IntOrPercent::Int(0)),
                ),
            }
        }
        "OnDelete" => UpdateStrategy::OnDelete,
        other => UpdateStrategy::Other(other.to_string()),
    }
}

/// A DaemonSet's facts, defaulted as the API server would (§i.1). Fails only when there is
/// no pod template to reason about. A missing status stays `None` (§i.4).
pub fn daemonset_facts(ds: &DaemonSet) -> Result<DaemonSetFacts, ConvertError> {
    let name = ds.metadata.name.clone().unwrap_or_default();
    let missing = |field| ConvertError::Missing {
        kind: "DaemonSet",
        name: display_name(&name),
        field,
    };
    if name.is_empty() {
        return Err(missing(names::METADATA_NAME_FIELD));
    }
    let spec = &ds.spec;
    let pod_spec = spec
        .template
        .spec
        .as_ref()
        .ok_or_else(|| missing("spec.template.spec"))?;
    let status = ds.status.as_ref().map(|s| DaemonSetStatusFacts {
        observed_generation: s.observed_generation.unwrap_or(0),
        desired_number_scheduled: i64::from(s.desired_number_scheduled),
        current_number_scheduled: i64::from(s.current_number_scheduled),
        number_misscheduled: i64::from(s.number_misscheduled),
        number_ready: i64::from(s.number_ready),
        number_available: i64::from(s.number_available.unwrap_or(0)),
        number_unavailable: i64::from(s.number_unavailable.unwrap_or(0)),
        updated_number_scheduled: i64::from(s.updated_number_scheduled.unwrap_or(0)),
    });
    Ok(DaemonSetFacts {
        namespace: ds
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| "default".to_string()),
        name,
        uid: ds.metadata.uid.clone().unwrap_or_default(),
        generation: ds.metadata.generation.unwrap_or(0),
        template: pod_spec_facts(pod_spec),
        strategy: defaulted_strategy(ds),
        min_ready_seconds: i64::from(spec.min_ready_seconds.unwrap_or(0)),
        current_revision_hash: String::new(),
        template_generation: ds
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(names::TEMPLATE_GENERATION_ANNOTATION))
            .cloned(),
        status,
    })
}

fn display_name(name: &str) -> String {
    if name.is_empty() {
        "(unnamed)".to_string()
    } else {
        name.to_string()
    }
}

/// §f `GetTargetNodeName`: `spec.nodeName`, else the first `matchFields` entry with key
/// `metadata.name` and operator `In` in the required node affinity, which alone decides: its
/// single value, or no node when it has another number of values.
pub fn target_node_name(spec: &PodSpec) -> Option<String> {
    if let Some(name) = spec.node_name.as_ref().filter(|n| !n.is_empty()) {
        return Some(name.clone());
    }
    let terms = &spec
        .affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()?
        .node_selector_terms;
    let pin = terms
        .iter()
        .flat_map(|t| t.match_fields.iter().flatten())
        .find(|r| r.key == names::METADATA_NAME_FIELD && r.operator == "In")?;
    match pin.values.as_deref() {
        Some([one]) => Some(one.clone()),
        _ => None,
    }
}

fn pod_phase(phase: Option<&str>) -> PodPhase {
    match phase {
        None | Some("Pending") => PodPhase::Pending,
        Some("Running") => PodPhase::Running,
        Some("Succeeded") => PodPhase::Succeeded,
        Some("Failed") => PodPhase::Failed,
        Some(_) => PodPhase::Unknown,
    }
}

/// The pod's controller ownerReference when it is a DaemonSet (§f: a pod belongs to a
/// DaemonSet only through a controller reference, never through labels alone).
pub fn daemonset_owner(pod: &Pod) -> Option<&OwnerReference> {
    pod.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true) && r.kind == "DaemonSet")
}

/// The compact projection of a daemon pod (§c, §f): owner by controller reference uid, the
/// node it is for, readiness with its transition time, restarts and a waiting reason.
pub fn pod_facts(pod: &Pod) -> PodFacts {
    let meta = &pod.metadata;
    let labels = meta.labels.as_ref();
    let owner_uid = daemonset_owner(pod).map(|r| r.uid.clone());
    let spec = pod.spec.as_ref();
    let status = pod.status.as_ref();
    let ready_condition = status
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "Ready"));
    let containers = status.and_then(|s| s.container_statuses.as_ref());
    let init_containers = status.and_then(|s| s.init_container_statuses.as_ref());
    let restart_count = containers
        .iter()
        .flat_map(|c| c.iter())
        .fold(0i32, |sum, c| sum.saturating_add(c.restart_count));
    let waiting_reason = containers
        .iter()
        .chain(init_containers.iter())
        .flat_map(|c| c.iter())
        .find_map(|c| c.state.as_ref()?.waiting.as_ref()?.reason.clone());
    PodFacts {
        namespace: meta.namespace.clone().unwrap_or_default(),
        name: meta.name.clone().unwrap_or_default(),
        uid: meta.uid.clone().unwrap_or_default(),
        owner_uid,
        node_name: spec.and_then(target_node_name),
        bound: spec
            .and_then(|s| s.node_name.as_ref())
            .is_some_and(|n| !n.is_empty()),
        revision_hash: labels
            .and_then(|l| l.get(names::CONTROLLER_REVISION_HASH))
            .cloned()
            .unwrap_or_default(),
        template_generation: labels
            .and_then(|l| l.get(names::POD_TEMPLATE_GENERATION))
            .cloned(),
        phase: pod_phase(status.and_then(|s| s.phase.as_deref())),
        ready: ready_condition.is_some_and(|c| c.status == "True"),
        ready_since: ready_condition
            .and_then(|c| c.last_transition_time.as_ref())
            .map(unix_seconds),
        restart_count,
        waiting_reason,
        created: meta
            .creation_timestamp
            .as_ref()
            .map(unix_seconds)
            .unwrap_or(0),
        terminating: meta.deletion_timestamp.is_some(),
        requests: resources::pod_requests(pod),
        unschedulable: resources::scheduling_failure(pod),
    }
}

#[cfg(test)]
mod tests;
