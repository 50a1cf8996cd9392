//! What the API server would reject in an object that did not come from it (§i.2, §d.1).
//!
//! Why: a hand-written manifest has never been validated. daemonscope still computes what
//! the controller would do with it (§i.3), and reports beside the result each field the API
//! server would refuse, naming the field and the rule, instead of repairing it. Every check
//! here is a pure function over domain facts; defaulting (§i.1) happens in conversion.

pub mod names;
pub mod objects;
pub mod taints;

pub use taints::{validate_node_taints, validate_tolerations};

use super::facts::*;
use names::{check_dns_subdomain, check_label_value, check_qualified_name};
use serde::{Deserialize, Serialize};

/// Which kind of field error the API server reports (apimachinery `field.ErrorType`).
///
/// Why typed: kube-apiserver puts it in each `details.causes[].reason` of a 422, and clients
/// (kubectl, controllers) branch on it, so the simulated API server must send the same one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum FieldErrorType {
    /// `field.Invalid`: "Invalid value: ...".
    #[default]
    Invalid,
    /// `field.NotSupported`: "Unsupported value: ...: supported values: ...".
    NotSupported,
    /// `field.Required`: "Required value: ...".
    Required,
    /// `field.Forbidden`: "Forbidden: ...".
    Forbidden,
    /// `field.Duplicate`: "Duplicate value: ...".
    Duplicate,
}

impl FieldErrorType {
    /// The `CauseType` string of a `details.causes[].reason` (apimachinery `field.ErrorType`).
    pub fn cause_reason(self) -> &'static str {
        match self {
            FieldErrorType::Invalid => "FieldValueInvalid",
            FieldErrorType::NotSupported => "FieldValueNotSupported",
            FieldErrorType::Required => "FieldValueRequired",
            FieldErrorType::Forbidden => "FieldValueForbidden",
            FieldErrorType::Duplicate => "FieldValueDuplicate",
        }
    }
}

/// One field the API server would reject, and the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invalid {
    /// The field path as the API server prints it, e.g. `spec.template.spec.tolerations[0].operator`.
    pub field: String,
    /// What is wrong, in the API server's words where it has them, with the rule's source.
    pub rule: String,
    /// The kind of error, as `details.causes[].reason` names it (absent in older reports).
    #[serde(default)]
    pub kind: FieldErrorType,
}

/// A `field.Invalid` error.
pub fn invalid(field: impl Into<String>, rule: impl Into<String>) -> Invalid {
    field_error(FieldErrorType::Invalid, field, rule)
}

/// A field error of `kind`; `rule` carries the API server's prefix ("Unsupported value: ...").
pub fn field_error(
    kind: FieldErrorType,
    field: impl Into<String>,
    rule: impl Into<String>,
) -> Invalid {
    Invalid {
        field: field.into(),
        rule: rule.into(),
        kind,
    }
}

/// The path of a template's pod spec inside a DaemonSet.
const POD_SPEC: &str = "spec.template.spec";

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
        other => out.push(field_error(
            FieldErrorType::NotSupported,
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
        other => out.push(field_error(
            FieldErrorType::NotSupported,
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
        return vec![field_error(
            FieldErrorType::Required,
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
        UpdateStrategy::Other(kind) => vec![field_error(
            FieldErrorType::NotSupported,
            format!("{PATH}.type"),
            format!(
                "Unsupported value: {kind:?}: supported values: \"RollingUpdate\", \"OnDelete\""
            ),
        )],
        UpdateStrategy::RollingUpdate {
            rolling_update_block: false,
            ..
        } => {
            vec![field_error(
                FieldErrorType::Required,
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

/// apimachinery `ValidateNonnegativeField`, as AV `ValidateDaemonSetSpec` applies it to
/// `spec.minReadySeconds`.
///
/// Why: a negative value is refused by the API server, so the simulated one must refuse it
/// too; the rollout rules (§d) would otherwise count pods available at once.
pub fn validate_nonnegative(value: i64, field: &str) -> Vec<Invalid> {
    if value < 0 {
        vec![invalid(
            field,
            format!("Invalid value: {value}: must be greater than or equal to 0"),
        )]
    } else {
        Vec::new()
    }
}

/// Every check of §i.2 for a DaemonSet: its template, `minReadySeconds` and its update
/// strategy.
pub fn validate_daemonset(ds: &DaemonSetFacts) -> Vec<Invalid> {
    let mut out = validate_template(&ds.template);
    out.extend(validate_nonnegative(
        ds.min_ready_seconds,
        "spec.minReadySeconds",
    ));
    out.extend(validate_update_strategy(&ds.strategy));
    out
}

#[cfg(test)]
mod tests;
