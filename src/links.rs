//! The dashboard's own links: a node's, a DaemonSet's and a pod's page, the matrix, the fleet
//! page, the cluster prefix `/c/NAME` of each, and the one percent-encoding every link and
//! feed URL uses.
//!
//! Why one place: route URLs were `format!`ed at some twenty places, each deciding anew whether
//! to encode a cluster name (they are DNS names, but a link must not trust that) and how to
//! split a DaemonSet key into its two segments. A route that moves moves here. Layer: imports
//! nothing of the project (leptos' context only, for the page's cluster); components, pages, views and the live client use it.

/// Percent-encodes a path segment or query value: everything but the unreserved characters.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The cluster a request or a page is about, from its URL's `/c/NAME` (the name decoded).
/// The server notes it on the request (`web::clusters`); the browser's copy is set once when
/// the WASM starts ([`set_page_base`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectedCluster(pub String);

/// The URL prefix of one cluster's pages and API paths (`/c/NAME`).
pub fn cluster_base(cluster: &str) -> String {
    format!("/c/{}", encode(cluster))
}

/// The prefix of the links on the page being rendered: `/c/NAME` when its URL names a
/// cluster, else empty (the single-cluster URLs, which mean the first cluster). Why a prefix
/// and not an argument at every call: every link of a cluster's page stays in that cluster,
/// and some twenty call sites would otherwise each carry the cluster.
#[cfg(feature = "ssr")]
pub fn base() -> String {
    leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<SelectedCluster>().cloned())
        .map(|SelectedCluster(name)| cluster_base(&name))
        .unwrap_or_default()
}

/// The prefix of the links on the page being rendered (browser): the `/c/NAME` of the URL the
/// WASM started on. Why fixed for the WASM's life: a link into another cluster is always a
/// full page load (the switcher's and the fleet page's links are `rel="external"`), so one
/// running page shows one cluster.
#[cfg(not(feature = "ssr"))]
pub fn base() -> String {
    PAGE_BASE.get().cloned().unwrap_or_default()
}

#[cfg(not(feature = "ssr"))]
static PAGE_BASE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The `/c/NAME` prefix of a URL path, if it names a cluster (as the browser has it, still
/// encoded).
pub fn base_of_path(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/c/")?;
    let end = rest.find('/').unwrap_or(rest.len());
    (end > 0).then(|| &path[..3 + end])
}

/// Records the page's cluster prefix from the path the WASM started on; returns it (empty
/// for the single-cluster URLs). Called once, before hydration.
#[cfg(not(feature = "ssr"))]
pub fn set_page_base(path: &str) -> &'static str {
    let base = base_of_path(path).unwrap_or_default().to_string();
    PAGE_BASE.get_or_init(|| base).as_str()
}

/// The matrix of the page's cluster (`/`, or `/c/NAME`: the route the server renders, where
/// `/c/NAME/` redirects).
pub fn matrix() -> String {
    let base = base();
    if base.is_empty() {
        "/".to_string()
    } else {
        base
    }
}

/// The matrix of the page's cluster with a query string (`selector=…`, without `?`).
pub fn matrix_with(query: &str) -> String {
    format!("{}?{query}", matrix())
}

/// The matrix of `cluster` with a query string (the fleet page's links, which name their
/// cluster whatever page they are on).
pub fn cluster_matrix(cluster: &str, query: &str) -> String {
    if query.is_empty() {
        cluster_base(cluster)
    } else {
        format!("{}?{query}", cluster_base(cluster))
    }
}

/// The fleet page (`/fleet`), with its query string if any.
pub fn fleet(query: &str) -> String {
    if query.is_empty() {
        "/fleet".to_string()
    } else {
        format!("/fleet?{query}")
    }
}

/// An API path of the page's cluster (`/api/view…` under `/c/NAME`).
pub fn api(path: &str) -> String {
    format!("{}{path}", base())
}

/// The node page (`/node/:name`).
pub fn node(name: &str) -> String {
    format!("{}/node/{}", base(), encode(name))
}

/// The DaemonSet page of `namespace/name` (`/ds/:namespace/:name`).
pub fn daemonset(key: &str) -> String {
    let (namespace, name) = key.split_once('/').unwrap_or(("", key));
    format!("{}/ds/{}/{}", base(), encode(namespace), encode(name))
}

/// The pod page (`/pod/:namespace/:name`).
pub fn pod(namespace: &str, name: &str) -> String {
    format!("{}/pod/{}/{}", base(), encode(namespace), encode(name))
}

/// The pod page of a daemon pod: it lives in its DaemonSet's namespace, so a DaemonSet key
/// (`namespace/name`) and the pod's name are enough.
pub fn daemon_pod(daemonset: &str, pod_name: &str) -> String {
    let namespace = daemonset.split_once('/').map_or(daemonset, |(ns, _)| ns);
    pod(namespace, pod_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daemon_pods_link_takes_its_daemonsets_namespace() {
        assert_eq!(
            daemon_pod("kube-system/log-collector", "log-collector-abc"),
            "/pod/kube-system/log-collector-abc"
        );
    }

    #[test]
    fn every_link_encodes_what_a_name_should_not_hold() {
        assert_eq!(node("worker-2"), "/node/worker-2");
        assert_eq!(node("a b/<c>"), "/node/a%20b%2F%3Cc%3E");
        assert_eq!(
            daemonset("kube-system/log-collector"),
            "/ds/kube-system/log-collector"
        );
        assert_eq!(pod("ns", "p-1"), "/pod/ns/p-1");
        assert_eq!(encode("é"), "%C3%A9");
    }

    #[test]
    fn a_cluster_prefix_is_read_from_a_path_and_written_encoded() {
        assert_eq!(base_of_path("/c/kind-a/node/w1"), Some("/c/kind-a"));
        assert_eq!(base_of_path("/c/kind-a"), Some("/c/kind-a"));
        assert_eq!(base_of_path("/c/a%2Fb/"), Some("/c/a%2Fb"));
        assert_eq!(base_of_path("/c//x"), None);
        assert_eq!(base_of_path("/node/c"), None);
        assert_eq!(base_of_path("/fleet"), None);
        assert_eq!(cluster_base("arn:aws:eks/x"), "/c/arn%3Aaws%3Aeks%2Fx");
        assert_eq!(
            cluster_matrix("b", "ds=kube-system%2Flog&state=missing"),
            "/c/b?ds=kube-system%2Flog&state=missing"
        );
        assert_eq!(cluster_matrix("b", ""), "/c/b");
        assert_eq!(fleet("state=missing"), "/fleet?state=missing");
    }

    #[test]
    fn links_outside_a_request_have_no_cluster_prefix() {
        assert_eq!(matrix(), "/");
        assert_eq!(api("/api/view?x"), "/api/view?x");
    }
}
