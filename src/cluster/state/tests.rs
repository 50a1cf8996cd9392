//! Tests of the incremental store: each event touches only its cells, the deltas rebuild the
//! same matrix a fresh snapshot shows, and a relist leaves nothing stale.

use super::*;
use crate::domain::view::NodeRow;
use crate::domain::{PodFacts, PodPhase, Taint, TaintEffect, TemplateFacts, UpdateStrategy};

const NOW: i64 = 1_800_000_000;

fn clock() -> Clock {
    Clock(|| NOW)
}

fn node(name: &str) -> NodeFacts {
    NodeFacts {
        name: name.into(),
        uid: format!("uid-{name}"),
        ready: Some(true),
        ..NodeFacts::default()
    }
}

fn tainted(name: &str, key: &str) -> NodeFacts {
    NodeFacts {
        taints: vec![Taint {
            key: key.into(),
            value: String::new(),
            effect: TaintEffect::NoSchedule,
        }],
        ..node(name)
    }
}

fn ds(name: &str) -> DaemonSetFacts {
    DaemonSetFacts {
        namespace: "kube-system".into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        generation: 1,
        template: TemplateFacts::default(),
        strategy: UpdateStrategy::RollingUpdate {
            rolling_update_block: true,
            max_unavailable: None,
            max_surge: None,
        },
        min_ready_seconds: 0,
        current_revision_hash: String::new(),
        template_generation: None,
        status: None,
    }
}

fn pod(ds_name: &str, node: &str, hash: &str) -> PodFacts {
    PodFacts {
        namespace: "kube-system".into(),
        name: format!("{ds_name}-{node}-{hash}"),
        uid: format!("pod-{ds_name}-{node}-{hash}"),
        owner_uid: Some(format!("uid-{ds_name}")),
        node_name: Some(node.into()),
        bound: true,
        revision_hash: hash.into(),
        template_generation: None,
        phase: PodPhase::Running,
        ready: true,
        ready_since: Some(NOW - 600),
        restart_count: 0,
        waiting_reason: None,
        created: NOW - 3600,
        terminating: false,
    }
}

fn revision(ds_name: &str, number: i64, hash: &str) -> RevisionFacts {
    RevisionFacts {
        namespace: "kube-system".into(),
        name: format!("{ds_name}-{hash}"),
        owner_uid: format!("uid-{ds_name}"),
        revision: number,
        hash: hash.into(),
    }
}

/// A cluster of three nodes (one tainted), two DaemonSets, revision h1, pods everywhere
/// they should run except on `b` for `log`.
fn cluster() -> ClusterState {
    let mut s = ClusterState::with_clock("test", clock());
    s.replace(
        &Scope::Nodes,
        vec![
            node("a"),
            node("b"),
            tainted("cp", "node-role.kubernetes.io/control-plane"),
        ]
        .into_iter()
        .map(Projection::Node)
        .collect(),
    );
    s.replace(
        &Scope::DaemonSets(None),
        vec![
            Projection::DaemonSet(ds("log")),
            Projection::DaemonSet(ds("mon")),
        ],
    );
    s.replace(
        &Scope::Revisions(None),
        vec![
            Projection::Revision(revision("log", 1, "h1")),
            Projection::Revision(revision("mon", 1, "m1")),
        ],
    );
    s.replace(
        &Scope::Pods(None),
        vec![
            pod("log", "a", "h1"),
            pod("mon", "a", "m1"),
            pod("mon", "b", "m1"),
        ]
        .into_iter()
        .map(Projection::Pod)
        .collect(),
    );
    s
}

/// Applies deltas to a snapshot the way a browser would (test-only reference client).
fn apply_deltas(snapshot: &mut MatrixSnapshot, deltas: &[Delta]) {
    fn index(snapshot: &MatrixSnapshot, key: &str) -> Option<usize> {
        snapshot.daemonsets.iter().position(|c| c.key == key)
    }
    for delta in deltas {
        match delta {
            Delta::Cell {
                node,
                daemonset,
                state,
            } => {
                let i = index(snapshot, daemonset).expect("cell of a known column");
                let row = snapshot
                    .nodes
                    .iter_mut()
                    .find(|r| &r.name == node)
                    .expect("cell of a known row");
                row.cells[i] = *state;
            }
            Delta::NodeUpsert(row) => {
                match snapshot.nodes.iter_mut().find(|r| r.name == row.name) {
                    Some(existing) => *existing = row.clone(),
                    None => {
                        snapshot.nodes.push(row.clone());
                        snapshot.nodes.sort_by(|a, b| a.name.cmp(&b.name));
                    }
                }
            }
            Delta::NodeRemoved { name } => snapshot.nodes.retain(|r| &r.name != name),
            Delta::DaemonSetUpsert { column, states } => {
                let i = match index(snapshot, &column.key) {
                    Some(i) => {
                        snapshot.daemonsets[i] = column.clone();
                        i
                    }
                    None => {
                        let i = snapshot.daemonsets.partition_point(|c| c.key < column.key);
                        snapshot.daemonsets.insert(i, column.clone());
                        for row in &mut snapshot.nodes {
                            row.cells.insert(i, CellState::Excluded);
                        }
                        i
                    }
                };
                for (node, state) in states {
                    if let Some(row) = snapshot.nodes.iter_mut().find(|r| &r.name == node) {
                        row.cells[i] = *state;
                    }
                }
            }
            Delta::DaemonSetRemoved { key } => {
                if let Some(i) = index(snapshot, key) {
                    snapshot.daemonsets.remove(i);
                    for row in &mut snapshot.nodes {
                        row.cells.remove(i);
                    }
                }
            }
            Delta::Column(column) => {
                let i = index(snapshot, &column.key).expect("summary of a known column");
                snapshot.daemonsets[i] = column.clone();
            }
            Delta::Health(health) => match snapshot
                .health
                .iter_mut()
                .find(|h| h.resource == health.resource)
            {
                Some(h) => *h = health.clone(),
                None => snapshot.health.push(health.clone()),
            },
        }
    }
}

/// Applies `event` and checks that the deltas turn the old snapshot into the new one.
fn step(s: &mut ClusterState, event: impl FnOnce(&mut ClusterState) -> Vec<Delta>) -> Vec<Delta> {
    let mut before = s.snapshot(0);
    let mut deltas = event(s);
    deltas.extend(s.flush_columns());
    apply_deltas(&mut before, &deltas);
    assert_eq!(
        before,
        s.snapshot(0),
        "deltas {deltas:#?} must rebuild the new snapshot"
    );
    deltas
}

fn row<'a>(snapshot: &'a MatrixSnapshot, name: &str) -> &'a NodeRow {
    snapshot.nodes.iter().find(|r| r.name == name).expect("row")
}

fn state_of(s: &ClusterState, node: &str, ds: &str) -> Option<CellState> {
    s.cell(node, &format!("kube-system/{ds}"))
}

/// The same objects, listed from scratch: what the incremental state must equal.
fn relisted(s: &ClusterState) -> ClusterState {
    let mut fresh = ClusterState::with_clock("test", clock());
    fresh.replace(
        &Scope::Nodes,
        s.nodes.values().cloned().map(Projection::Node).collect(),
    );
    fresh.replace(
        &Scope::DaemonSets(None),
        s.daemonsets
            .values()
            .cloned()
            .map(Projection::DaemonSet)
            .collect(),
    );
    fresh.replace(
        &Scope::Revisions(None),
        s.revisions
            .values()
            .flat_map(|r| r.values().cloned())
            .map(Projection::Revision)
            .collect(),
    );
    let mut pods: Vec<PodFacts> = Vec::new();
    for ds in s.daemonsets.values() {
        pods.extend(s.pods.of_daemonset(&ds.uid).into_iter().cloned());
    }
    fresh.replace(
        &Scope::Pods(None),
        pods.into_iter().map(Projection::Pod).collect(),
    );
    fresh
}

#[test]
fn the_snapshot_has_one_row_per_node_and_one_column_per_daemonset_in_name_order() {
    let snapshot = cluster().snapshot(7);
    assert_eq!(snapshot.version, 7);
    let names: Vec<&str> = snapshot.nodes.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["a", "b", "cp"]);
    let keys: Vec<&str> = snapshot.daemonsets.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(keys, vec!["kube-system/log", "kube-system/mon"]);
    assert!(snapshot.nodes.iter().all(|r| r.cells.len() == 2));
}

#[test]
fn cells_follow_placement_and_pods_a2_step_3_tainted_control_plane_is_excluded() {
    let s = cluster();
    assert_eq!(state_of(&s, "a", "log"), Some(CellState::Ready));
    assert_eq!(
        state_of(&s, "b", "log"),
        Some(CellState::Missing),
        "should run, no pod"
    );
    assert_eq!(
        state_of(&s, "cp", "log"),
        Some(CellState::Excluded),
        "NoSchedule taint not tolerated"
    );
}

#[test]
fn the_current_revision_is_the_owned_controller_revision_with_the_highest_number_d4() {
    let mut s = cluster();
    s.apply(Projection::Revision(revision("log", 3, "h3")));
    s.apply(Projection::Revision(revision("log", 2, "h2")));
    assert_eq!(
        s.daemonset("kube-system/log")
            .map(|d| d.current_revision_hash.as_str()),
        Some("h3")
    );
    s.delete(&Projection::Revision(revision("log", 3, "h3")));
    assert_eq!(
        s.daemonset("kube-system/log")
            .map(|d| d.current_revision_hash.as_str()),
        Some("h2")
    );
}

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
fn incremental_updates_equal_a_relist_of_the_same_objects() {
    let mut s = cluster();
    step(&mut s, |s| s.apply(Projection::Node(node("d"))));
    step(&mut s, |s| s.apply(Projection::Pod(pod("log", "d", "h1"))));
    step(&mut s, |s| {
        s.apply(Projection::Revision(revision("log", 2, "h2")))
    });
    step(&mut s, |s| s.apply(Projection::Pod(pod("log", "b", "h2"))));
    step(&mut s, |s| s.apply(Projection::Node(tainted("a", "x"))));
    step(&mut s, |s| {
        s.delete(&Projection::Pod(pod("mon", "b", "m1")))
    });
    step(&mut s, |s| s.delete(&Projection::Node(node("d"))));
    assert_eq!(s.snapshot(0), relisted(&s).snapshot(0));
}

#[test]
fn a_relist_drops_objects_that_are_gone_so_no_stale_cell_survives_a_410() {
    let mut s = cluster();
    s.replace(&Scope::Nodes, vec![Projection::Node(node("a"))]);
    s.replace(&Scope::Pods(None), vec![]);
    let snapshot = s.snapshot(0);
    assert_eq!(snapshot.nodes.len(), 1);
    assert_eq!(state_of(&s, "a", "log"), Some(CellState::Missing));
    assert_eq!(s.counts(), (1, 2, 0));
}

#[test]
fn a_relist_of_one_namespace_keeps_the_daemonsets_of_the_others() {
    let mut s = cluster();
    let other = DaemonSetFacts {
        namespace: "metallb".into(),
        uid: "uid-speaker".into(),
        ..ds("speaker")
    };
    s.apply(Projection::DaemonSet(other));
    s.replace(
        &Scope::DaemonSets(Some("kube-system".into())),
        vec![Projection::DaemonSet(ds("log"))],
    );
    let keys: Vec<String> = s.columns().map(|c| c.key.clone()).collect();
    assert_eq!(keys, vec!["kube-system/log", "metallb/speaker"]);
}

#[test]
fn health_changes_are_deltas_and_repeats_are_not() {
    let mut s = cluster();
    let h = ResourceHealth {
        resource: "pods".into(),
        synced: false,
        error: Some("cannot list pods: forbidden for user x".into()),
        stale_since: None,
    };
    assert_eq!(s.set_health(h.clone()), Some(Delta::Health(h.clone())));
    assert_eq!(s.set_health(h), None);
}

#[test]
fn explaining_an_unknown_node_or_daemonset_is_a_clear_error() {
    let s = cluster();
    let err = s
        .explain("nope", "kube-system/log", NOW)
        .err()
        .map(|e| e.to_string());
    assert_eq!(err.as_deref(), Some("node \"nope\" not found"));
    let err = s.explain("a", "garbage", NOW).err().map(|e| e.to_string());
    assert!(err.unwrap_or_default().contains("garbage"));
}

#[test]
fn the_rollout_detail_lists_every_node_with_its_pods_and_whether_they_are_updated() {
    let mut s = cluster();
    s.apply(Projection::Revision(revision("mon", 2, "m2")));
    s.apply(Projection::Pod(pod("mon", "b", "m2")));
    let detail = s.detail("kube-system/mon", 5, NOW);
    let Ok(detail) = detail else {
        panic!("detail of a known daemonset")
    };
    assert_eq!(detail.current_revision, "m2");
    assert_eq!(detail.nodes.len(), 3);
    let b = detail.nodes.iter().find(|n| n.node == "b").expect("node b");
    let updated: Vec<bool> = b.pods.iter().map(|p| p.updated).collect();
    assert_eq!(updated.len(), 2, "old and new pod on b during the update");
    assert!(updated.contains(&true) && updated.contains(&false));
    assert!(s.detail("kube-system/nope", 5, NOW).is_err());
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
        Clock(|| NOW_CELL.load(std::sync::atomic::Ordering::SeqCst)),
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
    assert_eq!(s.tick(), Vec::new(), "nothing changed yet");
    NOW_CELL.store(NOW + 60, std::sync::atomic::Ordering::SeqCst);
    let deltas = s.tick();
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
