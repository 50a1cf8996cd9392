//! What the API server checks in tolerations and node taints (§i.2): CV `ValidateTolerations`,
//! `validateNodeTaints` and `validateTaintEffect` (pkg/apis/core/validation/validation.go).
//!
//! Why in the API server's words: the simulated API server answers a bad toleration or taint
//! with these errors in its 422 (field path, cause type and message, issue 15), and the offline
//! reports show the same ones. Where the rule has a consequence for placement that the API
//! server does not say, the offline report's note stays in parentheses.

use super::names::{check_label_value, qualified_name_errors};
use super::{field_error, invalid, FieldErrorType, Invalid};
use crate::facts::{Taint, TaintEffect, Toleration};

/// Go's rendering of a string field value in a field error (`%q`, or JSON for named string
/// types such as `TolerationOperator`; the same for the values that reach here).
fn quoted(s: &str) -> String {
    format!("{s:?}")
}

/// CV `validateTaintEffect`: empty is `Required` unless `allow_empty`, and only the three
/// effects the scheduler knows are supported.
fn validate_taint_effect(effect: &str, allow_empty: bool, at: &str) -> Vec<Invalid> {
    match effect {
        "" if !allow_empty => vec![field_error(FieldErrorType::Required, at, "Required value")],
        "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute" => Vec::new(),
        other => vec![field_error(
            FieldErrorType::NotSupported,
            at,
            format!(
                "Unsupported value: {}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \
                 \"NoExecute\"",
                quoted(other)
            ),
        )],
    }
}

/// CV `ValidateTolerations` (§i.2) with the comparison-operator gate at its default (off).
pub fn validate_tolerations(tolerations: &[Toleration], path: &str) -> Vec<Invalid> {
    let mut out = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if !t.key.is_empty() {
            // `ValidateLabelName`: one error per message of `IsQualifiedName`.
            for e in qualified_name_errors(&t.key) {
                out.push(invalid(
                    format!("{at}.key"),
                    format!("Invalid value: {}: {e}", quoted(&t.key)),
                ));
            }
        }
        if t.key.is_empty() && t.operator != "Exists" {
            out.push(invalid(
                format!("{at}.operator"),
                format!(
                    "Invalid value: {}: operator must be Exists when `key` is empty, which means \
                     \"match all values and all keys\"",
                    quoted(&t.operator)
                ),
            ));
        }
        if t.toleration_seconds.is_some() && t.effect != "NoExecute" {
            out.push(invalid(
                format!("{at}.effect"),
                format!(
                    "Invalid value: {}: effect must be 'NoExecute' when `tolerationSeconds` is set",
                    quoted(&t.effect)
                ),
            ));
        }
        match t.operator.as_str() {
            "" | "Equal" => {
                if let Err(e) = check_label_value(&t.value) {
                    out.push(invalid(
                        format!("{at}.operator"),
                        format!("Invalid value: {}: {e}", quoted(&t.value)),
                    ));
                }
            }
            "Exists" => {
                if !t.value.is_empty() {
                    out.push(invalid(
                        format!("{at}.operator"),
                        format!(
                            "Invalid value: {}: value must be empty when `operator` is 'Exists'",
                            quoted(&t.value)
                        ),
                    ));
                }
            }
            "Lt" | "Gt" => out.push(field_error(
                FieldErrorType::NotSupported,
                format!("{at}.operator"),
                format!(
                    "Unsupported value: {}: supported values: \"Equal\", \"Exists\", \"Lt\", \"Gt\" \
                     (Lt and Gt are accepted only where the TaintTolerationComparisonOperators \
                     feature gate is on, off by default; an object that already has one may keep \
                     it, but it tolerates nothing, §a.5)",
                    quoted(&t.operator)
                ),
            )),
            other => out.push(field_error(
                FieldErrorType::NotSupported,
                format!("{at}.operator"),
                format!(
                    "Unsupported value: {}: supported values: \"Equal\", \"Exists\"",
                    quoted(other)
                ),
            )),
        }
        out.extend(validate_taint_effect(
            &t.effect,
            true,
            &format!("{at}.effect"),
        ));
    }
    out
}

/// The effect as the object carried it (`Other` keeps unknown and empty ones).
fn effect_text(effect: &TaintEffect) -> &str {
    match effect {
        TaintEffect::NoSchedule => "NoSchedule",
        TaintEffect::PreferNoSchedule => "PreferNoSchedule",
        TaintEffect::NoExecute => "NoExecute",
        TaintEffect::Other(s) => s,
    }
}

/// CV `validateNodeTaints`: each key a qualified name (one error per message, so an empty
/// key has two), each value a label value, each effect one of the three (required), and no
/// two taints with the same key and effect.
///
/// `path` is where the API server reports them: `ValidateNode` passes
/// `field.NewPath("metadata").Child("taints")`, so a Node's taints are reported at
/// `metadata.taints[i]` although they live in `spec.taints` (validation.go `ValidateNode`).
pub fn validate_node_taints(taints: &[Taint], path: &str) -> Vec<Invalid> {
    let mut out = Vec::new();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for (i, t) in taints.iter().enumerate() {
        let at = format!("{path}[{i}]");
        for e in qualified_name_errors(&t.key) {
            out.push(invalid(
                format!("{at}.key"),
                format!("Invalid value: {}: {e}", quoted(&t.key)),
            ));
        }
        if let Err(e) = check_label_value(&t.value) {
            out.push(invalid(
                format!("{at}.value"),
                format!("Invalid value: {}: {e}", quoted(&t.value)),
            ));
        }
        let effect = effect_text(&t.effect);
        out.extend(validate_taint_effect(
            effect,
            false,
            &format!("{at}.effect"),
        ));
        if seen.contains(&(t.key.as_str(), effect)) {
            let value = format!(
                "{{\"key\":{:?},\"value\":{:?},\"effect\":{:?}}}",
                t.key, t.value, effect
            );
            out.push(field_error(
                FieldErrorType::Duplicate,
                at,
                format!("Duplicate value: {value}: taints must be unique by key and effect pair"),
            ));
            continue;
        }
        seen.push((t.key.as_str(), effect));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: &str, effect: &str) -> Taint {
        let effect = match effect {
            "NoSchedule" => TaintEffect::NoSchedule,
            "PreferNoSchedule" => TaintEffect::PreferNoSchedule,
            "NoExecute" => TaintEffect::NoExecute,
            other => TaintEffect::Other(other.to_string()),
        };
        Taint {
            key: key.into(),
            value: value.into(),
            effect,
        }
    }

    fn tol(key: &str, operator: &str, value: &str, effect: &str, secs: Option<i64>) -> Toleration {
        Toleration {
            key: key.into(),
            operator: operator.into(),
            value: value.into(),
            effect: effect.into(),
            toleration_seconds: secs,
        }
    }

    fn summary(found: &[Invalid]) -> Vec<(String, FieldErrorType)> {
        found.iter().map(|e| (e.field.clone(), e.kind)).collect()
    }

    #[test]
    fn an_empty_taint_key_gets_two_errors_like_is_qualified_name() {
        // validation.go `validateNodeTaints` → `ValidateLabelName` → content.IsLabelKey:
        // "name part must be non-empty" and the regex message, one field error each.
        let found = validate_node_taints(&[taint("", "", "NoSchedule")], "metadata.taints");
        assert_eq!(
            summary(&found),
            vec![
                ("metadata.taints[0].key".into(), FieldErrorType::Invalid),
                ("metadata.taints[0].key".into(), FieldErrorType::Invalid),
            ]
        );
        assert_eq!(
            found[0].rule,
            "Invalid value: \"\": name part must be non-empty"
        );
        assert!(found[1]
            .rule
            .starts_with("Invalid value: \"\": name part must consist of alphanumeric characters"));
    }

    #[test]
    fn a_taint_effect_is_required_and_one_of_three() {
        // validation.go `validateTaintEffect` with allowEmpty=false (from `validateNodeTaints`).
        let found = validate_node_taints(
            &[taint("k", "", "Sometimes"), taint("k2", "", "")],
            "metadata.taints",
        );
        assert_eq!(
            summary(&found),
            vec![
                (
                    "metadata.taints[0].effect".into(),
                    FieldErrorType::NotSupported
                ),
                ("metadata.taints[1].effect".into(), FieldErrorType::Required),
            ]
        );
        assert_eq!(
            found[0].rule,
            "Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \
             \"PreferNoSchedule\", \"NoExecute\""
        );
    }

    #[test]
    fn taint_values_and_duplicates_follow_validate_node_taints() {
        // validation.go `validateNodeTaints`: IsValidLabelValue on the value, and
        // "taints must be unique by key and effect pair" (field.Duplicate at the index).
        let found = validate_node_taints(
            &[
                taint("k", "a b", "NoSchedule"),
                taint("k", "", "NoSchedule"),
                taint("k", "", "NoExecute"),
            ],
            "metadata.taints",
        );
        assert_eq!(
            summary(&found),
            vec![
                ("metadata.taints[0].value".into(), FieldErrorType::Invalid),
                ("metadata.taints[1]".into(), FieldErrorType::Duplicate),
            ]
        );
    }

    #[test]
    fn toleration_errors_carry_the_api_servers_words_and_types() {
        // validation.go `ValidateTolerations`: field.Invalid for the operator/value/effect
        // rules, field.NotSupported for an unknown operator and (via `validateTaintEffect`,
        // allowEmpty=true) an unknown effect.
        let exists_value = validate_tolerations(&[tol("k", "Exists", "v", "", None)], "t");
        assert_eq!(
            exists_value[0].rule,
            "Invalid value: \"v\": value must be empty when `operator` is 'Exists'"
        );
        let seconds = validate_tolerations(&[tol("k", "Exists", "", "NoSchedule", Some(5))], "t");
        assert_eq!(
            seconds[0].rule,
            "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"
        );
        let empty_key = validate_tolerations(&[tol("", "Equal", "v", "", None)], "t");
        assert_eq!(
            summary(&empty_key),
            vec![("t[0].operator".into(), FieldErrorType::Invalid)]
        );
        assert!(empty_key[0]
            .rule
            .starts_with("Invalid value: \"Equal\": operator must be Exists"));
        let unknown = validate_tolerations(&[tol("k", "Matches", "", "Never", None)], "t");
        assert_eq!(
            summary(&unknown),
            vec![
                ("t[0].operator".into(), FieldErrorType::NotSupported),
                ("t[0].effect".into(), FieldErrorType::NotSupported),
            ]
        );
    }
}
