//! Tests of cell explanations, each naming the rule it mirrors.

use super::*;
use crate::facts::TaintEffect;
use crate::scheduling::FixAction;
use crate::scheduling::Rule;
use crate::testing::{ds, labelled, node, placed, pod, refused, tainted, PodExt};

#[test]
fn explanations_summarise_the_cell_and_list_the_fixes() {
    let p = [pod("a")
        .old()
        .with(|p| p.waiting_reason = Some("CrashLoopBackOff".into()))
        .created(40)];
    let refs: Vec<&PodFacts> = p.iter().collect();
    let mut n = node("n1");
    n.taints.push(crate::facts::Taint {
        key: "dedicated".into(),
        value: String::new(),
        effect: TaintEffect::NoSchedule,
    });
    let e = explain_cell(&n, &ds(), &refs, 100);
    assert_eq!(e.state, CellState::Misscheduled, "§c §g.3");
    assert!(
        e.summary.contains("should not")
            && e.summary.contains("taint")
            && e.summary.contains("kept"),
        "{}",
        e.summary
    );
    assert_eq!(
        e.fixes.blockers[0].options[0].text(),
        "- {key: dedicated, operator: Exists, effect: NoSchedule}",
        "§a.5 the toleration to paste"
    );
    assert_eq!(
        (e.pods.len(), e.pods[0].age_seconds, e.pods[0].updated),
        (1, 60, false),
        "§d.4 pod summary"
    );
    assert_eq!(e.daemonset, "kube-system/agent");

    let cases: Vec<(&str, crate::scheduling::Placement, Vec<PodFacts>, &str)> = vec![
        (
            "§a ready",
            placed(true, true),
            vec![pod("a")],
            "ready on the current revision",
        ),
        (
            "§d.4 outdated names the old hash",
            placed(true, true),
            vec![pod("a").old()],
            "old revision (old)",
        ),
        (
            "§c unready shows the waiting reason",
            placed(true, true),
            vec![pod("a")
                .unready()
                .with(|p| p.waiting_reason = Some("ImagePullBackOff".into()))],
            "(ImagePullBackOff)",
        ),
        ("§a.7 missing", placed(true, true), vec![], "no pod"),
        (
            "§a.7 terminating only",
            placed(true, true),
            vec![pod("a").terminating()],
            "terminating",
        ),
        (
            "§a.2 excluded by nodeSelector",
            refused(Rule::NodeSelector, false, "label"),
            vec![],
            "nodeSelector",
        ),
        (
            "§a.2 excluded by affinity",
            refused(Rule::NodeAffinity, false, "x"),
            vec![],
            "affinity",
        ),
        (
            "§a.2 excluded by nodeName",
            refused(Rule::NodeName, false, "x"),
            vec![],
            "spec.nodeName",
        ),
        (
            "§a.2 (false,true) keeps existing pods",
            refused(Rule::Taint, true, "x"),
            vec![],
            "would be kept",
        ),
        (
            "§a.2 NoExecute: the controller deletes the pod",
            refused(Rule::Taint, false, "x"),
            vec![pod("a")],
            "deletes it",
        ),
        (
            "§d.3 surge",
            placed(true, true),
            vec![pod("o").old(), pod("n").created(3)],
            "Surge update",
        ),
    ];
    for (rule, placement, pods, needle) in cases {
        let refs: Vec<&PodFacts> = pods.iter().collect();
        let e = explain_cell_with(&node("n1"), placement, &ds(), &refs, 100);
        assert!(e.summary.contains(needle), "{rule}: {}", e.summary);
    }
    let mut on_delete = ds();
    on_delete.strategy = UpdateStrategy::OnDelete;
    let old = [pod("a").old()];
    let e = explain_cell_with(&node("n1"), placed(true, true), &on_delete, &[&old[0]], 100);
    assert!(e.summary.contains("OnDelete"), "§d.5 {}", e.summary);
    assert!(
        e.summary.starts_with("Waiting for deletion"),
        "§d.5 an OnDelete outdated pod reads as waiting for deletion: {}",
        e.summary
    );
}

#[test]
fn explain_cell_runs_the_real_placement() {
    let n = tainted("gpu-1", "nvidia.com/gpu", TaintEffect::NoSchedule);
    let e = explain_cell(&n, &ds(), &[], 100);
    assert_eq!(
        e.state,
        CellState::Excluded,
        "§a.2 step 3 untolerated NoSchedule taint"
    );
    assert!(
        !e.placement.should_run && e.placement.should_continue_running,
        "§a.2 (false, true)"
    );
    assert_eq!(
        e.fixes.blockers.len(),
        1,
        "§a a failing taint says which toleration to add"
    );
}

fn command(f: &Fix) -> &str {
    match &f.action {
        FixAction::Command { command } => command,
        FixAction::DaemonSetPatch { .. } => "",
    }
}

#[test]
fn a_misscheduled_pod_the_controller_keeps_is_reconciled_by_a_fix_or_by_deleting_it_g3() {
    let n = tainted("infra-1", "dedicated", TaintEffect::NoSchedule);
    let p = [pod("agent-x")];
    let e = explain_cell(&n, &ds(), &[&p[0]], 100);
    assert_eq!(e.state, CellState::Misscheduled);
    assert!(
        e.fixes.headline.contains("keeps this pod"),
        "{}",
        e.fixes.headline
    );
    assert!(
        e.fixes.headline.contains("One rule"),
        "{}",
        e.fixes.headline
    );
    assert_eq!(
        e.fixes.reconcile.iter().map(command).collect::<Vec<_>>(),
        vec![format!("kubectl delete pod -n {} agent-x", p[0].namespace)],
        "§a.7: a deleted pod is not recreated while shouldRun is false"
    );
}

#[test]
fn a_misscheduled_pod_under_an_untolerated_no_execute_taint_is_deleted_by_the_controller_a7() {
    let n = tainted("w1", "maintenance", TaintEffect::NoExecute);
    let p = [pod("agent-x")];
    let e = explain_cell(&n, &ds(), &[&p[0]], 100);
    assert_eq!(e.state, CellState::Misscheduled);
    assert!(
        e.fixes.headline.contains("deletes this pod"),
        "{}",
        e.fixes.headline
    );
    assert!(e.fixes.reconcile.is_empty(), "nothing to delete by hand");
    assert_eq!(e.fixes.blockers.len(), 1);
}

#[test]
fn a_missing_pod_points_at_the_daemonsets_events_a7_f() {
    let d = ds();
    let e = explain_cell(&node("w3"), &d, &[], 100);
    assert_eq!(e.state, CellState::Missing);
    assert!(e.fixes.blockers.is_empty());
    assert_eq!(
        command(&e.fixes.reconcile[0]),
        format!("kubectl describe daemonset -n {} {}", d.namespace, d.name)
    );
}

#[test]
fn two_failing_rules_say_that_each_needs_a_fix_a2() {
    let mut d = ds();
    d.template.node_selector = crate::testing::labels(&[("workload-type", "gpu")]);
    let mut n = labelled("w1", &[]);
    n.taints = tainted("w1", "dedicated", TaintEffect::NoSchedule).taints;
    let e = explain_cell(&n, &d, &[], 100);
    assert_eq!(e.state, CellState::Excluded);
    assert!(
        e.fixes.headline.starts_with("2 rules keep the pod off"),
        "{}",
        e.fixes.headline
    );
    let p = [pod("a")];
    let ready = explain_cell(&node("w1"), &ds(), &[&p[0]], 100);
    assert_eq!(ready.state, CellState::Ready);
    assert_eq!(
        ready.fixes,
        FixPlan::default(),
        "nothing to fix on a ready cell"
    );
}
