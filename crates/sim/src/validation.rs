//! The API server's validation of an object about to be stored (its registry strategy's
//! `Validate`), for the simulated API and for scenario loading.
//!
//! Why: the simulated cluster must not hold what kube-apiserver refuses. A DaemonSet whose
//! selector does not select its template was stored, and the simulated controller then created
//! pods without end (issue 15). The rules themselves are the domain's (§i.2); this module only
//! picks them per kind and renders the 422 the API server sends.

use crate::api::status::ApiError;
use crate::domain::validation::objects::{
    invalid_message, validate_daemonset_selector, validate_labels, validate_subdomain_name,
};
use crate::domain::validation::{
    validate_node_taints, validate_nonnegative, validate_tolerations, validate_update_strategy,
    Invalid,
};
use crate::edge::convert::{daemonset_facts, label_selector_facts, node_facts};
use crate::store::Kind;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Node;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Every field of `obj` (a `kind`, already decoded once by the caller) the API server would
/// refuse on create or update: the name and labels of any kind, a DaemonSet's selector,
/// template labels, tolerations, `minReadySeconds` and update strategy, and a Node's taints.
/// An object that does not decode is left to the caller's decoding error.
pub fn invalid_fields(kind: Kind, obj: &Value) -> Vec<Invalid> {
    let mut out = Vec::new();
    // `ValidateObjectMeta` comes first. A Namespace's name is a DNS label, checked by the
    // store; an empty name is the store's too (it may come from `generateName`).
    if kind != Kind::Namespace {
        let name = obj
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        out.extend(validate_subdomain_name(name));
    }
    let labels: BTreeMap<String, String> = obj
        .pointer("/metadata/labels")
        .and_then(|l| serde_json::from_value(l.clone()).ok())
        .unwrap_or_default();
    out.extend(validate_labels(&labels, "metadata.labels"));
    // A DaemonSet without any spec is the caller's "spec: missing" (the API's decoding fills
    // in an empty one, whose empty selector is then refused here).
    if kind == Kind::DaemonSet && obj.get("spec").is_some_and(Value::is_object) {
        if let Ok(ds) = serde_json::from_value::<DaemonSet>(obj.clone()) {
            let spec = &ds.spec;
            let template_labels = spec
                .template
                .metadata
                .as_ref()
                .and_then(|m| m.labels.clone())
                .unwrap_or_default();
            out.extend(validate_daemonset_selector(
                &label_selector_facts(&spec.selector),
                &template_labels,
            ));
            if let Ok(facts) = daemonset_facts(&ds) {
                // AV `ValidateDaemonSetSpec` order: the template, then minReadySeconds.
                out.extend(validate_tolerations(
                    &facts.template.tolerations,
                    "spec.template.spec.tolerations",
                ));
                out.extend(validate_nonnegative(
                    facts.min_ready_seconds,
                    "spec.minReadySeconds",
                ));
                out.extend(validate_update_strategy(&facts.strategy));
            }
        }
    }
    if kind == Kind::ResourceQuota {
        // §l.6 `ValidateResourceQuotaSpec`.
        if let Some(hard) = obj.pointer("/spec/hard").and_then(Value::as_object) {
            out.extend(crate::domain::quota::validation::validate_hard(
                hard.iter()
                    .filter_map(|(name, v)| Some((name.as_str(), v.as_str()?))),
            ));
        }
    }
    if kind == Kind::Node {
        if let Ok(node) = serde_json::from_value::<Node>(obj.clone()) {
            // kube-apiserver's own quirk, copied on purpose: `ValidateNode` (core
            // validation.go) validates `spec.taints` under
            // `field.NewPath("metadata").Child("taints")`, so the 422 names
            // `metadata.taints[i]...` and clients match on that path.
            out.extend(validate_node_taints(
                &node_facts(&node).taints,
                "metadata.taints",
            ));
        }
    }
    out
}

/// The 422 Invalid kube-apiserver answers: `Kind.group "name" is invalid: field: detail`
/// (several in brackets), with one cause per field in `details`.
pub fn invalid_error(kind: Kind, name: &str, fields: &[Invalid]) -> ApiError {
    let qualified = match kind.group() {
        "" => kind.kind_name().to_string(),
        group => format!("{}.{group}", kind.kind_name()),
    };
    let message = invalid_message(&qualified, name, fields);
    let mut error = ApiError::invalid(kind, name, message);
    let causes: Vec<Value> = fields
        .iter()
        .map(|i| json!({"reason": i.kind.cause_reason(), "message": i.rule, "field": i.field}))
        .collect();
    if let Some(details) = error.details.as_mut().and_then(Value::as_object_mut) {
        details.insert("causes".into(), json!(causes));
    }
    error
}

/// `invalid_fields` as the API's result: Ok, or the 422 naming every field.
pub fn check(kind: Kind, obj: &Value) -> Result<(), ApiError> {
    let fields = invalid_fields(kind, obj);
    if fields.is_empty() {
        return Ok(());
    }
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Err(invalid_error(kind, name, &fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_422_names_the_kind_group_object_and_each_field_like_kube_apiserver() {
        let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "d", "namespace": "ns"},
            "spec": {"selector": {"matchLabels": {"app": "a"}},
                "template": {"metadata": {"labels": {"app": "b"}},
                    "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
        let err = check(Kind::DaemonSet, &ds).expect_err("refused");
        assert_eq!((err.code, err.reason), (422, "Invalid"));
        assert_eq!(
            err.message,
            "DaemonSet.apps \"d\" is invalid: spec.template.metadata.labels: Invalid value: \
             map[string]string{\"app\":\"b\"}: `selector` does not match template `labels`"
        );
        let causes = err.details.map(|d| d["causes"].clone()).unwrap_or_default();
        assert_eq!(causes[0]["field"], "spec.template.metadata.labels");
        let node = json!({"metadata": {"name": "n", "labels": {"a": "x<y"}}});
        let err = check(Kind::Node, &node).expect_err("refused");
        assert!(
            err.message
                .starts_with("Node \"n\" is invalid: metadata.labels: Invalid value: \"x<y\""),
            "{}",
            err.message
        );
    }
}
