//! Label selectors, parsed and matched once: node-selector requirements (§a.3), a
//! DaemonSet's `spec.selector` (`metav1.LabelSelectorAsSelector`, §f) and the `labelSelector`
//! query string (`labels.Parse`) all become [`LabelRequirement`]s checked by the same
//! `labels.NewRequirement` rules and matched by the same `Requirement.Matches`.
//!
//! Why one module: these used to be three copies (the placement rules, the controller's
//! claim logic by operator strings, the simulated API server's own parser) and they disagreed
//! on edge cases. The key and value syntax is `validation::names`'.

use crate::controller::LabelSelectorFacts;
use crate::facts::{Labels, SelectorRequirement};
use crate::validation::names::{check_label_value, check_qualified_name};

#[cfg(test)]
mod tests;

/// A requirement's operator after `labels.NewRequirement` accepted it. `=`/`==` are `In`
/// with one value and `!=` is `NotIn` with one value: Kubernetes matches them identically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelOp {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt(i64),
    Lt(i64),
}

/// One parsed label requirement: key, operator and the values it lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelRequirement {
    pub key: String,
    pub op: LabelOp,
    pub values: Vec<String>,
}

impl LabelRequirement {
    /// `Requirement.Matches` against an object's labels.
    pub fn matches(&self, labels: &Labels) -> bool {
        label_op_matches(&self.key, &self.op, &self.values, labels)
    }
}

/// §a.3 `Requirement.Matches`: `NotIn` holds on a missing key, `Gt`/`Lt` need an integer
/// label value.
pub fn label_op_matches(key: &str, op: &LabelOp, values: &[String], labels: &Labels) -> bool {
    let actual = labels.get(key);
    match op {
        LabelOp::In => actual.is_some_and(|v| values.contains(v)),
        LabelOp::NotIn => actual.is_none_or(|v| !values.contains(v)),
        LabelOp::Exists => actual.is_some(),
        LabelOp::DoesNotExist => actual.is_none(),
        LabelOp::Gt(limit) => actual
            .and_then(|v| v.parse::<i64>().ok())
            .is_some_and(|n| n > *limit),
        LabelOp::Lt(limit) => actual
            .and_then(|v| v.parse::<i64>().ok())
            .is_some_and(|n| n < *limit),
    }
}

/// Which structured selector a requirement comes from: they accept different operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectorKind {
    /// A node selector term's `matchExpressions` (§a.3): `Gt` and `Lt` are allowed.
    Node,
    /// A `metav1.LabelSelector`'s `matchExpressions` (§f): only the set operators.
    Label,
}

impl SelectorKind {
    fn name(self) -> &'static str {
        match self {
            SelectorKind::Node => "node selector",
            SelectorKind::Label => "label selector",
        }
    }
}

/// Why `labels.NewRequirement` refused a requirement: every problem found, in order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", problems.join("; "))]
pub struct RequirementError {
    /// One sentence per problem (key, operator, each bad value).
    pub problems: Vec<String>,
}

/// §a.3 `NewRequirement`: the checks that turn a structured requirement into a parse error.
/// Every problem is reported.
pub fn parse_requirement(
    r: &SelectorRequirement,
    kind: SelectorKind,
) -> Result<LabelOp, RequirementError> {
    let mut errors = Vec::new();
    if let Err(e) = check_qualified_name(&r.key) {
        errors.push(format!("key {:?}: {e}", r.key));
    }
    let numeric = kind == SelectorKind::Node;
    let op = match r.operator.as_str() {
        "In" | "NotIn" => {
            if r.values.is_empty() {
                errors.push(format!("operator {} needs at least one value", r.operator));
            }
            Some(if r.operator == "In" {
                LabelOp::In
            } else {
                LabelOp::NotIn
            })
        }
        "Exists" | "DoesNotExist" => {
            if !r.values.is_empty() {
                errors.push(format!("operator {} takes no values", r.operator));
            }
            Some(if r.operator == "Exists" {
                LabelOp::Exists
            } else {
                LabelOp::DoesNotExist
            })
        }
        "Gt" | "Lt" if numeric => match r.values.as_slice() {
            [one] => match one.parse::<i64>() {
                Ok(n) => Some(if r.operator == "Gt" {
                    LabelOp::Gt(n)
                } else {
                    LabelOp::Lt(n)
                }),
                Err(_) => {
                    errors.push(format!(
                        "operator {} needs an integer value, not {one:?}",
                        r.operator
                    ));
                    None
                }
            },
            _ => {
                errors.push(format!(
                    "operator {} needs exactly one value, got {}",
                    r.operator,
                    r.values.len()
                ));
                None
            }
        },
        other => {
            errors.push(format!("{other:?} is not a valid {} operator", kind.name()));
            None
        }
    };
    for v in &r.values {
        if let Err(e) = check_label_value(v) {
            errors.push(format!("value {v:?}: {e}"));
        }
    }
    match (op, errors.is_empty()) {
        (Some(op), true) => Ok(op),
        _ => Err(RequirementError { problems: errors }),
    }
}

/// `metav1.LabelSelectorAsSelector` then `Matches` (§f): matchLabels as `key In [value]`,
/// then the expressions; an invalid requirement makes the whole selector invalid, which
/// selects nothing. Why no parsed value: the controller checks every pod against every
/// DaemonSet's selector, so this checks and matches in one pass without allocating (an
/// invalid requirement and a failed match both give `false`, in any order).
pub fn selector_facts_match(selector: &LabelSelectorFacts, labels: &Labels) -> bool {
    selector.match_labels.iter().all(|(k, v)| {
        check_qualified_name(k).is_ok() && check_label_value(v).is_ok() && labels.get(k) == Some(v)
    }) && selector.match_expressions.iter().all(|r| {
        parse_requirement(r, SelectorKind::Label)
            .is_ok_and(|op| label_op_matches(&r.key, &op, &r.values, labels))
    })
}

/// Why a `labelSelector` string does not parse; the text is the API server's 400 message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unable to parse requirement {requirement:?}: {reason}")]
pub struct LabelSelectorError {
    /// The requirement as written.
    pub requirement: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// A parsed label selector: every requirement must hold; the empty selector matches all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<LabelRequirement>,
}

impl LabelSelector {
    /// `labels.Parse`: the `labelSelector` query parameter (`app=x,tier in (a,b),!gone`).
    pub fn parse(input: &str) -> Result<LabelSelector, LabelSelectorError> {
        let mut requirements = Vec::new();
        if input.trim().is_empty() {
            return Ok(LabelSelector { requirements });
        }
        for raw in split_top_level(input) {
            requirements.push(parse_text_requirement(raw.trim())?);
        }
        Ok(LabelSelector { requirements })
    }

    /// Whether an object with these labels is selected.
    pub fn matches(&self, labels: &Labels) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }

    /// Whether the selector has no requirement (matches everything).
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
}

/// Split on commas that are not inside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// One requirement of the string grammar, with `IsQualifiedName` / `IsValidLabelValue`.
fn parse_text_requirement(req: &str) -> Result<LabelRequirement, LabelSelectorError> {
    let fail = |reason: &'static str| LabelSelectorError {
        requirement: req.to_string(),
        reason,
    };
    let requirement = |key: &str, op: LabelOp, values: Vec<String>| LabelRequirement {
        key: key.to_string(),
        op,
        values,
    };
    if let Some(key) = req.strip_prefix('!') {
        let key = key.trim();
        if check_qualified_name(key).is_err() {
            return Err(fail("invalid label key"));
        }
        return Ok(requirement(key, LabelOp::DoesNotExist, Vec::new()));
    }
    let key_end = req
        .find([' ', '\t', '=', '!', '<', '>', '('])
        .unwrap_or(req.len());
    let key = &req[..key_end];
    if check_qualified_name(key).is_err() {
        return Err(fail("invalid label key"));
    }
    let rest = req[key_end..].trim_start();
    let value_of = |v: &str| -> Result<String, LabelSelectorError> {
        let v = v.trim();
        match check_label_value(v) {
            Ok(()) => Ok(v.to_string()),
            Err(_) => Err(fail("invalid label value")),
        }
    };
    let number_of = |v: &str| -> Result<i64, LabelSelectorError> {
        v.trim()
            .parse::<i64>()
            .map_err(|_| fail("for 'gt', 'lt' operators, the value must be an integer"))
    };
    if rest.is_empty() {
        return Ok(requirement(key, LabelOp::Exists, Vec::new()));
    }
    if let Some(v) = rest.strip_prefix("==") {
        return Ok(requirement(key, LabelOp::In, vec![value_of(v)?]));
    }
    if let Some(v) = rest.strip_prefix("!=") {
        return Ok(requirement(key, LabelOp::NotIn, vec![value_of(v)?]));
    }
    if let Some(v) = rest.strip_prefix('=') {
        return Ok(requirement(key, LabelOp::In, vec![value_of(v)?]));
    }
    if let Some(v) = rest.strip_prefix('>') {
        return Ok(requirement(key, LabelOp::Gt(number_of(v)?), Vec::new()));
    }
    if let Some(v) = rest.strip_prefix('<') {
        return Ok(requirement(key, LabelOp::Lt(number_of(v)?), Vec::new()));
    }
    let (op, set) = if let Some(s) = rest.strip_prefix("notin") {
        (LabelOp::NotIn, s)
    } else if let Some(s) = rest.strip_prefix("in") {
        (LabelOp::In, s)
    } else {
        return Err(fail("unknown operator"));
    };
    let inner = set
        .trim()
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(|| fail("a set of values must be in parentheses"))?;
    let values = inner
        .split(',')
        .map(value_of)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(requirement(key, op, values))
}
