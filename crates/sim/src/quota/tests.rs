//! The quota's status follows pods under the store's lock, and the admission reads it (§l.6).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::store::{Kind, StoreSettings, UpdateTarget};

fn store_with_quota(hard: Value) -> Store {
    let store = Store::new(StoreSettings::default());
    store
        .create_value(
            Kind::ResourceQuota,
            json!({"metadata": {"name": "q", "namespace": "team"}, "spec": {"hard": hard}}),
            true,
        )
        .unwrap();
    store
}

fn pod(name: &str, resources: Value) -> Value {
    json!({"metadata": {"name": name, "namespace": "team"},
        "spec": {"containers": [{"name": "c", "image": "i:1", "resources": resources}]}})
}

fn status(store: &Store) -> Value {
    let q: ResourceQuota = store.get(Some("team"), "q").unwrap();
    serde_json::to_value(q.status).unwrap()
}

fn typed(v: &Value) -> Pod {
    serde_json::from_value(v.clone()).unwrap()
}

#[test]
fn a_new_quota_gets_hard_and_used_from_the_pods_already_there_l6() {
    let store = Store::new(StoreSettings::default());
    store
        .create_value(
            Kind::Pod,
            pod("early", json!({"requests": {"cpu": "250m"}})),
            true,
        )
        .unwrap();
    store
        .create_value(
            Kind::ResourceQuota,
            json!({"metadata": {"name": "q", "namespace": "team"},
                "spec": {"hard": {"pods": "10", "requests.cpu": "2000m", "services": "1"}}}),
            true,
        )
        .unwrap();
    assert_eq!(
        status(&store),
        json!({"hard": {"pods": "10", "requests.cpu": "2", "services": "1"},
            "used": {"pods": "1", "requests.cpu": "250m"}})
    );
}

#[test]
fn used_follows_pods_created_turned_terminal_and_deleted_l6() {
    let store = store_with_quota(json!({"pods": "2", "requests.cpu": "1", "count/pods": "5"}));
    assert_eq!(
        status(&store)["used"],
        json!({"count/pods": "0", "pods": "0", "requests.cpu": "0"})
    );
    for name in ["a", "b"] {
        store
            .create_value(
                Kind::Pod,
                pod(name, json!({"requests": {"cpu": "400m"}})),
                false,
            )
            .unwrap();
    }
    assert_eq!(
        status(&store)["used"],
        json!({"count/pods": "2", "pods": "2", "requests.cpu": "800m"})
    );
    // A third pod is refused in kube-apiserver's words.
    let third = typed(&pod("c", json!({"requests": {"cpu": "400m"}})));
    assert_eq!(
        refusal(&store, "team", &third).as_deref(),
        Some("pods \"c\" is forbidden: exceeded quota: q, requested: pods=1,requests.cpu=400m, used: pods=2,requests.cpu=800m, limited: pods=2,requests.cpu=1")
    );
    // A Failed pod keeps only its object count.
    let mut failed = store
        .get_raw(Kind::Pod, Some("team"), "a")
        .unwrap()
        .value()
        .unwrap();
    failed["status"] = json!({"phase": "Failed"});
    store
        .update_value(Kind::Pod, failed, UpdateTarget::Status)
        .unwrap();
    assert_eq!(
        status(&store)["used"],
        json!({"count/pods": "2", "pods": "1", "requests.cpu": "400m"})
    );
    assert_eq!(refusal(&store, "team", &third), None);
    store.delete::<Pod>(Some("team"), "a").unwrap();
    assert_eq!(
        status(&store)["used"],
        json!({"count/pods": "1", "pods": "1", "requests.cpu": "400m"})
    );
}

#[test]
fn a_pod_without_the_tracked_request_is_refused_by_name_of_container_l4() {
    let store = store_with_quota(json!({"requests.cpu": "1"}));
    let bare = typed(&pod("p", json!({})));
    assert_eq!(
        refusal(&store, "team", &bare).as_deref(),
        Some("pods \"p\" is forbidden: failed quota: q: must specify requests.cpu for: c")
    );
    // A limit alone is defaulted into the request, as the API server does before admission.
    let limited = typed(&pod("p", json!({"limits": {"cpu": "500m"}})));
    assert_eq!(refusal(&store, "team", &limited), None);
}

#[test]
fn a_scoped_quota_is_not_evaluated_and_gets_hard_only_l6() {
    let store = Store::new(StoreSettings::default());
    store
        .create_value(
            Kind::ResourceQuota,
            json!({"metadata": {"name": "q", "namespace": "team"},
                "spec": {"hard": {"pods": "0"}, "scopes": ["BestEffort"]}}),
            true,
        )
        .unwrap();
    assert_eq!(status(&store), json!({"hard": {"pods": "0"}}));
    assert_eq!(refusal(&store, "team", &typed(&pod("p", json!({})))), None);
}
