//! The simulated API server over real HTTP, driven by kube-rs exactly as the dashboard
//! drives a real cluster: list/get/watch, watcher resume and relist after 410, paging,
//! bookmarks and streaming lists, optimistic concurrency, selectors, the three patch types,
//! and the audit log. Wire rules are cited by section of `docs/kube-api-wire.md` (wire §N).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![cfg(feature = "ssr")]

use std::time::Duration;

use daemonscope::sim::api::ApiSettings;
use daemonscope::sim::store::StoreSettings;
use daemonscope::sim::{start_with, SimConfig, SimHandle};
use daemonscope_edge::testing::{daemonset, node, object};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{
    Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use serde_json::json;

async fn sim_with(store: StoreSettings, api: ApiSettings) -> SimHandle {
    start_with(SimConfig {
        store,
        api,
        ..SimConfig::default()
    })
    .await
    .expect("sim starts")
}

async fn sim() -> SimHandle {
    sim_with(StoreSettings::default(), ApiSettings::default()).await
}

fn client(sim: &SimHandle) -> Client {
    Client::try_from(sim.kube_config()).expect("client")
}

fn pod(name: &str, node_name: &str, labels: serde_json::Value) -> Pod {
    object(
        json!({"metadata": {"name": name, "namespace": "kube-system", "labels": labels},
        "spec": {"nodeName": node_name, "containers": [{"name": "c", "image": "busybox:1.36"}]}}),
    )
}

fn status_code(err: &kube::Error) -> Option<(u16, String)> {
    match err {
        kube::Error::Api(s) => Some((s.code, s.reason.clone())),
        _ => None,
    }
}

#[tokio::test]
async fn create_get_and_list_return_typed_objects_with_server_set_metadata() {
    let sim = sim().await;
    let nodes: Api<Node> = Api::all(client(&sim));
    let created = nodes
        .create(&PostParams::default(), &node("n1", json!({"pool": "a"})))
        .await
        .expect("create");
    assert!(created.metadata.uid.is_some(), "the server sets a uid");
    assert!(
        created.metadata.creation_timestamp.is_some(),
        "and a creationTimestamp"
    );
    let got = nodes.get("n1").await.expect("get");
    assert_eq!(
        got.metadata.resource_version,
        created.metadata.resource_version
    );
    let list = nodes.list(&ListParams::default()).await.expect("list");
    assert_eq!(list.items.len(), 1);
    assert!(
        list.metadata
            .resource_version
            .is_some_and(|rv| !rv.is_empty()),
        "wire §2: lists carry a resourceVersion"
    );
    let missing = nodes
        .get("nosuch")
        .await
        .err()
        .and_then(|e| status_code(&e));
    assert_eq!(missing, Some((404, "NotFound".to_string())));
    let dup = nodes
        .create(&PostParams::default(), &node("n1", json!({})))
        .await
        .err()
        .and_then(|e| status_code(&e));
    assert_eq!(dup, Some((409, "AlreadyExists".to_string())));
}

#[tokio::test]
async fn lists_page_with_limit_and_continue_and_an_expired_token_is_410() {
    let sim = sim_with(
        StoreSettings {
            history_limit: 20,
            ..StoreSettings::default()
        },
        ApiSettings::default(),
    )
    .await;
    let nodes: Api<Node> = Api::all(client(&sim));
    for i in 0..7 {
        nodes
            .create(&PostParams::default(), &node(&format!("n{i}"), json!({})))
            .await
            .expect("create");
    }
    let first = nodes
        .list(&ListParams::default().limit(3))
        .await
        .expect("page 1");
    assert_eq!(first.items.len(), 3);
    let token = first.metadata.continue_.clone().expect("a continue token");
    // Changes between pages: the later pages still show the list as of the first page, as
    // kube-apiserver reads continue pages at the first page's revision (wire §2, paging).
    nodes
        .delete("n4", &DeleteParams::default())
        .await
        .expect("delete n4");
    nodes
        .create(&PostParams::default(), &node("n35", json!({})))
        .await
        .expect("create n35");
    let second = nodes
        .list(&ListParams::default().limit(3).continue_token(&token))
        .await
        .expect("page 2");
    assert_eq!(
        second.metadata.resource_version, first.metadata.resource_version,
        "every page carries the first page's resourceVersion"
    );
    let third = nodes
        .list(
            &ListParams::default()
                .limit(3)
                .continue_token(second.metadata.continue_.as_deref().expect("more")),
        )
        .await
        .expect("page 3");
    assert!(
        third.metadata.continue_.as_deref().unwrap_or("").is_empty(),
        "the last page has no continue"
    );
    let names: Vec<String> = [first, second, third]
        .iter()
        .flat_map(|p| p.items.iter().filter_map(|n| n.metadata.name.clone()))
        .collect();
    assert_eq!(
        names,
        (0..7).map(|i| format!("n{i}")).collect::<Vec<_>>(),
        "n4 deleted and n35 created during the list: one consistent list without them changed"
    );
    for i in 0..25 {
        nodes
            .patch(
                &format!("n{}", [0, 1, 2, 3, 5, 6][i % 6]),
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"labels": {"i": i.to_string()}}})),
            )
            .await
            .expect("patch");
    }
    let stale = nodes
        .list(&ListParams::default().limit(3).continue_token(&token))
        .await
        .err()
        .and_then(|e| status_code(&e));
    assert_eq!(
        stale,
        Some((410, "Expired".to_string())),
        "wire §2: a stale continue token is 410 Expired"
    );
}

#[tokio::test]
async fn a_stale_resource_version_on_replace_is_a_409_conflict() {
    let sim = sim().await;
    let nodes: Api<Node> = Api::all(client(&sim));
    let original = nodes
        .create(&PostParams::default(), &node("n1", json!({})))
        .await
        .expect("create");
    let mut first = original.clone();
    first
        .metadata
        .labels
        .get_or_insert_default()
        .insert("a".into(), "1".into());
    nodes
        .replace("n1", &PostParams::default(), &first)
        .await
        .expect("first replace");
    let mut second = original;
    second
        .metadata
        .labels
        .get_or_insert_default()
        .insert("a".into(), "2".into());
    let err = nodes
        .replace("n1", &PostParams::default(), &second)
        .await
        .err()
        .and_then(|e| status_code(&e));
    assert_eq!(err, Some((409, "Conflict".to_string())));
    let stale_patch =
        Patch::Merge(json!({"metadata": {"resourceVersion": "1", "labels": {"a": "3"}}}));
    let err = nodes
        .patch("n1", &PatchParams::default(), &stale_patch)
        .await
        .err()
        .and_then(|e| status_code(&e));
    assert_eq!(
        err,
        Some((409, "Conflict".to_string())),
        "wire §4: a resourceVersion in a patch is a precondition"
    );
}

#[tokio::test]
async fn watch_from_a_resource_version_sends_only_later_changes_in_order() {
    let sim = sim().await;
    let nodes: Api<Node> = Api::all(client(&sim));
    nodes
        .create(&PostParams::default(), &node("before", json!({})))
        .await
        .expect("create");
    let rv = list_version(&nodes).await;
    let mut stream = nodes
        .watch(&WatchParams::default().timeout(10), &rv)
        .await
        .expect("watch")
        .boxed();
    nodes
        .create(&PostParams::default(), &node("after", json!({})))
        .await
        .expect("create");
    nodes
        .patch(
            "after",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"x": "y"}}})),
        )
        .await
        .expect("patch");
    nodes
        .delete("after", &DeleteParams::default())
        .await
        .expect("delete");
    let mut seen = Vec::new();
    while seen.len() < 3 {
        match tokio::time::timeout(Duration::from_secs(5), stream.try_next()).await {
            Ok(Ok(Some(WatchEvent::Added(n)))) => {
                seen.push(format!("ADDED {}", n.metadata.name.unwrap_or_default()))
            }
            Ok(Ok(Some(WatchEvent::Modified(n)))) => {
                seen.push(format!("MODIFIED {}", n.metadata.name.unwrap_or_default()))
            }
            Ok(Ok(Some(WatchEvent::Deleted(n)))) => {
                seen.push(format!("DELETED {}", n.metadata.name.unwrap_or_default()))
            }
            other => panic!("unexpected watch item: {other:?}"),
        }
    }
    assert_eq!(seen, vec!["ADDED after", "MODIFIED after", "DELETED after"]);
}

#[tokio::test]
async fn watching_an_expired_resource_version_gets_an_in_stream_410() {
    let sim = sim_with(
        StoreSettings {
            history_limit: 5,
            ..StoreSettings::default()
        },
        ApiSettings::default(),
    )
    .await;
    let nodes: Api<Node> = Api::all(client(&sim));
    nodes
        .create(&PostParams::default(), &node("n0", json!({})))
        .await
        .expect("create");
    let old = nodes
        .get("n0")
        .await
        .expect("get")
        .metadata
        .resource_version
        .expect("rv");
    for i in 1..10 {
        nodes
            .create(&PostParams::default(), &node(&format!("n{i}"), json!({})))
            .await
            .expect("create");
    }
    // wire §2/§7.4: HTTP 200 and an ERROR event with a 410 Expired Status, not an HTTP 410.
    let mut stream = nodes
        .watch(&WatchParams::default().timeout(5), &old)
        .await
        .expect("the watch request itself succeeds")
        .boxed();
    match tokio::time::timeout(Duration::from_secs(5), stream.try_next()).await {
        Ok(Ok(Some(WatchEvent::Error(status)))) => {
            assert_eq!((status.code, status.reason.as_str()), (410, "Expired"));
            assert!(
                status.message.starts_with("too old resource version"),
                "{}",
                status.message
            );
        }
        other => panic!("expected an ERROR event, got {other:?}"),
    }
}

#[tokio::test]
async fn a_kube_rs_watcher_relists_cleanly_after_its_version_expired() {
    let sim = sim_with(
        StoreSettings {
            history_limit: 50,
            ..StoreSettings::default()
        },
        ApiSettings::default(),
    )
    .await;
    let nodes: Api<Node> = Api::all(client(&sim));
    nodes
        .create(&PostParams::default(), &node("first", json!({})))
        .await
        .expect("create");
    let mut events = watcher(nodes.clone(), watcher::Config::default()).boxed();
    async fn next<
        S: futures::Stream<Item = Result<watcher::Event<Node>, watcher::Error>> + Unpin,
    >(
        s: &mut S,
    ) -> watcher::Event<Node> {
        match tokio::time::timeout(Duration::from_secs(20), s.try_next()).await {
            Ok(Ok(Some(e))) => e,
            other => panic!("watcher ended: {other:?}"),
        }
    }
    assert!(matches!(next(&mut events).await, watcher::Event::Init));
    assert!(matches!(
        next(&mut events).await,
        watcher::Event::InitApply(_)
    ));
    assert!(matches!(next(&mut events).await, watcher::Event::InitDone));
    // While the watcher is not reading, far more changes than the history holds happen:
    // big objects fill the socket buffers, the server's stream falls behind the history
    // and ends with 410, and kube-rs must start over with a fresh list.
    let filler = "x".repeat(16 * 1024);
    for i in 0..1500 {
        sim.store
            .create(node(&format!("bulk-{i:04}"), json!({})).tap_annotations(&filler))
            .expect("bulk create");
    }
    let mut saw_410 = false;
    let mut relisted = false;
    for _ in 0..5000 {
        match tokio::time::timeout(Duration::from_secs(20), events.next()).await {
            Ok(Some(Ok(watcher::Event::Init))) => {
                relisted = true;
                break;
            }
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(watcher::Error::WatchError(status)))) if status.code == 410 => {
                saw_410 = true
            }
            other => panic!("watcher failed: {other:?}"),
        }
    }
    assert!(
        saw_410,
        "the stream fell out of the history and got 410 Expired"
    );
    assert!(relisted, "the watcher relisted after the 410");
    let mut applied = 0;
    loop {
        match next(&mut events).await {
            watcher::Event::InitApply(_) => applied += 1,
            watcher::Event::InitDone => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(applied, 1501, "the relist delivers every node");
    let lists = sim
        .audit
        .entries()
        .iter()
        .filter(|e| e.verb == "list" && e.resource == "nodes")
        .count();
    assert!(lists >= 2, "the audit log shows the second list");
}

trait TapAnnotations {
    fn tap_annotations(self, filler: &str) -> Self;
}

impl TapAnnotations for Node {
    fn tap_annotations(mut self, filler: &str) -> Self {
        self.metadata
            .annotations
            .get_or_insert_default()
            .insert("filler".into(), filler.into());
        self
    }
}

#[tokio::test]
async fn streaming_lists_end_with_the_initial_events_bookmark_and_idle_watches_get_bookmarks() {
    let sim = sim_with(
        StoreSettings::default(),
        ApiSettings {
            bookmark_interval: Duration::from_millis(200),
            ..ApiSettings::default()
        },
    )
    .await;
    let nodes: Api<Node> = Api::all(client(&sim));
    for i in 0..3 {
        nodes
            .create(&PostParams::default(), &node(&format!("n{i}"), json!({})))
            .await
            .expect("create");
    }
    // wire §6: kube-rs's streaming list reaches InitDone only on the initial-events-end bookmark.
    let mut events = watcher(nodes.clone(), watcher::Config::default().streaming_lists()).boxed();
    let mut init_applies = 0;
    loop {
        match tokio::time::timeout(Duration::from_secs(5), events.try_next()).await {
            Ok(Ok(Some(watcher::Event::InitApply(_)))) => init_applies += 1,
            Ok(Ok(Some(watcher::Event::InitDone))) => break,
            Ok(Ok(Some(watcher::Event::Init))) => {}
            other => panic!("streaming list did not finish: {other:?}"),
        }
    }
    assert_eq!(init_applies, 3);
    let watch = sim
        .audit
        .entries()
        .into_iter()
        .find(|e| e.verb == "watch")
        .expect("a watch request");
    assert!(
        watch.query.contains("sendInitialEvents=true"),
        "{}",
        watch.query
    );
    let rv = list_version(&nodes).await;
    let mut raw = nodes
        .watch(&WatchParams::default().timeout(5), &rv)
        .await
        .expect("watch")
        .boxed();
    match tokio::time::timeout(Duration::from_secs(3), raw.try_next()).await {
        Ok(Ok(Some(WatchEvent::Bookmark(b)))) => assert_eq!(b.metadata.resource_version, rv),
        other => panic!("expected a bookmark, got {other:?}"),
    }
}

#[tokio::test]
async fn label_and_field_selectors_select_like_the_api_server() {
    let sim = sim().await;
    let c = client(&sim);
    let nodes: Api<Node> = Api::all(c.clone());
    nodes
        .create(&PostParams::default(), &node("a1", json!({"pool": "a"})))
        .await
        .expect("create");
    nodes
        .create(
            &PostParams::default(),
            &node("b1", json!({"pool": "b", "gpu": "true"})),
        )
        .await
        .expect("create");
    nodes
        .create(&PostParams::default(), &node("c1", json!({"pool": "c"})))
        .await
        .expect("create");
    let names = |l: kube::core::ObjectList<Node>| {
        l.items
            .into_iter()
            .filter_map(|n| n.metadata.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(
            nodes
                .list(&ListParams::default().labels("pool in (a,b),!gpu"))
                .await
                .expect("in")
        ),
        vec!["a1"]
    );
    assert_eq!(
        names(
            nodes
                .list(&ListParams::default().labels("pool notin (a)"))
                .await
                .expect("notin")
        ),
        vec!["b1", "c1"]
    );
    assert_eq!(
        names(
            nodes
                .list(&ListParams::default().labels("gpu"))
                .await
                .expect("exists")
        ),
        vec!["b1"]
    );
    assert_eq!(
        names(
            nodes
                .list(&ListParams::default().labels("pool!=c"))
                .await
                .expect("neq")
        ),
        vec!["a1", "b1"]
    );
    assert_eq!(
        names(
            nodes
                .list(&ListParams::default().fields("metadata.name=c1"))
                .await
                .expect("field")
        ),
        vec!["c1"]
    );
    let pods: Api<Pod> = Api::namespaced(c.clone(), "kube-system");
    pods.create(
        &PostParams::default(),
        &pod("p-a", "a1", json!({"app": "x"})),
    )
    .await
    .expect("pod");
    pods.create(
        &PostParams::default(),
        &pod("p-b", "b1", json!({"app": "x"})),
    )
    .await
    .expect("pod");
    let all_pods: Api<Pod> = Api::all(c);
    let on_b: Vec<_> = all_pods
        .list(&ListParams::default().fields("spec.nodeName=b1"))
        .await
        .expect("by node")
        .items;
    assert_eq!(on_b.len(), 1);
    assert_eq!(on_b[0].metadata.name.as_deref(), Some("p-b"));
    let bad = all_pods
        .list(&ListParams::default().fields("spec.foo=x"))
        .await
        .err()
        .and_then(|e| match e {
            kube::Error::Api(s) => Some((s.code, s.message)),
            _ => None,
        });
    assert_eq!(
        bad,
        Some((400, "field label not supported: spec.foo".to_string())),
        "wire §2: unsupported field selectors are a 400"
    );
}

#[tokio::test]
async fn a_label_watch_sees_an_object_leave_its_selection_as_deleted() {
    let sim = sim().await;
    let nodes: Api<Node> = Api::all(client(&sim));
    nodes
        .create(&PostParams::default(), &node("n1", json!({"pool": "a"})))
        .await
        .expect("create");
    let rv = list_version(&nodes).await;
    let mut stream = nodes
        .watch(&WatchParams::default().labels("pool=a").timeout(5), &rv)
        .await
        .expect("watch")
        .boxed();
    nodes
        .patch(
            "n1",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"pool": "b"}}})),
        )
        .await
        .expect("relabel");
    match tokio::time::timeout(Duration::from_secs(5), stream.try_next()).await {
        Ok(Ok(Some(WatchEvent::Deleted(n)))) => {
            assert_eq!(
                n.labels().get("pool").map(String::as_str),
                Some("a"),
                "wire §2: DELETED carries the previous content"
            );
        }
        other => panic!("expected DELETED, got {other:?}"),
    }
}

#[tokio::test]
async fn the_three_patch_types_and_the_status_subresource_apply_as_kubectl_expects() {
    let sim = sim().await;
    let c = client(&sim);
    let nodes: Api<Node> = Api::all(c.clone());
    nodes
        .create(&PostParams::default(), &node("n1", json!({"keep": "me"})))
        .await
        .expect("create");
    let taint = Patch::Strategic(
        json!({"spec": {"taints": [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}], "unschedulable": true}}),
    );
    let n = nodes
        .patch("n1", &PatchParams::default(), &taint)
        .await
        .expect("smp");
    let spec = n.spec.clone().unwrap_or_default();
    assert_eq!(spec.taints.map(|t| t.len()), Some(1));
    assert_eq!(spec.unschedulable, Some(true));
    let n = nodes
        .patch(
            "n1",
            &PatchParams::default(),
            &Patch::Strategic(json!({"spec": {"taints": null, "unschedulable": null}})),
        )
        .await
        .expect("uncordon");
    assert_eq!(n.spec.unwrap_or_default().taints, None);
    let n = nodes
        .patch(
            "n1",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"new": "1"}}})),
        )
        .await
        .expect("merge");
    assert_eq!(n.labels().len(), 2, "merge patch keeps the other labels");
    let json_patch: json_patch::Patch =
        serde_json::from_value(json!([{"op": "remove", "path": "/metadata/labels/keep"}]))
            .expect("json patch");
    let n = nodes
        .patch(
            "n1",
            &PatchParams::default(),
            &Patch::Json::<()>(json_patch),
        )
        .await
        .expect("json patch");
    assert!(!n.labels().contains_key("keep"));

    let dss: Api<DaemonSet> = Api::namespaced(c, "kube-system");
    let ds = dss
        .create(&PostParams::default(), &daemonset("agent", "agent:1"))
        .await
        .expect("ds");
    assert_eq!(ds.metadata.generation, Some(1));
    let ds = dss
        .patch("agent", &PatchParams::default(), &Patch::Strategic(json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "agent"}], "containers": [{"name": "agent", "image": "agent:2"}]}}}})))
        .await
        .expect("set image");
    assert_eq!(
        ds.metadata.generation,
        Some(2),
        "a spec change bumps the generation"
    );
    let ds = dss
        .patch_status(
            "agent",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"status": {"desiredNumberScheduled": 4, "observedGeneration": 2}}),
            ),
        )
        .await
        .expect("status");
    assert_eq!(ds.status.map(|s| s.desired_number_scheduled), Some(4));
    assert_eq!(
        ds.metadata.generation,
        Some(2),
        "a status write leaves the generation alone"
    );
    let ignored = dss
        .patch(
            "agent",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"desiredNumberScheduled": 9}})),
        )
        .await
        .expect("main patch");
    assert_eq!(
        ignored.status.map(|s| s.desired_number_scheduled),
        Some(4),
        "the main resource ignores status"
    );
}

#[tokio::test]
async fn every_request_lands_in_the_audit_log_with_verb_and_user_agent() {
    let sim = sim().await;
    let nodes: Api<Node> = Api::all(client(&sim));
    nodes
        .create(&PostParams::default(), &node("n1", json!({})))
        .await
        .expect("create");
    nodes.list(&ListParams::default()).await.expect("list");
    let _ = nodes.get("nope").await;
    let entries = sim.audit.entries();
    let summary: Vec<(String, String, u16)> = entries
        .iter()
        .map(|e| (e.verb.clone(), e.resource.clone(), e.code))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("create".to_string(), "nodes".to_string(), 201),
            ("list".to_string(), "nodes".to_string(), 200),
            ("get".to_string(), "nodes".to_string(), 404),
        ]
    );
    reqwest_like_get(&format!("{}/api/v1/nodes?limit=1", sim.url)).await;
    let probe = sim.audit.by_user_agent("audit-probe/");
    assert_eq!(probe.len(), 1, "the user agent is recorded");
    assert_eq!(
        (probe[0].verb.as_str(), probe[0].query.as_str()),
        ("list", "limit=1")
    );
    let body = reqwest_like_get(&format!("{}/debug/audit", sim.url)).await;
    assert!(body.contains("\"verb\":\"create\""), "{body}");
}

async fn reqwest_like_get(url: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let path = url
        .trim_start_matches("http://")
        .trim_start_matches(&authority)
        .to_string();
    let mut s = tokio::net::TcpStream::connect(&authority)
        .await
        .expect("connect");
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: audit-probe/1.0\r\nConnection: close\r\n\r\n").as_bytes()).await.expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).await.expect("read");
    out
}

#[tokio::test]
async fn a_non_loopback_listen_address_is_refused_without_the_explicit_flag() {
    let config = SimConfig {
        listen: "0.0.0.0:0".parse().expect("addr"),
        ..SimConfig::default()
    };
    let err = start_with(config)
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("not a loopback address"), "{err}");
}

/// resourceVersion on a LIST (kube-apiserver's read consistency): `Exact` reads the cluster as
/// it was at that version, a version the server has not reached is waited for and then a 504
/// with the ResourceVersionTooLarge cause, and invalid combinations are 422 on ListOptions.
#[tokio::test]
async fn a_list_at_an_exact_version_shows_that_state_and_a_future_one_is_a_504() {
    let sim = sim().await;
    let nodes: Api<Node> = Api::all(client(&sim));
    for i in 0..3 {
        nodes
            .create(&PostParams::default(), &node(&format!("n{i}"), json!({})))
            .await
            .expect("create");
    }
    let then = list_version(&nodes).await;
    nodes
        .delete("n1", &DeleteParams::default())
        .await
        .expect("delete n1");
    nodes
        .create(&PostParams::default(), &node("n9", json!({})))
        .await
        .expect("create n9");

    let exact = nodes
        .list(
            &ListParams::default()
                .at(&then)
                .matching(kube::api::VersionMatch::Exact),
        )
        .await
        .expect("exact list");
    let names: Vec<_> = exact
        .items
        .iter()
        .filter_map(|n| n.metadata.name.clone())
        .collect();
    assert_eq!(names, vec!["n0", "n1", "n2"], "the state at {then}");
    assert_eq!(
        exact.metadata.resource_version.as_deref(),
        Some(then.as_str())
    );

    let newest = nodes
        .list(&ListParams::default().at(&then))
        .await
        .expect("list");
    assert_eq!(
        newest.items.len(),
        3,
        "NotOlderThan: the current n0, n2, n9"
    );
    assert!(newest
        .items
        .iter()
        .any(|n| n.metadata.name.as_deref() == Some("n9")));

    let future = (then.parse::<u64>().expect("numeric") + 1_000).to_string();
    // Over raw HTTP: kube-rs's client retries 504s by itself, as client-go honours Retry-After.
    let started = std::time::Instant::now();
    let too_new = reqwest_like_get(&format!(
        "http://{}/api/v1/nodes?resourceVersion={future}",
        sim.addr
    ))
    .await;
    assert!(
        too_new.starts_with("HTTP/1.1 504")
            && too_new.contains("Too large resource version")
            && too_new.contains("\"reason\":\"ResourceVersionTooLarge\""),
        "{too_new}"
    );
    assert!(
        started.elapsed() >= Duration::from_secs(3),
        "the watch cache's 3 s wait"
    );

    let invalid = nodes
        .list(
            &ListParams::default()
                .at("0")
                .matching(kube::api::VersionMatch::Exact),
        )
        .await;
    // kube-rs refuses this one itself; ask over raw HTTP as another client would.
    assert!(invalid.is_err());
    let raw = reqwest_like_get(&format!(
        "http://{}/api/v1/nodes?resourceVersionMatch=Exact",
        sim.addr
    ))
    .await;
    assert!(
        raw.contains("\"code\":422")
            && raw.contains("resourceVersionMatch is forbidden unless resourceVersion is provided"),
        "{raw}"
    );
}

/// A streaming list (`sendInitialEvents=true`) from a resourceVersion reads a state at least
/// that fresh: kube-apiserver's watch cache waits up to 3 s for the version, lists, and ends
/// the initial events with the bookmark; a version that never arrives fails the watch with an
/// in-stream ERROR carrying the 504 ResourceVersionTooLarge Status.
#[tokio::test]
async fn a_streaming_list_from_a_future_version_waits_for_it_or_fails_with_too_large() {
    let sim = sim().await;
    let nodes: Api<Node> = Api::all(client(&sim));
    nodes
        .create(&PostParams::default(), &node("n0", json!({})))
        .await
        .expect("create n0");
    let now: u64 = list_version(&nodes)
        .await
        .parse()
        .expect("a numeric list resourceVersion");
    let streaming = |rv: u64| {
        format!(
            "http://{}/api/v1/nodes?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=2&resourceVersion={rv}",
            sim.addr
        )
    };

    // The next version arrives while the watch waits: the initial events include it.
    let waiting = tokio::spawn(reqwest_like_get_owned(streaming(now + 1)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    nodes
        .create(&PostParams::default(), &node("n1", json!({})))
        .await
        .expect("create n1");
    let body = waiting.await.expect("the watch task");
    let added: Vec<_> = body
        .lines()
        .filter(|l| l.contains("\"type\":\"ADDED\""))
        .collect();
    assert_eq!(added.len(), 2, "n0 and n1 as initial events: {body}");
    assert!(
        added.iter().any(|l| l.contains("\"name\":\"n1\"")),
        "{body}"
    );
    assert!(body.contains("k8s.io/initial-events-end"), "{body}");

    // A version that never comes: no initial events, the watch cache's 504 in the stream.
    let body = reqwest_like_get(&streaming(now + 1_000)).await;
    assert!(body.starts_with("HTTP/1.1 200"), "{body}");
    assert!(!body.contains("\"type\":\"ADDED\""), "{body}");
    assert!(
        body.contains("\"type\":\"ERROR\"")
            && body.contains("\"code\":504")
            && body.contains("\"reason\":\"ResourceVersionTooLarge\""),
        "{body}"
    );
}

async fn reqwest_like_get_owned(url: String) -> String {
    reqwest_like_get(&url).await
}

/// The resourceVersion of a list of all nodes: where a test's watch or exact read starts.
async fn list_version(nodes: &Api<Node>) -> String {
    nodes
        .list(&ListParams::default())
        .await
        .expect("list")
        .metadata
        .resource_version
        .expect("a list resourceVersion")
}
