//! Mutating admission the API server applies on create: the `TaintNodesByCondition` plugin
//! (`plugin/pkg/admission/nodetaint`, enabled by default in kube-apiserver v1.37).
//!
//! Why: every node enters the cluster with `node.kubernetes.io/not-ready:NoSchedule`, which the
//! node lifecycle controller removes once the node reports Ready (`node_lifecycle.rs`). For that
//! first moment a DaemonSet without the NoSchedule form of the toleration (§b adds only the
//! NoExecute one) has no pod there: a new node's cells start `excluded`, as on Kubernetes.
//! Found by the Playwright live specs run against kube-apiserver v1.37.2 (issue 11).

use crate::domain::names;
use crate::store::Kind;
use serde_json::{json, Value};

/// Applies the create-time admission plugins to `obj` (of `kind`), in place.
pub fn admit_create(kind: Kind, obj: &mut Value) {
    if kind == Kind::Node {
        add_not_ready_taint(obj);
    }
}

/// `addNotReadyTaint`: appends `not-ready:NoSchedule` unless a taint with that key and effect
/// is already there (`MatchTaint` compares key and effect).
fn add_not_ready_taint(node: &mut Value) {
    let Some(object) = node.as_object_mut() else {
        return;
    };
    let spec = object.entry("spec").or_insert_with(|| json!({}));
    let Some(spec) = spec.as_object_mut() else {
        return;
    };
    let taints = spec.entry("taints").or_insert_with(|| json!([]));
    if taints.is_null() {
        *taints = json!([]);
    }
    let Some(taints) = taints.as_array_mut() else {
        return;
    };
    let present = taints
        .iter()
        .any(|t| t["key"] == names::TAINT_NOT_READY && t["effect"] == "NoSchedule");
    if !present {
        taints.push(json!({"key": names::TAINT_NOT_READY, "effect": "NoSchedule"}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_node_gets_not_ready_no_schedule_once() {
        let mut node = json!({"metadata": {"name": "n"}});
        admit_create(Kind::Node, &mut node);
        admit_create(Kind::Node, &mut node);
        assert_eq!(
            node["spec"]["taints"],
            json!([{"key": names::TAINT_NOT_READY, "effect": "NoSchedule"}])
        );
    }

    #[test]
    fn existing_taints_stay_and_other_kinds_are_untouched() {
        let mut node = json!({"metadata": {"name": "n"},
            "spec": {"taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]}});
        admit_create(Kind::Node, &mut node);
        assert_eq!(node["spec"]["taints"].as_array().map(Vec::len), Some(2));
        let mut pod = json!({"metadata": {"name": "p"}, "spec": {}});
        admit_create(Kind::Pod, &mut pod);
        assert_eq!(pod["spec"], json!({}));
    }
}
