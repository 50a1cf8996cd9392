//! Edits read from and written to the query string: kubectl's spellings, the API server's
//! checks (§i.2) as errors a person reads, and a round trip through the URL.

use super::*;
use crate::testing::labels;

fn taint(key: &str, value: &str, effect: TaintEffect) -> Taint {
    Taint {
        key: key.into(),
        value: value.into(),
        effect,
    }
}

fn tol(key: &str, operator: &str, value: &str, effect: &str, seconds: Option<i64>) -> Toleration {
    Toleration {
        key: key.into(),
        operator: operator.into(),
        value: value.into(),
        effect: effect.into(),
        toleration_seconds: seconds,
    }
}

fn dedicated_ml(effect: TaintEffect) -> NodeEdit {
    NodeEdit::AddTaint(taint("dedicated", "ml", effect))
}

fn query<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Vec<String> + 'a {
    move |name| {
        pairs
            .iter()
            .filter(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
            .collect()
    }
}

#[test]
fn node_edits_are_read_in_kubectls_spelling() {
    let edits = parse_edits(
        EditScope::Node,
        query(&[
            ("taint", "dedicated=ml:NoExecute"),
            ("taint", "maintenance:NoSchedule"),
            ("untaint", "gpu:NoSchedule"),
            ("untaint", "old"),
            ("label", "workload-type=cpu"),
            ("unlabel", "nvidia.com/gpu.present"),
            ("cordon", "1"),
            ("tolerate", "ignored-on-a-node-page"),
            ("label", ""),
        ]),
    )
    .unwrap_or_default();
    assert_eq!(
        edits.node,
        vec![
            dedicated_ml(TaintEffect::NoExecute),
            NodeEdit::AddTaint(taint("maintenance", "", TaintEffect::NoSchedule)),
            NodeEdit::RemoveTaint {
                key: "gpu".into(),
                effect: Some(TaintEffect::NoSchedule)
            },
            NodeEdit::RemoveTaint {
                key: "old".into(),
                effect: None
            },
            NodeEdit::SetLabel {
                key: "workload-type".into(),
                value: "cpu".into()
            },
            NodeEdit::RemoveLabel {
                key: "nvidia.com/gpu.present".into()
            },
            NodeEdit::Cordon,
        ]
    );
    assert!(edits.template.is_empty());
}

#[test]
fn bad_edits_are_errors_that_say_what_was_expected_i2() {
    let cases: &[(&str, &str, &str)] = &[
        ("taint", "dedicated=ml", "expected KEY[=VALUE]:EFFECT"),
        (
            "taint",
            "dedicated=ml:Sometimes",
            "unknown effect \"Sometimes\"",
        ),
        ("taint", "bad key=ml:NoExecute", "key \"bad key\""),
        ("taint", "dedicated=not ok:NoExecute", "value \"not ok\""),
        ("label", "novalue", "expected KEY=VALUE"),
        ("cordon", "maybe", "expected 1 or 0"),
    ];
    for (param, value, wanted) in cases {
        let errors = parse_edits(EditScope::Node, query(&[(param, value)]))
            .err()
            .unwrap_or_default();
        assert_eq!(errors.len(), 1, "{param}={value}");
        assert!(
            errors[0].to_string().contains(wanted),
            "{param}={value}: {}",
            errors[0]
        );
    }
    let ds_cases: &[(&str, &str, &str)] = &[
        ("tolerate", "dedicated:NoSchedule:300", "tolerationSeconds"),
        ("tolerate", "dedicated:Never", "unknown effect"),
        ("tolerate", "dedicated:NoExecute:soon", "not a whole number"),
        ("tolerate", "*=x", "operator must be Exists"),
        ("nodeSelector", "gpu", "expected k=v"),
        ("nodeSelector", "a=b c", "value \"b c\""),
    ];
    for (param, value, wanted) in ds_cases {
        let errors = parse_edits(EditScope::DaemonSet, query(&[(param, value)]))
            .err()
            .unwrap_or_default();
        assert_eq!(errors.len(), 1, "{param}={value}");
        assert!(
            errors[0].to_string().contains(wanted),
            "{param}={value}: {}",
            errors[0]
        );
    }
}

#[test]
fn a_query_with_too_many_edits_is_refused_not_cut() {
    let many: Vec<(&str, &str)> = (0..=MAX_EDITS).map(|_| ("cordon", "1")).collect();
    let errors = parse_edits(EditScope::Node, query(&many))
        .err()
        .unwrap_or_default();
    assert_eq!(errors.len(), 1);
}

#[test]
fn edits_written_to_the_url_read_back_the_same() {
    let edits = Edits {
        node: vec![
            dedicated_ml(TaintEffect::NoExecute),
            NodeEdit::RemoveTaint {
                key: "a".into(),
                effect: Some(TaintEffect::NoSchedule),
            },
            NodeEdit::SetLabel {
                key: "k".into(),
                value: "v".into(),
            },
            NodeEdit::RemoveLabel { key: "k2".into() },
            NodeEdit::Cordon,
        ],
        template: vec![],
    };
    let q = to_query(&edits);
    assert!(
        q.starts_with("taint=dedicated%3Dml%3ANoExecute&untaint=a%3ANoSchedule"),
        "{q}"
    );
    let pairs: Vec<(String, String)> = q
        .split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_string(), decode(v)))
        .collect();
    let get = |name: &str| {
        pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect()
    };
    assert_eq!(parse_edits(EditScope::Node, get), Ok(edits));

    let ds = Edits {
        node: vec![],
        template: vec![
            TemplateEdit::AddToleration(tol("dedicated", "Equal", "ml", "NoExecute", Some(300))),
            TemplateEdit::AddToleration(tol("", "Exists", "", "", None)),
            TemplateEdit::SetNodeSelector(labels(&[("a", "b"), ("c", "d")])),
            TemplateEdit::SetNodeSelector(Labels::new()),
        ],
    };
    let q = to_query(&ds);
    let pairs: Vec<(String, String)> = q
        .split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_string(), decode(v)))
        .collect();
    let get = |name: &str| {
        pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect()
    };
    assert_eq!(parse_edits(EditScope::DaemonSet, get), Ok(ds));
}

#[test]
fn garbage_in_any_parameter_is_an_error_or_an_edit_never_a_panic() {
    let nasty = [
        ":",
        "::",
        ":::",
        "=",
        "==:NoExecute",
        "=:NoExecute",
        "a=:",
        "%",
        "%zz",
        "é:NoExecute",
        "ключ=значение:NoSchedule",
        "a=b:NoExecute:1:2",
        "*",
        "*:NoExecute:-5",
        "a:NoExecute:99999999999999999999",
        "\u{0}",
        " ",
        ",",
        ",,=,",
        "a=b,,c=d",
        "-",
        "a\nb:NoSchedule",
    ];
    for value in nasty {
        for scope in [EditScope::Node, EditScope::DaemonSet] {
            for &param in scope.params() {
                let got = parse_edits(scope, |name| {
                    if name == param {
                        vec![value.to_string()]
                    } else {
                        Vec::new()
                    }
                });
                if let Err(errors) = got {
                    assert!(
                        !errors.is_empty() && errors.iter().all(|e| !e.message.is_empty()),
                        "{param}={value:?}"
                    );
                }
            }
        }
        // The URL decoder takes anything, too.
        let _ = decode(value);
        assert_eq!(decode(&encode(value)), value, "{value:?}");
    }
}
