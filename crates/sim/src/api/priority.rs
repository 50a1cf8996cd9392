//! The Priority admission plugin's refusal of a new pod (§k.5), as kube-apiserver v1.37 words
//! it: `pods "<name>" is forbidden: no PriorityClass with name <class> was found`, or a
//! `spec.priority`/`spec.preemptionPolicy` that differs from the class's.
//!
//! Why: a DaemonSet naming a class that does not exist gets no pods, only `FailedCreate`
//! events with these words (§l); the sim refuses the same creations with the same message.
//! The fields of an admitted pod are filled by the store (`store/priority.rs`).
use k8s_openapi::api::core::v1::Pod;

use crate::domain::scheduling::priority_class;
use crate::store::Store;

/// The whole refusal message for creating `pod`, or None when the Priority admission lets it
/// in. A mutating plugin: it runs before validation and Pod Security.
pub fn refusal(store: &Store, pod: &Pod) -> Option<String> {
    let spec = pod.spec.as_ref()?;
    let cause = priority_class::resolve(
        spec.priority_class_name.as_deref(),
        spec.priority,
        spec.preemption_policy.as_deref(),
        &store.priority_classes(),
    )
    .err()?;
    Some(format!(
        "pods {:?} is forbidden: {cause}",
        name_before_generation(pod)
    ))
}

/// The name a mutating plugin's `NewForbidden` gives a pod: kube-apiserver generates the name
/// from `generateName` only after mutating admission, so a DaemonSet's pod is `ghost-agent-`
/// here (measured on v1.37.2, `tests/it/k8s_scheduling.rs`), unlike Pod Security's refusal
/// (validating, after generation), which names `ghost-agent-x7k2p`.
fn name_before_generation(pod: &Pod) -> &str {
    let meta = &pod.metadata;
    [meta.name.as_deref(), meta.generate_name.as_deref()]
        .into_iter()
        .flatten()
        .find(|n| !n.is_empty())
        .unwrap_or("Unknown")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(spec: serde_json::Value) -> Pod {
        serde_json::from_value(json!({"metadata": {"name": "agent-x"}, "spec": spec})).unwrap()
    }

    fn store() -> Store {
        let store = Store::new(crate::store::StoreSettings::default());
        store
            .create_value(
                crate::store::Kind::PriorityClass,
                json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                    "metadata": {"name": "agents"}, "value": 1000000}),
                false,
            )
            .unwrap();
        store
    }

    #[test]
    fn an_unknown_class_is_refused_and_a_stored_or_built_in_one_is_not() {
        let store = store();
        let missing = pod(json!({"priorityClassName": "nope", "containers": []}));
        assert_eq!(
            refusal(&store, &missing).as_deref(),
            Some("pods \"agent-x\" is forbidden: no PriorityClass with name nope was found")
        );
        for class in ["agents", "system-node-critical"] {
            let ok = pod(json!({"priorityClassName": class, "containers": []}));
            assert_eq!(refusal(&store, &ok), None, "{class}");
        }
    }

    #[test]
    fn a_daemon_pods_refusal_names_its_generate_name_as_kube_apiserver_does() {
        let store = store();
        let daemon: Pod =
            serde_json::from_value(json!({"metadata": {"generateName": "ghost-agent-"},
            "spec": {"priorityClassName": "no-such-class", "containers": []}}))
            .unwrap();
        assert_eq!(
            refusal(&store, &daemon).as_deref(),
            Some("pods \"ghost-agent-\" is forbidden: no PriorityClass with name no-such-class was found")
        );
    }

    #[test]
    fn an_admitted_pod_gets_its_class_value_and_policy_from_the_store() {
        let store = store();
        let created = store
            .create_value(
                crate::store::Kind::Pod,
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                    "spec": {"priorityClassName": "agents", "containers": [{"name": "c", "image": "i:1"}]}}),
                false,
            )
            .unwrap();
        let v = created.value().unwrap();
        assert_eq!(v["spec"]["priority"], json!(1000000));
        assert_eq!(v["spec"]["preemptionPolicy"], json!("PreemptLowerPriority"));
    }

    #[test]
    fn a_global_default_names_itself_on_pods_without_a_class() {
        let store = store();
        store
            .create_value(
                crate::store::Kind::PriorityClass,
                json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                    "metadata": {"name": "fallback"}, "value": 7, "globalDefault": true,
                    "preemptionPolicy": "Never"}),
                false,
            )
            .unwrap();
        let created = store
            .create_value(
                crate::store::Kind::Pod,
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "i:1"}]}}),
                false,
            )
            .unwrap();
        let v = created.value().unwrap();
        assert_eq!(v["spec"]["priorityClassName"], json!("fallback"));
        assert_eq!(v["spec"]["priority"], json!(7));
        assert_eq!(v["spec"]["preemptionPolicy"], json!("Never"));
    }
}
