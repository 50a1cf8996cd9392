//! §a.2–§a.4: parsing and matching of node selector terms.
use super::*;
use crate::testing::{labelled, req};

fn term_of(exprs: Vec<SelectorRequirement>, fields: Vec<SelectorRequirement>) -> Term {
    parse_term(&NodeSelectorTerm {
        match_expressions: exprs,
        match_fields: fields,
    })
}

#[test]
fn label_operators_follow_requirement_matches_a3() {
    let gpu = labelled("n", &[("workload-type", "gpu"), ("cores", "08")]);
    let bare = labelled("n", &[]);
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
    let bare = labelled("n", &[]);
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
    assert!(term.matches(&labelled("", &[])));
}

#[test]
fn a_term_ands_expressions_and_fields_a2() {
    let n = labelled("node-a", &[("zone", "a")]);
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
    assert!(!term.matches(&labelled("n", &[("a", "b")])));
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
        let err = parse_label_requirement(&r)
            .expect_err("must fail")
            .to_string();
        assert!(err.contains(needle), "{err} should mention {needle}");
    }
}
