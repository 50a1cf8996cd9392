//! Edits read from and written to a page's query string, in kubectl's own spellings:
//! `taint=dedicated=ml:NoExecute`, `untaint=dedicated:NoExecute`, `label=k=v`, `unlabel=k`,
//! `cordon=1`, `uncordon=1` on a node; `tolerate=KEY[=VALUE][:EFFECT[:SECONDS]]` and
//! `nodeSelector=k=v,k2=v2` (`-`: none) and `requests=cpu=500m,memory=256Mi` on a DaemonSet. An empty value is a form's unused
//! field and no edit.
//!
//! Why the API server's checks: a preview of an edit the API server would refuse would answer
//! a question nobody can ask the cluster, so every taint, label, toleration and nodeSelector is
//! checked with the same validation the offline reports use (§i.2), and a query string that
//! does not parse is an error a person reads, never a panic or a silently empty preview.

use super::{Edits, NodeEdit, TemplateEdit};
use crate::facts::{Labels, Taint, TaintEffect, Toleration};
use crate::validation::names::{check_label_value, check_qualified_name};
use crate::validation::taints::validate_tolerations;
use crate::validation::validate_node_selector;

/// At most this many edits are read from one URL (bounded work for an untrusted query).
pub const MAX_EDITS: usize = 20;
/// At most this many bytes per query value.
const MAX_VALUE_LEN: usize = 1024;

/// Which page reads the edits: each accepts only its own kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditScope {
    /// A node page or the matrix: taint, untaint, label, unlabel, cordon, uncordon.
    Node,
    /// A DaemonSet page: tolerate, nodeSelector.
    DaemonSet,
}

impl EditScope {
    /// The query parameters this scope reads, in the order the URL writes them.
    pub fn params(self) -> &'static [&'static str] {
        match self {
            EditScope::Node => &["taint", "untaint", "label", "unlabel", "cordon", "uncordon"],
            EditScope::DaemonSet => &["tolerate", "nodeSelector", "requests"],
        }
    }
}

/// A query parameter that is not a valid edit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{param}={value:?}: {message}")]
pub struct EditError {
    /// The parameter name (`taint`).
    pub param: String,
    /// The value as given (cut to a readable length).
    pub value: String,
    /// What is wrong and what was expected.
    pub message: String,
}

/// Reads the edits of `scope` from a query: `get_all(name)` returns every value of one
/// parameter, in order. Every bad value is reported; the edits are returned only when there
/// are none, so a preview never silently drops part of what the URL asked for.
pub fn parse_edits(
    scope: EditScope,
    get_all: impl Fn(&str) -> Vec<String>,
) -> Result<Edits, Vec<EditError>> {
    let mut edits = Edits::default();
    let mut errors = Vec::new();
    let mut seen = 0usize;
    for &param in scope.params() {
        for value in get_all(param) {
            if value.is_empty() && !matches!(param, "cordon" | "uncordon") {
                // A form's unused field: no edit.
                continue;
            }
            seen += 1;
            if seen > MAX_EDITS {
                errors.push(error(
                    param,
                    &value,
                    format!("at most {MAX_EDITS} edits are previewed at once"),
                ));
                continue;
            }
            if value.len() > MAX_VALUE_LEN {
                errors.push(error(
                    param,
                    &value,
                    format!("longer than {MAX_VALUE_LEN} bytes"),
                ));
                continue;
            }
            let parsed = match param {
                "taint" => parse_taint(&value).map(|t| Parsed::Node(NodeEdit::AddTaint(t))),
                "untaint" => parse_untaint(&value).map(Parsed::Node),
                "label" => parse_label(&value)
                    .map(|(key, value)| Parsed::Node(NodeEdit::SetLabel { key, value })),
                "unlabel" => check_key(&value)
                    .map(|()| Parsed::Node(NodeEdit::RemoveLabel { key: value.clone() })),
                "cordon" => parse_flag(&value).map(|on| {
                    if on {
                        Parsed::Node(NodeEdit::Cordon)
                    } else {
                        Parsed::Nothing
                    }
                }),
                "uncordon" => parse_flag(&value).map(|on| {
                    if on {
                        Parsed::Node(NodeEdit::Uncordon)
                    } else {
                        Parsed::Nothing
                    }
                }),
                "tolerate" => parse_toleration(&value)
                    .map(|t| Parsed::Template(TemplateEdit::AddToleration(t))),
                "requests" => super::requests::parse_requests(&value)
                    .map(|r| Parsed::Template(TemplateEdit::SetRequests(r))),
                _ => parse_node_selector(&value)
                    .map(|s| Parsed::Template(TemplateEdit::SetNodeSelector(s))),
            };
            match parsed {
                Ok(Parsed::Node(e)) => edits.node.push(e),
                Ok(Parsed::Template(e)) => edits.template.push(e),
                Ok(Parsed::Nothing) => {}
                Err(message) => errors.push(error(param, &value, message)),
            }
        }
    }
    if errors.is_empty() {
        Ok(edits)
    } else {
        Err(errors)
    }
}

enum Parsed {
    Node(NodeEdit),
    Template(TemplateEdit),
    Nothing,
}

fn error(param: &str, value: &str, message: String) -> EditError {
    let shown: String = value.chars().take(80).collect();
    EditError {
        param: param.to_string(),
        value: shown,
        message,
    }
}

/// The effect names the API server accepts on a taint (CV `validateTaintEffect`, §i.2).
fn parse_effect(effect: &str) -> Result<TaintEffect, String> {
    match effect {
        "NoSchedule" => Ok(TaintEffect::NoSchedule),
        "PreferNoSchedule" => Ok(TaintEffect::PreferNoSchedule),
        "NoExecute" => Ok(TaintEffect::NoExecute),
        "" => Err(
            "the effect is missing: write KEY[=VALUE]:EFFECT, e.g. dedicated=ml:NoExecute".into(),
        ),
        other => Err(format!(
            "unknown effect {other:?}: NoSchedule, PreferNoSchedule or NoExecute"
        )),
    }
}

fn check_key(key: &str) -> Result<(), String> {
    check_qualified_name(key).map_err(|e| format!("key {key:?}: {e}"))
}

fn check_value(value: &str) -> Result<(), String> {
    check_label_value(value).map_err(|e| format!("value {value:?}: {e}"))
}

/// `kubectl taint` syntax: `KEY[=VALUE]:EFFECT`.
fn parse_taint(spec: &str) -> Result<Taint, String> {
    let Some((key_value, effect)) = spec.rsplit_once(':') else {
        return Err("expected KEY[=VALUE]:EFFECT, e.g. dedicated=ml:NoExecute".into());
    };
    let effect = parse_effect(effect)?;
    let (key, value) = key_value.split_once('=').unwrap_or((key_value, ""));
    check_key(key)?;
    check_value(value)?;
    Ok(Taint {
        key: key.to_string(),
        value: value.to_string(),
        effect,
    })
}

/// `KEY:EFFECT` or `KEY` (every effect of that key), as `kubectl taint ... KEY:EFFECT-`.
fn parse_untaint(spec: &str) -> Result<NodeEdit, String> {
    let (key, effect) = match spec.split_once(':') {
        Some((key, effect)) => (key, Some(parse_effect(effect)?)),
        None => (spec, None),
    };
    check_key(key)?;
    Ok(NodeEdit::RemoveTaint {
        key: key.to_string(),
        effect,
    })
}

/// `KEY=VALUE` (`kubectl label`).
fn parse_label(spec: &str) -> Result<(String, String), String> {
    let Some((key, value)) = spec.split_once('=') else {
        return Err("expected KEY=VALUE, e.g. workload-type=gpu".into());
    };
    check_key(key)?;
    check_value(value)?;
    Ok((key.to_string(), value.to_string()))
}

/// `1`/`true` on, `0`/`false` off.
fn parse_flag(value: &str) -> Result<bool, String> {
    match value {
        "1" | "true" | "" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err("expected 1 or 0".into()),
    }
}

/// `KEY[=VALUE][:EFFECT[:SECONDS]]`: with `=VALUE` operator Equal, without it Exists; the key
/// `*` is the empty key (with Exists: every taint). Checked as the API server checks a
/// toleration (CV `ValidateTolerations`, §i.2): tolerationSeconds needs NoExecute, and so on.
fn parse_toleration(spec: &str) -> Result<Toleration, String> {
    let mut parts = spec.splitn(3, ':');
    let key_value = parts.next().unwrap_or_default();
    let effect = parts.next().unwrap_or_default();
    let seconds = parts
        .next()
        .map(|s| {
            s.parse::<i64>()
                .map_err(|_| format!("tolerationSeconds {s:?} is not a whole number"))
        })
        .transpose()?;
    if !effect.is_empty() {
        parse_effect(effect)?;
    }
    let (key, value, operator) = match key_value.split_once('=') {
        Some((key, value)) => (key, value, "Equal"),
        None => (key_value, "", "Exists"),
    };
    let key = if key == "*" { "" } else { key };
    let toleration = Toleration {
        key: key.to_string(),
        operator: operator.to_string(),
        value: value.to_string(),
        effect: effect.to_string(),
        toleration_seconds: seconds,
    };
    let problems = validate_tolerations(std::slice::from_ref(&toleration), "toleration");
    match problems.first() {
        None => Ok(toleration),
        Some(p) => Err(format!(
            "{}: {} (expected KEY[=VALUE][:EFFECT[:SECONDS]], e.g. dedicated=ml:NoExecute)",
            p.field, p.rule
        )),
    }
}

/// `k=v,k2=v2`, or `-` for no nodeSelector at all, checked as CV `ValidateLabels` (§i.2).
fn parse_node_selector(spec: &str) -> Result<Labels, String> {
    let mut selector = Labels::new();
    if spec == "-" {
        return Ok(selector);
    }
    for pair in spec.split(',').filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(format!(
                "{pair:?}: expected k=v[,k2=v2…], e.g. workload-type=gpu"
            ));
        };
        selector.insert(key.to_string(), value.to_string());
    }
    match validate_node_selector(&selector, "nodeSelector").first() {
        None => Ok(selector),
        Some(p) => Err(format!("{}: {}", p.field, p.rule)),
    }
}
