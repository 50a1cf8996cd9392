//! What the API server would reject in an object that did not come from it (§i.2, §d.1).
//!
//! Why: a hand-written manifest has never been validated. daemonscope still computes what
//! the controller would do with it (§i.3), and reports beside the result each field the API
//! server would refuse, naming the field and the rule, instead of repairing it. Every check
//! here is a pure function over domain facts; defaulting (§i.1) happens in conversion.

pub mod names;
pub mod objects;

use super::facts::*;
use names::{check_dns_subdomain, check_label_value, check_qualified_name};
use serde::{Deserialize, Serialize};

/// One field the API server would reject, and the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invalid {
    /// The field path as the API server prints it, e.g. `spec.template.spec.tolerations[0].operator`.
    pub field: String,
    /// What is wrong, in the API server's words where it has them, with the rule's source.
    pub rule: String,
}

fn invalid(field: impl Into<String>, rule: impl Into<String>) -> Invalid {
    Invalid {
        field: field.into(),
        rule: rule.into(),
    }
}

/// The path of a template's pod spec inside a DaemonSet.
const POD_SPEC: &str = "spec.template.spec";

/// CV `ValidateTolerations` (§i.2) with the comparison-operator gate at its default (off).
pub fn validate_tolerations(tolerations: &[Toleration], path: &str) -> Vec<Invalid> {
    let mut out = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if !t.key.is_empty() {
            if let Err(e) = check_qualified_name(&t.key) {
                out.push(invalid(
                    format!("{at}.key"),
                    format!("{e} (a toleration key is a qualified name)"),
                ));
            }
        }
        if t.key.is_empty() && t.operator != "Exists" {
            out.push(invalid(
                format!("{at}.operator"),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\" \
                 (the controller still matches it by value, §a.5)",
            ));
        }
        if t.toleration_seconds.is_some() && t.effect != "NoExecute" {
            out.push(invalid(
                format!("{at}.effect"),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match t.operator.as_str() {
            "" | "Equal" => {
                if let Err(e) = check_label_value(&t.value) {
                    out.push(invalid(format!("{at}.operator"), format!("value {:?}: {e}", t.value)));
                }
            }
            "Exists" => {
                if !t.value.is_empty() {
                    out.push(invalid(format!("{at}.operator"), "value must be empty when `operator` is 'Exists'"));
                }
            }
            "Lt" | "Gt" => out.push(invalid(
                format!("{at}.operator"),
                format!(
                    "operator {} is accepted only where the TaintTolerationComparisonOperators feature gate is \
                     on (off by default); an object that already has it may keep it, but it tolerates nothing \
                     (§a.5)",
                    t.operator
                ),
            )),
            other => out.push(invalid(
                format!("{at}.operator"),
                format!("Unsupported value: {other:?}: supported values: \"Equal\", \"Exists\""),
            )),
        }
        if !t.effect.is_empty()
            && !matches!(
                t.effect.as_str(),
                "NoSchedule" | "PreferNoSchedule" | "NoExecute"
            )
        {
            out.push(invalid(
                format!("{at}.effect"),
                format!(
                    "Unsupported value: {:?}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                    t.effect
                ),
            ));
        }
    }
    out
}

/// CV `ValidateLabels` for `nodeSelector` (§i.2): keys are qualified names, values label values.
pub fn validate_node_selector(selector: &Labels, path: &str) -> Vec<Invalid> {
    let mut out = Vec::new();
    for (key, value) in selector {
        if let Err(e) = check_qualified_name(key) {
            out.push(invalid(path, format!("key {key:?}: {e}")));
        }
        if let Err(e) = check_label_value(value) {
            out.push(invalid(
                format!("{path}[{key}]"),
                format!("value {value:?}: {e}"),
            ));
        }
    }
    out
}

/// CV `ValidateNodeSelectorRequirement` for one `matchExpressions` entry.
fn validate_expression(r: &SelectorRequirement, at: &str) -> Vec<Invalid> {
    let mut out = Vec::new();
    match r.operator.as_str() {
        "In" | "NotIn" if r.values.is_empty() => {
            out.push(invalid(format!("{at}.values"), "must be specified when `operator` is 'In' or 'NotIn'"))
        }
        "Exists" | "DoesNotExist" if !r.values.is_empty() => out.push(invalid(
            format!("{at}.values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        )),
        "Gt" | "Lt" if r.values.len() != 1 => out.push(invalid(
            format!("{at}.values"),
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
        )),
        "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
        other => out.push(invalid(
            format!("{at}.operator"),
            format!(
                "Unsupported value: {other:?}: supported values: \"DoesNotExist\", \"Exists\", \"Gt\", \"In\", \
                 \"Lt\", \"NotIn\""
            ),
        )),
    }
    if let Err(e) = check_qualified_name(&r.key) {
        out.push(invalid(format!("{at}.key"), format!("{:?}: {e}", r.key)));
    }
    for (i, v) in r.values.iter().enumerate() {
        if let Err(e) = check_label_value(v) {
            out.push(invalid(
                format!("{at}.values[{i}]"),
                format!("{v:?}: {e} (the term fails to parse, §a.3)"),
            ));
        }
    }
    out
}

/// CV `ValidateNodeFieldSelectorRequirement` for one `matchFields` entry (§a.4).
fn validate_field(r: &SelectorRequirement, at: &str) -> Vec<Invalid> {
    let mut out = Vec::new();
    match r.operator.as_str() {
        "In" | "NotIn" if r.values.len() != 1 => out.push(invalid(
            format!("{at}.values"),
            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        )),
        "In" | "NotIn" => {}
        other => out.push(invalid(
            format!("{at}.operator"),
            format!("Unsupported value: {other:?}: supported values: \"In\", \"NotIn\""),
        )),
    }
    if r.key != crate::names::METADATA_NAME_FIELD {
        out.push(invalid(
            format!("{at}.key"),
            format!("{:?}: not a valid field selector key (only metadata.name; another key reads as empty, §a.4)", r.key),
        ));
    } else {
        for (i, v) in r.values.iter().enumerate() {
            if let Err(e) = check_dns_subdomain(v) {
                out.push(invalid(format!("{at}.values[{i}]"), format!("{v:?}: {e}")));
            }
        }
    }
    out
}

/// CV `ValidateNodeSelector` for `requiredDuringSchedulingIgnoredDuringExecution` (§i.2).
/// `None` (no block) is valid; `Some([])` is not.
pub fn validate_required_node_affinity(
    terms: Option<&[NodeSelectorTerm]>,
    path: &str,
) -> Vec<Invalid> {
    let Some(terms) = terms else {
        return Vec::new();
    };
    let terms_path = format!("{path}.nodeSelectorTerms");
    if terms.is_empty() {
        return vec![invalid(
            terms_path,
            "Required value: must have at least one node selector term (as stored, it matches no node, §a.2)",
        )];
    }
    let mut out = Vec::new();
    for (i, term) in terms.iter().enumerate() {
        for (j, r) in term.match_expressions.iter().enumerate() {
            out.extend(validate_expression(
                r,
                &format!("{terms_path}[{i}].matchExpressions[{j}]"),
            ));
        }
        for (j, r) in term.match_fields.iter().enumerate() {
            out.extend(validate_field(
                r,
                &format!("{terms_path}[{i}].matchFields[{j}]"),
            ));
        }
    }
    out
}

/// `getPercentValue`: the number of a valid percent string (`digits%`).
fn percent_value(s: &str) -> Option<i64> {
    let digits = s.strip_suffix('%')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `getIntOrPercentValue`: a percent's number, else the integer (a non-numeric string is 0).
fn int_or_percent_value(v: Option<&IntOrPercent>) -> i64 {
    match v {
        None => 0,
        Some(IntOrPercent::Int(n)) => *n,
        Some(IntOrPercent::Str(s)) => percent_value(s).or_else(|| s.parse().ok()).unwrap_or(0),
    }
}

/// `ValidatePositiveIntOrPercent` and `IsNotMoreThan100Percent` for one budget field.
fn validate_budget_field(v: Option<&IntOrPercent>, at: &str) -> Vec<Invalid> {
    match v {
        None => Vec::new(),
        Some(IntOrPercent::Int(n)) if *n < 0 => vec![invalid(at, format!("{n}: must be greater than or equal to 0"))],
        Some(IntOrPercent::Int(_)) => Vec::new(),
        Some(IntOrPercent::Str(s)) => match percent_value(s) {
            None => vec![invalid(
                at,
                format!(
                    "{s:?}: a valid percent string must be a numeric string followed by an ending '%' (a string \
                     without % has no value, §d.2)"
                ),
            )],
            Some(p) if p > 100 => vec![invalid(at, format!("{s:?}: must not be greater than 100%"))],
            Some(_) => Vec::new(),
        },
    }
}

/// AV `ValidateDaemonSetUpdateStrategy` and `ValidateRollingUpdateDaemonSet` (§d.1), on the
/// defaulted strategy.
pub fn validate_update_strategy(strategy: &UpdateStrategy) -> Vec<Invalid> {
    const PATH: &str = "spec.updateStrategy";
    match strategy {
        UpdateStrategy::OnDelete => Vec::new(),
        UpdateStrategy::Other(kind) => vec![invalid(
            format!("{PATH}.type"),
            format!(
                "Unsupported value: {kind:?}: supported values: \"RollingUpdate\", \"OnDelete\""
            ),
        )],
        UpdateStrategy::RollingUpdate {
            rolling_update_block: false,
            ..
        } => {
            vec![invalid(
                format!("{PATH}.rollingUpdate"),
                "Required value: type RollingUpdate needs a rollingUpdate block",
            )]
        }
        UpdateStrategy::RollingUpdate {
            max_unavailable,
            max_surge,
            ..
        } => {
            let unavailable_path = format!("{PATH}.rollingUpdate.maxUnavailable");
            let surge_path = format!("{PATH}.rollingUpdate.maxSurge");
            let mut out = validate_budget_field(max_unavailable.as_ref(), &unavailable_path);
            out.extend(validate_budget_field(max_surge.as_ref(), &surge_path));
            let has_unavailable = int_or_percent_value(max_unavailable.as_ref()) != 0;
            let has_surge = int_or_percent_value(max_surge.as_ref()) != 0;
            match (has_unavailable, has_surge) {
                (true, true) => out.push(invalid(
                    surge_path,
                    "may not be set when maxUnavailable is non-zero (to surge, set maxUnavailable: 0 \
                     explicitly; its default is 1, §d.1)",
                )),
                (false, false) => out.push(invalid(
                    unavailable_path,
                    "cannot be 0 when maxSurge is 0 (the controller then uses maxUnavailable 1, §d.2)",
                )),
                _ => {}
            }
            out
        }
    }
}

/// Every check of §i.2 that reads a pod template: tolerations, nodeSelector, node affinity.
pub fn validate_template(template: &TemplateFacts) -> Vec<Invalid> {
    let mut out = validate_tolerations(&template.tolerations, &format!("{POD_SPEC}.tolerations"));
    out.extend(validate_node_selector(
        &template.node_selector,
        &format!("{POD_SPEC}.nodeSelector"),
    ));
    out.extend(validate_required_node_affinity(
        template.required_node_affinity.as_deref(),
        &format!("{POD_SPEC}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"),
    ));
    out
}

/// Every check of §i.2 for a DaemonSet: its template and its update strategy.
pub fn validate_daemonset(ds: &DaemonSetFacts) -> Vec<Invalid> {
    let mut out = validate_template(&ds.template);
    out.extend(validate_update_strategy(&ds.strategy));
    out
}

#[cfg(test)]
mod tests;
