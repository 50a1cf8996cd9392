//! The store: which pages an event is filed on and the newest few per page. The projection
//! of an Event itself is tested at the edge (`edge::convert::events`).

use super::*;
use crate::domain::view::EventType;

fn row(reason: &str, last_seen: i64) -> EventRow {
    EventRow {
        object: "DaemonSet".into(),
        event_type: EventType::Normal,
        reason: reason.into(),
        message: String::new(),
        count: 1,
        last_seen,
    }
}

fn ds(key: &str) -> Page {
    Page::DaemonSet(key.into())
}

#[test]
fn only_daemonsets_nodes_and_known_daemon_pods_get_pages() {
    let involved = |kind: &str, uid: &str| Involved {
        kind: kind.into(),
        namespace: "kube-system".into(),
        name: "x".into(),
        uid: uid.into(),
    };
    let home = |uid: &str| match uid {
        "daemon-pod" => Some(PodHome {
            daemonset: "kube-system/log".into(),
            node: Some("worker-1".into()),
        }),
        "unbound-daemon-pod" => Some(PodHome {
            daemonset: "kube-system/log".into(),
            node: None,
        }),
        _ => None,
    };
    let node = |n: &str| Page::Node(n.into());
    let cases = [
        (
            "DaemonSet",
            "d",
            Some((vec![ds("kube-system/x")], "DaemonSet")),
        ),
        ("Node", "n", Some((vec![node("x")], "Node"))),
        (
            "Pod",
            "daemon-pod",
            Some((
                vec![ds("kube-system/log"), node("worker-1")],
                "Pod kube-system/x",
            )),
        ),
        (
            "Pod",
            "unbound-daemon-pod",
            Some((vec![ds("kube-system/log")], "Pod kube-system/x")),
        ),
        ("Pod", "some-deployment-pod", None),
        ("Deployment", "dep", None),
    ];
    for (kind, uid, want) in cases {
        let got = pages_for(&involved(kind, uid), home);
        assert_eq!(got, want.map(|(p, o)| (p, o.to_string())), "{kind} {uid}");
    }
}

#[test]
fn a_pod_event_on_two_pages_updates_and_goes_from_both() {
    let pages = [ds("a/log"), Page::Node("worker-1".into())];
    let mut store = RecentEvents::new();
    store.apply(&pages, "u1".into(), row("BackOff", 10));
    let mut again = row("BackOff", 20);
    again.count = 4;
    store.apply(&pages, "u1".into(), again);
    for page in &pages {
        let rows = store.of(page);
        assert_eq!(rows.len(), 1, "{page:?}");
        assert_eq!(rows[0].count, 4, "{page:?}");
    }
    assert_eq!(store.len(), 1, "one event, however many pages show it");
    store.remove("u1");
    assert!(pages.iter().all(|p| store.of(p).is_empty()));
    assert!(store.is_empty());
}

#[test]
fn an_event_pushed_off_one_page_stays_on_the_other() {
    let node = Page::Node("worker-1".into());
    let mut store = RecentEvents::new();
    store.apply(
        &[ds("a/log"), node.clone()],
        "pod-event".into(),
        row("BackOff", 0),
    );
    for i in 1..=(PER_OBJECT as i64) {
        store.apply(
            std::slice::from_ref(&node),
            format!("n{i}"),
            row("NodeNotReady", i),
        );
    }
    assert!(store.of(&node).iter().all(|r| r.reason == "NodeNotReady"));
    assert_eq!(store.of(&ds("a/log"))[0].reason, "BackOff");
    store.remove("pod-event");
    assert!(store.of(&ds("a/log")).is_empty());
    assert_eq!(store.of(&node).len(), PER_OBJECT);
    assert_eq!(store.len(), PER_OBJECT);
}

#[test]
fn a_page_keeps_only_its_newest_events_newest_first() {
    let mut store = RecentEvents::new();
    for i in 0..(PER_OBJECT as i64 + 15) {
        store.apply(&[ds("a/log")], format!("u{i}"), row(&format!("r{i}"), i));
    }
    let rows = store.of(&ds("a/log"));
    assert_eq!(rows.len(), PER_OBJECT);
    assert_eq!(
        rows[0].reason,
        format!("r{}", PER_OBJECT + 14),
        "newest first"
    );
    assert!(rows.windows(2).all(|w| w[0].last_seen >= w[1].last_seen));
    assert_eq!(store.len(), PER_OBJECT, "dropped events are forgotten");
    // An older event than all kept ones is not admitted to a full page.
    store.apply(&[ds("a/log")], "old".into(), row("old", -1));
    assert_eq!(store.len(), PER_OBJECT);
}

#[test]
fn memory_is_bounded_by_the_pages_whatever_the_event_rate() {
    let mut store = RecentEvents::new();
    for i in 0..10_000i64 {
        let page = Page::Node(format!("n{}", i % 50));
        store.apply(&[page], format!("u{i}"), row("Tick", i));
    }
    assert_eq!(store.len(), 50 * PER_OBJECT);
}

#[test]
fn an_updated_event_replaces_itself_and_a_deleted_one_goes() {
    let mut store = RecentEvents::new();
    store.apply(&[ds("a/log")], "u1".into(), row("BackOff", 10));
    let mut again = row("BackOff", 20);
    again.count = 5;
    store.apply(&[ds("a/log")], "u1".into(), again);
    let rows = store.of(&ds("a/log"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].count, 5);
    store.remove("u1");
    assert!(store.of(&ds("a/log")).is_empty());
    assert!(store.is_empty());
}

#[test]
fn a_relist_replaces_everything_held() {
    let mut store = RecentEvents::new();
    store.apply(&[ds("a/log")], "gone".into(), row("Old", 1));
    store.replace(vec![(
        vec![Page::Node("n".into())],
        "new".into(),
        row("New", 2),
    )]);
    assert!(store.of(&ds("a/log")).is_empty());
    assert_eq!(store.of(&Page::Node("n".into()))[0].reason, "New");
}

#[test]
fn a_pod_page_gets_only_that_pods_events_from_its_namespaces_daemonset_pages_newest_first() {
    let about = |object: &str, reason: &str, at: i64| EventRow {
        object: object.into(),
        ..row(reason, at)
    };
    let mut store = RecentEvents::new();
    let me = "Pod kube-system/log-abc";
    store.apply(
        &[ds("kube-system/log")],
        "e1".into(),
        about(me, "Pulled", 10),
    );
    store.apply(
        &[ds("kube-system/log")],
        "e2".into(),
        about(me, "BackOff", 30),
    );
    store.apply(
        &[ds("kube-system/log")],
        "e3".into(),
        about("Pod kube-system/log-xyz", "BackOff", 20),
    );
    store.apply(
        &[ds("kube-system/log")],
        "e4".into(),
        about("DaemonSet", "SuccessfulCreate", 40),
    );
    // The same name in another namespace is another pod.
    store.apply(
        &[ds("other/log")],
        "e5".into(),
        about("Pod other/log-abc", "Killing", 50),
    );
    let rows = store.of_pod("kube-system", "log-abc");
    let reasons: Vec<_> = rows.iter().map(|r| r.reason.as_str()).collect();
    assert_eq!(reasons, ["BackOff", "Pulled"]);
    assert!(rows.iter().all(|r| r.object == "Pod"));
    assert!(store.of_pod("kube-system", "gone").is_empty());
}
