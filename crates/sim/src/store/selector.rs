//! Label and field selectors as the API server parses them from `labelSelector=` and
//! `fieldSelector=` query parameters.
//!
//! Clients send DaemonSet selectors rendered as strings (`app=speaker`), `kubectl -l`, and
//! field selectors on `metadata.name`, `spec.nodeName`, `status.phase` and event fields;
//! every operator of the label grammar is accepted so a real client never meets a 400 here.

use crate::domain::names;
use crate::domain::validation::names::{check_label_value, check_qualified_name};
use std::collections::BTreeMap;

use super::Kind;

/// A selector string that the API server would reject.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("unable to parse requirement {requirement:?}: {reason}")]
    Label { requirement: String, reason: String },
    #[error("invalid field selector {term:?}: {reason}")]
    Field { term: String, reason: String },
    #[error("field label not supported: {field}")]
    UnsupportedField { field: String },
}

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
    GreaterThan(String, i64),
    LessThan(String, i64),
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
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

/// `IsQualifiedName`, the domain's rule (written once, §a.3).
fn valid_label_key(key: &str) -> bool {
    check_qualified_name(key).is_ok()
}

/// `IsValidLabelValue`, the domain's rule (written once, §a.3).
fn valid_label_value(value: &str) -> bool {
    check_label_value(value).is_ok()
}

impl LabelSelector {
    /// Parse the `labelSelector` query parameter.
    pub fn parse(input: &str) -> Result<LabelSelector, SelectorError> {
        let mut requirements = Vec::new();
        if input.trim().is_empty() {
            return Ok(LabelSelector { requirements });
        }
        for raw in split_top_level(input) {
            requirements.push(Self::parse_requirement(raw.trim())?);
        }
        Ok(LabelSelector { requirements })
    }

    fn parse_requirement(req: &str) -> Result<Requirement, SelectorError> {
        let fail = |reason: &str| SelectorError::Label {
            requirement: req.to_string(),
            reason: reason.to_string(),
        };
        if let Some(key) = req.strip_prefix('!') {
            let key = key.trim();
            if !valid_label_key(key) {
                return Err(fail("invalid label key"));
            }
            return Ok(Requirement::DoesNotExist(key.to_string()));
        }
        let key_end = req
            .find([' ', '\t', '=', '!', '<', '>', '('])
            .unwrap_or(req.len());
        let key = &req[..key_end];
        if !valid_label_key(key) {
            return Err(fail("invalid label key"));
        }
        let rest = req[key_end..].trim_start();
        let value_of = |v: &str| -> Result<String, SelectorError> {
            let v = v.trim();
            if valid_label_value(v) {
                Ok(v.to_string())
            } else {
                Err(fail("invalid label value"))
            }
        };
        let number_of = |v: &str| -> Result<i64, SelectorError> {
            v.trim()
                .parse::<i64>()
                .map_err(|_| fail("for 'gt', 'lt' operators, the value must be an integer"))
        };
        if rest.is_empty() {
            return Ok(Requirement::Exists(key.to_string()));
        }
        if let Some(v) = rest.strip_prefix("==") {
            return Ok(Requirement::Equals(key.to_string(), value_of(v)?));
        }
        if let Some(v) = rest.strip_prefix("!=") {
            return Ok(Requirement::NotEquals(key.to_string(), value_of(v)?));
        }
        if let Some(v) = rest.strip_prefix('=') {
            return Ok(Requirement::Equals(key.to_string(), value_of(v)?));
        }
        if let Some(v) = rest.strip_prefix('>') {
            return Ok(Requirement::GreaterThan(key.to_string(), number_of(v)?));
        }
        if let Some(v) = rest.strip_prefix('<') {
            return Ok(Requirement::LessThan(key.to_string(), number_of(v)?));
        }
        let (negated, set) = if let Some(s) = rest.strip_prefix("notin") {
            (true, s)
        } else if let Some(s) = rest.strip_prefix("in") {
            (false, s)
        } else {
            return Err(fail("unknown operator"));
        };
        let set = set.trim();
        let inner = set
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .ok_or_else(|| fail("a set of values must be in parentheses"))?;
        let values = inner
            .split(',')
            .map(value_of)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(if negated {
            Requirement::NotIn(key.to_string(), values)
        } else {
            Requirement::In(key.to_string(), values)
        })
    }

    /// Whether an object with these labels is selected.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| match r {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|l| vs.contains(l)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|l| !vs.contains(l)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
            Requirement::GreaterThan(k, n) => labels
                .get(k)
                .and_then(|l| l.parse::<i64>().ok())
                .is_some_and(|l| l > *n),
            Requirement::LessThan(k, n) => labels
                .get(k)
                .and_then(|l| l.parse::<i64>().ok())
                .is_some_and(|l| l < *n),
        })
    }

    /// Whether the selector has no requirement (matches everything).
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
}

/// The field names the API server supports in field selectors for each kind.
pub fn supported_fields(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Pod => &[
            names::METADATA_NAME_FIELD,
            "metadata.namespace",
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
        Kind::Node => &[names::METADATA_NAME_FIELD, "spec.unschedulable"],
        Kind::Namespace => &[names::METADATA_NAME_FIELD, "status.phase"],
        Kind::Event => &[
            names::METADATA_NAME_FIELD,
            "metadata.namespace",
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        Kind::DaemonSet | Kind::ControllerRevision => {
            &[names::METADATA_NAME_FIELD, "metadata.namespace"]
        }
    }
}

/// One term of a field selector.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldTerm {
    field: &'static str,
    value: String,
    negated: bool,
}

/// A parsed field selector, checked against the fields the kind supports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<FieldTerm>,
}

/// Undo the selector escaping of `\\`, `\,` and `\=`.
fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Split on unescaped commas.
fn split_unescaped(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut escaped = false;
    for c in s.chars() {
        if escaped {
            cur.push('\\');
            cur.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ',' {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    parts.push(cur);
    parts
}

impl FieldSelector {
    /// Parse the `fieldSelector` query parameter for `kind`; unsupported fields are an error,
    /// as on a real API server.
    pub fn parse(input: &str, kind: Kind) -> Result<FieldSelector, SelectorError> {
        let mut terms = Vec::new();
        if input.trim().is_empty() {
            return Ok(FieldSelector { terms });
        }
        for term in split_unescaped(input) {
            let term = term.trim();
            if term.is_empty() {
                continue;
            }
            let (field, value, negated) = if let Some((f, v)) = term.split_once("!=") {
                (f, v, true)
            } else if let Some((f, v)) = term.split_once("==") {
                (f, v, false)
            } else if let Some((f, v)) = term.split_once('=') {
                (f, v, false)
            } else {
                return Err(SelectorError::Field {
                    term: term.to_string(),
                    reason: "no operator (=, ==, !=)".to_string(),
                });
            };
            let field = field.trim();
            let supported = supported_fields(kind)
                .iter()
                .find(|f| **f == field)
                .ok_or_else(|| SelectorError::UnsupportedField {
                    field: field.to_string(),
                })?;
            terms.push(FieldTerm {
                field: supported,
                value: unescape(value.trim()),
                negated,
            });
        }
        Ok(FieldSelector { terms })
    }

    /// Whether an object is selected; `lookup` gives a field's value (`""` when absent).
    pub fn matches<'a>(&self, lookup: impl Fn(&str) -> &'a str) -> bool {
        self.terms
            .iter()
            .all(|t| (lookup(t.field) == t.value) != t.negated)
    }

    /// Whether the selector has no term.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn every_label_operator_selects_like_the_api_server() {
        let l = labels(&[("app", "speaker"), ("tier", "node"), ("rank", "5")]);
        let cases = [
            ("", true),
            ("app=speaker", true),
            ("app==speaker", true),
            ("app=other", false),
            ("app!=other", true),
            ("missing!=x", true),
            ("app in (a, speaker)", true),
            ("app in (a,b)", false),
            ("app notin (a,b)", true),
            ("missing notin (a)", true),
            ("app notin (speaker)", false),
            ("tier", true),
            ("missing", false),
            ("!missing", true),
            ("!app", false),
            ("rank>4", true),
            ("rank<4", false),
            ("app=speaker,tier in (node),!missing", true),
            ("app=speaker,tier=other", false),
        ];
        for (sel, want) in cases {
            let parsed = LabelSelector::parse(sel).unwrap_or_else(|e| panic!("{sel}: {e}"));
            assert_eq!(parsed.matches(&l), want, "selector {sel:?}");
        }
    }

    #[test]
    fn malformed_label_selectors_are_rejected() {
        for sel in ["app in a,b", "=x", "app=spe aker", "app ~ x", "rank>x"] {
            assert!(LabelSelector::parse(sel).is_err(), "{sel:?} should fail");
        }
        // labels.Parse validates with IsQualifiedName / IsValidLabelValue, the domain's rules
        // (issue 15 item 6: this file had a weaker copy that let these through).
        let long = format!("app={}", "a".repeat(64));
        for sel in ["app=-x", "app=x-", "-app=x", "a/b/c=x", long.as_str()] {
            assert!(LabelSelector::parse(sel).is_err(), "{sel:?} should fail");
        }
    }

    #[test]
    fn field_selectors_match_missing_fields_as_empty_and_reject_unknown_fields() {
        let fields = [("spec.nodeName", "n1"), ("status.phase", "Running")];
        let f = |name: &str| {
            fields
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| *v)
                .unwrap_or("")
        };
        let sel = FieldSelector::parse(
            "spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed",
            Kind::Pod,
        )
        .expect("valid");
        assert!(sel.matches(f));
        assert!(!FieldSelector::parse("spec.nodeName=n2", Kind::Pod)
            .expect("valid")
            .matches(f));
        assert!(FieldSelector::parse("status.podIP=", Kind::Pod)
            .expect("valid")
            .matches(f));
        assert_eq!(
            FieldSelector::parse("spec.foo=x", Kind::Pod),
            Err(SelectorError::UnsupportedField {
                field: "spec.foo".to_string()
            })
        );
        assert!(FieldSelector::parse("spec.nodeName=n1", Kind::DaemonSet).is_err());
    }
}
