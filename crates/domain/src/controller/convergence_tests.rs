//! End-to-end checks of the planning functions: a tiny controller loop (manage, then the
//! rolling update when manage changed nothing, §d.3) with an instant kubelet, run until the
//! rollout settles. They show what a user watches: the budget is never exceeded, a surge
//! rollout never leaves a node without an available pod, and kubectl ends with "successfully
//! rolled out" (§e).

use super::*;
use crate::facts::{DaemonSetFacts, PodFacts};
use crate::rollout::{
    compute_status_for_slots, is_pod_available, resolve_budget, rollout_status_for, NodeSlot,
};
use crate::testing::{ds_budget, placed, pod, PodExt};

struct Mini {
    ds: DaemonSetFacts,
    /// (node, shouldRun, shouldContinueRunning)
    nodes: Vec<(String, bool, bool)>,
    pods: Vec<PodFacts>,
    now: i64,
    serial: u32,
}

impl Mini {
    /// Every node runs one available pod of the old revision; the template then changes.
    fn new(ds: DaemonSetFacts, nodes: &[(&str, bool, bool)]) -> Self {
        let pods = nodes
            .iter()
            .filter(|(_, run, keep)| *run || *keep)
            .map(|(n, _, _)| pod(&format!("old-{n}")).on(n).old())
            .collect();
        Mini {
            ds,
            nodes: nodes
                .iter()
                .map(|(n, r, k)| (n.to_string(), *r, *k))
                .collect(),
            pods,
            now: 1000,
            serial: 0,
        }
    }

    fn on(&self, node: &str) -> Vec<&PodFacts> {
        self.pods
            .iter()
            .filter(|p| p.node_name.as_deref() == Some(node))
            .collect()
    }

    /// Returns the per-node pods as owned vectors (so slots can borrow them).
    fn grouped(&self) -> Vec<Vec<&PodFacts>> {
        self.nodes.iter().map(|(n, _, _)| self.on(n)).collect()
    }

    fn delete(&mut self, uid: &str) {
        for p in self.pods.iter_mut().filter(|p| p.uid == uid) {
            p.terminating = true;
        }
    }

    fn create(&mut self, node: &str) {
        self.serial += 1;
        let name = format!("new-{node}-{}", self.serial);
        self.pods
            .push(pod(&name).on(node).unready().created(self.now));
    }

    /// One sync plus one kubelet tick. Returns whether anything changed.
    fn step(&mut self) -> bool {
        // kubelet: terminating pods are gone, new pods become Ready now.
        self.pods.retain(|p| !p.terminating);
        let now = self.now;
        for p in self.pods.iter_mut().filter(|p| !p.ready) {
            p.ready = true;
            p.ready_since = Some(now);
        }
        self.now += 1;
        let surge = allows_surge(&self.ds.strategy);
        let mut creates = Vec::new();
        let mut deletes = Vec::new();
        for (node, run, keep) in &self.nodes {
            let a = manage_node(
                &self.ds,
                &placed(*run, *keep),
                &self.on(node),
                surge,
                self.now,
            );
            if a.create {
                creates.push(node.clone());
            }
            deletes.extend(a.all_deletes().map(str::to_string));
        }
        if creates.is_empty() && deletes.is_empty() {
            let grouped = self.grouped();
            let slots: Vec<NodeSlot<'_>> = self
                .nodes
                .iter()
                .zip(&grouped)
                .map(|((n, run, _), pods)| NodeSlot {
                    node: n,
                    should_run: *run,
                    gone: false,
                    pods,
                })
                .collect();
            let desired = slots.iter().filter(|s| s.should_run).count() as i64;
            let Ok(budget) = resolve_budget(&self.ds.strategy, desired) else {
                return false;
            };
            let plan = rolling_update_plan(&self.ds, &slots, &budget, self.now);
            creates = plan.create_on_nodes;
            deletes = plan.delete_old;
        }
        let changed = !creates.is_empty() || !deletes.is_empty();
        for uid in deletes {
            self.delete(&uid);
        }
        for node in creates {
            self.create(&node);
        }
        changed
    }

    /// Desired nodes without an available, non-terminating pod.
    fn unavailable_nodes(&self) -> usize {
        self.nodes
            .iter()
            .filter(|(n, run, _)| {
                *run && !self.on(n).iter().any(|p| {
                    !p.terminating && is_pod_available(p, self.ds.min_ready_seconds, self.now)
                })
            })
            .count()
    }

    fn nodes_with_two_live_pods(&self) -> usize {
        self.nodes
            .iter()
            .filter(|(n, _, _)| self.on(n).iter().filter(|p| !p.terminating).count() > 1)
            .count()
    }

    fn verdict(&self) -> String {
        let grouped = self.grouped();
        let slots: Vec<NodeSlot<'_>> = self
            .nodes
            .iter()
            .zip(&grouped)
            .map(|((n, run, _), pods)| NodeSlot {
                node: n,
                should_run: *run,
                gone: false,
                pods,
            })
            .collect();
        let status = compute_status_for_slots(&self.ds, &slots, self.now);
        rollout_status_for(&self.ds, Some(&status)).message
    }
}

fn cluster(n: usize) -> Vec<(String, bool, bool)> {
    (0..n).map(|i| (format!("n{i}"), true, true)).collect()
}

fn run_to_the_end(mini: &mut Mini, check: impl Fn(&Mini)) -> usize {
    for step in 0..200 {
        let changed = mini.step();
        check(mini);
        if !changed && !mini.step() {
            return step;
        }
    }
    panic!("the rollout did not settle in 200 syncs");
}

#[test]
fn a_max_unavailable_rollout_never_exceeds_its_budget_and_finishes() {
    for (rule, max_unavailable, nodes) in [
        ("§d.3 maxUnavailable 1 on 5 nodes", 1, 5),
        ("§d.3 maxUnavailable 2 on 7 nodes", 2, 7),
        ("§d.3 maxUnavailable larger than the cluster", 10, 3),
    ] {
        let names = cluster(nodes);
        let refs: Vec<(&str, bool, bool)> =
            names.iter().map(|(n, r, k)| (n.as_str(), *r, *k)).collect();
        let mut mini = Mini::new(ds_budget(max_unavailable, 0), &refs);
        assert!(
            mini.verdict()
                .contains(&format!("0 out of {nodes} new pods")),
            "{rule}: starts outdated"
        );
        let limit = max_unavailable as usize;
        run_to_the_end(&mut mini, |m| {
            assert!(
                m.unavailable_nodes() <= limit,
                "{rule}: {} unavailable > {limit}",
                m.unavailable_nodes()
            );
            assert_eq!(
                m.nodes_with_two_live_pods(),
                0,
                "{rule}: no surge without maxSurge"
            );
        });
        assert_eq!(
            mini.verdict(),
            "daemon set \"agent\" successfully rolled out",
            "{rule}: §e done"
        );
        assert!(
            mini.pods.iter().all(|p| p.revision_hash == "new"),
            "{rule}: every pod updated"
        );
    }
}

#[test]
fn a_surge_rollout_keeps_every_node_available_and_finishes() {
    for (rule, max_surge, nodes) in [
        ("§d.3 maxSurge 1 on 4 nodes", 1, 4),
        ("§d.3 maxSurge 3 on 6 nodes", 3, 6),
    ] {
        let names = cluster(nodes);
        let refs: Vec<(&str, bool, bool)> =
            names.iter().map(|(n, r, k)| (n.as_str(), *r, *k)).collect();
        let mut mini = Mini::new(ds_budget(0, max_surge), &refs);
        let limit = max_surge as usize;
        run_to_the_end(&mut mini, |m| {
            assert_eq!(
                m.unavailable_nodes(),
                0,
                "{rule}: surge keeps 100% availability"
            );
            assert!(
                m.nodes_with_two_live_pods() <= limit,
                "{rule}: at most maxSurge extra pods"
            );
        });
        assert_eq!(
            mini.verdict(),
            "daemon set \"agent\" successfully rolled out",
            "{rule}: §e done"
        );
        assert_eq!(
            mini.pods.len(),
            nodes,
            "{rule}: one pod per node at the end"
        );
    }
}

#[test]
fn a_max_unavailable_rollout_removes_a_pod_kept_only_by_should_continue_running() {
    // §g.3: a NoSchedule taint arrived after placement: (false, true) keeps the old pod, but
    // the maxSurge=0 rollout deletes it as a candidate and manage never recreates it.
    let mut mini = Mini::new(
        ds_budget(1, 0),
        &[("n0", true, true), ("tainted", false, true)],
    );
    assert_eq!(mini.on("tainted").len(), 1, "§a.7 the pod is kept at first");
    run_to_the_end(&mut mini, |_| {});
    assert!(
        mini.on("tainted").is_empty(),
        "§g.3 the pod is gone for good"
    );
    assert_eq!(
        mini.verdict(),
        "daemon set \"agent\" successfully rolled out",
        "§e"
    );
}

#[test]
fn on_delete_changes_nothing_until_pods_are_deleted() {
    let mut d = ds_budget(1, 0);
    d.strategy = crate::facts::UpdateStrategy::OnDelete;
    let mut mini = Mini::new(d, &[("n0", true, true), ("n1", true, true)]);
    assert!(!mini.step(), "§d.5 no rolling-update step");
    assert!(
        mini.pods.iter().all(|p| p.revision_hash == "old"),
        "§d.5 pods keep the old template"
    );
    let victim = mini.pods[0].uid.clone();
    mini.delete(&victim);
    run_to_the_end(&mut mini, |_| {});
    let new = mini
        .pods
        .iter()
        .filter(|p| p.revision_hash == "new")
        .count();
    assert_eq!(
        new, 1,
        "§d.5 manage recreates the deleted pod with the current template"
    );
}
