//! Coverage tests: cell states, exclusion kinds and pod grouping (the column summary, the
//! snapshot and explanations are tested beside their code). Each case names its rule.

use super::*;
use crate::scheduling::Rule;
use crate::testing::{ds, placed, pod, refused, PodExt};

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
