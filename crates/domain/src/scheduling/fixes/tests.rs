//! Every fix is proven by applying its exact text: commands are split as a POSIX shell would
//! split them and interpreted as kubectl would, YAML is parsed back with serde-saphyr, and
//! then placement (§a.2) runs again on the changed facts.

use super::super::placement;
use super::*;
use crate::facts::{NodeSelectorTerm, SelectorRequirement, Toleration};
use crate::testing::{labelled, node, req};
use serde_json::Value;

/// POSIX word splitting for the quoting `shell_quote` produces: plain words, single-quoted
/// spans, and `\'` outside quotes. Anything else a shell would expand fails the test.
fn shell_words(cmd: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            c => {
                assert!(
                    !"$`\"*?[]{}();&|<>~#!\t\n".contains(c),
                    "unquoted shell metacharacter {c:?} in {cmd}"
                );
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// `kubectl label|taint nodes NODE …` applied to a node as kubectl would apply it.
fn apply_command(n: &mut NodeFacts, cmd: &str) {
    let argv = shell_words(cmd);
    assert_eq!(argv[0], "kubectl", "{cmd}");
    assert_eq!(argv[2], "nodes", "{cmd}");
    assert_eq!(argv[3], n.name, "the command names this node: {cmd}");
    let overwrite = argv.iter().any(|a| a == "--overwrite");
    for arg in argv[4..].iter().filter(|a| *a != "--overwrite") {
        match argv[1].as_str() {
            "label" => match (arg.strip_suffix('-'), arg.split_once('=')) {
                (_, Some((k, v))) => {
                    let old = n.labels.insert(k.to_string(), v.to_string());
                    assert!(
                        old.is_none() || overwrite,
                        "kubectl refuses to change {k} without --overwrite"
                    );
                }
                (Some(k), None) => {
                    n.labels.remove(k);
                }
                _ => panic!("not a label argument: {arg}"),
            },
            "taint" => {
                let spec = arg
                    .strip_suffix('-')
                    .unwrap_or_else(|| panic!("not a removal: {arg}"));
                let (key, effect) = spec.rsplit_once(':').unwrap_or((spec, ""));
                n.taints.retain(|t| {
                    !(t.key == key && (effect.is_empty() || effect_str(&t.effect) == effect))
                });
            }
            other => panic!("unexpected kubectl verb {other}"),
        }
    }
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("not valid YAML: {e}\n{text}"))
}

fn string(v: &Value, field: &str) -> String {
    match v.get(field) {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => panic!("{field} is not a string in the YAML: {other:?}"),
    }
}

fn requirement(v: &Value) -> SelectorRequirement {
    SelectorRequirement {
        key: string(v, "key"),
        operator: string(v, "operator"),
        values: v["values"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| {
                        x.as_str()
                            .unwrap_or_else(|| panic!("value {x:?} not a string"))
                            .to_string()
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The DaemonSet edit applied to the template, the YAML read by a YAML parser.
fn apply_patch(t: &mut TemplateFacts, path: &str, edit: PatchEdit, text: &str) {
    let doc = yaml(text);
    match (path, edit) {
        (TOLERATIONS_PATH, PatchEdit::Append) => {
            for item in doc.as_array().unwrap_or_else(|| panic!("a list: {text}")) {
                t.tolerations.push(Toleration {
                    key: string(item, "key"),
                    operator: string(item, "operator"),
                    value: string(item, "value"),
                    effect: string(item, "effect"),
                    toleration_seconds: None,
                });
            }
        }
        (NODE_SELECTOR_PATH, PatchEdit::Remove) => {
            for (k, v) in doc
                .as_object()
                .unwrap_or_else(|| panic!("a mapping: {text}"))
            {
                assert_eq!(
                    t.node_selector.get(k),
                    v.as_str().map(String::from).as_ref(),
                    "{text}"
                );
                t.node_selector.remove(k);
            }
        }
        (POD_SPEC_PATH, PatchEdit::Remove) => {
            assert_eq!(string(&doc, "nodeName"), t.node_name);
            t.node_name.clear();
        }
        (NODE_SELECTOR_TERMS_PATH, PatchEdit::Append) => {
            for item in doc.as_array().unwrap_or_else(|| panic!("a list: {text}")) {
                let list = |f: &str| {
                    item.get(f)
                        .and_then(Value::as_array)
                        .map(|a| a.iter().map(requirement).collect())
                        .unwrap_or_default()
                };
                t.required_node_affinity
                    .get_or_insert_with(Vec::new)
                    .push(NodeSelectorTerm {
                        match_expressions: list("matchExpressions"),
                        match_fields: list("matchFields"),
                    });
            }
        }
        other => panic!("unexpected patch {other:?}"),
    }
}

fn apply(fix: &Fix, n: &mut NodeFacts, t: &mut TemplateFacts) {
    match &fix.action {
        FixAction::Command { command } => apply_command(n, command),
        FixAction::DaemonSetPatch { path, edit, yaml } => apply_patch(t, path, *edit, yaml),
    }
}

/// Every way of choosing one option per blocker makes shouldRun true.
fn assert_fixes_work(n: &NodeFacts, t: &TemplateFacts) -> Vec<Blocker> {
    assert!(!placement(n, t).should_run, "the case starts excluded");
    let found = blockers(n, t);
    assert!(!found.is_empty());
    let mut choices: Vec<Vec<usize>> = vec![vec![]];
    for b in &found {
        assert!(!b.options.is_empty(), "{:?} has a fix", b.rule);
        choices = choices
            .into_iter()
            .flat_map(|c| (0..b.options.len()).map(move |i| [c.clone(), vec![i]].concat()))
            .collect();
    }
    for choice in choices {
        let (mut n2, mut t2) = (n.clone(), t.clone());
        for (b, i) in found.iter().zip(&choice) {
            apply(&b.options[*i], &mut n2, &mut t2);
        }
        assert!(
            placement(&n2, &t2).should_run,
            "options {choice:?} of {found:#?}"
        );
        assert!(blockers(&n2, &t2).is_empty());
    }
    found
}

fn taint(key: &str, value: &str, effect: TaintEffect) -> Taint {
    Taint {
        key: key.into(),
        value: value.into(),
        effect,
    }
}

fn with_taints(mut n: NodeFacts, taints: Vec<Taint>) -> NodeFacts {
    n.taints = taints;
    n
}

#[test]
fn a_pod_that_should_run_needs_no_fix_a2() {
    assert!(blockers(&node("w1"), &TemplateFacts::default()).is_empty());
}

#[test]
fn an_untolerated_taint_is_fixed_by_the_toleration_or_by_removing_it_a2_step_3_a5() {
    let n = with_taints(
        node("w1"),
        vec![taint("dedicated", "infra", TaintEffect::NoSchedule)],
    );
    let found = assert_fixes_work(&n, &TemplateFacts::default());
    assert_eq!(found[0].rule, Rule::Taint);
    assert_eq!(
        found[0].options[0].text(),
        "- {key: dedicated, operator: Equal, value: infra, effect: NoSchedule}"
    );
    assert_eq!(
        found[0].options[1].text(),
        "kubectl taint nodes w1 dedicated:NoSchedule-"
    );
}

#[test]
fn a_valueless_taint_gets_an_exists_toleration_a5() {
    let n = with_taints(
        node("cp-1"),
        vec![taint(
            "node-role.kubernetes.io/control-plane",
            "",
            TaintEffect::NoSchedule,
        )],
    );
    let found = assert_fixes_work(&n, &TemplateFacts::default());
    assert_eq!(
        found[0].options[0].text(),
        "- {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}"
    );
}

#[test]
fn several_taints_are_tolerated_and_removed_together_a2_step_3() {
    let n = with_taints(
        node("w1"),
        vec![
            taint("a", "1", TaintEffect::NoExecute),
            taint("b", "", TaintEffect::NoSchedule),
            taint("c", "", TaintEffect::PreferNoSchedule),
        ],
    );
    let found = assert_fixes_work(&n, &TemplateFacts::default());
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].options[1].text(),
        "kubectl taint nodes w1 a:NoExecute- b:NoSchedule-"
    );
}

#[test]
fn a_controller_managed_taint_is_only_tolerated_never_removed_a6_trap_4() {
    let n = with_taints(
        node("w6"),
        vec![taint(
            "node.kubernetes.io/not-ready",
            "",
            TaintEffect::NoSchedule,
        )],
    );
    let found = assert_fixes_work(&n, &TemplateFacts::default());
    assert_eq!(found[0].options.len(), 1);
    assert!(
        found[0].problem.contains("adds it back"),
        "{}",
        found[0].problem
    );
}

#[test]
fn a_missing_or_different_node_selector_label_is_set_or_dropped_a2_step_2() {
    let t = TemplateFacts {
        node_selector: crate::testing::labels(&[("workload-type", "gpu"), ("zone", "a")]),
        ..Default::default()
    };
    let n = labelled("worker-1", &[("zone", "b")]);
    let found = assert_fixes_work(&n, &t);
    assert_eq!(found[0].rule, Rule::NodeSelector);
    assert_eq!(
        found[0].options[0].text(),
        "kubectl label nodes worker-1 workload-type=gpu zone=a --overwrite"
    );
    assert_eq!(found[0].options[1].text(), "workload-type: gpu\nzone: a");
}

#[test]
fn a_selector_and_a_taint_need_one_fix_each_a2() {
    let t = TemplateFacts {
        node_selector: crate::testing::labels(&[("workload-type", "gpu")]),
        ..Default::default()
    };
    let n = with_taints(
        node("w1"),
        vec![taint("dedicated", "ml", TaintEffect::NoExecute)],
    );
    let found = assert_fixes_work(&n, &t);
    let rules: Vec<Rule> = found.iter().map(|b| b.rule).collect();
    assert_eq!(rules, vec![Rule::NodeSelector, Rule::Taint]);
    // Fixing only one of them leaves the pod off the node.
    for b in &found {
        for option in &b.options {
            let (mut n2, mut t2) = (n.clone(), t.clone());
            apply(option, &mut n2, &mut t2);
            assert!(
                !placement(&n2, &t2).should_run,
                "{option:?} alone is not enough"
            );
        }
    }
}

#[test]
fn a_pinned_node_name_is_removed_from_the_template_a2_step_1() {
    let t = TemplateFacts {
        node_name: "w9".into(),
        ..Default::default()
    };
    let found = assert_fixes_work(&node("w1"), &t);
    assert_eq!(found[0].options[0].text(), "nodeName: w9");
}

#[test]
fn required_affinity_is_met_by_labels_for_the_cheapest_term_or_by_a_name_term_a2_a3() {
    let term =
        |reqs: Vec<SelectorRequirement>, fields: Vec<SelectorRequirement>| NodeSelectorTerm {
            match_expressions: reqs,
            match_fields: fields,
        };
    let t = TemplateFacts {
        required_node_affinity: Some(vec![
            term(
                vec![
                    req("zone", "In", &["a", "b"]),
                    req("gpu", "Exists", &[]),
                    req("legacy", "DoesNotExist", &[]),
                ],
                vec![],
            ),
            term(
                vec![
                    req("tier", "NotIn", &["edge"]),
                    req("gen", "Gt", &["7"]),
                    req("age", "Lt", &["3"]),
                ],
                vec![],
            ),
            term(
                vec![req("x", "In", &["y"])],
                vec![req("metadata.name", "In", &["other"])],
            ),
        ]),
        ..Default::default()
    };
    let n = labelled(
        "w1",
        &[
            ("tier", "edge"),
            ("gen", "5"),
            ("age", "9"),
            ("legacy", "yes"),
        ],
    );
    let found = assert_fixes_work(&n, &t);
    assert_eq!(found[0].rule, Rule::NodeAffinity);
    // Term 1 needs zone, gpu and legacy; term 2 needs tier, gen and age: a tie goes to term 1.
    assert_eq!(
        found[0].options[0].text(),
        "kubectl label nodes w1 zone=a gpu=true legacy- --overwrite"
    );
    assert_eq!(
        found[0].options[1].text(),
        "- matchFields: [{key: metadata.name, operator: In, values: [w1]}]"
    );
}

#[test]
fn affinity_labels_never_undo_the_node_selector_a2_step_2() {
    let t = TemplateFacts {
        node_selector: crate::testing::labels(&[("pool", "gpu")]),
        required_node_affinity: Some(vec![NodeSelectorTerm {
            match_expressions: vec![req("pool", "NotIn", &["gpu"])],
            match_fields: vec![],
        }]),
        ..Default::default()
    };
    // The node lacks `pool`, so the NotIn holds today; labelling pool=gpu would break it.
    let found = assert_fixes_work(&node("w1"), &t);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].options.len(),
        1,
        "no label command, only the nodeSelector edit"
    );
    assert!(matches!(
        found[0].options[0].action,
        FixAction::DaemonSetPatch { .. }
    ));
    // A term that repeats a nodeSelector key: whichever nodeSelector fix is chosen, the
    // affinity fix must still hold, so it never relies on (or fights) the selector's label.
    let t = TemplateFacts {
        node_selector: crate::testing::labels(&[("pool", "gpu")]),
        required_node_affinity: Some(vec![NodeSelectorTerm {
            match_expressions: vec![req("pool", "In", &["gpu"])],
            match_fields: vec![],
        }]),
        ..Default::default()
    };
    let found = assert_fixes_work(&node("w1"), &t);
    assert_eq!(found.len(), 2);
}

#[test]
fn empty_and_unparsable_terms_get_a_name_term_a2_a3() {
    for terms in [
        vec![],
        vec![NodeSelectorTerm::default()],
        vec![NodeSelectorTerm {
            match_expressions: vec![req("k", "NotIn", &["bad value"])],
            match_fields: vec![],
        }],
    ] {
        let t = TemplateFacts {
            required_node_affinity: Some(terms),
            ..Default::default()
        };
        let found = assert_fixes_work(&node("w1"), &t);
        assert_eq!(found[0].options.len(), 1);
    }
}

#[test]
fn hostile_names_and_values_paste_as_exactly_one_argument_each() {
    let hostile = [
        "$(rm -rf /)",
        "it's \"quoted\"",
        "a b\tc",
        "ünïcödé",
        "`id`",
        "x;y|z&",
        "*",
        "~root",
        "#c",
    ];
    for (i, bad) in hostile.iter().enumerate() {
        let t = TemplateFacts {
            node_selector: crate::testing::labels(&[("k", bad)]),
            ..Default::default()
        };
        let n = with_taints(
            node(bad),
            vec![taint(&format!("t{i}"), bad, TaintEffect::NoSchedule)],
        );
        let found = assert_fixes_work(&n, &t);
        let label = shell_words(found[0].options[0].text());
        assert_eq!(
            label,
            vec![
                "kubectl",
                "label",
                "nodes",
                bad,
                &format!("k={bad}"),
                "--overwrite"
            ]
        );
    }
}

#[test]
fn yaml_values_that_would_be_mistyped_are_quoted_and_read_back_as_strings() {
    let tricky = [
        "true",
        "True",
        "yes",
        "no",
        "on",
        "null",
        "~",
        "1.0",
        "10",
        "0x1F",
        "0o17",
        "1e3",
        "-1",
        ".5",
        "*alias",
        "&anchor",
        "!tag",
        "a: b",
        "a #b",
        "@at",
        "%pct",
        "[x]",
        "{y}",
        "|",
        ">",
        "'",
        "\"",
        "",
        " lead",
        "trail ",
        "2026-01-01",
        "1_000",
        "=",
    ];
    for v in tricky {
        let t = TemplateFacts {
            node_selector: crate::testing::labels(&[("k", v)]),
            ..Default::default()
        };
        let n = with_taints(node("w1"), vec![taint("t", v, TaintEffect::NoExecute)]);
        // assert_fixes_work parses the YAML back and requires strings.
        let found = assert_fixes_work(&n, &t);
        let sel = yaml(found[0].options[1].text());
        assert_eq!(sel["k"], Value::String(v.to_string()), "{v}");
        if !v.is_empty() {
            let tol = yaml(found[1].options[0].text());
            assert_eq!(tol[0]["value"], Value::String(v.to_string()), "{v}");
        }
    }
}
