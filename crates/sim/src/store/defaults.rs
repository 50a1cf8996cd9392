//! Server-side defaulting, as the API server fills optional fields on every write.
//!
//! Clients and the dashboard read these values back (a DaemonSet created without an
//! `updateStrategy` is a RollingUpdate with maxUnavailable 1 and maxSurge 0, §b of the
//! semantics), so the simulated cluster must default them the same way.
use serde_json::{json, Map, Value};

use super::Kind;

fn obj_mut<'a>(
    parent: &'a mut Map<String, Value>,
    key: &str,
) -> Option<&'a mut Map<String, Value>> {
    if !parent.get(key).is_some_and(Value::is_object) {
        parent.insert(key.to_string(), Value::Object(Map::new()));
    }
    parent.get_mut(key).and_then(Value::as_object_mut)
}

fn set_default(map: &mut Map<String, Value>, key: &str, value: Value) {
    if map.get(key).is_none_or(Value::is_null) {
        map.insert(key.to_string(), value);
    }
}

/// Default a container as `SetDefaults_Container` does.
fn default_container(c: &mut Value) {
    let Some(c) = c.as_object_mut() else { return };
    set_default(c, "terminationMessagePath", json!("/dev/termination-log"));
    set_default(c, "terminationMessagePolicy", json!("File"));
    let image = c
        .get("image")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let last = image.rsplit('/').next().unwrap_or("");
    let tagged = last.contains(':') && !last.ends_with(":latest");
    let pull = if image.contains('@') || tagged {
        "IfNotPresent"
    } else {
        "Always"
    };
    set_default(c, "imagePullPolicy", json!(pull));
    if let Some(ports) = c.get_mut("ports").and_then(Value::as_array_mut) {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            set_default(p, "protocol", json!("TCP"));
        }
    }
}

/// Default a pod spec as `SetDefaults_PodSpec` does.
fn default_pod_spec(spec: &mut Map<String, Value>) {
    set_default(spec, "restartPolicy", json!("Always"));
    set_default(spec, "terminationGracePeriodSeconds", json!(30));
    set_default(spec, "dnsPolicy", json!("ClusterFirst"));
    set_default(spec, "schedulerName", json!("default-scheduler"));
    set_default(spec, "securityContext", json!({}));
    for list in ["containers", "initContainers"] {
        if let Some(cs) = spec.get_mut(list).and_then(Value::as_array_mut) {
            cs.iter_mut().for_each(default_container);
        }
    }
    if let Some(tols) = spec.get_mut("tolerations").and_then(Value::as_array_mut) {
        for t in tols.iter_mut().filter_map(Value::as_object_mut) {
            // An empty operator means Equal.
            if t.get("operator").is_none_or(|o| o.as_str() == Some("")) && t.contains_key("key") {
                t.insert("operator".to_string(), json!("Equal"));
            }
        }
    }
}

/// Fill defaulted fields of `obj` in place.
pub fn apply(kind: Kind, obj: &mut Value) {
    let Some(root) = obj.as_object_mut() else {
        return;
    };
    match kind {
        Kind::Pod => {
            if let Some(spec) = obj_mut(root, "spec") {
                default_pod_spec(spec);
                set_default(spec, "enableServiceLinks", json!(true));
            }
        }
        Kind::DaemonSet => {
            let Some(spec) = obj_mut(root, "spec") else {
                return;
            };
            set_default(spec, "revisionHistoryLimit", json!(10));
            if let Some(strategy) = obj_mut(spec, "updateStrategy") {
                set_default(strategy, "type", json!("RollingUpdate"));
                if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
                    if let Some(ru) = obj_mut(strategy, "rollingUpdate") {
                        set_default(ru, "maxUnavailable", json!(1));
                        set_default(ru, "maxSurge", json!(0));
                    }
                }
            }
            if let Some(tspec) = obj_mut(spec, "template").and_then(|t| obj_mut(t, "spec")) {
                default_pod_spec(tspec);
            }
        }
        Kind::Namespace => {
            if let Some(status) = obj_mut(root, "status") {
                set_default(status, "phase", json!("Active"));
            }
        }
        Kind::PriorityClass => {
            // `SetDefaults_PriorityClass`: PreemptLowerPriority unless set.
            set_default(root, "preemptionPolicy", json!("PreemptLowerPriority"));
        }
        Kind::Node | Kind::ControllerRevision | Kind::Event | Kind::ResourceQuota => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daemonset_without_strategy_becomes_a_rolling_update_of_one() {
        let mut ds = json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}});
        apply(Kind::DaemonSet, &mut ds);
        assert_eq!(
            ds["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}})
        );
        assert_eq!(
            ds["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"],
            json!("IfNotPresent")
        );
    }

    #[test]
    fn on_delete_gets_no_rolling_update_block_and_latest_images_pull_always() {
        let mut ds = json!({"spec": {"updateStrategy": {"type": "OnDelete"},
            "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}});
        apply(Kind::DaemonSet, &mut ds);
        assert_eq!(ds["spec"]["updateStrategy"], json!({"type": "OnDelete"}));
        assert_eq!(
            ds["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"],
            json!("Always")
        );
    }
}
