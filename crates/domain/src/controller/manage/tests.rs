//! Tests of `manage`, each case naming the rule it mirrors.
use super::*;
use crate::testing::{ds, placed, pod, PodExt};

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
