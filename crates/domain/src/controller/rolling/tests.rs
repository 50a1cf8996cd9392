//! Tests of `rolling`, each case naming the rule it mirrors.
use super::*;
use crate::facts::PodPhase;
use crate::testing::{ds, ds_budget, pod, PodExt};

/// (node, shouldRun, pods), in the order the pass visits them. A node named `gone-*` is a
/// deleted node whose pods linger ([`NodeSlot::gone`]).
type Layout = Vec<(&'static str, bool, Vec<PodFacts>)>;

fn run(d: &DaemonSetFacts, budget: (i64, i64), layout: &Layout) -> RollingPass {
    let refs: Vec<Vec<&PodFacts>> = layout.iter().map(|(_, _, p)| p.iter().collect()).collect();
    let slots: Vec<NodeSlot<'_>> = layout
        .iter()
        .zip(&refs)
        .map(|((node, should_run, _), pods)| NodeSlot {
            node,
            should_run: *should_run,
            gone: node.starts_with("gone-"),
            pods,
        })
        .collect();
    let budget = Budget {
        max_unavailable: budget.0,
        max_surge: budget.1,
    };
    rolling_update_pass(d, &slots, &budget, 100)
}

fn names(uids: &[String]) -> Vec<&str> {
    uids.iter().map(|u| u.trim_start_matches("uid-")).collect()
}

/// (rule, budget, layout, in_use, deleted pod names, created-on nodes)
type Case = (
    &'static str,
    (i64, i64),
    Layout,
    i64,
    Vec<&'static str>,
    Vec<&'static str>,
);

fn check(cases: Vec<Case>) {
    for (rule, budget, layout, in_use, deleted, created) in cases {
        let got = run(&ds(), budget, &layout);
        assert_eq!(got.surge, budget.1 > 0, "{rule}: branch");
        assert_eq!(got.in_use, in_use, "{rule}: in use");
        assert_eq!(names(&got.delete_old), deleted, "{rule}: deleted");
        assert_eq!(got.create_on_nodes, created, "{rule}: created");
    }
}

#[test]
fn max_surge_zero_deletes_available_old_pods_up_to_max_unavailable() {
    check(vec![
        (
            "§d.3 maxUnavailable 1: the first candidate in node order is deleted",
            (1, 0),
            vec![("n1", true, vec![pod("a").old()]), ("n2", true, vec![pod("b").old().on("n2")])],
            0, vec!["a"], vec![],
        ),
        (
            "§d.3 maxUnavailable 2 deletes two candidates",
            (2, 0),
            vec![
                ("n1", true, vec![pod("a").old()]),
                ("n2", true, vec![pod("b").old().on("n2")]),
                ("n3", true, vec![pod("c").old().on("n3")]),
            ],
            0, vec!["a", "b"], vec![],
        ),
        (
            "§d.3 an unavailable new pod uses the budget: nothing is deleted",
            (1, 0),
            vec![("n1", true, vec![pod("a").unready()]), ("n2", true, vec![pod("b").old().on("n2")])],
            1, vec![], vec![],
        ),
        (
            "§d.3 an unavailable old pod is deleted at once, beyond the budget",
            (1, 0),
            vec![
                ("n1", true, vec![pod("a").unready()]),
                ("n2", true, vec![pod("b").old().unready().on("n2")]),
                ("n3", true, vec![pod("c").old().on("n3")]),
            ],
            2, vec!["b"], vec![],
        ),
        (
            "§d.3 a desired node without pods counts as unavailable",
            (1, 0),
            vec![("n1", true, vec![]), ("n2", true, vec![pod("b").old().on("n2")])],
            1, vec![], vec![],
        ),
        (
            "§d.3 §g.13 a node whose only pod is terminating uses maxUnavailable",
            (1, 0),
            vec![("n1", true, vec![pod("a").old().terminating()]), ("n2", true, vec![pod("b").old().on("n2")])],
            1, vec![], vec![],
        ),
        (
            "§d.3 a node with an old and a new pod counts as unavailable",
            (2, 0),
            vec![
                ("n1", true, vec![pod("a").old(), pod("a2")]),
                ("n2", true, vec![pod("b").old().on("n2")]),
                ("n3", true, vec![pod("c").old().on("n3")]),
            ],
            1, vec!["b"], vec![],
        ),
        (
            "§d.3 a node with two old pods is left for manage and counts as unavailable",
            (1, 0),
            vec![("n1", true, vec![pod("a").old(), pod("a2").old()]), ("n2", true, vec![pod("b").old().on("n2")])],
            1, vec![], vec![],
        ),
        (
            "§d.3 the running count is checked per candidate: unavailable nodes seen later still block",
            (1, 0),
            vec![("n1", true, vec![pod("a").old()]), ("n2", true, vec![])],
            1, vec![], vec![],
        ),
        (
            "§d.3 §g.3 an old pod on a shouldRun-false node is a candidate too",
            (1, 0),
            vec![("n1", false, vec![pod("a").old()])],
            0, vec!["a"], vec![],
        ),
        (
            "§d.3 a shouldRun-false node without pods is not part of the pass",
            (1, 0),
            vec![("n1", false, vec![]), ("n2", true, vec![pod("b").old().on("n2")])],
            0, vec!["b"], vec![],
        ),
        (
            "§d.3 a failed pod marked for deletion is left out of the grouping",
            (1, 0),
            vec![("n1", false, vec![pod("a").phase(PodPhase::Failed).terminating()]), ("n2", true, vec![pod("b").old().on("n2")])],
            0, vec!["b"], vec![],
        ),
        (
            "§d.3 everything updated and available: nothing to do",
            (1, 0),
            vec![("n1", true, vec![pod("a")]), ("n2", true, vec![pod("b").on("n2")])],
            0, vec![], vec![],
        ),
    ]);
}

#[test]
fn max_surge_creates_new_pods_beside_old_ones_up_to_max_surge() {
    check(vec![
        (
            "§d.3 maxSurge 1: a new pod on the first candidate node",
            (0, 1),
            vec![
                ("n1", true, vec![pod("a").old()]),
                ("n2", true, vec![pod("b").old().on("n2")]),
            ],
            0,
            vec![],
            vec!["n1"],
        ),
        (
            "§d.3 maxSurge 2: two candidate nodes",
            (0, 2),
            vec![
                ("n1", true, vec![pod("a").old()]),
                ("n2", true, vec![pod("b").old().on("n2")]),
                ("n3", true, vec![pod("c").old().on("n3")]),
            ],
            0,
            vec![],
            vec!["n1", "n2"],
        ),
        (
            "§d.3 a new pod not yet available is in flight and uses the surge",
            (0, 1),
            vec![
                ("n1", true, vec![pod("a").old(), pod("a2").unready()]),
                ("n2", true, vec![pod("b").old().on("n2")]),
            ],
            1,
            vec![],
            vec![],
        ),
        (
            "§d.3 a new available pod beside the old one: the old one is deleted",
            (0, 1),
            vec![
                ("n1", true, vec![pod("a").old(), pod("a2")]),
                ("n2", true, vec![pod("b").old().on("n2")]),
            ],
            0,
            vec!["a"],
            vec!["n2"],
        ),
        (
            "§d.3 an unavailable old pod gets its new pod at once, whatever the budget",
            (0, 1),
            vec![
                ("n1", true, vec![pod("a").old(), pod("a2").unready()]),
                ("n2", true, vec![pod("b").old().unready().on("n2")]),
            ],
            1,
            vec![],
            vec!["n2"],
        ),
        (
            "§d.3 an unavailable old pod on a shouldRun-false node is simply deleted",
            (0, 1),
            vec![("n1", false, vec![pod("a").old().unready()])],
            0,
            vec!["a"],
            vec![],
        ),
        (
            "§d.3 nodes with no old pod use no surge budget",
            (0, 1),
            vec![
                ("n1", true, vec![]),
                ("n2", true, vec![pod("b").unready().on("n2")]),
                ("n3", true, vec![pod("c").old().terminating().on("n3")]),
                ("n4", true, vec![pod("d").old().on("n4")]),
            ],
            0,
            vec![],
            vec!["n4"],
        ),
        (
            "§d.3 a node left for manage (two new pods) counts as in flight",
            (0, 1),
            vec![
                ("n1", true, vec![pod("a"), pod("a2")]),
                ("n2", true, vec![pod("b").old().on("n2")]),
            ],
            1,
            vec![],
            vec![],
        ),
        (
            "§d.3 old available pods on shouldRun-false nodes wait until numAvailable exceeds N",
            (0, 1),
            vec![("n1", false, vec![pod("a").old()]), ("n2", true, vec![])],
            0,
            vec![],
            vec![],
        ),
        (
            "§d.3 with capacity up elsewhere, at most numAvailable − N of them are deleted",
            (0, 1),
            vec![
                ("n1", false, vec![pod("a").old()]),
                ("n2", false, vec![pod("b").old().on("n2")]),
                ("n3", true, vec![pod("c").on("n3")]),
                ("n4", true, vec![]),
            ],
            0,
            vec!["a"],
            vec![],
        ),
        (
            "§d.3 all of them go once numAvailable − N covers them",
            (0, 1),
            vec![
                ("n1", false, vec![pod("a").old()]),
                ("n2", false, vec![pod("b").old().on("n2")]),
                ("n3", true, vec![pod("c").on("n3")]),
            ],
            0,
            vec!["a", "b"],
            vec![],
        ),
    ]);
}

#[test]
fn node_order_decides_which_candidates_go_first() {
    let forward: Layout = vec![
        ("n1", true, vec![pod("a").old()]),
        ("n2", true, vec![pod("b").old().on("n2")]),
    ];
    let backward: Layout = forward.iter().rev().cloned().collect();
    assert_eq!(
        names(&run(&ds(), (1, 0), &forward).delete_old),
        vec!["a"],
        "§d.3 first in order"
    );
    assert_eq!(
        names(&run(&ds(), (1, 0), &backward).delete_old),
        vec!["b"],
        "§d.3 order is the caller's (random in Go)"
    );
}

#[test]
fn min_ready_seconds_decides_availability_in_the_pass() {
    let mut d = ds();
    d.min_ready_seconds = 60;
    let layout: Layout = vec![
        ("n1", true, vec![pod("a").ready_at(90)]),
        ("n2", true, vec![pod("b").old().on("n2")]),
    ];
    let got = run(&d, (1, 0), &layout);
    assert_eq!(
        (got.in_use, got.delete_old.len()),
        (1, 0),
        "§c §d.3 a new pod inside minReadySeconds is unavailable"
    );
}

#[test]
fn the_plan_runs_only_for_rolling_update() {
    let layout: Layout = vec![("n1", true, vec![pod("a").old()])];
    let refs: Vec<&PodFacts> = layout[0].2.iter().collect();
    let slots = [NodeSlot {
        node: "n1",
        should_run: true,
        gone: false,
        pods: &refs,
    }];
    let budget = Budget {
        max_unavailable: 1,
        max_surge: 0,
    };
    let mut on_delete = ds();
    on_delete.strategy = UpdateStrategy::OnDelete;
    assert_eq!(
        rolling_update_plan(&on_delete, &slots, &budget, 100),
        RollingPlan::default(),
        "§d.5 OnDelete skips the step"
    );
    assert_eq!(
        rolling_update_plan(&ds_budget(1, 0), &slots, &budget, 100).delete_old,
        vec!["uid-a".to_string()],
        "§d.3 RollingUpdate deletes the candidate"
    );
}

/// Kubernetes v1.37.2 `pkg/controller/daemon/update.go` `rollingUpdate` walks
/// `getNodesToDaemonPods`, which groups every claimed pod by node name, so a pod bound to a
/// deleted node takes part until the pod GC removes it (40 s and more on a real cluster, the
/// stall the differential tests saw after `kubectl delete node`).
#[test]
fn pods_on_deleted_nodes_take_part_in_the_rolling_update() {
    check(vec![
        (
            "§d.3 maxSurge 0: a deleted node whose only pod is terminating is one unavailable node and blocks the candidate",
            (1, 0),
            vec![
                ("gone-1", false, vec![pod("a").old().on("gone-1").terminating()]),
                ("n2", true, vec![pod("b").old().on("n2")]),
            ],
            1, vec![], vec![],
        ),
        (
            "§d.3 maxSurge 0: an available old pod on a deleted node is a candidate like any other",
            (1, 0),
            vec![("gone-1", false, vec![pod("a").old().on("gone-1")])],
            0, vec!["a"], vec![],
        ),
    ]);
    let layout: Layout = vec![
        ("gone-1", false, vec![pod("a").old().on("gone-1")]),
        ("n2", true, vec![pod("b").old().on("n2")]),
        ("n3", true, vec![pod("c").old().on("n3").unready()]),
    ];
    let got = run(&ds(), (0, 1), &layout);
    assert_eq!(
        (
            got.blocked_by_gone_node.as_deref(),
            got.delete_old.len(),
            got.create_on_nodes.len()
        ),
        (Some("gone-1"), 0, 0),
        "§d.3 maxSurge > 0: the node lookup of an old pod's deleted node fails the whole step"
    );
    let layout: Layout = vec![
        ("gone-1", false, vec![pod("a").on("gone-1")]),
        ("n2", true, vec![pod("b").old().on("n2")]),
    ];
    let got = run(&ds(), (0, 1), &layout);
    assert_eq!(
        (got.blocked_by_gone_node, got.create_on_nodes),
        (None, vec!["n2".to_string()]),
        "§d.3 maxSurge > 0: a deleted node with only a new pod is left to manage"
    );
}
