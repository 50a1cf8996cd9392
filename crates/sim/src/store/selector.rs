//! Field selectors (and, re-exported from the domain, label selectors) as the API server parses them from `labelSelector=` and
//! `fieldSelector=` query parameters.
//!
//! Clients send DaemonSet selectors rendered as strings (`app=speaker`), `kubectl -l`, and
//! field selectors on `metadata.name`, `spec.nodeName`, `status.phase` and event fields;
//! every operator of the label grammar is accepted so a real client never meets a 400 here.

use crate::domain::names;

use super::Kind;

/// A selector string that the API server would reject.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// A `labelSelector` the domain's parser refused (its text is the API server's).
    #[error(transparent)]
    Label(#[from] crate::domain::labels::LabelSelectorError),
    #[error("invalid field selector {term:?}: {reason}")]
    Field { term: String, reason: String },
    #[error("field label not supported: {field}")]
    UnsupportedField { field: String },
}

/// Label selectors are the domain's (`labels.Parse`, written once); field selectors are an
/// API-server feature and live here.
pub use crate::domain::labels::LabelSelector;

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
        Kind::DaemonSet | Kind::ControllerRevision | Kind::ResourceQuota => {
            &[names::METADATA_NAME_FIELD, "metadata.namespace"]
        }
        Kind::PriorityClass => &[names::METADATA_NAME_FIELD],
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
