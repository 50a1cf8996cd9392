//! The status block the DaemonSet controller writes (§c `updateDaemonSetStatus`).

use super::pods::{examined_pod, is_counted, is_pod_available, is_pod_updated};
use super::NodeSlot;
use crate::facts::{DaemonSetFacts, DaemonSetStatusFacts, NodeFacts, PodFacts};
use crate::scheduling::Placement;
use std::collections::HashMap;

/// §c: the status the controller would write for `ds`, given every node of the cluster with
/// its placement verdict, and the cluster's pods (those owned by `ds` through their controller
/// ownerReference uid are picked out here, §f).
///
/// Why: manifests and the simulated cluster need the same numbers the real controller
/// publishes, and the dashboard recomputes them from live pods. `observed_generation` is
/// `ds.generation`, as written by a sync whose expectations were satisfied. Pods aimed at a
/// node that is not in `nodes` are ignored, as the controller walks only its node list.
pub fn compute_status(
    ds: &DaemonSetFacts,
    nodes: &[(&NodeFacts, &Placement)],
    pods: &[PodFacts],
    now: i64,
) -> DaemonSetStatusFacts {
    let mut by_node: HashMap<&str, Vec<&PodFacts>> = HashMap::new();
    for pod in pods {
        if pod.owner_uid.as_deref() != Some(ds.uid.as_str()) {
            continue;
        }
        if let Some(node) = pod.node_name.as_deref() {
            by_node.entry(node).or_default().push(pod);
        }
    }
    let slots: Vec<NodeSlot<'_>> = nodes
        .iter()
        .map(|(node, placement)| NodeSlot {
            node: node.name.as_str(),
            should_run: placement.should_run,
            gone: false,
            pods: by_node
                .get(node.name.as_str())
                .map_or(&[][..], Vec::as_slice),
        })
        .collect();
    compute_status_for_slots(ds, &slots, now)
}

/// §c on pods already grouped per node (one slot per node of the cluster).
///
/// - `desiredNumberScheduled`: nodes with shouldRun;
/// - `currentNumberScheduled`: shouldRun nodes with at least one counted pod (bound or not,
///   Pending or Failed, §g.6);
/// - `numberMisscheduled`: shouldRun-false nodes with a counted pod, even when
///   shouldContinueRunning keeps it (§g.3);
/// - ready / available / updated look at **one** pod per node, the first scheduled, oldest,
///   by name (§g.6); `numberUnavailable = desired − available`.
pub fn compute_status_for_slots(
    ds: &DaemonSetFacts,
    slots: &[NodeSlot<'_>],
    now: i64,
) -> DaemonSetStatusFacts {
    let mut status = DaemonSetStatusFacts {
        observed_generation: ds.generation,
        ..Default::default()
    };
    // Status walks the node list only: a deleted node's lingering pods are not counted.
    for slot in slots.iter().filter(|s| !s.gone) {
        let examined = examined_pod(slot.pods);
        if !slot.should_run {
            if slot.pods.iter().any(|p| is_counted(p)) {
                status.number_misscheduled += 1;
            }
            continue;
        }
        status.desired_number_scheduled += 1;
        let Some(pod) = examined else { continue };
        status.current_number_scheduled += 1;
        if pod.ready {
            status.number_ready += 1;
            if is_pod_available(pod, ds.min_ready_seconds, now) {
                status.number_available += 1;
            }
        }
        if is_pod_updated(ds, pod) {
            status.updated_number_scheduled += 1;
        }
    }
    status.number_unavailable = status.desired_number_scheduled - status.number_available;
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::PodPhase;
    use crate::testing::{ds, placed, pod, PodExt};

    /// (node, shouldRun, pods); a node named `gone-*` is deleted ([`NodeSlot::gone`]).
    type Layout = Vec<(&'static str, bool, Vec<PodFacts>)>;

    fn status_of(d: &DaemonSetFacts, layout: &Layout, now: i64) -> DaemonSetStatusFacts {
        let refs: Vec<Vec<&PodFacts>> = layout.iter().map(|(_, _, p)| p.iter().collect()).collect();
        let slots: Vec<NodeSlot<'_>> = layout
            .iter()
            .zip(&refs)
            .map(|((node, run, _), pods)| NodeSlot {
                node,
                should_run: *run,
                gone: node.starts_with("gone-"),
                pods,
            })
            .collect();
        compute_status_for_slots(d, &slots, now)
    }

    fn st(
        desired: i64,
        current: i64,
        mis: i64,
        ready: i64,
        avail: i64,
        updated: i64,
    ) -> DaemonSetStatusFacts {
        DaemonSetStatusFacts {
            observed_generation: 1,
            desired_number_scheduled: desired,
            current_number_scheduled: current,
            number_misscheduled: mis,
            number_ready: ready,
            number_available: avail,
            number_unavailable: desired - avail,
            updated_number_scheduled: updated,
        }
    }

    #[test]
    fn status_counts_follow_the_controller() {
        let mut slow = ds();
        slow.min_ready_seconds = 30;
        let cases: Vec<(&str, DaemonSetFacts, Layout, DaemonSetStatusFacts)> = vec![
            (
                "§c desired counts shouldRun nodes, current those with a pod",
                ds(),
                vec![
                    ("n1", true, vec![pod("a")]),
                    ("n2", true, vec![]),
                    ("n3", false, vec![]),
                ],
                st(2, 1, 0, 1, 1, 1),
            ),
            (
                "§c §g.3 a pod on a shouldRun-false node is misscheduled, not desired",
                ds(),
                vec![
                    ("n1", false, vec![pod("a")]),
                    ("n2", true, vec![pod("b").on("n2")]),
                ],
                st(1, 1, 1, 1, 1, 1),
            ),
            (
                "§c §g.6 only the oldest pod is examined: old ready pod beside a new one",
                ds(),
                vec![(
                    "n1",
                    true,
                    vec![
                        pod("new").created(10).unready(),
                        pod("old").old().created(1),
                    ],
                )],
                st(1, 1, 0, 1, 1, 0),
            ),
            (
                "§c §g.6 a pending unbound pod counts as current but not ready",
                ds(),
                vec![(
                    "n1",
                    true,
                    vec![pod("a").unbound().phase(PodPhase::Pending)],
                )],
                st(1, 1, 0, 0, 0, 1),
            ),
            (
                "§c a failed pod still makes the node current",
                ds(),
                vec![("n1", true, vec![pod("a").phase(PodPhase::Failed)])],
                st(1, 1, 0, 0, 0, 1),
            ),
            (
                "§c a failed pod marked for deletion is left out: the node is not current",
                ds(),
                vec![(
                    "n1",
                    true,
                    vec![pod("a").phase(PodPhase::Failed).terminating()],
                )],
                st(1, 0, 0, 0, 0, 0),
            ),
            (
                "§c a terminating running pod is still examined",
                ds(),
                vec![("n1", true, vec![pod("a").terminating()])],
                st(1, 1, 0, 1, 1, 1),
            ),
            (
                "§c ready but within minReadySeconds is ready, not available",
                slow.clone(),
                vec![
                    ("n1", true, vec![pod("a").ready_at(90)]),
                    ("n2", true, vec![pod("b").on("n2").ready_at(70)]),
                ],
                st(2, 2, 0, 2, 1, 2),
            ),
            (
                "§c updated counts the examined pod whether or not it is ready",
                ds(),
                vec![("n1", true, vec![pod("a").unready()])],
                st(1, 1, 0, 0, 0, 1),
            ),
            (
                "§c a DaemonSet that targets no node has all zeros",
                ds(),
                vec![("n1", false, vec![]), ("n2", false, vec![])],
                st(0, 0, 0, 0, 0, 0),
            ),
        ];
        for (rule, d, layout, want) in cases {
            assert_eq!(status_of(&d, &layout, 100), want, "{rule}");
        }
    }

    #[test]
    fn compute_status_picks_pods_by_owner_uid_and_node() {
        let n1 = NodeFacts {
            name: "n1".into(),
            ..Default::default()
        };
        let n2 = NodeFacts {
            name: "n2".into(),
            ..Default::default()
        };
        let run = placed(true, true);
        let pods = vec![
            pod("mine").on("n1"),
            pod("other-owner").on("n2").owner("someone-else"),
            pod("no-node").with(|p| p.node_name = None),
            pod("gone-node").on("n9"),
        ];
        let got = compute_status(&ds(), &[(&n1, &run), (&n2, &run)], &pods, 100);
        assert_eq!(
            got,
            st(2, 1, 0, 1, 1, 1),
            "§f pods belong by owner uid; §c only listed nodes count"
        );
    }

    #[test]
    fn observed_generation_is_the_current_generation() {
        let mut d = ds();
        d.generation = 7;
        let got = status_of(&d, &vec![], 0);
        assert_eq!(
            got.observed_generation, 7,
            "§c observedGeneration set by a satisfied sync"
        );
    }

    /// DC `updateDaemonSetStatus` walks the node list: a deleted node's lingering pod is
    /// neither scheduled nor misscheduled.
    #[test]
    fn status_skips_deleted_nodes() {
        let layout: Layout = vec![
            ("gone-1", false, vec![pod("a").on("gone-1")]),
            ("n2", true, vec![pod("b").on("n2")]),
        ];
        assert_eq!(status_of(&ds(), &layout, 100), st(1, 1, 0, 1, 1, 1), "§c");
    }
}
