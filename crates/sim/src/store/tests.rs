//! Store behaviour the API and the controllers rely on.
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::json;

use super::*;
use crate::edge::testing::{self, daemonset as ds};

/// A Ready node in pool `a`.
fn node(name: &str) -> Node {
    testing::node(name, json!({"pool": "a"}))
}

fn small() -> Store {
    Store::new(StoreSettings {
        history_limit: 8,
        ..StoreSettings::default()
    })
}

#[test]
fn every_write_takes_the_next_resource_version_and_a_noop_update_takes_none() {
    let store = small();
    let before = store.resource_version();
    let n = store.create(node("n1")).expect("create");
    let rv1: u64 = n
        .metadata
        .resource_version
        .clone()
        .unwrap_or_default()
        .parse()
        .expect("rv");
    assert_eq!(rv1, before + 1);
    assert!(n.metadata.uid.is_some() && n.metadata.creation_timestamp.is_some());
    let same = store.update(n.clone()).expect("noop");
    assert_eq!(same.metadata.resource_version, n.metadata.resource_version);
    assert_eq!(store.resource_version(), rv1);
}

#[test]
fn a_stale_resource_version_is_a_conflict() {
    let store = small();
    let n = store.create(node("n1")).expect("create");
    let mut changed = n.clone();
    changed
        .metadata
        .labels
        .get_or_insert_default()
        .insert("x".into(), "1".into());
    store.update(changed).expect("first update");
    let mut stale = n;
    stale
        .metadata
        .labels
        .get_or_insert_default()
        .insert("x".into(), "2".into());
    assert!(matches!(
        store.update(stale),
        Err(StoreError::Conflict { .. })
    ));
}

#[test]
fn daemonset_generation_moves_only_with_the_spec_and_status_is_its_own_write() {
    let store = small();
    let d = store.create(ds("agent", "img:1")).expect("create");
    assert_eq!(d.metadata.generation, Some(1));
    let template_generation = |d: &DaemonSet| {
        d.metadata
            .annotations
            .clone()
            .unwrap_or_default()
            .get("deprecated.daemonset.template.generation")
            .cloned()
    };
    assert_eq!(
        template_generation(&d).as_deref(),
        Some("1"),
        "§d.4: set on create"
    );
    let mut labelled = d.clone();
    labelled
        .metadata
        .labels
        .get_or_insert_default()
        .insert("team".into(), "x".into());
    let labelled = store.update(labelled).expect("label");
    assert_eq!(labelled.metadata.generation, Some(1));
    let mut bumped = labelled.clone();
    if let Some(ps) = bumped.spec.template.spec.as_mut() {
        ps.containers[0].image = Some("img:2".into());
    }
    let bumped = store.update(bumped).expect("image");
    assert_eq!(bumped.metadata.generation, Some(2));
    assert_eq!(template_generation(&labelled).as_deref(), Some("1"));
    assert_eq!(
        template_generation(&bumped).as_deref(),
        Some("2"),
        "§d.4: a template change is the next template generation"
    );
    let mut strategy = bumped.clone();
    strategy.spec.min_ready_seconds = Some(5);
    let strategy = store.update(strategy).expect("minReadySeconds");
    assert_eq!(strategy.metadata.generation, Some(3));
    assert_eq!(
        template_generation(&strategy).as_deref(),
        Some("2"),
        "a spec change outside the template keeps the template generation"
    );
    let mut with_status = strategy.clone();
    if let Some(s) = with_status.status.as_mut() {
        s.desired_number_scheduled = 3;
    }
    // A status change through update() is ignored; update_status() applies it.
    assert_eq!(
        store
            .update(with_status.clone())
            .expect("put")
            .status
            .map(|s| s.desired_number_scheduled),
        Some(0)
    );
    assert_eq!(
        store
            .update_status(with_status)
            .expect("status")
            .status
            .map(|s| s.desired_number_scheduled),
        Some(3)
    );
}

#[test]
fn bound_pods_terminate_gracefully_and_deleting_a_daemonset_collects_its_pods() {
    let store = small();
    let d = store.create(ds("agent", "img:1")).expect("create");
    let uid = d.metadata.uid.clone().unwrap_or_default();
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "agent-x", "namespace": "kube-system",
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": uid, "controller": true}]},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "img:1"}]}})).expect("pod");
    store.create(pod).expect("pod create");
    store
        .delete::<DaemonSet>(Some("kube-system"), "agent")
        .expect("delete ds");
    let p: Pod = store
        .get(Some("kube-system"), "agent-x")
        .expect("still terminating");
    assert!(p.metadata.deletion_timestamp.is_some());
    store
        .remove::<Pod>(Some("kube-system"), "agent-x")
        .expect("kubelet finishes");
    assert!(store.get::<Pod>(Some("kube-system"), "agent-x").is_none());
}

#[test]
fn history_expires_old_resource_versions() {
    let store = small();
    let start = store.resource_version();
    for i in 0..20 {
        store.create(node(&format!("n{i}"))).expect("create");
    }
    assert!(matches!(
        store.history_since(Kind::Node, start, 100),
        Err(StoreError::Gone { .. })
    ));
    let recent = store.resource_version() - 3;
    let (entries, to) = store
        .history_since(Kind::Node, recent, 100)
        .expect("recent");
    assert_eq!(entries.len(), 3);
    assert_eq!(to, store.resource_version());
}

#[test]
fn lists_page_in_key_order_within_a_namespace() {
    let store = small();
    for i in 0..5 {
        store.create(node(&format!("n{i}"))).expect("create");
    }
    let first = store.list_page(Kind::Node, None, None, Some(2), &|_| true);
    assert_eq!(first.items.len(), 2);
    let next = first.next_key.expect("more");
    let rest = store.list_page(Kind::Node, None, Some(&next), None, &|_| true);
    let names: Vec<_> = rest.items.iter().map(|o| o.facts.name.clone()).collect();
    assert_eq!(names, vec!["n2", "n3", "n4"]);
}

/// kube-apiserver reads every continue page at the first page's revision: a page read after
/// the cluster changed still shows objects as they were, leaves out those created since, and
/// keeps those deleted since (wire §2, paging).
#[test]
fn continue_pages_show_the_state_the_first_page_was_read_at() {
    let store = Store::new(StoreSettings::default());
    for i in 0..5 {
        store.create(node(&format!("n{i}"))).expect("create");
    }
    let first = store.list_page(Kind::Node, None, None, Some(2), &|_| true);
    let at = first.resource_version;
    let after = first.next_key.expect("more pages");

    store.delete::<Node>(None, "n3").expect("delete n3");
    let mut n4: Node = store.get(None, "n4").expect("n4");
    n4.metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert("pool".into(), "b".into());
    store.update(n4).expect("relabel n4");
    store.create(node("n25")).expect("create n25");

    let rest = store
        .list_page_at(Kind::Node, None, Some(&after), None, &|_| true, at)
        .expect("within history");
    let names: Vec<_> = rest.items.iter().map(|o| o.facts.name.clone()).collect();
    assert_eq!(names, vec!["n2", "n3", "n4"], "as at the first page");
    assert_eq!(rest.resource_version, at);
    let n4_then = rest
        .items
        .iter()
        .find(|o| o.facts.name == "n4")
        .expect("n4");
    assert!(
        n4_then.resource_version <= at,
        "the old n4, not the relabelled one"
    );

    let now = store.list_page(Kind::Node, None, Some(&after), None, &|_| true);
    let names: Vec<_> = now.items.iter().map(|o| o.facts.name.clone()).collect();
    assert_eq!(
        names,
        vec!["n2", "n25", "n4"],
        "a fresh list shows the changes"
    );
}

/// A continue token whose revision has been compacted away is Gone (410 Expired on the wire).
#[test]
fn a_continue_page_older_than_the_history_is_gone() {
    let store = small();
    for i in 0..3 {
        store.create(node(&format!("n{i}"))).expect("create");
    }
    let first = store.list_page(Kind::Node, None, None, Some(1), &|_| true);
    for i in 3..20 {
        store.create(node(&format!("n{i}"))).expect("create");
    }
    let after = first.next_key.expect("more pages");
    assert!(matches!(
        store.list_page_at(
            Kind::Node,
            None,
            Some(&after),
            None,
            &|_| true,
            first.resource_version
        ),
        Err(StoreError::Gone { .. })
    ));
}

/// A continue page of one namespace, read at the first page's revision, shows that
/// namespace's objects as they were and nothing of another namespace changed meanwhile.
#[test]
fn a_namespaced_continue_page_is_as_of_its_revision_and_stays_in_its_namespace() {
    let store = Store::new(StoreSettings::default());
    let pod = |ns: &str, name: &str| -> Pod {
        testing::object(json!({"metadata": {"name": name, "namespace": ns},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "img:1"}]}}))
    };
    for name in ["p0", "p1", "p2"] {
        store.create(pod("a", name)).expect("create a");
        store.create(pod("b", name)).expect("create b");
    }
    let first = store.list_page(Kind::Pod, Some("a"), None, Some(1), &|_| true);
    let after = first.next_key.expect("more in a");
    store.delete::<Pod>(Some("a"), "p2").expect("delete a/p2");
    store.create(pod("a", "p3")).expect("create a/p3");
    store.delete::<Pod>(Some("b"), "p1").expect("delete b/p1");
    store.create(pod("b", "p4")).expect("create b/p4");
    let rest = store
        .list_page_at(
            Kind::Pod,
            Some("a"),
            Some(&after),
            None,
            &|_| true,
            first.resource_version,
        )
        .expect("within the window");
    let names: Vec<_> = rest
        .items
        .iter()
        .map(|o| {
            format!(
                "{}/{}",
                o.facts.namespace.as_deref().unwrap_or(""),
                o.facts.name
            )
        })
        .collect();
    assert_eq!(names, ["a/p1", "a/p2"]);
}
