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

/// The plain pool label the generated clusters write (the first the matrix groups by).
pub const POOL_LABEL: &str = "node.kubernetes.io/pool";

/// Node labels that name a node pool, in the order the matrix prefers them for grouping rows
/// (a plain `node.kubernetes.io/pool`, as the generated clusters write, then GKE, EKS,
/// Karpenter, AKS and AKS's older key). Why a list: there is no one well-known pool label;
/// each provisioner writes its own.
pub const POOL_LABELS: &[&str] = &[
    POOL_LABEL,
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "karpenter.sh/nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",
];

/// The longest prefix of a `generateName` the API server keeps (apiserver
/// `names.MaxGeneratedNameLength`: 63 minus the 5 random characters).
pub const MAX_GENERATED_NAME_PREFIX: usize = 58;
/// The longest DaemonSet name prefix in a ControllerRevision's name (kube-controller-manager
/// `history.ControllerRevisionName`: the name with "-" and a hash must stay a DNS subdomain).
pub const MAX_REVISION_NAME_PREFIX: usize = 223;

/// The part of a `generateName` the API server keeps before its random suffix. Why: a
/// DaemonSet's name may be up to 253 characters while its pods' generated names are cut to 58
/// plus 5; a simulated API that kept the whole prefix would refuse the pods Kubernetes creates.
pub fn generated_name_prefix(generate_name: &str) -> &str {
    cut_at_byte(generate_name, MAX_GENERATED_NAME_PREFIX)
}

/// A ControllerRevision's name as kube-controller-manager spells it: the DaemonSet's name cut
/// to 223 bytes, "-", the hash. Why: `kubectl rollout history` and the revision list find
/// revisions by owner, but the sim must create the same names the real controller does.
pub fn controller_revision_name(daemonset: &str, hash: &str) -> String {
    format!(
        "{}-{hash}",
        cut_at_byte(daemonset, MAX_REVISION_NAME_PREFIX)
    )
}

/// Go's `s[:n]` for names, which are ASCII once valid; a non-ASCII one (refused later by
/// validation) is cut at the char boundary at or below `n` instead of panicking.
fn cut_at_byte(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn a_long_generate_name_keeps_58_characters_like_the_api_server() {
        let ds = format!("{}-", "a".repeat(252));
        assert_eq!(generated_name_prefix(&ds), "a".repeat(58));
        assert_eq!(generated_name_prefix("log-collector-"), "log-collector-");
        // Exactly 58 is kept whole.
        let exact = "b".repeat(58);
        assert_eq!(generated_name_prefix(&exact), exact);
    }

    #[test]
    fn a_revision_name_cuts_the_daemonset_name_at_223_bytes_like_the_controller() {
        let ds = "c".repeat(253);
        let name = controller_revision_name(&ds, "5d8f9c7b6");
        assert_eq!(name, format!("{}-5d8f9c7b6", "c".repeat(223)));
        assert!(name.len() <= 253);
        assert_eq!(controller_revision_name("falco", "abc"), "falco-abc");
    }

    #[test]
    fn a_non_ascii_prefix_is_cut_at_a_char_boundary_not_mid_character() {
        let s = format!("{}é-", "d".repeat(57));
        assert_eq!(generated_name_prefix(&s), "d".repeat(57));
    }
}
