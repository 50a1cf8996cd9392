//! Per-event deltas: each node, DaemonSet, pod or revision event touches only its row,
//! column or cell, and time alone moves only the summaries that depend on it.

use super::*;
use crate::domain::UpdateStrategy;

#[test]
fn a_pod_event_changes_at_most_one_cell() {
    let mut s = cluster();
    let deltas = step(&mut s, |s| s.apply(Projection::Pod(pod("log", "b", "h1"))));
    let cells: Vec<&Delta> = deltas
        .iter()
        .filter(|d| matches!(d, Delta::Cell { .. }))
        .collect();
    assert_eq!(
        cells,
        vec![&Delta::Cell {
            node: "b".into(),
            daemonset: "kube-system/log".into(),
            state: CellState::Ready
        }]
    );
    assert!(deltas
        .iter()
        .all(|d| matches!(d, Delta::Cell { .. } | Delta::Column(_))));
}

#[test]
fn a_pod_that_loses_its_daemonset_owner_leaves_its_cell_f_ownership() {
    let mut s = cluster();
    let orphan = PodFacts {
        owner_uid: None,
        ..pod("log", "a", "h1")
    };
    step(&mut s, |s| s.apply(Projection::Pod(orphan)));
    assert_eq!(state_of(&s, "a", "log"), Some(CellState::Missing));
    assert_eq!(s.counts().2, 2, "ownerless pods are dropped at the edge");
}

#[test]
fn tainting_a_node_touches_only_its_row() {
    let mut s = cluster();
    let deltas = step(&mut s, |s| {
        s.apply(Projection::Node(tainted("b", "dedicated")))
    });
    for delta in &deltas {
        match delta {
            Delta::NodeUpsert(row) => assert_eq!(row.name, "b"),
            Delta::Cell { node, .. } => assert_eq!(node, "b"),
            Delta::Column(_) => {}
            other => panic!("unexpected delta {other:?}"),
        }
    }
    assert_eq!(state_of(&s, "b", "log"), Some(CellState::Excluded));
    assert_eq!(
        row(&s.snapshot(0), "b").taints,
        vec!["dedicated:NoSchedule"]
    );
}

#[test]
fn a_new_node_arrives_as_a_whole_row_and_a_deleted_one_leaves() {
    let mut s = cluster();
    let deltas = step(&mut s, |s| s.apply(Projection::Node(node("c"))));
    assert!(
        matches!(&deltas[0], Delta::NodeUpsert(row) if row.name == "c" && row.cells == vec![CellState::Missing, CellState::Missing])
    );
    let deltas = step(&mut s, |s| s.delete(&Projection::Node(node("c"))));
    assert_eq!(deltas[0], Delta::NodeRemoved { name: "c".into() });
    assert_eq!(s.cell("c", "kube-system/log"), None);
}

#[test]
fn a_new_daemonset_arrives_as_a_whole_column_and_a_deleted_one_leaves() {
    let mut s = cluster();
    let deltas = step(&mut s, |s| s.apply(Projection::DaemonSet(ds("gpu"))));
    match &deltas[..] {
        [Delta::DaemonSetUpsert { column, states }] => {
            assert_eq!(column.key, "kube-system/gpu");
            assert_eq!(states.len(), 3, "one state per node");
        }
        other => panic!("expected one column upsert, got {other:?}"),
    }
    let deltas = step(&mut s, |s| s.delete(&Projection::DaemonSet(ds("gpu"))));
    assert_eq!(
        deltas,
        vec![Delta::DaemonSetRemoved {
            key: "kube-system/gpu".into()
        }]
    );
}

#[test]
fn a_template_change_recomputes_the_column_and_sends_only_changed_cells() {
    let mut s = cluster();
    let mut tolerant = ds("log");
    tolerant
        .template
        .tolerations
        .push(crate::domain::Toleration {
            operator: "Exists".into(),
            ..Default::default()
        });
    let deltas = step(&mut s, |s| s.apply(Projection::DaemonSet(tolerant)));
    let cells: Vec<&Delta> = deltas
        .iter()
        .filter(|d| matches!(d, Delta::Cell { .. }))
        .collect();
    assert_eq!(
        cells,
        vec![&Delta::Cell {
            node: "cp".into(),
            daemonset: "kube-system/log".into(),
            state: CellState::Missing
        }],
        "tolerating everything (§a.5 empty key + Exists) makes the control plane a missing cell"
    );
}

#[test]
fn a_node_update_the_rules_do_not_read_sends_nothing() {
    let mut s = cluster();
    assert_eq!(s.apply(Projection::Node(node("a"))), Vec::new());
}

#[test]
fn a_daemonset_status_update_moves_only_its_column_summary_c() {
    let mut s = cluster();
    let mut with_status = ds("log");
    with_status.status = Some(crate::domain::DaemonSetStatusFacts {
        observed_generation: 1,
        desired_number_scheduled: 2,
        ..Default::default()
    });
    let deltas = step(&mut s, |s| s.apply(Projection::DaemonSet(with_status)));
    assert!(
        deltas
            .iter()
            .all(|d| matches!(d, Delta::Column(c) if c.key == "kube-system/log")),
        "{deltas:?}"
    );
}

#[test]
fn a_pod_becomes_available_min_ready_seconds_after_it_became_ready_without_any_event_c() {
    static NOW_CELL: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(NOW);
    let mut s = ClusterState::with_clock(
        "test",
        Clock::new(|| NOW_CELL.load(std::sync::atomic::Ordering::SeqCst)),
    );
    let slow = DaemonSetFacts {
        min_ready_seconds: 60,
        ..ds("log")
    };
    s.replace(&Scope::Nodes, vec![Projection::Node(node("a"))]);
    s.replace(&Scope::DaemonSets(None), vec![Projection::DaemonSet(slow)]);
    s.replace(
        &Scope::Revisions(None),
        vec![Projection::Revision(revision("log", 1, "h1"))],
    );
    let fresh = PodFacts {
        ready_since: Some(NOW - 10),
        ..pod("log", "a", "h1")
    };
    s.replace(&Scope::Pods(None), vec![Projection::Pod(fresh)]);
    assert_eq!(s.column("kube-system/log").map(|c| c.available), Some(0));
    s.mark_time_dependent();
    assert_eq!(s.flush_columns(), Vec::new(), "nothing changed yet");
    NOW_CELL.store(NOW + 60, std::sync::atomic::Ordering::SeqCst);
    s.mark_time_dependent();
    let deltas = s.flush_columns();
    assert!(
        matches!(&deltas[..], [Delta::Column(c)] if c.available == 1),
        "{deltas:?}"
    );
}

/// §d.3 (Kubernetes v1.37.2 `update.go` `rollingUpdate` walks pods grouped by node name): a
/// pod left on a deleted node until the pod GC removes it still uses maxUnavailable, so the
/// gauge shows the budget as the controller spends it.
#[test]
fn a_pod_left_on_a_deleted_node_holds_rollout_budget_until_it_is_gone_d3() {
    let mut s = cluster();
    let mut mon = ds("mon");
    mon.strategy = UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: Some(crate::domain::IntOrPercent::Int(1)),
        max_surge: Some(crate::domain::IntOrPercent::Int(0)),
    };
    step(&mut s, |s| s.apply(Projection::DaemonSet(mon)));
    let in_use = |s: &ClusterState| s.column("kube-system/mon").map(|c| c.budget_in_use);
    assert_eq!(in_use(&s), Some(0));
    step(&mut s, |s| s.delete(&Projection::Node(node("a"))));
    let mut lingering = pod("mon", "a", "m1");
    lingering.terminating = true;
    step(&mut s, |s| s.apply(Projection::Pod(lingering.clone())));
    assert_eq!(in_use(&s), Some(1), "a terminating pod on a deleted node");
    let column = s.column("kube-system/mon").cloned();
    assert_eq!(
        column.map(|c| (c.desired, c.misscheduled)),
        Some((1, 0)),
        "§c status walks the node list only"
    );
    step(&mut s, |s| s.delete(&Projection::Pod(lingering)));
    assert_eq!(in_use(&s), Some(0), "the pod GC removed it");
}
