//! The three patch types kubectl and kube-rs send: RFC 6902 JSON patch, RFC 7386 merge patch
//! and strategic merge patch (SMP). SMP merges lists element-wise by the merge keys of the
//! Kubernetes types (containers by name, env by name, ports by containerPort, conditions by
//! type, ...) and replaces every other list whole (taints, tolerations, args), and honours
//! the `$patch`, `$setElementOrder`, `$retainKeys` and `$deleteFromPrimitiveList` directives
//! (wire §4).
use serde_json::{Map, Value};

use crate::store::Kind;

/// How a list field is patched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListStrategy {
    Atomic,
    MergeByKey(&'static str),
    MergePrimitives,
}

const CONTAINER_LISTS: [&str; 3] = ["containers", "initContainers", "ephemeralContainers"];

fn pod_spec_list(rel: &[&str]) -> ListStrategy {
    match rel {
        [l] if CONTAINER_LISTS.contains(l) => ListStrategy::MergeByKey("name"),
        ["imagePullSecrets" | "volumes" | "schedulingGates" | "resourceClaims"] => {
            ListStrategy::MergeByKey("name")
        }
        ["hostAliases"] => ListStrategy::MergeByKey("ip"),
        ["topologySpreadConstraints"] => ListStrategy::MergeByKey("topologyKey"),
        [c, "env"] if CONTAINER_LISTS.contains(c) => ListStrategy::MergeByKey("name"),
        [c, "ports"] if CONTAINER_LISTS.contains(c) => ListStrategy::MergeByKey("containerPort"),
        [c, "volumeMounts"] if CONTAINER_LISTS.contains(c) => ListStrategy::MergeByKey("mountPath"),
        [c, "volumeDevices"] if CONTAINER_LISTS.contains(c) => {
            ListStrategy::MergeByKey("devicePath")
        }
        _ => ListStrategy::Atomic,
    }
}

fn list_strategy(kind: Kind, path: &[&str]) -> ListStrategy {
    match (kind, path) {
        (_, ["metadata", "ownerReferences"]) => ListStrategy::MergeByKey("uid"),
        (_, ["metadata", "finalizers"]) => ListStrategy::MergePrimitives,
        (Kind::Node, ["status", "conditions" | "addresses"]) => ListStrategy::MergeByKey("type"),
        (Kind::Node, ["spec", "podCIDRs"]) => ListStrategy::MergePrimitives,
        (Kind::Pod, ["status", "conditions"]) => ListStrategy::MergeByKey("type"),
        (Kind::Pod, ["status", "podIPs" | "hostIPs"]) => ListStrategy::MergeByKey("ip"),
        (Kind::DaemonSet, ["status", "conditions"]) => ListStrategy::MergeByKey("type"),
        (Kind::Pod, ["spec", rel @ ..]) => pod_spec_list(rel),
        (Kind::DaemonSet, ["spec", "template", "spec", rel @ ..]) => pod_spec_list(rel),
        _ => ListStrategy::Atomic,
    }
}

fn directive(v: &Value) -> Option<&str> {
    v.get("$patch").and_then(Value::as_str)
}

/// A patch value with its directives removed, as stored when there is nothing to merge into.
fn strip(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .filter(|(_, x)| directive(x) != Some("delete"))
                .map(|(k, x)| (k.clone(), strip(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .filter(|x| !matches!(directive(x), Some("delete" | "replace")))
                .map(strip)
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Why a patch could not be applied; the API server answers 422 with this text.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    /// A strategic merge patch (or the object) that is not a JSON object.
    #[error("a strategic merge patch must be a JSON object")]
    NotAnObject,
    /// A `$patch` directive other than `replace`, `delete` or `merge`.
    #[error("unknown patch type: {0}")]
    UnknownDirective(String),
    /// An element of a list merged by key that is not an object.
    #[error("list {list} merges by {merge_key:?}: elements must be objects")]
    ElementNotObject {
        /// The list's field path, dot-separated.
        list: String,
        /// The merge key of that list.
        merge_key: &'static str,
    },
    /// An element of a list merged by key without the key.
    #[error("list {list} merges by {merge_key:?}: an element has no {merge_key:?}")]
    ElementWithoutKey {
        /// The list's field path, dot-separated.
        list: String,
        /// The merge key of that list.
        merge_key: &'static str,
    },
    /// An RFC 6902 body that is not a list of operations.
    #[error("{0}")]
    JsonPatchBody(#[from] serde_json::Error),
    /// An RFC 6902 operation that does not apply to the object.
    #[error("{0}")]
    JsonPatch(#[from] Box<json_patch::PatchError>),
}

/// Apply a strategic merge patch to `doc` (an object of `kind`).
pub fn strategic_merge(kind: Kind, doc: &mut Value, patch: &Value) -> Result<(), PatchError> {
    let (Some(d), Some(p)) = (doc.as_object_mut(), patch.as_object()) else {
        return Err(PatchError::NotAnObject);
    };
    merge_map(kind, d, p, &mut Vec::new())
}

fn merge_map(
    kind: Kind,
    orig: &mut Map<String, Value>,
    patch: &Map<String, Value>,
    path: &mut Vec<String>,
) -> Result<(), PatchError> {
    match patch.get("$patch").and_then(Value::as_str) {
        Some("replace") => {
            if let Value::Object(m) = strip(&Value::Object(patch.clone())) {
                *orig = m;
            }
            return Ok(());
        }
        Some("delete") => {
            orig.clear();
            return Ok(());
        }
        Some(other) => return Err(PatchError::UnknownDirective(other.to_string())),
        None => {}
    }
    for (key, pv) in patch {
        if let Some(field) = key.strip_prefix("$deleteFromPrimitiveList/") {
            if let (Some(list), Some(remove)) = (
                orig.get_mut(field).and_then(Value::as_array_mut),
                pv.as_array(),
            ) {
                list.retain(|x| !remove.contains(x));
            }
            continue;
        }
        if key.starts_with('$') {
            continue;
        }
        if pv.is_null() || directive(pv) == Some("delete") {
            orig.remove(key);
            continue;
        }
        path.push(key.clone());
        match (orig.get_mut(key), pv) {
            (Some(Value::Object(o)), Value::Object(p)) => merge_map(kind, o, p, path)?,
            (Some(Value::Array(o)), Value::Array(p)) => {
                let refs: Vec<&str> = path.iter().map(String::as_str).collect();
                merge_list(kind, list_strategy(kind, &refs), o, p, path)?;
            }
            _ => {
                orig.insert(key.clone(), strip(pv));
            }
        }
        path.pop();
    }
    for (key, pv) in patch {
        if let (Some(field), Some(order)) = (key.strip_prefix("$setElementOrder/"), pv.as_array()) {
            let refs: Vec<&str> = path
                .iter()
                .map(String::as_str)
                .chain(std::iter::once(field))
                .collect();
            let strategy = list_strategy(kind, &refs);
            if let Some(list) = orig.get_mut(field).and_then(Value::as_array_mut) {
                let position = |x: &Value| {
                    order.iter().position(|o| match strategy {
                        ListStrategy::MergeByKey(k) => o.get(k).is_some() && o.get(k) == x.get(k),
                        _ => o == x,
                    })
                };
                list.sort_by_key(|x| position(x).unwrap_or(usize::MAX));
            }
        }
        if key == "$retainKeys" {
            if let Some(keep) = pv.as_array() {
                orig.retain(|k, _| keep.iter().any(|x| x.as_str() == Some(k)));
            }
        }
    }
    Ok(())
}

fn merge_list(
    kind: Kind,
    strategy: ListStrategy,
    orig: &mut Vec<Value>,
    patch: &[Value],
    path: &mut Vec<String>,
) -> Result<(), PatchError> {
    if patch.iter().any(|x| directive(x) == Some("replace")) {
        *orig = patch
            .iter()
            .filter(|x| directive(x) != Some("replace"))
            .map(strip)
            .collect();
        return Ok(());
    }
    match strategy {
        ListStrategy::Atomic => *orig = patch.iter().map(strip).collect(),
        ListStrategy::MergePrimitives => {
            for x in patch {
                if !orig.contains(x) {
                    orig.push(x.clone());
                }
            }
        }
        ListStrategy::MergeByKey(merge_key) => {
            for pe in patch {
                let Some(pm) = pe.as_object() else {
                    return Err(PatchError::ElementNotObject {
                        list: path.join("."),
                        merge_key,
                    });
                };
                let Some(kv) = pm.get(merge_key) else {
                    return Err(PatchError::ElementWithoutKey {
                        list: path.join("."),
                        merge_key,
                    });
                };
                if directive(pe) == Some("delete") {
                    orig.retain(|o| o.get(merge_key) != Some(kv));
                    continue;
                }
                match orig
                    .iter_mut()
                    .find(|o| o.get(merge_key) == Some(kv))
                    .and_then(Value::as_object_mut)
                {
                    Some(existing) => merge_map(kind, existing, pm, path)?,
                    None => orig.push(strip(pe)),
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn smp(kind: Kind, doc: Value, patch: Value) -> Value {
        let mut d = doc;
        strategic_merge(kind, &mut d, &patch).expect("patch applies");
        d
    }

    #[test]
    fn taints_are_replaced_whole_and_null_removes_them() {
        let node = json!({"spec": {"taints": [{"key": "a", "effect": "NoSchedule"}], "unschedulable": true}});
        let out = smp(
            Kind::Node,
            node.clone(),
            json!({"spec": {"taints": [{"key": "b", "effect": "NoExecute"}]}}),
        );
        assert_eq!(
            out["spec"]["taints"],
            json!([{"key": "b", "effect": "NoExecute"}])
        );
        let out = smp(
            Kind::Node,
            node,
            json!({"spec": {"taints": null, "unschedulable": null}}),
        );
        assert_eq!(out["spec"], json!({}));
    }

    #[test]
    fn set_image_merges_containers_by_name_and_keeps_the_server_only_sidecar() {
        let ds = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "agent", "image": "a:1", "args": ["x"]}, {"name": "sidecar", "image": "s:1"}],
            "tolerations": [{"operator": "Exists"}]}}}});
        let patch = json!({"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "agent"}],
            "containers": [{"image": "a:2", "name": "agent"}]}}}});
        let out = smp(Kind::DaemonSet, ds, patch);
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"],
            json!([
            {"name": "agent", "image": "a:2", "args": ["x"]}, {"name": "sidecar", "image": "s:1"}])
        );
        assert_eq!(
            out["spec"]["template"]["spec"]["tolerations"],
            json!([{"operator": "Exists"}])
        );
    }

    #[test]
    fn delete_and_replace_directives_do_what_apply_and_rollout_undo_expect() {
        let ds = json!({"spec": {"template": {"metadata": {"labels": {"a": "1"}}, "spec": {"containers": [
            {"name": "agent", "image": "a:1"}, {"name": "sidecar", "image": "s:1"}]}}}});
        let out = smp(
            Kind::DaemonSet,
            ds.clone(),
            json!({"spec": {"template": {"spec": {"containers": [{"$patch": "delete", "name": "sidecar"}]}}}}),
        );
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"],
            json!([{"name": "agent", "image": "a:1"}])
        );
        let undo = json!({"spec": {"template": {"$patch": "replace", "spec": {"containers": [{"name": "agent", "image": "a:0"}]}}}});
        let out = smp(Kind::DaemonSet, ds, undo);
        assert_eq!(
            out["spec"]["template"],
            json!({"spec": {"containers": [{"name": "agent", "image": "a:0"}]}})
        );
    }

    #[test]
    fn tolerations_are_atomic_and_env_merges_by_name() {
        let ds = json!({"spec": {"template": {"spec": {"tolerations": [{"key": "a"}, {"key": "b"}],
            "containers": [{"name": "c", "env": [{"name": "X", "value": "1"}, {"name": "Y", "value": "2"}]}]}}}});
        let patch = json!({"spec": {"template": {"spec": {"tolerations": [{"key": "c"}],
            "containers": [{"name": "c", "env": [{"name": "Y", "value": "3"}]}]}}}});
        let out = smp(Kind::DaemonSet, ds, patch);
        assert_eq!(
            out["spec"]["template"]["spec"]["tolerations"],
            json!([{"key": "c"}])
        );
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"][0]["env"],
            json!([{"name": "X", "value": "1"}, {"name": "Y", "value": "3"}])
        );
    }

    #[test]
    fn node_conditions_merge_by_type() {
        let node = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "DiskPressure", "status": "False"}]}});
        let out = smp(
            Kind::Node,
            node,
            json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}}),
        );
        assert_eq!(
            out["status"]["conditions"],
            json!([{"type": "Ready", "status": "False"}, {"type": "DiskPressure", "status": "False"}])
        );
    }
}
