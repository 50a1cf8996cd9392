//! Node selector terms: label requirements (§a.3), `matchFields` (§a.4), and the OR/AND of
//! `nodeSelectorTerms` (§a.2), parsed once per template and matched per node.
//!
//! Why parse first: Kubernetes parses every term (`NewLazyErrorNodeSelector`) and a term
//! whose parse fails matches nothing. Parsing once per DaemonSet keeps matching 5,000 nodes
//! cheap and gives the explanation the exact parse error.

use crate::domain::facts::{Labels, NodeFacts, NodeSelectorTerm, SelectorRequirement};
use crate::domain::validation::names::{check_label_value, check_qualified_name};

/// A label requirement after `labels.NewRequirement` accepted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LabelOp {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt(i64),
    Lt(i64),
}

/// §a.3 `NewRequirement` (through `nodeSelectorRequirementsAsSelector`): the checks that
/// turn a requirement into a parse error. Every problem is reported, joined by "; ".
pub(crate) fn parse_label_requirement(r: &SelectorRequirement) -> Result<LabelOp, String> {
    let mut errors = Vec::new();
    if let Err(e) = check_qualified_name(&r.key) {
        errors.push(format!("key {:?}: {e}", r.key));
    }
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
        "Gt" | "Lt" => match r.values.as_slice() {
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
            errors.push(format!("{other:?} is not a valid node selector operator"));
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
        _ => Err(errors.join("; ")),
    }
}

/// §a.3 `Requirement.Matches` against a node's labels.
pub(crate) fn label_op_matches(
    key: &str,
    op: &LabelOp,
    values: &[String],
    labels: &Labels,
) -> bool {
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

/// A `matchFields` requirement after `nodeSelectorRequirementsAsFieldSelector` (§a.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldReq {
    pub key: String,
    /// `In` when true (field equals value), `NotIn` otherwise.
    pub equal: bool,
    pub value: String,
}

/// §a.4: only `In`/`NotIn` with exactly one value parse; any key parses.
pub(crate) fn parse_field_requirement(r: &SelectorRequirement) -> Result<FieldReq, String> {
    let equal = match r.operator.as_str() {
        "In" => true,
        "NotIn" => false,
        other => {
            return Err(format!(
                "{other:?} is not a valid node field selector operator (only In and NotIn)"
            ))
        }
    };
    match r.values.as_slice() {
        [one] => Ok(FieldReq {
            key: r.key.clone(),
            equal,
            value: one.clone(),
        }),
        _ => Err(format!(
            "operator {} on a node field needs exactly one value, got {}",
            r.operator,
            r.values.len()
        )),
    }
}

/// The node's field set: only `metadata.name`; any other key reads as "" (§a.4).
pub(crate) fn node_field<'a>(node: &'a NodeFacts, key: &str) -> &'a str {
    if key == "metadata.name" {
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
mod tests {
    use super::*;

    fn req(key: &str, op: &str, values: &[&str]) -> SelectorRequirement {
        SelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn node(name: &str, pairs: &[(&str, &str)]) -> NodeFacts {
        NodeFacts {
            name: name.into(),
            labels: labels(pairs),
            ..Default::default()
        }
    }

    fn term_of(exprs: Vec<SelectorRequirement>, fields: Vec<SelectorRequirement>) -> Term {
        parse_term(&NodeSelectorTerm {
            match_expressions: exprs,
            match_fields: fields,
        })
    }

    #[test]
    fn label_operators_follow_requirement_matches_a3() {
        let gpu = node("n", &[("workload-type", "gpu"), ("cores", "08")]);
        let bare = node("n", &[]);
        let cases: Vec<(&str, SelectorRequirement, &NodeFacts, bool)> = vec![
            (
                "§a.3 In with the label's value",
                req("workload-type", "In", &["gpu", "tpu"]),
                &gpu,
                true,
            ),
            (
                "§a.3 In with another value",
                req("workload-type", "In", &["cpu"]),
                &gpu,
                false,
            ),
            (
                "§a.3 In on a missing label",
                req("workload-type", "In", &["gpu"]),
                &bare,
                false,
            ),
            (
                "§a.3 NotIn on a missing label matches",
                req("workload-type", "NotIn", &["gpu"]),
                &bare,
                true,
            ),
            (
                "§a.3 NotIn with the label's value",
                req("workload-type", "NotIn", &["gpu"]),
                &gpu,
                false,
            ),
            (
                "§a.3 NotIn with another value",
                req("workload-type", "NotIn", &["cpu"]),
                &gpu,
                true,
            ),
            (
                "§a.3 Exists on a present label",
                req("workload-type", "Exists", &[]),
                &gpu,
                true,
            ),
            (
                "§a.3 Exists on a missing label",
                req("workload-type", "Exists", &[]),
                &bare,
                false,
            ),
            (
                "§a.3 DoesNotExist on a missing label",
                req("workload-type", "DoesNotExist", &[]),
                &bare,
                true,
            ),
            (
                "§a.3 DoesNotExist on a present label",
                req("workload-type", "DoesNotExist", &[]),
                &gpu,
                false,
            ),
            (
                "§a.3 Gt accepts leading zeros (08 > 7)",
                req("cores", "Gt", &["7"]),
                &gpu,
                true,
            ),
            (
                "§a.3 Gt is strict (8 > 8 false)",
                req("cores", "Gt", &["8"]),
                &gpu,
                false,
            ),
            (
                "§a.3 Lt is strict (8 < 9)",
                req("cores", "Lt", &["9"]),
                &gpu,
                true,
            ),
            (
                "§a.3 Lt is strict (8 < 8 false)",
                req("cores", "Lt", &["8"]),
                &gpu,
                false,
            ),
            (
                "§a.3 Gt with a leading-zero value",
                req("cores", "Gt", &["007"]),
                &gpu,
                true,
            ),
            (
                "§a.3 Gt on a missing label",
                req("cores", "Gt", &["1"]),
                &bare,
                false,
            ),
            (
                "§a.3 Gt on a non-integer label",
                req("workload-type", "Gt", &["1"]),
                &gpu,
                false,
            ),
        ];
        for (name, r, n, want) in cases {
            let term = term_of(vec![r], vec![]);
            assert!(matches!(term, Term::Valid { .. }), "{name}: parses");
            assert_eq!(term.matches(n), want, "{name}");
        }
    }

    #[test]
    fn parse_errors_fail_the_term_whatever_the_labels_a3() {
        let bare = node("n", &[]);
        let cases: Vec<(&str, SelectorRequirement)> = vec![
            ("§a.3 In without values", req("k", "In", &[])),
            ("§a.3 NotIn without values", req("k", "NotIn", &[])),
            ("§a.3 Exists with values", req("k", "Exists", &["x"])),
            (
                "§a.3 DoesNotExist with values",
                req("k", "DoesNotExist", &["x"]),
            ),
            ("§a.3 Gt with two values", req("k", "Gt", &["1", "2"])),
            ("§a.3 Lt without values", req("k", "Lt", &[])),
            (
                "§a.3 Gt with a non-integer value never matches",
                req("k", "Gt", &["abc"]),
            ),
            ("§a.3 unknown operator", req("k", "Equals", &["x"])),
            ("§a.3 invalid key", req("bad key", "DoesNotExist", &[])),
            (
                "§a.3 trap 12: NotIn with an invalid value fails even on a missing label",
                req("k", "NotIn", &["bad value"]),
            ),
            (
                "§a.3 value longer than 63",
                req("k", "NotIn", &[&"v".repeat(64)]),
            ),
        ];
        for (name, r) in cases {
            let term = term_of(vec![r], vec![]);
            assert!(matches!(term, Term::Invalid(_)), "{name}: is a parse error");
            assert!(!term.matches(&bare), "{name}: matches nothing");
        }
    }

    #[test]
    fn match_fields_read_only_metadata_name_a4() {
        let n = NodeFacts {
            name: "node-a".into(),
            uid: "uid-1".into(),
            ..Default::default()
        };
        let cases: Vec<(&str, SelectorRequirement, Option<bool>)> = vec![
            (
                "§a.4 In with the node's name",
                req("metadata.name", "In", &["node-a"]),
                Some(true),
            ),
            (
                "§a.4 In with another name",
                req("metadata.name", "In", &["node-b"]),
                Some(false),
            ),
            (
                "§a.4 NotIn with another name",
                req("metadata.name", "NotIn", &["node-b"]),
                Some(true),
            ),
            (
                "§a.4 NotIn with the node's name",
                req("metadata.name", "NotIn", &["node-a"]),
                Some(false),
            ),
            (
                "§a.4 another key reads empty: In never matches, even the node's uid",
                req("metadata.uid", "In", &["uid-1"]),
                Some(false),
            ),
            (
                "§a.4 another key reads empty: NotIn always matches",
                req("metadata.uid", "NotIn", &["uid-1"]),
                Some(true),
            ),
            (
                "§a.4 In with two values is a parse error",
                req("metadata.name", "In", &["node-a", "node-b"]),
                None,
            ),
            (
                "§a.4 Exists is a parse error",
                req("metadata.name", "Exists", &[]),
                None,
            ),
            (
                "§a.4 In without values is a parse error",
                req("metadata.name", "In", &[]),
                None,
            ),
        ];
        for (name, r, want) in cases {
            let term = term_of(vec![], vec![r]);
            match want {
                Some(want) => assert_eq!(term.matches(&n), want, "{name}"),
                None => {
                    assert!(matches!(term, Term::Invalid(_)), "{name}");
                    assert!(!term.matches(&n), "{name}");
                }
            }
        }
    }

    #[test]
    fn match_fields_are_skipped_for_a_node_without_name_a4() {
        let term = term_of(vec![], vec![req("metadata.name", "In", &["other"])]);
        assert!(term.matches(&node("", &[])));
    }

    #[test]
    fn a_term_ands_expressions_and_fields_a2() {
        let n = node("node-a", &[("zone", "a")]);
        let both = term_of(
            vec![req("zone", "In", &["a"])],
            vec![req("metadata.name", "In", &["node-a"])],
        );
        let label_fails = term_of(
            vec![req("zone", "In", &["b"])],
            vec![req("metadata.name", "In", &["node-a"])],
        );
        let field_fails = term_of(
            vec![req("zone", "In", &["a"])],
            vec![req("metadata.name", "In", &["node-b"])],
        );
        let two_exprs = term_of(
            vec![req("zone", "In", &["a"]), req("gpu", "Exists", &[])],
            vec![],
        );
        assert!(both.matches(&n));
        assert!(!label_fails.matches(&n));
        assert!(!field_fails.matches(&n));
        assert!(!two_exprs.matches(&n), "§a.2 every expression must hold");
    }

    #[test]
    fn an_empty_term_matches_nothing_a2() {
        let term = parse_term(&NodeSelectorTerm::default());
        assert!(matches!(term, Term::Empty));
        assert!(!term.matches(&node("n", &[("a", "b")])));
    }

    #[test]
    fn parse_error_messages_name_the_problem() {
        let cases = vec![
            (req("k", "Gt", &["abc"]), "integer"),
            (req("k", "Foo", &[]), "not a valid node selector operator"),
            (req("k", "NotIn", &["bad value"]), "bad value"),
            (req("", "Exists", &[]), "name part must be non-empty"),
        ];
        for (r, needle) in cases {
            let err = parse_label_requirement(&r).expect_err("must fail");
            assert!(err.contains(needle), "{err} should mention {needle}");
        }
    }
}
