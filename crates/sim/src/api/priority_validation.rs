//! kube-apiserver's refusals of PriorityClass writes (§k.5), rendered as it renders them: the
//! 422 of the registry strategy's validation, then the 403 of the Priority admission plugin
//! (a second `globalDefault`), and the 403 of deleting a built-in class.
//!
//! Why: `kubectl apply` of a class the real API server refuses must fail on the sim with the
//! same printed error (`tests/it/k8s_scheduling.rs` compares them), or a scenario proven on the
//! sim would not load on a cluster. The rules are the domain's
//! (`priority_class::validation`); this module reads the objects and picks the status.
use serde_json::Value;

use super::ApiError;
use crate::domain::scheduling::priority_class::validation::{self, Write};
use crate::domain::scheduling::priority_class::ClassInfo;
use crate::store::priority::class_info_of;
use crate::store::{Kind, Store};

/// A new class: 422 when validation refuses a field, else 403 when it would be a second
/// global default.
pub fn check_create(store: &Store, obj: &Value) -> Result<(), ApiError> {
    // An object that does not read as a class is left to the decoding's own error.
    let Some(class) = class_info_of(obj) else {
        return Ok(());
    };
    let fields = validation::create_fields(&class);
    invalid_or_admitted(store, &class, &fields, Write::Create)
}

/// A replaced class (PUT or PATCH): 422 when `value` or `preemptionPolicy` changed, else 403
/// when it would be a second global default. A class that is not stored is the update's own
/// NotFound.
pub fn check_update(store: &Store, obj: &Value) -> Result<(), ApiError> {
    // An object that does not read as a class is left to the decoding's own error.
    let Some(class) = class_info_of(obj) else {
        return Ok(());
    };
    let Some(old) = store
        .priority_classes()
        .into_iter()
        .find(|c| c.name == class.name)
    else {
        return Ok(());
    };
    let fields = validation::update_fields(&class, &old);
    invalid_or_admitted(store, &class, &fields, Write::Update)
}

/// kube-apiserver's order for a class write: validation's 422 first, then the Priority
/// admission plugin's 403.
fn invalid_or_admitted(
    store: &Store,
    class: &ClassInfo,
    fields: &[crate::domain::validation::Invalid],
    write: Write,
) -> Result<(), ApiError> {
    if !fields.is_empty() {
        return Err(crate::validation::invalid_error(
            Kind::PriorityClass,
            &class.name,
            fields,
        ));
    }
    admission(store, class, write)
}

fn admission(store: &Store, class: &ClassInfo, write: Write) -> Result<(), ApiError> {
    match validation::default_refusal(class, write, &store.priority_classes()) {
        Some(cause) => Err(ApiError::forbidden(
            Kind::PriorityClass,
            &class.name,
            &cause,
        )),
        None => Ok(()),
    }
}

/// Deleting `name`: 403 for a built-in class.
pub fn check_delete(name: &str) -> Result<(), ApiError> {
    match validation::delete_refusal(name) {
        Some(cause) => Err(ApiError::forbidden(Kind::PriorityClass, name, cause)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pc(name: &str, value: i64, extra: Value) -> Value {
        let mut v = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value});
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        v
    }

    #[test]
    fn writes_are_refused_with_kube_apiservers_code_and_words() {
        let store = Store::new(crate::store::StoreSettings::default());
        let err = check_create(&store, &pc("system-mine", 10, json!({}))).unwrap_err();
        assert_eq!((err.code, err.reason), (422, "Invalid"));
        assert_eq!(err.message, "PriorityClass.scheduling.k8s.io \"system-mine\" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class");
        store
            .create_value(
                Kind::PriorityClass,
                pc("first", 5, json!({"globalDefault": true})),
                false,
            )
            .unwrap();
        let err =
            check_create(&store, &pc("second", 6, json!({"globalDefault": true}))).unwrap_err();
        assert_eq!((err.code, err.reason), (403, "Forbidden"));
        assert_eq!(err.message, "priorityclasses.scheduling.k8s.io \"second\" is forbidden: PriorityClass first is already marked as default. Only one default can exist");
        let err =
            check_update(&store, &pc("first", 6, json!({"globalDefault": true}))).unwrap_err();
        assert_eq!(err.message, "PriorityClass.scheduling.k8s.io \"first\" is invalid: value: Forbidden: may not be changed in an update.");
        assert!(check_update(&store, &pc("first", 5, json!({"description": "d"}))).is_ok());
        let err = check_delete("system-cluster-critical").unwrap_err();
        assert_eq!(err.code, 403);
        assert_eq!(err.message, "priorityclasses.scheduling.k8s.io \"system-cluster-critical\" is forbidden: this is a system priority class and cannot be deleted");
        assert!(check_delete("first").is_ok());
    }
}
