//! The reasons behind a verdict: messages, node/pod values and fixes (§a, §b, §g traps).
use super::*;

#[test]
fn gt_lt_tolerations_tolerate_nothing_and_say_why_a5() {
    let n = tainted("n1", vec![taint("gpu-count", "4", TaintEffect::NoSchedule)]);
    let t = with_tolerations(vec![tol("gpu-count", "Gt", "2", "NoSchedule")]);
    let p = placement(&n, &t);
    assert_eq!((p.should_run, p.should_continue_running), (false, true));
    let note = p
        .reasons
        .iter()
        .find(|r| r.rule == Rule::TolerationOperator)
        .expect("an operator note");
    assert!(
        note.message.contains("TaintTolerationComparisonOperators"),
        "{}",
        note.message
    );
    assert!(note.message.contains("kube-controller-manager"));
    let taint_reason = failing(&p)
        .into_iter()
        .find(|r| r.rule == Rule::Taint)
        .expect("failing taint");
    assert!(
        taint_reason.message.contains("operator Gt"),
        "{}",
        taint_reason.message
    );
}

#[test]
fn toleration_seconds_keeps_should_run_and_warns_about_eviction_trap_8() {
    let mut t = tol("node.kubernetes.io/not-ready", "", "", "NoExecute");
    t.toleration_seconds = Some(300);
    let n = NodeFacts {
        ready: Some(false),
        ..tainted(
            "n1",
            vec![taint(
                "node.kubernetes.io/not-ready",
                "",
                TaintEffect::NoExecute,
            )],
        )
    };
    let p = placement(&n, &with_tolerations(vec![t]));
    assert_eq!((p.should_run, p.should_continue_running), (true, true));
    let r = p
        .reasons
        .iter()
        .find(|r| r.rule == Rule::Taint)
        .expect("taint reason");
    assert!(r.passed);
    assert!(r.message.contains("300"), "{}", r.message);
    assert!(r.message.contains("evict"), "{}", r.message);
    assert!(
        r.pod_value.contains("tolerationSeconds: 300"),
        "§b trap 11: the user's toleration comes first: {}",
        r.pod_value
    );
}

#[test]
fn a_ready_uncordoned_node_gets_no_informational_notes() {
    let p = placement(&node("n1"), &TemplateFacts::default());
    assert!(p.reasons.iter().all(|r| !matches!(
        r.rule,
        Rule::Unschedulable | Rule::NodeReady | Rule::TolerationOperator
    )));
}

#[test]
fn every_failing_reason_says_what_would_change_it() {
    use TaintEffect::*;
    let n = NodeFacts {
        taints: vec![
            taint("dedicated", "infra", NoSchedule),
            taint("evict", "", NoExecute),
        ],
        ..labelled("n1", &[("workload-type", "cpu")])
    };
    let t = TemplateFacts {
        node_name: "n2".into(),
        node_selector: [("workload-type".to_string(), "gpu".to_string())].into(),
        required_node_affinity: Some(vec![term(vec![req("zone", "In", &["a"])])]),
        ..Default::default()
    };
    let p = placement(&n, &t);
    let fails = failing(&p);
    let rules: Vec<Rule> = fails.iter().map(|r| r.rule).collect();
    assert_eq!(
        rules,
        vec![
            Rule::NodeName,
            Rule::NodeSelector,
            Rule::NodeAffinity,
            Rule::Taint,
            Rule::Taint
        ]
    );
    for r in &fails {
        assert!(r.fix.is_some(), "{:?} has a fix", r.rule);
        assert!(!r.message.is_empty());
    }
    let fix = |i: usize| fails[i].fix.clone().unwrap_or_default();
    assert!(fix(0).contains("remove spec.nodeName"));
    assert!(
        fix(1).contains("label the node workload-type=gpu"),
        "{}",
        fix(1)
    );
    assert!(
        fix(1).contains("kubectl label nodes n1 workload-type=gpu --overwrite"),
        "{}",
        fix(1)
    );
    assert!(fix(2).contains("label the node zone=a"), "{}", fix(2));
    assert!(
        fix(3).contains("{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}"),
        "{}",
        fix(3)
    );
    assert!(
        fix(3).contains("kubectl taint nodes n1 dedicated:NoSchedule-"),
        "{}",
        fix(3)
    );
    assert!(
        fix(4).contains("{key: evict, operator: Exists, effect: NoExecute}"),
        "{}",
        fix(4)
    );
    assert_eq!(fails[1].node_value, "workload-type=cpu");
    assert_eq!(fails[1].pod_value, "workload-type=gpu");
    assert!(p
        .reasons
        .iter()
        .filter(|r| r.passed)
        .all(|r| r.fix.is_none()));
}

#[test]
fn affinity_fixes_follow_the_operator_a3() {
    let n = labelled("n1", &[("tier", "3"), ("role", "db")]);
    let cases: Vec<(&str, SelectorRequirement, &str)> = vec![
        (
            "§a.3 In",
            req("pool", "In", &["gpu"]),
            "label the node pool=gpu",
        ),
        (
            "§a.3 NotIn",
            req("role", "NotIn", &["db"]),
            "kubectl label nodes n1 role-",
        ),
        (
            "§a.3 Exists",
            req("pool", "Exists", &[]),
            "add a label pool",
        ),
        (
            "§a.3 DoesNotExist",
            req("role", "DoesNotExist", &[]),
            "kubectl label nodes n1 role-",
        ),
        ("§a.3 Gt", req("tier", "Gt", &["5"]), "tier=6"),
        ("§a.3 Lt", req("tier", "Lt", &["2"]), "tier=1"),
        (
            "§a.3 parse error",
            req("pool", "In", &[]),
            "correct the term",
        ),
    ];
    for (name, r, needle) in cases {
        let p = placement(&n, &affinity(vec![term(vec![r])]));
        let reason = p
            .reasons
            .iter()
            .find(|r| r.rule == Rule::NodeAffinity)
            .expect("affinity reason");
        assert!(!reason.passed, "{name}");
        let fix = reason.fix.clone().unwrap_or_default();
        assert!(fix.contains(needle), "{name}: {fix}");
    }
}

#[test]
fn empty_term_list_explains_itself_trap_12() {
    let p = placement(&node("n1"), &affinity(vec![]));
    let r = p
        .reasons
        .iter()
        .find(|r| r.rule == Rule::NodeAffinity)
        .expect("affinity reason");
    assert!(!r.passed);
    assert!(r.message.contains("matches no node"));
    assert!(r.fix.as_deref().unwrap_or("").contains("at least one term"));
}

#[test]
fn tolerated_taints_name_the_toleration_and_its_origin() {
    let n = tainted(
        "n1",
        vec![
            taint(
                "node.kubernetes.io/unschedulable",
                "",
                TaintEffect::NoSchedule,
            ),
            taint("dedicated", "infra", TaintEffect::NoSchedule),
        ],
    );
    let p = placement(
        &n,
        &with_tolerations(vec![tol("dedicated", "Equal", "infra", "NoSchedule")]),
    );
    let taint_reasons: Vec<&Reason> = p.reasons.iter().filter(|r| r.rule == Rule::Taint).collect();
    assert_eq!(taint_reasons.len(), 2);
    assert!(
        taint_reasons[0].message.contains("automatically"),
        "{}",
        taint_reasons[0].message
    );
    assert!(
        taint_reasons[1].message.contains("from the template"),
        "{}",
        taint_reasons[1].message
    );
}

#[test]
fn a_near_miss_toleration_is_pointed_out() {
    let n = tainted(
        "n1",
        vec![taint("dedicated", "infra", TaintEffect::NoSchedule)],
    );
    let p = placement(
        &n,
        &with_tolerations(vec![tol("dedicated", "", "", "NoSchedule")]),
    );
    let r = failing(&p)[0];
    assert!(
        r.message.contains("operator Equal, the default"),
        "{}",
        r.message
    );
}

#[test]
fn placement_serializes_with_rule_names() {
    let p = placement(&node("n1"), &TemplateFacts::default());
    let json = serde_json::to_value(&p).unwrap_or_default();
    assert_eq!(json["reasons"][0]["rule"], "NodeName");
    assert_eq!(json["should_run"], true);
}
