//! Placement verdicts and reasons against the summary table of §a.2 and the traps of §g.
use super::*;
use crate::testing::{labelled, node, req};

fn tol(key: &str, operator: &str, value: &str, effect: &str) -> Toleration {
    Toleration {
        key: key.into(),
        operator: operator.into(),
        value: value.into(),
        effect: effect.into(),
        toleration_seconds: None,
    }
}

fn taint(key: &str, value: &str, effect: TaintEffect) -> Taint {
    Taint {
        key: key.into(),
        value: value.into(),
        effect,
    }
}

fn tainted(name: &str, taints: Vec<Taint>) -> NodeFacts {
    NodeFacts {
        taints,
        ..node(name)
    }
}

fn with_tolerations(tolerations: Vec<Toleration>) -> TemplateFacts {
    TemplateFacts {
        tolerations,
        ..Default::default()
    }
}

fn affinity(terms: Vec<NodeSelectorTerm>) -> TemplateFacts {
    TemplateFacts {
        required_node_affinity: Some(terms),
        ..Default::default()
    }
}

fn term(exprs: Vec<SelectorRequirement>) -> NodeSelectorTerm {
    NodeSelectorTerm {
        match_expressions: exprs,
        match_fields: vec![],
    }
}

fn verdict(n: &NodeFacts, t: &TemplateFacts) -> (bool, bool) {
    let p = placement(n, t);
    assert_eq!(
        DaemonPod::new(t).verdict(n),
        (p.should_run, p.should_continue_running),
        "fast path agrees"
    );
    (p.should_run, p.should_continue_running)
}

fn failing(p: &Placement) -> Vec<&Reason> {
    p.reasons.iter().filter(|r| !r.passed).collect()
}

#[test]
fn the_summary_table_of_a2_holds() {
    use TaintEffect::*;
    let cp = taint("node-role.kubernetes.io/control-plane", "", NoSchedule);
    let cases: Vec<(&str, NodeFacts, TemplateFacts, (bool, bool))> = vec![
        ("§a.2 plain node, plain template", node("n1"), TemplateFacts::default(), (true, true)),
        (
            "§a.2.1 template nodeName set to another node",
            node("n1"),
            TemplateFacts { node_name: "n2".into(), ..Default::default() },
            (false, false),
        ),
        (
            "§a.2.1 template nodeName set to this node",
            node("n1"),
            TemplateFacts { node_name: "n1".into(), ..Default::default() },
            (true, true),
        ),
        (
            "§a.2.2 nodeSelector does not match",
            labelled("n1", &[("workload-type", "cpu")]),
            TemplateFacts { node_selector: [("workload-type".to_string(), "gpu".to_string())].into(), ..Default::default() },
            (false, false),
        ),
        (
            "§a.2.2 nodeSelector matches",
            labelled("n1", &[("workload-type", "gpu")]),
            TemplateFacts { node_selector: [("workload-type".to_string(), "gpu".to_string())].into(), ..Default::default() },
            (true, true),
        ),
        (
            "§a.2.2 required affinity does not match",
            labelled("n1", &[("zone", "a")]),
            affinity(vec![term(vec![req("zone", "In", &["b"])])]),
            (false, false),
        ),
        ("§a.2.3 all NoSchedule/NoExecute taints tolerated", tainted("n1", vec![cp.clone()]), with_tolerations(vec![tol("node-role.kubernetes.io/control-plane", "Exists", "", "NoSchedule")]), (true, true)),
        ("§a.2.3 untolerated NoSchedule, no NoExecute", tainted("n1", vec![cp.clone()]), TemplateFacts::default(), (false, true)),
        (
            "§a.2.3 untolerated NoSchedule, every NoExecute tolerated",
            tainted("n1", vec![cp.clone(), taint("evict", "", NoExecute)]),
            with_tolerations(vec![tol("evict", "Exists", "", "NoExecute")]),
            (false, true),
        ),
        ("§a.2.3 untolerated NoExecute", tainted("n1", vec![taint("evict", "now", NoExecute)]), TemplateFacts::default(), (false, false)),
        (
            "§a.2.3 untolerated NoExecute beside a tolerated NoSchedule",
            tainted("n1", vec![cp.clone(), taint("evict", "now", NoExecute)]),
            with_tolerations(vec![tol("node-role.kubernetes.io/control-plane", "Exists", "", "NoSchedule")]),
            (false, false),
        ),
        ("§a.2.3 trap 2: PreferNoSchedule never blocks", tainted("n1", vec![taint("soft", "x", PreferNoSchedule)]), TemplateFacts::default(), (true, true)),
        ("§a.2.3 an unknown effect is not counted", tainted("n1", vec![taint("odd", "x", Other("Weird".into()))]), TemplateFacts::default(), (true, true)),
        (
            "§a.2 nodeName mismatch wins over tolerated taints",
            tainted("n1", vec![]),
            TemplateFacts { node_name: "n2".into(), ..Default::default() },
            (false, false),
        ),
        (
            "§a.2 affinity mismatch wins over an untolerated NoSchedule (false,false not false,true)",
            NodeFacts { taints: vec![cp.clone()], ..labelled("n1", &[]) },
            TemplateFacts { node_selector: [("a".to_string(), "b".to_string())].into(), ..Default::default() },
            (false, false),
        ),
    ];
    for (name, n, t, want) in cases {
        assert_eq!(verdict(&n, &t), want, "{name}");
    }
}

#[test]
fn cordoned_nodes_still_get_daemon_pods_trap_1() {
    let n = NodeFacts {
        unschedulable: true,
        ..tainted(
            "n1",
            vec![taint(
                "node.kubernetes.io/unschedulable",
                "",
                TaintEffect::NoSchedule,
            )],
        )
    };
    let p = placement(&n, &TemplateFacts::default());
    assert_eq!((p.should_run, p.should_continue_running), (true, true));
    let r = p
        .reasons
        .iter()
        .find(|r| r.rule == Rule::Unschedulable)
        .expect("cordon note");
    assert!(r.passed);
    assert!(r.message.contains("ignores"));
    assert!(failing(&p).is_empty());
}

#[test]
fn not_ready_is_not_read_only_its_taints_count_a6() {
    let bare = NodeFacts {
        ready: Some(false),
        ..node("n1")
    };
    let p = placement(&bare, &TemplateFacts::default());
    assert_eq!(
        (p.should_run, p.should_continue_running),
        (true, true),
        "§a.6 TestNotReadyNodeDaemonDoesLaunchPod"
    );
    assert!(p
        .reasons
        .iter()
        .any(|r| r.rule == Rule::NodeReady && r.passed));

    let tainted_nr = NodeFacts {
        ready: Some(false),
        ..tainted(
            "n1",
            vec![
                taint("node.kubernetes.io/not-ready", "", TaintEffect::NoSchedule),
                taint("node.kubernetes.io/not-ready", "", TaintEffect::NoExecute),
            ],
        )
    };
    let p = placement(&tainted_nr, &TemplateFacts::default());
    assert_eq!(
        (p.should_run, p.should_continue_running),
        (false, true),
        "§a.6 trap 4"
    );
    let r = failing(&p)[0];
    assert_eq!(r.rule, Rule::Taint);
    assert!(
        r.message.contains("Only the NoExecute form"),
        "{}",
        r.message
    );
    assert!(r
        .fix
        .as_deref()
        .unwrap_or("")
        .contains("{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule}"));
    let ready = p
        .reasons
        .iter()
        .find(|r| r.rule == Rule::NodeReady)
        .expect("readiness note");
    assert!(ready.message.contains("not tolerated"), "{}", ready.message);
}

#[test]
fn node_selector_terms_or_and_empty_cases_a2() {
    let n = labelled("n1", &[("zone", "a"), ("gpu", "true")]);
    let cases: Vec<(&str, TemplateFacts, bool)> = vec![
        (
            "§a.2 no required block imposes nothing",
            TemplateFacts::default(),
            true,
        ),
        (
            "§a.2 trap 12: nodeSelectorTerms: [] matches no node",
            affinity(vec![]),
            false,
        ),
        (
            "§a.2 only term {} matches no node",
            affinity(vec![NodeSelectorTerm::default()]),
            false,
        ),
        (
            "§a.2 {} beside a matching term: the other term decides",
            affinity(vec![
                NodeSelectorTerm::default(),
                term(vec![req("zone", "In", &["a"])]),
            ]),
            true,
        ),
        (
            "§a.2 terms are ORed",
            affinity(vec![
                term(vec![req("zone", "In", &["b"])]),
                term(vec![req("gpu", "Exists", &[])]),
            ]),
            true,
        ),
        (
            "§a.2 expressions in one term are ANDed",
            affinity(vec![term(vec![
                req("zone", "In", &["a"]),
                req("gpu", "DoesNotExist", &[]),
            ])]),
            false,
        ),
        (
            "§a.3 a term that fails to parse does not stop the others",
            affinity(vec![
                term(vec![req("zone", "In", &[])]),
                term(vec![req("zone", "In", &["a"])]),
            ]),
            true,
        ),
        (
            "§a.3 trap 12: NotIn with an invalid value on a missing label fails",
            affinity(vec![term(vec![req("absent", "NotIn", &["bad value"])])]),
            false,
        ),
        (
            "§a.3 NotIn on a missing label matches",
            affinity(vec![term(vec![req("absent", "NotIn", &["x"])])]),
            true,
        ),
        (
            "§a.2 nodeSelector and affinity must both pass",
            TemplateFacts {
                node_selector: [("zone".to_string(), "b".to_string())].into(),
                required_node_affinity: Some(vec![term(vec![req("zone", "In", &["a"])])]),
                ..Default::default()
            },
            false,
        ),
        (
            "§a.4 matchFields metadata.name In this node",
            affinity(vec![NodeSelectorTerm {
                match_expressions: vec![],
                match_fields: vec![req("metadata.name", "In", &["n1"])],
            }]),
            true,
        ),
        (
            "§a.4 matchFields on another key never matches In",
            affinity(vec![NodeSelectorTerm {
                match_expressions: vec![],
                match_fields: vec![req("metadata.uid", "In", &["n1"])],
            }]),
            false,
        ),
    ];
    for (name, t, want) in cases {
        let expected = if want { (true, true) } else { (false, false) };
        assert_eq!(verdict(&n, &t), expected, "{name}");
    }
}

mod reasons;
mod tolerations;
