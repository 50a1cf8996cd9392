//! The Priority admission's mutation of a new pod (§k.5): `spec.priorityClassName`,
//! `spec.priority` and `spec.preemptionPolicy` from the stored PriorityClasses; and the two
//! built-in classes, stored when the store is made.
//!
//! Why in the store: every pod enters through [`Store::create_value`], from the API, from the
//! DaemonSet controller and from scenario files, and its priority is fixed at that moment (the
//! scheduler's preemption reads `spec.priority`, §k.4). The refusal of an unknown class is the
//! API's and the controller's (`crate::api::priority`); here a pod that was let in gets its
//! fields, resolved under the same lock that stores it. The built-ins are objects, as
//! kube-apiserver's post-start hook makes them, so `kubectl get priorityclass` lists them and
//! the admission reads their values from the store like any other class.
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::domain::scheduling::priority_class::{self, ClassInfo, Refusal};

use super::{Key, Kind, State, Store, StoredObject};

/// Read one PriorityClass object as the admission and the validation see it; None when it
/// does not parse as one. An absent `preemptionPolicy` is the API server's default.
pub(crate) fn class_info_of(v: &Value) -> Option<ClassInfo> {
    Some(ClassInfo {
        name: v.pointer("/metadata/name")?.as_str()?.to_string(),
        value: i32::try_from(v.get("value")?.as_i64()?).ok()?,
        global_default: v
            .get("globalDefault")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        preemption_policy: match v.get("preemptionPolicy") {
            None | Some(Value::Null) => priority_class::PREEMPT_LOWER_PRIORITY.to_string(),
            Some(policy) => policy.as_str().unwrap_or_default().to_string(),
        },
    })
}

/// Read one stored PriorityClass; None when it does not parse as one.
fn class_info(obj: &StoredObject) -> Option<ClassInfo> {
    let v: Value = serde_json::from_slice(&obj.raw).ok()?;
    class_info_of(&v)
}

fn classes_in(objects: &BTreeMap<Key, Arc<StoredObject>>) -> Vec<ClassInfo> {
    objects.values().filter_map(|o| class_info(o)).collect()
}

/// Store `system-node-critical` and `system-cluster-critical` as kube-apiserver's
/// `AddSystemPriorityClasses` post-start hook creates them: name, value and description, the
/// policy left to the defaults, `globalDefault` unset.
pub(super) fn create_system_classes(store: &Store) {
    for class in priority_class::SYSTEM_CLASSES {
        let obj = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": class.name}, "value": class.value,
            "description": class.description});
        // A fresh store cannot hold these names yet.
        let _ = store.create_value(Kind::PriorityClass, obj, false);
    }
}

impl Store {
    /// The stored PriorityClasses, as the Priority admission reads them.
    pub fn priority_classes(&self) -> Vec<ClassInfo> {
        classes_in(&self.read().objects[Kind::PriorityClass.index()])
    }
}

/// Resolve a new pod's `spec` in place. A pod whose class is unknown (only a scenario file can
/// store one: the API and the controller refuse it first) keeps priority 0; one that set its
/// own `priority` or `preemptionPolicy` keeps them.
pub(super) fn admit_new_pod(st: &State, pod: &mut Value) {
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let classes = classes_in(&st.objects[Kind::PriorityClass.index()]);
    let resolved = priority_class::resolve(
        spec.get("priorityClassName").and_then(Value::as_str),
        None,
        None,
        &classes,
    );
    match resolved {
        Ok(r) => {
            if let Some(name) = r.class_name {
                set_default(spec, "priorityClassName", json!(name));
            }
            set_default(spec, "priority", json!(r.priority));
            set_default(spec, "preemptionPolicy", json!(r.preemption_policy));
        }
        Err(Refusal::UnknownClass(_)) => {
            set_default(spec, "priority", json!(0));
            set_default(
                spec,
                "preemptionPolicy",
                json!(priority_class::PREEMPT_LOWER_PRIORITY),
            );
        }
        Err(Refusal::PriorityGiven { .. } | Refusal::PolicyGiven { .. }) => {}
    }
}

fn set_default(map: &mut Map<String, Value>, key: &str, value: Value) {
    if map.get(key).is_none_or(|v| v.is_null() || v == "") {
        map.insert(key.to_string(), value);
    }
}
