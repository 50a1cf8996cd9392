//! What-if previews: one case per outcome, each naming the rule of `docs/kubernetes-rules.md` the
//! before/after verdicts follow.

use super::*;
use crate::testing::{labelled, labels, node, tainted};
use std::collections::HashMap;

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

fn with_tolerations(tolerations: Vec<Toleration>) -> TemplateFacts {
    TemplateFacts {
        tolerations,
        ..TemplateFacts::default()
    }
}

fn gpu_selector() -> TemplateFacts {
    TemplateFacts {
        node_selector: labels(&[("workload-type", "gpu")]),
        ..TemplateFacts::default()
    }
}

/// The outcome of node edits for one template and one node.
fn node_case(n: &NodeFacts, edits: &[NodeEdit], t: &TemplateFacts, has_pod: bool) -> Outcome {
    let after = apply_node_edits(n, edits);
    preview_cell((n, &after), (t, t), has_pod).0
}

/// The outcome of template edits for one template and one node.
fn template_case(
    n: &NodeFacts,
    t: &TemplateFacts,
    edits: &[TemplateEdit],
    has_pod: bool,
) -> Outcome {
    let after = apply_template_edits(t, edits);
    preview_cell((n, n), (t, &after), has_pod).0
}

/// (name citing §, node, edits, template, a pod is there now, outcome)
type NodeCase = (
    &'static str,
    NodeFacts,
    Vec<NodeEdit>,
    TemplateFacts,
    bool,
    Outcome,
);
/// (name citing §, node, template, edits, a pod is there now, outcome)
type TemplateCase = (
    &'static str,
    NodeFacts,
    TemplateFacts,
    Vec<TemplateEdit>,
    bool,
    Outcome,
);

#[test]
fn node_edits_preview_the_controllers_verdicts() {
    let gpu = labelled("gpu-1", &[("workload-type", "gpu")]);
    let exists_all = with_tolerations(vec![tol("", "Exists", "", "", None)]);
    let for_300 = with_tolerations(vec![tol("dedicated", "Exists", "", "NoExecute", Some(300))]);
    let cases: Vec<NodeCase> = vec![
        (
            "§a.2 step 3, §a.5: an untolerated NoExecute taint evicts a running pod at once",
            gpu.clone(),
            vec![dedicated_ml(TaintEffect::NoExecute)],
            TemplateFacts::default(),
            true,
            Outcome::Evicted(None),
        ),
        (
            "§a.5: an empty-key Exists toleration tolerates every taint, the pod stays",
            gpu.clone(),
            vec![dedicated_ml(TaintEffect::NoExecute)],
            exists_all.clone(),
            true,
            Outcome::Unaffected,
        ),
        (
            "§a.5, §g.8: tolerated for 300 s, the pod is evicted after 300 s",
            gpu.clone(),
            vec![dedicated_ml(TaintEffect::NoExecute)],
            for_300,
            true,
            Outcome::Evicted(Some(300)),
        ),
        (
            "§a.2 step 3, §c, §g.3: a NoSchedule taint keeps the running pod, no longer desired",
            gpu.clone(),
            vec![dedicated_ml(TaintEffect::NoSchedule)],
            TemplateFacts::default(),
            true,
            Outcome::KeepsRunning,
        ),
        (
            "§a.2 step 3: a NoSchedule taint on a node still waiting for its pod: none is created",
            gpu.clone(),
            vec![dedicated_ml(TaintEffect::NoSchedule)],
            TemplateFacts::default(),
            false,
            Outcome::WouldNotStart,
        ),
        (
            "§a.2 step 3, §g.2: a PreferNoSchedule taint changes nothing",
            gpu.clone(),
            vec![dedicated_ml(TaintEffect::PreferNoSchedule)],
            TemplateFacts::default(),
            true,
            Outcome::Unaffected,
        ),
        (
            "§a.6, §b: a cordon brings unschedulable:NoSchedule, which the controller tolerates itself",
            gpu.clone(),
            vec![NodeEdit::Cordon],
            TemplateFacts::default(),
            true,
            Outcome::Unaffected,
        ),
        (
            "§a.2 step 2: removing the label the nodeSelector needs deletes the pod",
            gpu.clone(),
            vec![NodeEdit::RemoveLabel { key: "workload-type".into() }],
            gpu_selector(),
            true,
            Outcome::WouldStop,
        ),
        (
            "§a.2 step 2: changing that label's value deletes it too",
            gpu.clone(),
            vec![NodeEdit::SetLabel { key: "workload-type".into(), value: "cpu".into() }],
            gpu_selector(),
            true,
            Outcome::WouldStop,
        ),
        (
            "§a.2 step 2: adding the label the nodeSelector needs starts a pod",
            node("w1"),
            vec![NodeEdit::SetLabel { key: "workload-type".into(), value: "gpu".into() }],
            gpu_selector(),
            false,
            Outcome::WouldStart,
        ),
        (
            "§a.2 step 3: removing an untolerated NoSchedule taint starts a pod",
            tainted("w1", "dedicated", TaintEffect::NoSchedule),
            vec![NodeEdit::RemoveTaint { key: "dedicated".into(), effect: None }],
            TemplateFacts::default(),
            false,
            Outcome::WouldStart,
        ),
        (
            "§c: removing it from a node whose pod was kept makes that pod desired again",
            tainted("w1", "dedicated", TaintEffect::NoSchedule),
            vec![NodeEdit::RemoveTaint { key: "dedicated".into(), effect: Some(TaintEffect::NoSchedule) }],
            TemplateFacts::default(),
            true,
            Outcome::DesiredAgain,
        ),
        (
            "§a.2 step 3: removing the key with another effect leaves the taint",
            tainted("w1", "dedicated", TaintEffect::NoSchedule),
            vec![NodeEdit::RemoveTaint { key: "dedicated".into(), effect: Some(TaintEffect::NoExecute) }],
            TemplateFacts::default(),
            false,
            Outcome::Unaffected,
        ),
    ];
    for (name, n, edits, t, has_pod, want) in cases {
        assert_eq!(node_case(&n, &edits, &t, has_pod), want, "{name}");
    }
}

#[test]
fn template_edits_preview_the_controllers_verdicts() {
    let dedicated = tainted("gpu-1", "dedicated", TaintEffect::NoSchedule);
    let mut dedicated_noexec = node("gpu-1");
    dedicated_noexec
        .taints
        .push(taint("dedicated", "ml", TaintEffect::NoExecute));
    let cases: Vec<TemplateCase> =
        vec![
        (
            "§a.5: a toleration for the node's taint starts a pod there",
            dedicated.clone(),
            TemplateFacts::default(),
            vec![TemplateEdit::AddToleration(tol("dedicated", "Exists", "", "NoSchedule", None))],
            false,
            Outcome::WouldStart,
        ),
        (
            "§a.5: a toleration with the wrong value tolerates nothing",
            dedicated_noexec.clone(),
            TemplateFacts::default(),
            vec![TemplateEdit::AddToleration(tol("dedicated", "Equal", "web", "NoExecute", None))],
            false,
            Outcome::Unaffected,
        ),
        (
            "§a.5: the first matching toleration decides eviction; one appended after it does not",
            dedicated_noexec.clone(),
            with_tolerations(vec![tol("dedicated", "Exists", "", "NoExecute", Some(60))]),
            vec![TemplateEdit::AddToleration(tol("dedicated", "Exists", "", "NoExecute", None))],
            true,
            Outcome::Unaffected,
        ),
        (
            "§a.2 step 2: a nodeSelector the node lacks deletes its pod",
            node("w1"),
            TemplateFacts::default(),
            vec![TemplateEdit::SetNodeSelector(labels(&[("workload-type", "gpu")]))],
            true,
            Outcome::WouldStop,
        ),
        (
            "§a.2 step 2: an empty nodeSelector imposes nothing: the pod may start anywhere",
            node("w1"),
            gpu_selector(),
            vec![TemplateEdit::SetNodeSelector(Labels::new())],
            false,
            Outcome::WouldStart,
        ),
    ];
    for (name, n, t, edits, has_pod, want) in cases {
        assert_eq!(template_case(&n, &t, &edits, has_pod), want, "{name}");
    }
}

#[test]
fn a_pod_tolerated_for_a_while_is_said_to_come_back_g8() {
    let n = node("gpu-1");
    let t = with_tolerations(vec![tol("dedicated", "Exists", "", "NoExecute", Some(300))]);
    let after = apply_node_edits(&n, &[dedicated_ml(TaintEffect::NoExecute)]);
    let (outcome, why) = preview_cell((&n, &after), (&t, &t), true);
    assert_eq!(outcome, Outcome::Evicted(Some(300)));
    assert!(why.unwrap_or_default().contains("creates it again"));
    assert_eq!(
        outcome.phrase(),
        "evicted by a NoExecute taint after tolerationSeconds 300 s"
    );
}

#[test]
fn the_rule_that_evicts_is_named_a2_step_3() {
    let n = node("gpu-1");
    let t = TemplateFacts::default();
    let after = apply_node_edits(&n, &[dedicated_ml(TaintEffect::NoExecute)]);
    let (_, why) = preview_cell((&n, &after), (&t, &t), true);
    assert_eq!(
        why.as_deref(),
        Some("taint dedicated=ml:NoExecute: not tolerated")
    );
}

#[test]
fn cordon_and_a_second_taint_with_the_same_key_and_effect_replace_not_repeat_a6() {
    let n = node("w1");
    let once = apply_node_edits(&n, &[NodeEdit::Cordon, NodeEdit::Cordon]);
    assert!(once.unschedulable);
    assert_eq!(once.taints.len(), 1);
    let back = apply_node_edits(&once, &[NodeEdit::Uncordon]);
    assert!(!back.unschedulable && back.taints.is_empty());
    let twice = apply_node_edits(
        &n,
        &[
            dedicated_ml(TaintEffect::NoExecute),
            NodeEdit::AddTaint(taint("dedicated", "web", TaintEffect::NoExecute)),
        ],
    );
    assert_eq!(
        twice.taints,
        vec![taint("dedicated", "web", TaintEffect::NoExecute)]
    );
}

/// The gpu pool question: taint both gpu nodes with dedicated=ml:NoExecute; which agents go?
#[test]
fn the_gpu_pool_preview_lists_the_evicted_agents_and_counts_them_a5() {
    let gpu1 = labelled("gpu-1", &[("workload-type", "gpu")]);
    let gpu2 = labelled("gpu-2", &[("workload-type", "gpu")]);
    let facts = WhatIfFacts {
        nodes: vec![gpu1, gpu2],
        daemonsets: vec![
            ("kube-system/log-collector".into(), TemplateFacts::default()),
            (
                "kube-system/kube-proxy".into(),
                with_tolerations(vec![tol("", "Exists", "", "", None)]),
            ),
            ("monitoring/gpu-monitor".into(), {
                let mut t = gpu_selector();
                t.tolerations
                    .push(tol("dedicated", "Equal", "ml", "NoExecute", None));
                t
            }),
        ],
        pods: {
            let mut p: Vec<(String, String)> = ["gpu-1", "gpu-2"]
                .iter()
                .flat_map(|n| {
                    [
                        "kube-system/kube-proxy",
                        "kube-system/log-collector",
                        "monitoring/gpu-monitor",
                    ]
                    .iter()
                    .map(move |d| (n.to_string(), d.to_string()))
                })
                .collect();
            p.sort();
            p
        },
        rooms: vec![],
    };
    let edits = Edits {
        node: vec![dedicated_ml(TaintEffect::NoExecute)],
        template: vec![],
    };
    let changes = preview(&facts, &edits);
    assert_eq!(changes.len(), 6);
    let by: HashMap<(String, String), Outcome> = changes
        .iter()
        .map(|c| ((c.node.clone(), c.daemonset.clone()), c.outcome))
        .collect();
    for n in ["gpu-1", "gpu-2"] {
        assert_eq!(
            by[&(n.into(), "kube-system/log-collector".into())],
            Outcome::Evicted(None)
        );
        assert_eq!(
            by[&(n.into(), "kube-system/kube-proxy".into())],
            Outcome::Unaffected
        );
        assert_eq!(
            by[&(n.into(), "monitoring/gpu-monitor".into())],
            Outcome::Unaffected
        );
    }
    assert!(changes.iter().all(|c| c.has_pod));
    assert_eq!(
        summary(&changes),
        "2 pods would be evicted (2 nodes): kube-system/log-collector."
    );
    assert_eq!(summary(&changes[..0]), "No pod would change.");
}

#[test]
fn dropping_the_labels_no_rule_reads_changes_no_outcome_a2_step_2() {
    let mut n = labelled(
        "w1",
        &[("workload-type", "gpu"), ("zone", "a"), ("unrelated", "x")],
    );
    n.taints
        .push(taint("dedicated", "ml", TaintEffect::NoSchedule));
    let affinity = TemplateFacts {
        required_node_affinity: Some(vec![crate::facts::NodeSelectorTerm {
            match_expressions: vec![crate::testing::req("zone", "In", &["a"])],
            match_fields: vec![],
        }]),
        ..TemplateFacts::default()
    };
    let full = WhatIfFacts {
        nodes: vec![n],
        daemonsets: vec![
            ("ns/gpu".into(), gpu_selector()),
            ("ns/zone".into(), affinity),
        ],
        pods: vec![("w1".into(), "ns/gpu".into())],
        rooms: vec![],
    };
    let edits = Edits {
        node: vec![],
        template: vec![TemplateEdit::SetNodeSelector(labels(&[("disk", "ssd")]))],
    };
    let mut trimmed = full.clone();
    trimmed.keep_read_labels(&edited_label_keys(&edits));
    assert_eq!(
        trimmed.nodes[0].labels.keys().collect::<Vec<_>>(),
        vec!["workload-type", "zone"]
    );
    assert_eq!(preview(&trimmed, &edits), preview(&full, &edits));
    let node_edits = Edits {
        node: vec![
            NodeEdit::RemoveLabel { key: "zone".into() },
            NodeEdit::SetLabel {
                key: "unrelated".into(),
                value: "y".into(),
            },
        ],
        template: vec![],
    };
    assert_eq!(preview(&trimmed, &node_edits), preview(&full, &node_edits));
}
