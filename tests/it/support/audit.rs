//! The dashboard's requests in kube-apiserver's audit log (`cluster.sh` writes audit.k8s.io/v1
//! JSON lines at level Metadata to DIR/audit.log, batched every second).
#![allow(dead_code)]

use serde_json::Value;
use std::path::Path;

/// The only verbs a read-only dashboard may send (docs/architecture.md#read-only).
pub const READ_VERBS: [&str; 3] = ["get", "list", "watch"];

/// One request of the dashboard in kube-apiserver's audit log.
#[derive(Debug)]
pub struct Request {
    pub verb: String,
    /// (apiGroup, resource); `None` for a non-resource URL such as `/version`.
    pub resource: Option<(String, String)>,
    pub user: String,
    pub code: u64,
    pub uri: String,
}

/// The audit events whose user agent is `daemonscope/...`.
pub fn dashboard_requests(audit_log: &Path) -> Vec<Request> {
    let log = std::fs::read_to_string(audit_log).unwrap_or_default();
    let field = |e: &Value, path: &str| e.pointer(path).and_then(Value::as_str).map(String::from);
    log.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|e| field(e, "/userAgent").is_some_and(|ua| ua.starts_with("daemonscope/")))
        .map(|e| Request {
            verb: field(&e, "/verb").unwrap_or_default(),
            resource: field(&e, "/objectRef/resource")
                .map(|r| (field(&e, "/objectRef/apiGroup").unwrap_or_default(), r)),
            user: field(&e, "/user/username").unwrap_or_default(),
            code: e
                .pointer("/responseStatus/code")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            uri: field(&e, "/requestURI").unwrap_or_default(),
        })
        .collect()
}

/// Panics unless every request was sent as `user`, with a read verb, and none was refused.
pub fn assert_read_only_as(requests: &[Request], user: &str) {
    for r in requests {
        assert_eq!(r.user, user, "sent as the service account: {r:?}");
        assert!(
            READ_VERBS.contains(&r.verb.as_str()),
            "a read-only dashboard sent {r:?}"
        );
        assert_ne!(r.code, 403, "refused: {r:?}");
    }
}
