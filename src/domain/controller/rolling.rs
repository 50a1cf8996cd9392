//! One rolling-update pass (§d.3, UPD `rollingUpdate`): which old pods to delete and on which
//! nodes to create new pods, and how much of the budget is in use.

use crate::domain::facts::{DaemonSetFacts, PodFacts, UpdateStrategy};
use crate::domain::rollout::{is_counted, is_pod_available, is_pod_updated, Budget, NodeSlot};
use serde::{Deserialize, Serialize};

/// The outcome of one pass of UPD `rollingUpdate`, with the count it used to decide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollingPass {
    /// Whether the surge branch ran (scaled maxSurge > 0, §d.2).
    pub surge: bool,
    /// maxSurge = 0: unavailable nodes (`numUnavailable`); surge: pods in flight (`numSurge`).
    pub in_use: i64,
    /// uids of old pods to delete now (`manage` recreates them with the new template).
    pub delete_old: Vec<String>,
    /// Nodes where a new pod is created now, beside the old one (surge only).
    pub create_on_nodes: Vec<String>,
}

/// What the controller's rolling-update step does in one sync (§d.3, §d.5).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RollingPlan {
    /// uids of old pods to delete.
    pub delete_old: Vec<String>,
    /// Nodes on which to create a pod with the current template.
    pub create_on_nodes: Vec<String>,
}

/// §d.3, §d.5: the rolling-update step of one sync. Empty for any strategy other than
/// RollingUpdate (OnDelete skips the step). The caller runs it only when `manage` made no
/// change in the same sync and every earlier create/delete has been observed (DC
/// `updateDaemonSet`), and with `budget` from [`crate::domain::rollout::resolve_budget`] (if
/// that fails the step stops there: no plan).
///
/// `slots` must hold every node that should run the DaemonSet and every node with pods of it
/// (nodes with neither are ignored). **Order matters**: candidates are taken in slot order
/// until the budget is used. The real controller walks a Go map, so its order is random; the
/// simulated controller should shuffle, tests pass a fixed order.
pub fn rolling_update_plan(
    ds: &DaemonSetFacts,
    slots: &[NodeSlot<'_>],
    budget: &Budget,
    now: i64,
) -> RollingPlan {
    if !matches!(ds.strategy, UpdateStrategy::RollingUpdate { .. }) {
        return RollingPlan::default();
    }
    let pass = rolling_update_pass(ds, slots, budget, now);
    RollingPlan {
        delete_old: pass.delete_old,
        create_on_nodes: pass.create_on_nodes,
    }
}

/// How a node's live pods split (UPD `findUpdatedPodsOnNode`): terminating pods are ignored;
/// `None` when the node has two or more new or two or more old pods (left for `manage`).
fn split<'a>(
    ds: &DaemonSetFacts,
    pods: &[&'a PodFacts],
) -> Option<(Option<&'a PodFacts>, Option<&'a PodFacts>)> {
    let (mut new, mut old) = (None, None);
    for pod in pods.iter().copied().filter(|p| !p.terminating) {
        let slot = if is_pod_updated(ds, pod) {
            &mut new
        } else {
            &mut old
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(pod);
    }
    Some((new, old))
}

/// §d.3 UPD `rollingUpdate`, both branches, without the strategy gate (the budget gauge uses
/// it for any strategy). See [`rolling_update_plan`] for what `slots` must hold.
pub fn rolling_update_pass(
    ds: &DaemonSetFacts,
    slots: &[NodeSlot<'_>],
    budget: &Budget,
    now: i64,
) -> RollingPass {
    let mrs = ds.min_ready_seconds;
    let available = |p: &PodFacts| is_pod_available(p, mrs, now);
    // The controller's map holds desired nodes and nodes with (counted) pods only.
    let relevant = slots
        .iter()
        .filter(|s| s.should_run || s.pods.iter().any(|p| is_counted(p)));

    if !budget.surge_mode() {
        let mut unavailable = 0_i64;
        let mut replacements = Vec::new();
        let mut candidates = Vec::new();
        for slot in relevant {
            match split(ds, &counted(slot.pods)) {
                None | Some((None, None)) | Some((Some(_), Some(_))) => unavailable += 1,
                Some((Some(new), None)) => {
                    if !available(new) {
                        unavailable += 1;
                    }
                }
                Some((None, Some(old))) => {
                    if !available(old) {
                        replacements.push(old.uid.clone());
                        unavailable += 1;
                    } else if unavailable < budget.max_unavailable {
                        candidates.push(old.uid.clone());
                    }
                }
            }
        }
        let take = take_count(budget.max_unavailable - unavailable, candidates.len());
        replacements.extend(candidates.into_iter().take(take));
        return RollingPass {
            surge: false,
            in_use: unavailable,
            delete_old: replacements,
            create_on_nodes: Vec::new(),
        };
    }

    let desired = slots.iter().filter(|s| s.should_run).count() as i64;
    let mut delete_old = Vec::new();
    let mut should_not_run = Vec::new();
    let mut allowed_nodes = Vec::new();
    let mut candidate_nodes = Vec::new();
    let mut in_flight = 0_i64;
    let mut num_available = 0_i64;
    for slot in relevant {
        let Some((new, old)) = split(ds, &counted(slot.pods)) else {
            in_flight += 1;
            continue;
        };
        if let Some(pod) = old.or(new) {
            if available(pod) {
                num_available += 1;
            }
        }
        match (new, old) {
            (_, None) => {}
            (None, Some(old)) => {
                if !available(old) {
                    if slot.should_run {
                        allowed_nodes.push(slot.node.to_string());
                    } else {
                        delete_old.push(old.uid.clone());
                    }
                } else if !slot.should_run {
                    should_not_run.push(old.uid.clone());
                } else if in_flight < budget.max_surge {
                    candidate_nodes.push(slot.node.to_string());
                }
            }
            (Some(new), Some(old)) => {
                if available(new) {
                    delete_old.push(old.uid.clone());
                } else {
                    in_flight += 1;
                }
            }
        }
    }
    // Capacity moves only after new nodes are up: at most numAvailable − N of the old pods on
    // nodes that no longer should run are deleted.
    let deletable = take_count(num_available - desired, should_not_run.len());
    delete_old.extend(should_not_run.into_iter().take(deletable));
    let take = take_count(budget.max_surge - in_flight, candidate_nodes.len());
    allowed_nodes.extend(candidate_nodes.into_iter().take(take));
    RollingPass {
        surge: true,
        in_use: in_flight,
        delete_old,
        create_on_nodes: allowed_nodes,
    }
}

/// The pods the controller groups under a node (§c `includeDeletedTerminal=false`).
fn counted<'a>(pods: &[&'a PodFacts]) -> Vec<&'a PodFacts> {
    pods.iter().copied().filter(|p| is_counted(p)).collect()
}

/// `max(0, min(room, available))` as a count.
fn take_count(room: i64, available: usize) -> usize {
    usize::try_from(room.max(0)).map_or(available, |r| r.min(available))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::facts::PodPhase;
    use crate::domain::rollout::testkit::{ds, ds_budget, pod, PodExt};

    /// (node, shouldRun, pods), in the order the pass visits them.
    type Layout = Vec<(&'static str, bool, Vec<PodFacts>)>;

    fn run(d: &DaemonSetFacts, budget: (i64, i64), layout: &Layout) -> RollingPass {
        let refs: Vec<Vec<&PodFacts>> = layout.iter().map(|(_, _, p)| p.iter().collect()).collect();
        let slots: Vec<NodeSlot<'_>> = layout
            .iter()
            .zip(&refs)
            .map(|((node, should_run, _), pods)| NodeSlot {
                node,
                should_run: *should_run,
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
                vec![("n1", true, vec![pod("a").old()]), ("n2", true, vec![pod("b").old().on("n2")])],
                0, vec![], vec!["n1"],
            ),
            (
                "§d.3 maxSurge 2: two candidate nodes",
                (0, 2),
                vec![
                    ("n1", true, vec![pod("a").old()]),
                    ("n2", true, vec![pod("b").old().on("n2")]),
                    ("n3", true, vec![pod("c").old().on("n3")]),
                ],
                0, vec![], vec!["n1", "n2"],
            ),
            (
                "§d.3 a new pod not yet available is in flight and uses the surge",
                (0, 1),
                vec![("n1", true, vec![pod("a").old(), pod("a2").unready()]), ("n2", true, vec![pod("b").old().on("n2")])],
                1, vec![], vec![],
            ),
            (
                "§d.3 a new available pod beside the old one: the old one is deleted",
                (0, 1),
                vec![("n1", true, vec![pod("a").old(), pod("a2")]), ("n2", true, vec![pod("b").old().on("n2")])],
                0, vec!["a"], vec!["n2"],
            ),
            (
                "§d.3 an unavailable old pod gets its new pod at once, whatever the budget",
                (0, 1),
                vec![
                    ("n1", true, vec![pod("a").old(), pod("a2").unready()]),
                    ("n2", true, vec![pod("b").old().unready().on("n2")]),
                ],
                1, vec![], vec!["n2"],
            ),
            (
                "§d.3 an unavailable old pod on a shouldRun-false node is simply deleted",
                (0, 1),
                vec![("n1", false, vec![pod("a").old().unready()])],
                0, vec!["a"], vec![],
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
                0, vec![], vec!["n4"],
            ),
            (
                "§d.3 a node left for manage (two new pods) counts as in flight",
                (0, 1),
                vec![("n1", true, vec![pod("a"), pod("a2")]), ("n2", true, vec![pod("b").old().on("n2")])],
                1, vec![], vec![],
            ),
            (
                "§d.3 old available pods on shouldRun-false nodes wait until numAvailable exceeds N",
                (0, 1),
                vec![("n1", false, vec![pod("a").old()]), ("n2", true, vec![])],
                0, vec![], vec![],
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
                0, vec!["a"], vec![],
            ),
            (
                "§d.3 all of them go once numAvailable − N covers them",
                (0, 1),
                vec![
                    ("n1", false, vec![pod("a").old()]),
                    ("n2", false, vec![pod("b").old().on("n2")]),
                    ("n3", true, vec![pod("c").on("n3")]),
                ],
                0, vec!["a", "b"], vec![],
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
}
