//! Node selector terms: label requirements (§a.3), `matchFields` (§a.4), and the OR/AND of
//! `nodeSelectorTerms` (§a.2), parsed once per template and matched per node.
//!
//! Why parse first: Kubernetes parses every term (`NewLazyErrorNodeSelector`) and a term
//! whose parse fails matches nothing. Parsing once per DaemonSet keeps matching 5,000 nodes
//! cheap and gives the explanation the exact parse error.

use crate::facts::{NodeFacts, NodeSelectorTerm, SelectorRequirement};

pub(crate) use crate::labels::{label_op_matches, LabelOp};

/// §a.3 `NewRequirement` (through `nodeSelectorRequirementsAsSelector`): the checks that
/// turn a requirement into a parse error, the label module's with `Gt`/`Lt` allowed.
pub(crate) fn parse_label_requirement(
    r: &SelectorRequirement,
) -> Result<LabelOp, crate::labels::RequirementError> {
    crate::labels::parse_requirement(r, crate::labels::SelectorKind::Node)
}

/// A `matchFields` requirement after `nodeSelectorRequirementsAsFieldSelector` (§a.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldReq {
    pub key: String,
    /// `In` when true (field equals value), `NotIn` otherwise.
    pub equal: bool,
    pub value: String,
}

/// Why a `matchFields` requirement does not parse (§a.4); it fails its term.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FieldRequirementError {
    /// Only `In` and `NotIn` exist for node fields.
    #[error("{0:?} is not a valid node field selector operator (only In and NotIn)")]
    Operator(String),
    /// A node field requirement compares with exactly one value.
    #[error("operator {operator} on a node field needs exactly one value, got {count}")]
    ValueCount { operator: String, count: usize },
}

/// §a.4: only `In`/`NotIn` with exactly one value parse; any key parses.
pub(crate) fn parse_field_requirement(
    r: &SelectorRequirement,
) -> Result<FieldReq, FieldRequirementError> {
    let equal = match r.operator.as_str() {
        "In" => true,
        "NotIn" => false,
        other => return Err(FieldRequirementError::Operator(other.to_string())),
    };
    match r.values.as_slice() {
        [one] => Ok(FieldReq {
            key: r.key.clone(),
            equal,
            value: one.clone(),
        }),
        _ => Err(FieldRequirementError::ValueCount {
            operator: r.operator.clone(),
            count: r.values.len(),
        }),
    }
}

/// The node's field set: only `metadata.name`; any other key reads as "" (§a.4).
pub(crate) fn node_field<'a>(node: &'a NodeFacts, key: &str) -> &'a str {
    if key == crate::names::METADATA_NAME_FIELD {
        &node.name
    } else {
        ""
    }
}

impl FieldReq {
    /// `hasTerm` / `notHasTerm` `Matches`.
    pub(crate) fn matches(&self, node: &NodeFacts) -> bool {
        (node_field(node, &self.key) == self.value) == self.equal
    }
}

/// One label requirement, parsed, with the source kept for explanations.
#[derive(Debug, Clone)]
pub(crate) struct LabelReq {
    pub source: SelectorRequirement,
    pub op: LabelOp,
}

/// One `nodeSelectorTerms` entry as Kubernetes sees it after parsing.
#[derive(Debug, Clone)]
pub(crate) enum Term {
    /// Neither expressions nor fields: dropped, matches nothing (§a.2).
    Empty,
    /// A requirement failed to parse: the term matches nothing (§a.3, §a.4).
    Invalid(String),
    Valid {
        labels: Vec<LabelReq>,
        fields: Vec<FieldReq>,
    },
}

/// §a.2 `newNodeSelectorTerm`: expressions first, then fields.
pub(crate) fn parse_term(term: &NodeSelectorTerm) -> Term {
    if term.match_expressions.is_empty() && term.match_fields.is_empty() {
        return Term::Empty;
    }
    let mut labels = Vec::with_capacity(term.match_expressions.len());
    let mut errors = Vec::new();
    for r in &term.match_expressions {
        match parse_label_requirement(r) {
            Ok(op) => labels.push(LabelReq {
                source: r.clone(),
                op,
            }),
            Err(e) => errors.push(format!("{}: {e}", render_requirement(r))),
        }
    }
    if !errors.is_empty() {
        return Term::Invalid(errors.join("; "));
    }
    let mut fields = Vec::with_capacity(term.match_fields.len());
    for r in &term.match_fields {
        match parse_field_requirement(r) {
            Ok(f) => fields.push(f),
            Err(e) => errors.push(format!("matchFields {}: {e}", render_requirement(r))),
        }
    }
    if !errors.is_empty() {
        return Term::Invalid(errors.join("; "));
    }
    Term::Valid { labels, fields }
}

impl Term {
    /// `nodeSelectorTerm.match`: every label requirement AND every field requirement; the
    /// field part is skipped when the node has no name (§a.4 quirk).
    pub(crate) fn matches(&self, node: &NodeFacts) -> bool {
        match self {
            Term::Empty | Term::Invalid(_) => false,
            Term::Valid { labels, fields } => {
                labels
                    .iter()
                    .all(|r| label_op_matches(&r.source.key, &r.op, &r.source.values, &node.labels))
                    && (node.name.is_empty() || fields.iter().all(|f| f.matches(node)))
            }
        }
    }
}

/// A requirement as people write it: `workload-type In [gpu, tpu]`.
pub(crate) fn render_requirement(r: &SelectorRequirement) -> String {
    if r.values.is_empty() {
        format!("{} {}", r.key, r.operator)
    } else {
        format!("{} {} [{}]", r.key, r.operator, r.values.join(", "))
    }
}

/// A term as people read it: requirements joined by AND.
pub(crate) fn render_term(term: &NodeSelectorTerm) -> String {
    let parts: Vec<String> = term
        .match_expressions
        .iter()
        .map(render_requirement)
        .chain(
            term.match_fields
                .iter()
                .map(|r| format!("field {}", render_requirement(r))),
        )
        .collect();
    if parts.is_empty() {
        "{} (empty term)".to_string()
    } else {
        parts.join(" AND ")
    }
}

#[cfg(test)]
mod tests;
