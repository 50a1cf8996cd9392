//! The dashboard's own links: a node's, a DaemonSet's and a pod's page, and the one
//! percent-encoding every link and feed URL uses.
//!
//! Why one place: route URLs were `format!`ed at some twenty places, each deciding anew whether
//! to encode a cluster name (they are DNS names, but a link must not trust that) and how to
//! split a DaemonSet key into its two segments. A route that moves moves here. Layer: imports
//! nothing of the project; components, pages, views and the live client use it.

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

/// The node page (`/node/:name`).
pub fn node(name: &str) -> String {
    format!("/node/{}", encode(name))
}

/// The DaemonSet page of `namespace/name` (`/ds/:namespace/:name`).
pub fn daemonset(key: &str) -> String {
    let (namespace, name) = key.split_once('/').unwrap_or(("", key));
    format!("/ds/{}/{}", encode(namespace), encode(name))
}

/// The pod page (`/pod/:namespace/:name`).
pub fn pod(namespace: &str, name: &str) -> String {
    format!("/pod/{}/{}", encode(namespace), encode(name))
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
}
