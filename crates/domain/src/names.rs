//! Well-known label, annotation, taint and field names, spelled once.
//!
//! Why in the domain: the placement and rollout rules read some of them (the automatic
//! tolerations, the revision hash), the browser shows some of them, and the edge, the
//! simulated cluster and the dashboard all read or write them on Kubernetes objects. A typo in
//! one copy would be a silent disagreement between the rules and the objects they judge.

/// Label a ControllerRevision and the pods of that revision carry with the revision's hash
/// (§d.4).
pub const CONTROLLER_REVISION_HASH: &str = "controller-revision-hash";
/// Label the DaemonSet controller puts on its pods with the template generation (§d.4).
pub const POD_TEMPLATE_GENERATION: &str = "pod-template-generation";
/// Annotation on a DaemonSet holding its template generation (§d.4).
pub const TEMPLATE_GENERATION_ANNOTATION: &str = "deprecated.daemonset.template.generation";
/// Annotation `kubectl rollout history` prints as CHANGE-CAUSE (kubectl `ChangeCauseAnnotation`).
pub const CHANGE_CAUSE_ANNOTATION: &str = "kubernetes.io/change-cause";
/// The node label holding the node's hostname.
pub const HOSTNAME_LABEL: &str = "kubernetes.io/hostname";
/// The node label holding the instance type (a row label on the page, a generated label).
pub const INSTANCE_TYPE_LABEL: &str = "node.kubernetes.io/instance-type";
/// The node label holding the zone.
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";
/// The prefix of node-role labels (`node-role.kubernetes.io/control-plane`).
pub const NODE_ROLE_PREFIX: &str = "node-role.kubernetes.io/";
/// The label marking a control-plane node.
pub const CONTROL_PLANE_ROLE_LABEL: &str = "node-role.kubernetes.io/control-plane";
/// The one node field a `matchFields` requirement can name (§a.4), also a field selector.
pub const METADATA_NAME_FIELD: &str = "metadata.name";

/// Taint the node lifecycle controller sets while the Ready condition is False (§a.6, §b).
pub const TAINT_NOT_READY: &str = "node.kubernetes.io/not-ready";
/// Taint set while the Ready condition is Unknown (§b).
pub const TAINT_UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// Taint mirroring `spec.unschedulable` (cordon, §a.6).
pub const TAINT_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
/// Taint set under the DiskPressure condition (§b).
pub const TAINT_DISK_PRESSURE: &str = "node.kubernetes.io/disk-pressure";
/// Taint set under the MemoryPressure condition (§b).
pub const TAINT_MEMORY_PRESSURE: &str = "node.kubernetes.io/memory-pressure";
/// Taint set under the PIDPressure condition (§b).
pub const TAINT_PID_PRESSURE: &str = "node.kubernetes.io/pid-pressure";
/// Taint set under the NetworkUnavailable condition; tolerated for host-network pods (§b).
pub const TAINT_NETWORK_UNAVAILABLE: &str = "node.kubernetes.io/network-unavailable";
/// The node label holding the region.
pub const REGION_LABEL: &str = "topology.kubernetes.io/region";

/// Node labels that name a node pool, in the order the matrix prefers them for grouping rows
/// (a plain `node.kubernetes.io/pool`, as the generated clusters write, then GKE, EKS,
/// Karpenter, AKS and AKS's older key). Why a list: there is no one well-known pool label;
/// each provisioner writes its own.
pub const POOL_LABELS: &[&str] = &[
    "node.kubernetes.io/pool",
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "karpenter.sh/nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",
];
