//! Tests of the API router: resource paths and query strings parse as the API server routes them.
use super::*;

#[test]
fn resource_paths_parse_like_the_api_server_routes_them() {
    let r = |kind, ns: Option<&str>, name: Option<&str>, sub: Option<&str>| {
        Some(ApiPath::Resource(ResourcePath {
            kind,
            namespace: ns.map(Into::into),
            name: name.map(Into::into),
            subresource: sub.map(Into::into),
            events_v1: false,
        }))
    };
    assert_eq!(parse_path("/api/v1/nodes"), r(Kind::Node, None, None, None));
    assert_eq!(
        parse_path("/api/v1/nodes/n1/status"),
        r(Kind::Node, None, Some("n1"), Some("status"))
    );
    assert_eq!(parse_path("/api/v1/pods"), r(Kind::Pod, None, None, None));
    assert_eq!(
        parse_path("/api/v1/namespaces/ns/pods/p"),
        r(Kind::Pod, Some("ns"), Some("p"), None)
    );
    assert_eq!(
        parse_path("/api/v1/namespaces/ns"),
        r(Kind::Namespace, None, Some("ns"), None)
    );
    assert_eq!(
        parse_path("/api/v1/namespaces/ns/status"),
        r(Kind::Namespace, None, Some("ns"), Some("status"))
    );
    assert_eq!(
        parse_path("/apis/apps/v1/namespaces/ks/daemonsets/d/status"),
        r(Kind::DaemonSet, Some("ks"), Some("d"), Some("status"))
    );
    assert_eq!(
        parse_path("/apis/apps/v1/daemonsets"),
        r(Kind::DaemonSet, None, None, None)
    );
    assert_eq!(
        parse_path("/apis/apps/v1"),
        Some(ApiPath::GroupVersion {
            group: "apps".into()
        })
    );
    assert_eq!(parse_path("/api/v1/pods/p"), None);
    assert_eq!(parse_path("/apis/coordination.k8s.io/v1/leases"), None);
    assert_eq!(
        parse_path("/apis/events.k8s.io/v1/namespaces/a/events/e"),
        Some(ApiPath::Resource(ResourcePath {
            kind: Kind::Event,
            namespace: Some("a".into()),
            name: Some("e".into()),
            subresource: None,
            events_v1: true,
        }))
    );
    assert_eq!(parse_path("/apis/events.k8s.io/v1/pods"), None);
}

#[test]
fn query_strings_with_empty_pairs_parse() {
    let p = Params::parse(Some(
        "&limit=500&watch=true&allowWatchBookmarks=true&resourceVersion=12",
    ))
    .expect("parse");
    assert_eq!(p.limit, Some(500));
    assert!(p.watch && p.allow_watch_bookmarks);
    assert_eq!(p.resource_version.as_deref(), Some("12"));
    assert!(Params::parse(Some("limit=x")).is_err());
}
