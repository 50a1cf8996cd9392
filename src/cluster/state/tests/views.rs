//! What the pages read: the snapshot, relists (which must leave nothing stale), health,
//! explanations and the rollout detail.

use super::*;

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
fn the_revision_history_gets_each_revisions_nodes_from_the_pods_hashes_f() {
    // §f: a pod belongs to the DaemonSet through its controller uid and names its revision in
    // `controller-revision-hash`; the history lists, per hash, the nodes of those pods.
    let mut s = cluster();
    s.apply(Projection::Revision(revision("log", 2, "h2")));
    s.apply(Projection::Pod(pod("log", "b", "h2")));
    let pods = s.revision_pods("kube-system/log");
    let pods = pods
        .as_ref()
        .map(|p| (p.uid.as_str(), p.current_hash.as_str(), &p.nodes_by_hash));
    let expected: std::collections::BTreeMap<String, Vec<String>> = [
        ("h1".to_string(), vec!["a".to_string()]),
        ("h2".to_string(), vec!["b".to_string()]),
    ]
    .into();
    assert_eq!(pods, Ok(("uid-log", "h2", &expected)));
    assert!(matches!(
        s.revision_pods("kube-system/nope"),
        Err(crate::cluster::LookupError::DaemonSetNotFound(_))
    ));
}

#[test]
fn whatif_facts_carry_the_chosen_nodes_and_daemonsets_and_which_cells_hold_a_pod() {
    let s = cluster();
    // Node page: one node, every DaemonSet; "a" runs log's pod (ready), "b" is still missing it.
    let a = s.whatif_facts(|n| n.name == "a", None).unwrap_or_default();
    assert_eq!(
        a.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(),
        vec!["a"]
    );
    assert_eq!(a.daemonsets.len(), 2);
    assert!(a
        .pods
        .contains(&("a".to_string(), "kube-system/log".to_string())));
    let b = s.whatif_facts(|n| n.name == "b", None).unwrap_or_default();
    assert!(!b
        .pods
        .contains(&("b".to_string(), "kube-system/log".to_string())));
    // DaemonSet page: every node, one DaemonSet; an unknown one is an error, not empty facts.
    let log = s
        .whatif_facts(|_| true, Some("kube-system/log"))
        .unwrap_or_default();
    assert_eq!(log.nodes.len(), 3);
    assert_eq!(
        log.daemonsets
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>(),
        vec!["kube-system/log"]
    );
    assert!(s.whatif_facts(|_| true, Some("kube-system/nope")).is_err());
    // The pods list is sorted: the preview looks cells up by binary search.
    let mut sorted = log.pods.clone();
    sorted.sort();
    assert_eq!(sorted, log.pods);
}
