//! The `DefaultTolerationSeconds` admission plugin (enabled by default in kube-apiserver
//! v1.37, `plugin/pkg/admission/defaulttolerationseconds`): a new pod that does not tolerate
//! `node.kubernetes.io/not-ready` or `node.kubernetes.io/unreachable` with effect NoExecute
//! gets a toleration of each for 300 s.
//!
//! Why: without it a workload pod on a node that turns NotReady is evicted by the taint
//! eviction at once, where Kubernetes keeps it five minutes (§a.5); with workload pods replayed
//! in the differential suite (`replay.rs`), the real side kept the pod on its broken node and
//! the sim did not. In the store, like the Priority admission, because scenario pods enter
//! there too. Daemon pods already tolerate both for ever (§b), so they are left as they are.
use serde_json::{json, Value};

use crate::domain::names;

/// kube-apiserver's `--default-not-ready-toleration-seconds` and
/// `--default-unreachable-toleration-seconds`.
const DEFAULT_SECONDS: i64 = 300;

/// Whether `t` tolerates a NoExecute taint with `key` in the plugin's sense: its key is that
/// one or empty, its effect NoExecute or empty (the operator is not looked at).
fn covers(t: &Value, key: &str) -> bool {
    let field = |name: &str| t.get(name).and_then(Value::as_str).unwrap_or_default();
    (field("key") == key || field("key").is_empty())
        && (field("effect") == "NoExecute" || field("effect").is_empty())
}

/// Append the missing default tolerations to a new pod's `spec.tolerations`, in place.
pub(super) fn admit_new_pod(pod: &mut Value) {
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let tolerations = spec.entry("tolerations").or_insert_with(|| json!([]));
    if tolerations.is_null() {
        *tolerations = json!([]);
    }
    let Some(list) = tolerations.as_array_mut() else {
        return;
    };
    for key in [names::TAINT_NOT_READY, names::TAINT_UNREACHABLE] {
        if !list.iter().any(|t| covers(t, key)) {
            list.push(
                json!({"key": key, "operator": "Exists", "effect": "NoExecute",
                "tolerationSeconds": DEFAULT_SECONDS}),
            );
        }
    }
    if list.is_empty() {
        spec.remove("tolerations");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_without_them_tolerates_not_ready_and_unreachable_for_300_s() {
        let mut pod = json!({"spec": {"containers": []}});
        admit_new_pod(&mut pod);
        assert_eq!(
            pod["spec"]["tolerations"],
            json!([
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
            ])
        );
    }

    #[test]
    fn its_own_toleration_of_either_is_kept_and_not_doubled() {
        let mut daemon = json!({"spec": {"tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}]}});
        let before = daemon.clone();
        admit_new_pod(&mut daemon);
        assert_eq!(daemon, before);
        let mut everything = json!({"spec": {"tolerations": [{"operator": "Exists"}]}});
        admit_new_pod(&mut everything);
        assert_eq!(
            everything["spec"]["tolerations"].as_array().map(Vec::len),
            Some(1)
        );
        let mut one = json!({"spec": {"tolerations": [
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}]}});
        admit_new_pod(&mut one);
        let list = one["spec"]["tolerations"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0]["tolerationSeconds"], 60);
        assert_eq!(list[1]["key"], "node.kubernetes.io/not-ready");
    }
}
