//! What the API server checks in labels and in a DaemonSet's selector (§i.2): metav1validation
//! `ValidateLabels` and `ValidateLabelSelector`, and AV `ValidateDaemonSetSpec`'s selector
//! rules.
//!
//! Why here: the simulated API server must refuse what kube-apiserver refuses (a DaemonSet
//! whose selector does not select its own template made the simulated controller create pods
//! without end, issue 15), and the offline commands report the same rules. The syntax of keys
//! and values is `names`; this module only says where it applies.

use super::names::{check_label_value, check_qualified_name, dns_subdomain_errors};
use super::{field_error, invalid, FieldErrorType, Invalid};
use crate::controller::{label_selector_matches, LabelSelectorFacts};
use crate::facts::Labels;

/// Go's `%#v` of a `map[string]string`, as the API server prints an invalid label map.
fn go_map(labels: &Labels) -> String {
    let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{k:?}:{v:?}")).collect();
    format!("map[string]string{{{}}}", pairs.join(", "))
}

/// The message of kube-apiserver's 422 Invalid for these fields (`errors.NewInvalid`):
/// `Kind.group "name" is invalid: field: detail`, several in brackets. `qualified_kind` is
/// `DaemonSet.apps` for a grouped kind, `Node` for the core group.
pub fn invalid_message(qualified_kind: &str, name: &str, fields: &[Invalid]) -> String {
    format!(
        "{qualified_kind} {name:?} is invalid: {}",
        field_list(fields)
    )
}

/// `field: detail` for one field, `[a: x, b: y]` for several: how `errors.NewInvalid`
/// aggregates field errors after the object's name.
pub fn field_list(fields: &[Invalid]) -> String {
    let each: Vec<String> = fields
        .iter()
        .map(|i| format!("{}: {}", i.field, i.rule))
        .collect();
    match each.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// CV `ValidateObjectMeta` with `NameIsDNSSubdomain` (the name rule of DaemonSets, Nodes,
/// Pods, Events and ControllerRevisions): one `metadata.name` error per message of
/// `IsDNS1123Subdomain`. An empty name is the caller's (it may come from `generateName`).
pub fn validate_subdomain_name(name: &str) -> Vec<Invalid> {
    if name.is_empty() {
        return Vec::new();
    }
    dns_subdomain_errors(name)
        .into_iter()
        .map(|e| invalid("metadata.name", format!("Invalid value: {name:?}: {e}")))
        .collect()
}

/// metav1validation `ValidateLabels`: every key a qualified name, every value a label value;
/// both errors are reported at the map's path, as the API server does.
pub fn validate_labels(labels: &Labels, path: &str) -> Vec<Invalid> {
    let mut out = Vec::new();
    for (key, value) in labels {
        if let Err(e) = check_qualified_name(key) {
            out.push(invalid(path, format!("Invalid value: {key:?}: {e}")));
        }
        if let Err(e) = check_label_value(value) {
            out.push(invalid(path, format!("Invalid value: {value:?}: {e}")));
        }
    }
    out
}

/// metav1validation `ValidateLabelSelector`: matchLabels as labels, and for each expression a
/// known operator, values required by `In`/`NotIn` and forbidden by `Exists`/`DoesNotExist`,
/// a qualified-name key and label-value values.
pub fn validate_label_selector(selector: &LabelSelectorFacts, path: &str) -> Vec<Invalid> {
    let mut out = validate_labels(&selector.match_labels, &format!("{path}.matchLabels"));
    for (i, r) in selector.match_expressions.iter().enumerate() {
        let at = format!("{path}.matchExpressions[{i}]");
        match r.operator.as_str() {
            "In" | "NotIn" if r.values.is_empty() => out.push(field_error(
                FieldErrorType::Required,
                format!("{at}.values"),
                "Required value: must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !r.values.is_empty() => out.push(field_error(
                FieldErrorType::Forbidden,
                format!("{at}.values"),
                "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => out.push(invalid(
                format!("{at}.operator"),
                format!("Invalid value: {other:?}: not a valid selector operator"),
            )),
        }
        if let Err(e) = check_qualified_name(&r.key) {
            out.push(invalid(
                format!("{at}.key"),
                format!("Invalid value: {:?}: {e}", r.key),
            ));
        }
        for (j, value) in r.values.iter().enumerate() {
            if let Err(e) = check_label_value(value) {
                out.push(invalid(
                    format!("{at}.values[{j}]"),
                    format!("Invalid value: {value:?}: {e}"),
                ));
            }
        }
    }
    out
}

/// AV `ValidateDaemonSetSpec`, the selector part: a valid selector that selects the
/// template's own labels and is not empty, and valid template labels (CV
/// `ValidatePodTemplateSpec` → `ValidateObjectMeta`).
pub fn validate_daemonset_selector(
    selector: &LabelSelectorFacts,
    template_labels: &Labels,
) -> Vec<Invalid> {
    const TEMPLATE_LABELS: &str = "spec.template.metadata.labels";
    let mut out = validate_label_selector(selector, "spec.selector");
    // `LabelSelectorAsSelector` fails on an invalid selector; then no match is checked.
    if out.is_empty() && !label_selector_matches(selector, template_labels) {
        out.push(invalid(
            TEMPLATE_LABELS,
            format!(
                "Invalid value: {}: `selector` does not match template `labels`",
                go_map(template_labels)
            ),
        ));
    }
    if selector.is_empty() {
        out.push(invalid(
            "spec.selector",
            "Invalid value: {}: empty selector is invalid for daemonset",
        ));
    }
    out.extend(validate_labels(template_labels, TEMPLATE_LABELS));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::SelectorRequirement;
    use crate::testing::labels;

    fn match_labels(pairs: &[(&str, &str)]) -> LabelSelectorFacts {
        LabelSelectorFacts {
            match_labels: labels(pairs),
            match_expressions: Vec::new(),
        }
    }

    #[test]
    fn a_selector_that_does_not_select_its_template_is_refused_at_the_template_labels() {
        // AV ValidateDaemonSetSpec: "`selector` does not match template `labels`" (issue 15
        // reproduction 1: kube-apiserver answers 422 with this field).
        let errs =
            validate_daemonset_selector(&match_labels(&[("app", "a")]), &labels(&[("app", "b")]));
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].field, "spec.template.metadata.labels");
        assert_eq!(
            errs[0].rule,
            "Invalid value: map[string]string{\"app\":\"b\"}: `selector` does not match template `labels`"
        );
        let ok = validate_daemonset_selector(
            &match_labels(&[("app", "a")]),
            &labels(&[("app", "a"), ("tier", "x")]),
        );
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn a_name_that_is_not_a_dns_subdomain_is_refused_at_metadata_name() {
        // validation.go `ValidateObjectMeta` with `NameIsDNSSubdomain` (apps validation.go
        // `ValidateDaemonSetName`, core `ValidateNodeName`).
        let errs = validate_subdomain_name("Bad_Name");
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].field, "metadata.name");
        assert!(errs[0]
            .rule
            .starts_with("Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"));
        assert!(validate_subdomain_name("good-name.x").is_empty());
        assert!(validate_subdomain_name("").is_empty());
    }

    #[test]
    fn an_empty_selector_is_refused_for_a_daemonset() {
        // AV ValidateDaemonSetSpec: "empty selector is invalid for daemonset" (issue 15 item 6).
        let errs = validate_daemonset_selector(&match_labels(&[]), &labels(&[("app", "a")]));
        assert_eq!(
            errs.iter().map(|e| e.field.as_str()).collect::<Vec<_>>(),
            vec!["spec.selector"]
        );
        assert!(errs[0]
            .rule
            .ends_with("empty selector is invalid for daemonset"));
    }

    #[test]
    fn label_values_over_63_characters_or_with_odd_characters_are_refused() {
        // metav1validation ValidateLabels with IsValidLabelValue (issue 15 item 6).
        let long = "a".repeat(64);
        let errs = validate_labels(
            &labels(&[("app", &long), ("x", "a<b"), ("ok", "")]),
            "metadata.labels",
        );
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs.iter().all(|e| e.field == "metadata.labels"));
        assert!(errs
            .iter()
            .any(|e| e.rule.contains("must be no more than 63 characters")));
        let bad_key = validate_labels(&labels(&[("-bad", "v")]), "metadata.labels");
        assert_eq!(bad_key.len(), 1);
    }

    #[test]
    fn selector_expressions_follow_validate_label_selector() {
        let sel = LabelSelectorFacts {
            match_labels: Labels::new(),
            match_expressions: vec![
                SelectorRequirement {
                    key: "a".into(),
                    operator: "In".into(),
                    values: vec![],
                },
                SelectorRequirement {
                    key: "b".into(),
                    operator: "Exists".into(),
                    values: vec!["x".into()],
                },
                SelectorRequirement {
                    key: "c".into(),
                    operator: "Gt".into(),
                    values: vec!["1".into()],
                },
            ],
        };
        let fields: Vec<String> = validate_label_selector(&sel, "spec.selector")
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(
            fields,
            vec![
                "spec.selector.matchExpressions[0].values",
                "spec.selector.matchExpressions[1].values",
                "spec.selector.matchExpressions[2].operator",
            ]
        );
        // An invalid selector is not also reported as not matching (LabelSelectorAsSelector fails).
        let errs = validate_daemonset_selector(&sel, &labels(&[("app", "a")]));
        assert!(!errs
            .iter()
            .any(|e| e.field == "spec.template.metadata.labels"));
    }
}
