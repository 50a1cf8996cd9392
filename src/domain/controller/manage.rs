//! `manage` on one node (§a.7, DC `podsShouldBeOnNode`): create, keep or delete daemon pods.

use crate::domain::facts::{DaemonSetFacts, PodFacts, PodPhase};
use crate::domain::rollout::{is_counted, is_pod_available, pod_order};
use crate::domain::scheduling::Placement;
use serde::{Deserialize, Serialize};

/// What `manage` does on one node in one sync.
///
/// The three pod lists never share a pod. The caller deletes all of them, except that a
/// `failed_pods` entry is subject to the failed-pod backoff keyed by DaemonSet uid,
/// `status.observedGeneration` and node (DC `failedPodsBackoffKey`): while in backoff it is left
/// for a later sync. Failed deletes go with a `FailedDaemonPod` warning event, succeeded ones
/// with a `SucceededDaemonPod` event (§f).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeActions {
    /// Create one pod with the current template on this node.
    pub create: bool,
    /// uids of pods to delete: extra pods, an old pod replaced during surge, or every pod on a
    /// node where shouldContinueRunning is false.
    pub delete: Vec<String>,
    /// uids of `Failed` pods to delete (with backoff and a `FailedDaemonPod` event).
    pub failed_pods: Vec<String>,
    /// uids of `Succeeded` pods to delete (with a `SucceededDaemonPod` event).
    pub succeeded_pods: Vec<String>,
}

impl NodeActions {
    /// Every pod uid to delete when no backoff holds a failed pod back.
    pub fn all_deletes(&self) -> impl Iterator<Item = &str> {
        self.delete
            .iter()
            .chain(&self.failed_pods)
            .chain(&self.succeeded_pods)
            .map(String::as_str)
    }
}

/// §a.7 DC `podsShouldBeOnNode` for one node.
///
/// - shouldRun and no pod grouped under the node → create. A terminating pod still counts as
///   a pod, so nothing is created until it is gone; a pod that is terminal **and** terminating
///   is not grouped at all (§c).
/// - shouldContinueRunning → terminating pods are skipped; `Failed` and `Succeeded` pods are
///   deleted (no replacement in this pass unless surging); then
///   - no surge: keep the first running pod in scheduled-first, oldest, name order and delete
///     the others;
///   - surge (`allows_surge`, from [`super::allows_surge`]): with no running pod and shouldRun,
///     create one; with two or more, keep the oldest pod whose `controller-revision-hash`
///     equals the current hash and the oldest without it, delete every other; delete the old
///     one once it is not Ready, or once the new one is available.
/// - neither → delete every non-terminating pod.
///
/// `pods_on_node` are the DaemonSet's pods for this node (owner uid and target node, §f), in
/// any order; the result lists pods in scheduled-first, oldest, name order.
pub fn manage_node(
    ds: &DaemonSetFacts,
    placement: &Placement,
    pods_on_node: &[&PodFacts],
    allows_surge: bool,
    now: i64,
) -> NodeActions {
    let mut pods: Vec<&PodFacts> = pods_on_node
        .iter()
        .copied()
        .filter(|p| is_counted(p))
        .collect();
    pods.sort_by(|a, b| pod_order(a, b));
    let mut actions = NodeActions::default();
    let exists = !pods.is_empty();

    if placement.should_run && !exists {
        actions.create = true;
    } else if placement.should_continue_running {
        let mut running = Vec::new();
        for pod in pods.into_iter().filter(|p| !p.terminating) {
            match pod.phase {
                PodPhase::Failed => actions.failed_pods.push(pod.uid.clone()),
                PodPhase::Succeeded => actions.succeeded_pods.push(pod.uid.clone()),
                _ => running.push(pod),
            }
        }
        if !allows_surge {
            actions
                .delete
                .extend(running.iter().skip(1).map(|p| p.uid.clone()));
        } else if running.is_empty() {
            actions.create = placement.should_run;
        } else if running.len() > 1 {
            let (mut oldest_new, mut oldest_old) = (None, None);
            for pod in running {
                let slot = if pod.revision_hash == ds.current_revision_hash {
                    &mut oldest_new
                } else {
                    &mut oldest_old
                };
                if slot.is_none() {
                    *slot = Some(pod);
                } else {
                    actions.delete.push(pod.uid.clone());
                }
            }
            if let (Some(new), Some(old)) = (oldest_new, oldest_old) {
                if !old.ready || is_pod_available(new, ds.min_ready_seconds, now) {
                    actions.delete.push(old.uid.clone());
                }
            }
        }
    } else if exists {
        actions.delete.extend(
            pods.iter()
                .filter(|p| !p.terminating)
                .map(|p| p.uid.clone()),
        );
    }
    actions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::rollout::testkit::{ds, placed, pod, PodExt};

    /// (rule, (shouldRun, shouldContinueRunning), surge, pods, create, delete, failed, succeeded)
    type Case = (
        &'static str,
        (bool, bool),
        bool,
        Vec<PodFacts>,
        bool,
        Vec<&'static str>,
        Vec<&'static str>,
        Vec<&'static str>,
    );

    fn names(uids: &[String]) -> Vec<&str> {
        uids.iter().map(|u| u.trim_start_matches("uid-")).collect()
    }

    fn check(cases: Vec<Case>) {
        let mut d = ds();
        d.min_ready_seconds = 10;
        for (rule, (run, keep), surge, pods, create, delete, failed, succeeded) in cases {
            let refs: Vec<&PodFacts> = pods.iter().collect();
            let got = manage_node(&d, &placed(run, keep), &refs, surge, 100);
            assert_eq!(got.create, create, "{rule}: create");
            assert_eq!(names(&got.delete), delete, "{rule}: delete");
            assert_eq!(names(&got.failed_pods), failed, "{rule}: failed");
            assert_eq!(names(&got.succeeded_pods), succeeded, "{rule}: succeeded");
        }
    }

    #[test]
    fn manage_creates_keeps_and_deletes_without_surge() {
        use PodPhase::*;
        check(vec![
            (
                "§a.7 shouldRun and no pod: create",
                (true, true),
                false,
                vec![],
                true,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 shouldRun with one pod: nothing to do",
                (true, true),
                false,
                vec![pod("a")],
                false,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 a terminating pod still counts as a pod: no create until it is gone",
                (true, true),
                false,
                vec![pod("a").terminating()],
                false,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 §c a failed pod marked for deletion is not grouped: create",
                (true, true),
                false,
                vec![pod("a").phase(Failed).terminating()],
                true,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 a failed pod is deleted, no replacement in the same pass",
                (true, true),
                false,
                vec![pod("a").phase(Failed)],
                false,
                vec![],
                vec!["a"],
                vec![],
            ),
            (
                "§a.7 a succeeded pod is deleted",
                (true, true),
                false,
                vec![pod("a").phase(Succeeded)],
                false,
                vec![],
                vec![],
                vec!["a"],
            ),
            (
                "§a.7 keep the oldest pod, delete the others",
                (true, true),
                false,
                vec![
                    pod("young").created(50),
                    pod("old").created(10),
                    pod("mid").created(20),
                ],
                false,
                vec!["mid", "young"],
                vec![],
                vec![],
            ),
            (
                "§a.7 scheduled pods come first: an older unbound pod is the extra one",
                (true, true),
                false,
                vec![pod("unbound").created(1).unbound(), pod("bound").created(9)],
                false,
                vec!["unbound"],
                vec![],
                vec![],
            ),
            (
                "§a.7 equal ages keep the first name",
                (true, true),
                false,
                vec![pod("b").created(5), pod("a").created(5)],
                false,
                vec!["b"],
                vec![],
                vec![],
            ),
            (
                "§a.7 terminating pods are skipped when pruning",
                (true, true),
                false,
                vec![pod("t").created(1).terminating(), pod("a").created(5)],
                false,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 a failed pod is not the one kept: it is deleted and the running one stays",
                (true, true),
                false,
                vec![pod("f").created(1).phase(Failed), pod("a").created(5)],
                false,
                vec![],
                vec!["f"],
                vec![],
            ),
            (
                "§a.7 §g.3 NoSchedule taint added (false, true): the existing pod stays",
                (false, true),
                false,
                vec![pod("a")],
                false,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 (false, true) and no pod: nothing is done",
                (false, true),
                false,
                vec![],
                false,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 (false, true) still prunes extra pods",
                (false, true),
                false,
                vec![pod("a").created(1), pod("b").created(2)],
                false,
                vec!["b"],
                vec![],
                vec![],
            ),
            (
                "§a.7 (false, false): every non-terminating pod is deleted",
                (false, false),
                false,
                vec![pod("a"), pod("b"), pod("t").terminating()],
                false,
                vec!["a", "b"],
                vec![],
                vec![],
            ),
            (
                "§a.7 (false, false) deletes failed pods as ordinary deletes, no event lists",
                (false, false),
                false,
                vec![pod("f").phase(Failed)],
                false,
                vec!["f"],
                vec![],
                vec![],
            ),
            (
                "§a.7 (false, false) and no pod: nothing",
                (false, false),
                false,
                vec![],
                false,
                vec![],
                vec![],
                vec![],
            ),
        ]);
    }

    #[test]
    fn manage_with_surge_keeps_one_old_and_one_new_pod() {
        use PodPhase::*;
        check(vec![
            (
                "§a.7 surge: the old pod stays while the new one is not available",
                (true, true),
                true,
                vec![pod("old").old().created(1), pod("new").created(5).unready()],
                false,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 surge: the old pod goes once the new one is available",
                (true, true),
                true,
                vec![
                    pod("old").old().created(1),
                    pod("new").created(5).ready_at(50),
                ],
                false,
                vec!["old"],
                vec![],
                vec![],
            ),
            (
                "§a.7 §c surge: a new pod Ready but inside minReadySeconds keeps the old one",
                (true, true),
                true,
                vec![
                    pod("old").old().created(1),
                    pod("new").created(5).ready_at(95),
                ],
                false,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 surge: the old pod goes once it is not Ready",
                (true, true),
                true,
                vec![
                    pod("old").old().created(1).unready(),
                    pod("new").created(5).unready(),
                ],
                false,
                vec!["old"],
                vec![],
                vec![],
            ),
            (
                "§a.7 surge: every pod beyond the oldest new and oldest old is deleted",
                (true, true),
                true,
                vec![
                    pod("old1").old().created(1),
                    pod("old2").old().created(2),
                    pod("new1").created(3).unready(),
                    pod("new2").created(4),
                ],
                false,
                vec!["old2", "new2"],
                vec![],
                vec![],
            ),
            (
                "§a.7 surge: two new pods, the younger is deleted",
                (true, true),
                true,
                vec![pod("n1").created(1), pod("n2").created(2)],
                false,
                vec!["n2"],
                vec![],
                vec![],
            ),
            (
                "§a.7 surge: only the hash is consulted, not the template generation",
                (true, true),
                true,
                vec![
                    pod("gen").old().generation("1").created(1),
                    pod("other").old().created(2),
                ],
                false,
                vec!["other"],
                vec![],
                vec![],
            ),
            (
                "§a.7 surge: no running pod left and shouldRun: create in the same pass",
                (true, true),
                true,
                vec![pod("f").phase(Failed)],
                true,
                vec![],
                vec!["f"],
                vec![],
            ),
            (
                "§a.7 surge: only a terminating pod: create (it is skipped as not running)",
                (true, true),
                true,
                vec![pod("t").terminating()],
                true,
                vec![],
                vec![],
                vec![],
            ),
            (
                "§a.7 surge: (false, true) with only a failed pod: delete it, no create",
                (false, true),
                true,
                vec![pod("f").phase(Failed)],
                false,
                vec![],
                vec!["f"],
                vec![],
            ),
            (
                "§a.7 surge: one running pod is left alone",
                (true, true),
                true,
                vec![pod("a").old()],
                false,
                vec![],
                vec![],
                vec![],
            ),
        ]);
    }

    #[test]
    fn all_deletes_lists_every_pod_once() {
        let a = NodeActions {
            create: false,
            delete: vec!["x".into()],
            failed_pods: vec!["f".into()],
            succeeded_pods: vec!["s".into()],
        };
        assert_eq!(
            a.all_deletes().collect::<Vec<_>>(),
            vec!["x", "f", "s"],
            "§a.7 three kinds of deletion"
        );
    }
}
