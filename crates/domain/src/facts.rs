//! The small value types the rules read. Converted from k8s-openapi objects in exactly one
//! place (`edge::convert`), so the rules never see API structs and the browser can use them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Labels as Kubernetes stores them; ordered so explanations and hashes are deterministic.
pub type Labels = BTreeMap<String, String>;

/// A taint's effect. `Other` keeps values a newer API server might send instead of failing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
    Other(String),
}

/// A node taint (§a.2 step 3).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Taint {
    pub key: String,
    pub value: String,
    pub effect: TaintEffect,
}

/// A pod toleration exactly as written; empty strings mean "left out" (§a.5). `operator` is
/// kept as text because `Lt`/`Gt` and unknown operators must be reported, not dropped.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Toleration {
    pub key: String,
    /// "", "Equal", "Exists", "Lt", "Gt" or anything else the object carried.
    pub operator: String,
    pub value: String,
    /// "" means every effect.
    pub effect: String,
    pub toleration_seconds: Option<i64>,
}

/// One `matchExpressions` / `matchFields` requirement (§a.3, §a.4).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SelectorRequirement {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

/// One `nodeSelectorTerms` entry: expressions AND fields (§a.2).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeSelectorTerm {
    pub match_expressions: Vec<SelectorRequirement>,
    pub match_fields: Vec<SelectorRequirement>,
}

/// What the rules need of a Node.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeFacts {
    pub name: String,
    pub uid: String,
    pub labels: Labels,
    pub taints: Vec<Taint>,
    /// `spec.unschedulable` (cordon). Shown to users; ignored by the controller (§a.6).
    pub unschedulable: bool,
    /// The Ready condition: Some(true) Ready, Some(false) NotReady, None Unknown/absent.
    /// Shown to users; never read by the placement rules (§a.6).
    pub ready: Option<bool>,
    /// `metadata.creationTimestamp`, unix seconds; None when absent (a hand-written
    /// manifest). Read only by the new-node grace ([`crate::coverage::NewNodeGrace`]), never
    /// by the placement rules: Kubernetes places daemon pods on a node of any age.
    pub created: Option<i64>,
    /// `status.allocatable` in scheduler units (§j.1): the room NodeResourcesFit compares
    /// requests with (§j.4) and the DaemonSet tax is a share of (§j.5). Never read by the
    /// placement rules (§a.6).
    #[serde(default)]
    pub allocatable: crate::resources::fit::Amounts,
}

/// What the rules need of a DaemonSet's pod template (`spec.template.spec`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TemplateFacts {
    /// `spec.template.spec.nodeName`; empty when unset (§a.2 step 1).
    pub node_name: String,
    pub node_selector: Labels,
    /// `None`: no `requiredDuringSchedulingIgnoredDuringExecution` block (imposes nothing).
    /// `Some(vec![])`: a block with no terms (matches no node, §a.2).
    pub required_node_affinity: Option<Vec<NodeSelectorTerm>>,
    pub tolerations: Vec<Toleration>,
    /// `spec.hostNetwork`: adds the network-unavailable toleration (§b).
    pub host_network: bool,
    /// What a pod of this spec requests (§j.2), in scheduler units: the DaemonSet tax (§j.5)
    /// and the fix for a pending pod. Never read by the placement rules (§a.6).
    #[serde(default)]
    pub requests: crate::resources::fit::Amounts,
}

/// An int-or-string budget field as written (§d.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum IntOrPercent {
    Int(i64),
    /// The raw string, e.g. "25%" (or an invalid "5" which must be reported as an error).
    Str(String),
}

/// `spec.updateStrategy` after API-server defaulting (§d.1, §i).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum UpdateStrategy {
    /// `rolling_update_block` false models RollingUpdate without a `rollingUpdate` block
    /// (only possible for objects that skipped defaulting, §d.2).
    RollingUpdate {
        rolling_update_block: bool,
        max_unavailable: Option<IntOrPercent>,
        max_surge: Option<IntOrPercent>,
    },
    OnDelete,
    /// Any other type string: rejected by the API server, reported.
    Other(String),
}

/// The DaemonSet status block as the controller wrote it (§c). `None` when absent (§i.4).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DaemonSetStatusFacts {
    pub observed_generation: i64,
    pub desired_number_scheduled: i64,
    pub current_number_scheduled: i64,
    pub number_misscheduled: i64,
    pub number_ready: i64,
    pub number_available: i64,
    pub number_unavailable: i64,
    pub updated_number_scheduled: i64,
}

/// What the rules need of a DaemonSet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonSetFacts {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub generation: i64,
    pub template: TemplateFacts,
    pub strategy: UpdateStrategy,
    pub min_ready_seconds: i64,
    /// Hash of the current ControllerRevision (the `controller-revision-hash` pods carry).
    /// Empty when unknown (no revision seen yet).
    pub current_revision_hash: String,
    /// `deprecated.daemonset.template.generation` annotation, if present (§d.4).
    pub template_generation: Option<String>,
    pub status: Option<DaemonSetStatusFacts>,
}

impl DaemonSetFacts {
    /// `namespace/name`: the key the matrix, the URLs and `data-daemonset` use.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

/// What a DaemonSet's ControllerRevision contributes: which revision is current (§d.4).
/// Why a domain value: the dashboard keeps only these four facts of each revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionFacts {
    /// Namespace of the revision (the DaemonSet's).
    pub namespace: String,
    /// Object name, `<ds-name>-<hash>`.
    pub name: String,
    /// uid of the controlling DaemonSet; revisions without one are not any DaemonSet's.
    pub owner_uid: String,
    /// `revision`: the highest one owned by a DaemonSet is its current revision (§d.4).
    pub revision: i64,
    /// The hash pods of this revision carry in `controller-revision-hash`.
    pub hash: String,
}

/// Pod phase as reported by the kubelet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PodPhase {
    Pending,
    Running,
    Succeeded,
    Failed,
    Unknown,
}

impl PodPhase {
    /// The phase as Kubernetes spells it (`Running`), as the pages print it.
    pub fn as_str(self) -> &'static str {
        match self {
            PodPhase::Pending => "Pending",
            PodPhase::Running => "Running",
            PodPhase::Succeeded => "Succeeded",
            PodPhase::Failed => "Failed",
            PodPhase::Unknown => "Unknown",
        }
    }
}

impl std::fmt::Display for PodPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The compact projection of a daemon pod: bytes, not kilobytes (docs/architecture.md#scale).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodFacts {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    /// uid of the controller ownerReference (kind DaemonSet, controller: true), if any (§f).
    pub owner_uid: Option<String>,
    /// The node the pod is for (§f `GetTargetNodeName`): `spec.nodeName`, else the
    /// controller's matchFields pin. None: counted nowhere.
    pub node_name: Option<String>,
    /// Whether `spec.nodeName` is set (scheduled-first ordering, §c).
    pub bound: bool,
    /// `controller-revision-hash` label.
    pub revision_hash: String,
    /// `pod-template-generation` label (§d.4).
    pub template_generation: Option<String>,
    pub phase: PodPhase,
    /// The Ready condition is True.
    pub ready: bool,
    /// Ready condition's lastTransitionTime, unix seconds (availability, §c).
    pub ready_since: Option<i64>,
    pub restart_count: i32,
    /// A waiting reason worth showing (CrashLoopBackOff, ImagePullBackOff, ContainerCreating).
    pub waiting_reason: Option<String>,
    /// creationTimestamp, unix seconds (oldest-first ordering, §c).
    pub created: i64,
    /// deletionTimestamp set: terminating.
    pub terminating: bool,
    /// The pod's own requests (§j.2), counted in its node's sums while it is bound and not
    /// terminal (§j.3).
    #[serde(default)]
    pub requests: crate::resources::load::Requests,
    /// `PodScheduled=False`: the scheduler's reason and message, as written (§j.4).
    #[serde(default)]
    pub unschedulable: Option<Box<crate::resources::load::SchedulingFailure>>,
}
