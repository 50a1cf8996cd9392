//! Coverage tests: cell states, exclusion kinds, grouping, column summaries, the snapshot and
//! explanations. Each case names the rule it mirrors.

use super::*;
use crate::domain::facts::{
    IntOrPercent, NodeFacts, Taint, TaintEffect, TemplateFacts, Toleration, UpdateStrategy,
};
use crate::domain::rollout::testkit::{ds, ds_budget, placed, pod, refused, PodExt};
use crate::domain::rollout::NodeSlot;
use crate::domain::scheduling::Rule;

/// (rule, (shouldRun, shouldContinueRunning), pods on the node, expected state)
type StateCase = (&'static str, (bool, bool), Vec<PodFacts>, CellState);

#[test]
fn cell_states_follow_placement_and_the_examined_pod() {
    use CellState::*;
    use PodPhase::{Failed, Succeeded};
    let cases: Vec<StateCase> = vec![
        (
            "§a should run, current revision, Ready",
            (true, true),
            vec![pod("a")],
            Ready,
        ),
        (
            "§d.4 should run, old revision",
            (true, true),
            vec![pod("a").old()],
            Outdated,
        ),
        (
            "§d.4 an old revision that is not ready is still outdated",
            (true, true),
            vec![pod("a").old().unready()],
            Outdated,
        ),
        (
            "§c current revision, Running, not Ready",
            (true, true),
            vec![pod("a").unready()],
            Unready,
        ),
        (
            "§c a failed pod on the current revision is unready",
            (true, true),
            vec![pod("a").phase(Failed)],
            Unready,
        ),
        (
            "§c §g.6 a Pending unbound pod is pending",
            (true, true),
            vec![pod("a").unbound().phase(PodPhase::Pending)],
            Pending,
        ),
        (
            "§c phase Pending on a bound pod is pending",
            (true, true),
            vec![pod("a").phase(PodPhase::Pending)],
            Pending,
        ),
        (
            "§a.7 should run, no pod: missing",
            (true, true),
            vec![],
            Missing,
        ),
        (
            "§c a failed pod marked for deletion is not counted: missing",
            (true, true),
            vec![pod("a").phase(Failed).terminating()],
            Missing,
        ),
        (
            "§a.7 only a terminating pod: pending until it is gone",
            (true, true),
            vec![pod("a").old().terminating()],
            Pending,
        ),
        (
            "§a.7 §d.3 an old and a new pod: surge",
            (true, true),
            vec![pod("old").old().created(1), pod("new").created(5).unready()],
            Surge,
        ),
        (
            "§a.7 surge while the new pod is ready too",
            (true, true),
            vec![pod("old").old().created(1), pod("new").created(5)],
            Surge,
        ),
        (
            "§d.3 a terminating old pod beside a new one is not surge",
            (true, true),
            vec![pod("old").old().terminating(), pod("new").unready()],
            Unready,
        ),
        (
            "§c §g.6 the oldest pod decides among two new pods",
            (true, true),
            vec![pod("a").created(1).unready(), pod("b").created(2)],
            Unready,
        ),
        (
            "§a should not run, no pod: excluded",
            (false, false),
            vec![],
            Excluded,
        ),
        (
            "§a.2 (false, true) without a pod is excluded",
            (false, true),
            vec![],
            Excluded,
        ),
        (
            "§c §g.3 a pod kept by shouldContinueRunning is misscheduled",
            (false, true),
            vec![pod("a")],
            Misscheduled,
        ),
        (
            "§c a pod where nothing allows it is misscheduled",
            (false, false),
            vec![pod("a").old()],
            Misscheduled,
        ),
        (
            "§c a terminating pod on a shouldRun-false node still counts as misscheduled",
            (false, false),
            vec![pod("a").terminating()],
            Misscheduled,
        ),
        (
            "§c a terminal terminating pod on a shouldRun-false node is excluded",
            (false, false),
            vec![pod("a").phase(Succeeded).terminating()],
            Excluded,
        ),
    ];
    for (rule, (run, keep), pods, want) in cases {
        let refs: Vec<&PodFacts> = pods.iter().collect();
        assert_eq!(
            cell_state(&placed(run, keep), &ds(), &refs, 100),
            want,
            "{rule}"
        );
    }
}

#[test]
fn cell_state_names_are_the_public_contract() {
    use CellState::*;
    let all = [
        Ready,
        Outdated,
        Unready,
        Pending,
        Missing,
        Excluded,
        Misscheduled,
        Surge,
    ];
    let names = [
        "ready",
        "outdated",
        "unready",
        "pending",
        "missing",
        "excluded",
        "misscheduled",
        "surge",
    ];
    for (state, name) in all.iter().zip(names) {
        assert_eq!(state.as_str(), name, "issue 3: data-state names");
        assert_eq!(
            serde_json::to_string(state).ok(),
            Some(format!("\"{name}\"")),
            "serde name {name}"
        );
    }
}

#[test]
fn exclusion_kind_is_the_first_failing_placement_step() {
    let mut two = refused(Rule::NodeSelector, false, "label it");
    two.reasons
        .push(refused(Rule::Taint, false, "tolerate it").reasons.remove(0));
    let mut informational = placed(false, true);
    informational.reasons = refused(Rule::Unschedulable, true, "x").reasons;
    let cases = [
        (
            "§a.2 step 1 nodeName",
            refused(Rule::NodeName, false, "f"),
            Some(ExclusionKind::NodeName),
        ),
        (
            "§a.2 step 2 nodeSelector",
            refused(Rule::NodeSelector, false, "f"),
            Some(ExclusionKind::NodeSelector),
        ),
        (
            "§a.2 step 2 affinity",
            refused(Rule::NodeAffinity, false, "f"),
            Some(ExclusionKind::NodeAffinity),
        ),
        (
            "§a.2 step 3 taint",
            refused(Rule::Taint, true, "f"),
            Some(ExclusionKind::Taint),
        ),
        (
            "§a.2 the first failing step wins",
            two,
            Some(ExclusionKind::NodeSelector),
        ),
        (
            "§a.6 informational reasons are not exclusions",
            informational,
            None,
        ),
        ("§a nothing fails", placed(true, true), None),
    ];
    for (rule, p, want) in cases {
        assert_eq!(exclusion_kind(&p), want, "{rule}");
    }
}

#[test]
fn pods_are_grouped_by_owner_uid_and_target_node_oldest_first() {
    let pods = vec![
        pod("b").on("n1").created(5),
        pod("a").on("n1").created(1),
        pod("c").on("n2"),
        pod("foreign").on("n1").owner("other-ds"),
        pod("orphan").with(|p| p.owner_uid = None),
        pod("nowhere").with(|p| p.node_name = None),
    ];
    let groups = group_pods(&pods);
    let names = |owner: &str, node: &str| {
        groups
            .pods(owner, node)
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names("ds-uid", "n1"),
        vec!["a", "b"],
        "§f by owner uid and node, §c oldest first"
    );
    assert_eq!(names("ds-uid", "n2"), vec!["c"], "§f other node");
    assert_eq!(
        names("other-ds", "n1"),
        vec!["foreign"],
        "§f owner uid, not labels"
    );
    assert!(names("ds-uid", "n9").is_empty(), "§f no pods: empty");
    let total: usize = groups.nodes_of("ds-uid").map(|(_, p)| p.len()).sum();
    assert_eq!(
        total, 3,
        "§f pods without owner or target node are counted nowhere"
    );
}

fn node(name: &str) -> NodeFacts {
    NodeFacts {
        name: name.into(),
        uid: format!("uid-{name}"),
        ready: Some(true),
        ..Default::default()
    }
}

fn tainted(name: &str, key: &str, effect: TaintEffect) -> NodeFacts {
    let mut n = node(name);
    n.taints.push(Taint {
        key: key.into(),
        value: String::new(),
        effect,
    });
    n
}

#[test]
fn column_summary_mirrors_status_budget_and_verdict() {
    let a = [pod("a").old()];
    let b = [pod("b").on("n2")];
    let c = [pod("c").on("n3")];
    let slots = [
        NodeSlot {
            node: "n1",
            should_run: true,
            pods: &[&a[0]],
        },
        NodeSlot {
            node: "n2",
            should_run: true,
            pods: &[&b[0]],
        },
        NodeSlot {
            node: "n3",
            should_run: false,
            pods: &[&c[0]],
        },
        NodeSlot {
            node: "n4",
            should_run: true,
            pods: &[],
        },
    ];
    let mut d = ds_budget(1, 0);
    d.strategy = UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: Some(IntOrPercent::Str("50%".into())),
        max_surge: Some(IntOrPercent::Int(0)),
    };
    d.status = Some(crate::domain::facts::DaemonSetStatusFacts {
        observed_generation: 1,
        desired_number_scheduled: 3,
        updated_number_scheduled: 1,
        ..Default::default()
    });
    let col = column_summary(&d, &slots, 100);
    let got = (
        col.desired,
        col.ready,
        col.updated,
        col.available,
        col.misscheduled,
        col.missing,
    );
    assert_eq!(
        got,
        (3, 2, 1, 2, 1, 1),
        "§c counts; missing = should run without a pod"
    );
    assert_eq!(
        (col.max_unavailable, col.max_surge),
        (Some(2), Some(0)),
        "§d.2 50% of 3 rounds up to 2"
    );
    assert_eq!(
        col.budget_in_use, 1,
        "§d.3 the node without a pod uses the budget"
    );
    assert_eq!(col.strategy, "RollingUpdate");
    assert_eq!(col.key, "kube-system/agent");
    assert_eq!(
        col.rollout_message,
        "Waiting for daemon set \"agent\" rollout to finish: 1 out of 3 new pods have been updated...",
        "§e from the DaemonSet's own status"
    );

    let mut bad = d.clone();
    bad.strategy = UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: Some(IntOrPercent::Str("5".into())),
        max_surge: None,
    };
    let col = column_summary(&bad, &slots, 100);
    assert_eq!(
        (col.max_unavailable, col.max_surge),
        (None, None),
        "§d.2 §i.3 no number for \"5\""
    );
    assert_eq!(
        col.budget_error.as_deref(),
        Some("invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage"),
        "§d.2 the controller's error"
    );

    let mut on_delete = d.clone();
    on_delete.strategy = UpdateStrategy::OnDelete;
    let col = column_summary(&on_delete, &slots, 100);
    assert_eq!(
        (
            col.strategy.as_str(),
            col.max_unavailable,
            col.budget_in_use
        ),
        ("OnDelete", None, 0),
        "§d.5 no budget"
    );
    assert_eq!(
        col.rollout_error.as_deref(),
        Some("rollout status is only available for RollingUpdate strategy type"),
        "§e.1"
    );
    assert!(
        col.rollout_done && col.rollout_message.is_empty(),
        "§e.1 done, no message"
    );
}

#[test]
fn snapshot_uses_real_placement_and_groups_pods_by_owner() {
    let nodes = vec![
        node("worker-1"),
        tainted(
            "cp-1",
            "node-role.kubernetes.io/control-plane",
            TaintEffect::NoSchedule,
        ),
        tainted("dedicated", "dedicated", TaintEffect::NoSchedule),
        {
            let mut n = node("cordoned");
            n.unschedulable = true;
            n
        },
        tainted("soft", "maintenance", TaintEffect::PreferNoSchedule),
    ];
    let mut agent = ds();
    agent.template = TemplateFacts::default();
    let mut tolerant = ds();
    tolerant.name = "tolerant".into();
    tolerant.uid = "tol-uid".into();
    tolerant.template.tolerations.push(Toleration {
        key: String::new(),
        operator: "Exists".into(),
        ..Default::default()
    });
    let pods = vec![
        pod("a1").on("worker-1"),
        pod("a2").on("dedicated").old(),
        pod("a3").on("soft").unready(),
        pod("t1").on("worker-1").owner("tol-uid"),
        pod("t2").on("cp-1").owner("tol-uid").old(),
        pod("t3")
            .on("dedicated")
            .owner("tol-uid")
            .unbound()
            .phase(PodPhase::Pending),
    ];
    let snap = build_snapshot(&nodes, &[agent, tolerant], &pods, 100, "demo");
    assert_eq!(snap.cluster, "demo");
    let grid: Vec<(&str, Vec<CellState>)> = snap
        .nodes
        .iter()
        .map(|r| (r.name.as_str(), r.cells.clone()))
        .collect();
    use CellState::*;
    assert_eq!(
        grid,
        vec![
            ("worker-1", vec![Ready, Ready]),
            ("cp-1", vec![Excluded, Outdated]),
            ("dedicated", vec![Misscheduled, Pending]),
            ("cordoned", vec![Missing, Missing]),
            ("soft", vec![Unready, Missing]),
        ],
        "§a.2 control-plane taint excludes; §g.3 NoSchedule taint after placement is misscheduled; \
         §g.1 cordon is ignored; §g.2 PreferNoSchedule never blocks; empty-key Exists tolerates all (§a.5)"
    );
    let cols: Vec<(i64, i64, i64)> = snap
        .daemonsets
        .iter()
        .map(|c| (c.desired, c.misscheduled, c.missing))
        .collect();
    assert_eq!(
        cols,
        vec![(3, 1, 1), (5, 0, 2)],
        "§c desired/misscheduled, missing cells"
    );
}

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

    let cases: Vec<(
        &str,
        crate::domain::scheduling::Placement,
        Vec<PodFacts>,
        &str,
    )> = vec![
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

#[test]
fn node_rows_bound_taints_and_labels() {
    let mut n = node("big");
    for i in 0..12 {
        n.taints.push(Taint {
            key: format!("k{i}"),
            value: "v".repeat(if i == 0 { 300 } else { 1 }),
            effect: TaintEffect::NoSchedule,
        });
    }
    n.labels
        .insert("node-role.kubernetes.io/worker".into(), String::new());
    n.labels
        .insert("topology.kubernetes.io/zone".into(), "eu-1a".into());
    n.labels.insert("secret-ish".into(), "not shown".into());
    let row = node_row(&n, vec![]);
    assert_eq!(row.taints.len(), 9, "8 taints and a count of the rest");
    assert_eq!(row.taints[8], "…and 4 more");
    assert!(row.taints[0].chars().count() <= 100, "bounded length");
    assert_eq!(row.taints[1], "k1=v:NoSchedule");
    assert_eq!(
        row.labels,
        vec![
            ("node-role.kubernetes.io/worker".to_string(), String::new()),
            (
                "topology.kubernetes.io/zone".to_string(),
                "eu-1a".to_string()
            )
        ],
        "only identifying labels"
    );
}
