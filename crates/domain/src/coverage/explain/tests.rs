//! Tests of cell explanations, each naming the rule it mirrors.

use super::*;
use crate::facts::TaintEffect;
use crate::scheduling::Rule;
use crate::testing::{ds, placed, pod, refused, tainted, PodExt};

#[test]
fn explanations_summarise_the_cell_and_list_the_fixes() {
    let p = [pod("a")
        .old()
        .with(|p| p.waiting_reason = Some("CrashLoopBackOff".into()))
        .created(40)];
    let refs: Vec<&PodFacts> = p.iter().collect();
    let mut taint = refused(
        Rule::Taint,
        true,
        "add toleration {key: dedicated, operator: Exists, effect: NoSchedule}",
    );
    taint.reasons.push(taint.reasons[0].clone());
    let e = explain_cell_with("n1", taint, &ds(), &refs, 100);
    assert_eq!(e.state, CellState::Misscheduled, "§c §g.3");
    assert!(
        e.summary.contains("should not")
            && e.summary.contains("taint")
            && e.summary.contains("kept"),
        "{}",
        e.summary
    );
    assert_eq!(
        e.what_would_change,
        vec!["add toleration {key: dedicated, operator: Exists, effect: NoSchedule}"],
        "§a fixes, deduplicated"
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
        let e = explain_cell_with("n1", placement, &ds(), &refs, 100);
        assert!(e.summary.contains(needle), "{rule}: {}", e.summary);
    }
    let mut on_delete = ds();
    on_delete.strategy = UpdateStrategy::OnDelete;
    let old = [pod("a").old()];
    let e = explain_cell_with("n1", placed(true, true), &on_delete, &[&old[0]], 100);
    assert!(e.summary.contains("OnDelete"), "§d.5 {}", e.summary);
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
    assert!(
        !e.what_would_change.is_empty(),
        "§a a failing taint says which toleration to add"
    );
}
