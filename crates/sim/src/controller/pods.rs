//! The pod the DaemonSet controller creates for one node (§f, DSU `CreatePodTemplate`,
//! `ReplaceDaemonSetPodNodeNameNodeAffinity`).
//!
//! Why it is built from the domain's tolerations: the merged list (§b) is a Kubernetes rule
//! the placement module owns; here it is only turned back into API objects.

use super::revisions::controller_ref;
use crate::domain::facts::Toleration as TolerationFacts;
use crate::domain::names;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{
    Affinity, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod,
    Toleration,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

fn to_api(t: &TolerationFacts) -> Toleration {
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    Toleration {
        key: opt(&t.key),
        operator: opt(&t.operator),
        value: opt(&t.value),
        effect: opt(&t.effect),
        toleration_seconds: t.toleration_seconds,
    }
}

/// A new daemon pod for `node`: the template, labels plus `controller-revision-hash` (and
/// `pod-template-generation`), the controller ownerReference, the merged tolerations, and the
/// required node affinity replaced by `matchFields metadata.name In [node]` (preferred terms
/// kept). Unbound unless the template sets `nodeName`: the scheduler (the kubelet stand-in)
/// binds it.
pub fn new_pod(ds: &DaemonSet, node: &str, hash: &str, tolerations: &[TolerationFacts]) -> Pod {
    let template = &ds.spec.template;
    let template_meta = template.metadata.clone().unwrap_or_default();
    let mut labels = template_meta.labels.unwrap_or_default();
    labels.insert(names::CONTROLLER_REVISION_HASH.into(), hash.into());
    if let Some(generation) = ds
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(names::TEMPLATE_GENERATION_ANNOTATION))
    {
        labels.insert(names::POD_TEMPLATE_GENERATION.into(), generation.clone());
    }
    let mut spec = template.spec.clone().unwrap_or_default();
    spec.tolerations = (!tolerations.is_empty()).then(|| tolerations.iter().map(to_api).collect());
    let pin = NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm {
            match_expressions: None,
            match_fields: Some(vec![NodeSelectorRequirement {
                key: names::METADATA_NAME_FIELD.into(),
                operator: "In".into(),
                values: Some(vec![node.to_string()]),
            }]),
        }],
    };
    let affinity = spec.affinity.get_or_insert_with(Affinity::default);
    let node_affinity = affinity
        .node_affinity
        .get_or_insert_with(NodeAffinity::default);
    node_affinity.required_during_scheduling_ignored_during_execution = Some(pin);
    Pod {
        metadata: ObjectMeta {
            generate_name: Some(format!(
                "{}-",
                ds.metadata.name.as_deref().unwrap_or_default()
            )),
            namespace: ds.metadata.namespace.clone(),
            labels: Some(labels),
            annotations: template_meta.annotations,
            owner_references: Some(vec![controller_ref(ds)]),
            ..Default::default()
        },
        spec: Some(spec),
        status: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::scheduling::daemon_pod_tolerations;
    use crate::edge::convert::template_facts;
    use crate::edge::testing::object;

    fn ds() -> DaemonSet {
        object(serde_json::json!({
            "metadata": {"name": "agent", "namespace": "ns", "uid": "u-1",
                         "annotations": {"deprecated.daemonset.template.generation": "3"}},
            "spec": {
                "selector": {"matchLabels": {"app": "agent"}},
                "template": {
                    "metadata": {"labels": {"app": "agent"}},
                    "spec": {
                        "containers": [{"name": "c", "image": "i:1"}],
                        "hostNetwork": true,
                        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"}],
                        "affinity": {"nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]},
                            "preferredDuringSchedulingIgnoredDuringExecution": [
                                {"weight": 1, "preference": {"matchExpressions": [{"key": "fast", "operator": "Exists"}]}}]}}
                    }
                }
            }
        }))
    }

    #[test]
    fn a_created_pod_is_owned_labelled_tolerant_and_pinned_as_the_controller_does_it() {
        let ds = ds();
        let tolerations = daemon_pod_tolerations(&template_facts(&ds.spec.template));
        let pod = new_pod(&ds, "node-7", "abc123", &tolerations);
        let owner = &pod.metadata.owner_references.as_ref().expect("owner")[0];
        assert_eq!(
            (
                owner.kind.as_str(),
                owner.api_version.as_str(),
                owner.uid.as_str()
            ),
            ("DaemonSet", "apps/v1", "u-1"),
            "§f"
        );
        assert_eq!(owner.controller, Some(true));
        let labels = pod.metadata.labels.clone().unwrap_or_default();
        assert_eq!(
            labels.get("controller-revision-hash").map(String::as_str),
            Some("abc123"),
            "§f"
        );
        assert_eq!(
            labels.get("pod-template-generation").map(String::as_str),
            Some("3"),
            "§f"
        );
        assert_eq!(labels.get("app").map(String::as_str), Some("agent"));
        let spec = pod.spec.clone().expect("spec");
        assert_eq!(spec.node_name, None, "§f: placed by the scheduler");
        let tols = spec.tolerations.unwrap_or_default();
        assert_eq!(
            tols[0].key.as_deref(),
            Some("dedicated"),
            "§b: the user's toleration first"
        );
        assert!(
            tols.iter()
                .any(|t| t.key.as_deref() == Some("node.kubernetes.io/network-unavailable")),
            "§b: hostNetwork"
        );
        assert_eq!(tols.len(), 8, "§b: 1 user + 7 automatic with hostNetwork");
        let na = spec
            .affinity
            .and_then(|a| a.node_affinity)
            .expect("node affinity");
        let required = na
            .required_during_scheduling_ignored_during_execution
            .expect("pin");
        assert_eq!(
            required.node_selector_terms.len(),
            1,
            "§f: the user's terms are replaced"
        );
        let field = &required.node_selector_terms[0]
            .match_fields
            .as_ref()
            .expect("fields")[0];
        assert_eq!(
            (field.key.as_str(), field.operator.as_str()),
            ("metadata.name", "In")
        );
        assert_eq!(field.values.as_deref(), Some(&["node-7".to_string()][..]));
        assert!(
            na.preferred_during_scheduling_ignored_during_execution
                .is_some(),
            "§f: preferred terms kept"
        );
    }
}
