//! Authorization of the simulated API server: RBAC-shaped refusals chosen by the scenario
//! (`forbidden:` in the settings) or by a test (`ApiSettings::forbidden`).
//!
//! Why byte-faithful: the dashboard turns a 403 into "cannot list pods: forbidden for user X"
//! by reading the `Status` kube-apiserver sends, so the sim must send that very `Status`
//! (`k8s.io/apiserver` `responsewriters.forbiddenMessage` wrapped by
//! `apierrors.NewForbidden`), or a test would prove the parsing of a message no server sends.
use axum::http::HeaderMap;
use serde_json::json;

use super::status::ApiError;
use super::ResourcePath;
use crate::scenario::settings::ForbiddenRule;

/// The user kube-apiserver assigns to a request without credentials.
pub const ANONYMOUS: &str = "system:anonymous";

/// The user a request acts as. The sim authenticates nobody: the kubeconfig it writes has no
/// credentials, so requests are anonymous, as on an API server with anonymous auth enabled;
/// an `Impersonate-User` header (`kubectl --as`, kube-rs `impersonate`) names the user the
/// real server would authorize instead.
pub fn user(headers: &HeaderMap) -> String {
    headers
        .get("impersonate-user")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
        .map_or_else(|| ANONYMOUS.to_string(), str::to_string)
}

/// Refuses the request when a rule forbids `verb` on the path's resource.
pub fn check(
    rules: &[ForbiddenRule],
    user: &str,
    verb: &str,
    rp: &ResourcePath,
) -> Result<(), ApiError> {
    let resource = rp.kind.plural();
    let refused = rules.iter().any(|rule| {
        let full = match &rp.subresource {
            Some(sub) => format!("{resource}/{sub}"),
            None => resource.to_string(),
        };
        rule.refuses(&full, verb)
    });
    if refused {
        Err(forbidden(user, verb, rp))
    } else {
        Ok(())
    }
}

/// The 403 kube-apiserver sends when the authorizer denies a resource request.
pub fn forbidden(user: &str, verb: &str, rp: &ResourcePath) -> ApiError {
    let group = if rp.events_v1 {
        super::events_v1::GROUP
    } else {
        rp.kind.group()
    };
    let mut resource = rp.kind.plural().to_string();
    if let Some(sub) = &rp.subresource {
        resource = format!("{resource}/{sub}");
    }
    // responsewriters.forbiddenMessage
    let reason = match &rp.namespace {
        Some(ns) => format!(
            "User {user:?} cannot {verb} resource {resource:?} in API group {group:?} in the namespace {ns:?}"
        ),
        None => format!(
            "User {user:?} cannot {verb} resource {resource:?} in API group {group:?} at the cluster scope"
        ),
    };
    // apierrors.NewForbidden(GroupResource{group, resource}, name, reason): the qualified
    // resource is `pods` or `daemonsets.apps` (without the subresource).
    let qualified = if group.is_empty() {
        rp.kind.plural().to_string()
    } else {
        format!("{}.{group}", rp.kind.plural())
    };
    let message = match &rp.name {
        Some(name) => format!("{qualified} {name:?} is forbidden: {reason}"),
        None => format!("{qualified} is forbidden: {reason}"),
    };
    // StatusDetails: name and group are omitted when empty; kind carries the resource.
    let mut details = serde_json::Map::new();
    if let Some(name) = &rp.name {
        details.insert("name".into(), json!(name));
    }
    if !group.is_empty() {
        details.insert("group".into(), json!(group));
    }
    details.insert("kind".into(), json!(rp.kind.plural()));
    ApiError {
        code: 403,
        reason: "Forbidden",
        message,
        details: Some(serde_json::Value::Object(details)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Kind;

    fn path(kind: Kind, ns: Option<&str>, name: Option<&str>, sub: Option<&str>) -> ResourcePath {
        ResourcePath {
            kind,
            namespace: ns.map(Into::into),
            name: name.map(Into::into),
            subresource: sub.map(Into::into),
            events_v1: false,
        }
    }

    fn rule(resource: &str, verbs: &[&str]) -> ForbiddenRule {
        ForbiddenRule {
            resource: resource.into(),
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn refusals_read_exactly_like_kube_apiserver_for_each_scope() {
        let sa = "system:serviceaccount:default:daemonscope";
        let cases = [
            (
                "cluster-wide list of core pods",
                path(Kind::Pod, None, None, None),
                "list",
                "pods is forbidden: User \"system:serviceaccount:default:daemonscope\" cannot list resource \"pods\" in API group \"\" at the cluster scope",
                json!({"kind": "pods"}),
            ),
            (
                "namespaced watch of apps daemonsets",
                path(Kind::DaemonSet, Some("kube-system"), None, None),
                "watch",
                "daemonsets.apps is forbidden: User \"system:serviceaccount:default:daemonscope\" cannot watch resource \"daemonsets\" in API group \"apps\" in the namespace \"kube-system\"",
                json!({"group": "apps", "kind": "daemonsets"}),
            ),
            (
                "get of a named node's status subresource",
                path(Kind::Node, None, Some("n1"), Some("status")),
                "get",
                "nodes \"n1\" is forbidden: User \"system:serviceaccount:default:daemonscope\" cannot get resource \"nodes/status\" in API group \"\" at the cluster scope",
                json!({"name": "n1", "kind": "nodes"}),
            ),
        ];
        for (what, rp, verb, message, details) in cases {
            let err = forbidden(sa, verb, &rp);
            assert_eq!(err.code, 403, "{what}");
            assert_eq!(err.reason, "Forbidden", "{what}");
            assert_eq!(err.message, message, "{what}");
            let status = err.status_json();
            assert_eq!(status["details"], details, "{what}");
            assert_eq!(status["status"], "Failure", "{what}");
            assert_eq!(status["kind"], "Status", "{what}");
        }
    }

    #[test]
    fn a_rule_refuses_only_its_resource_and_verbs() {
        let rules = [rule("pods", &["list", "watch"])];
        let pods = path(Kind::Pod, None, None, None);
        let nodes = path(Kind::Node, None, None, None);
        assert!(check(&rules, ANONYMOUS, "list", &pods).is_err());
        assert!(check(&rules, ANONYMOUS, "watch", &pods).is_err());
        assert!(check(&rules, ANONYMOUS, "get", &pods).is_ok());
        assert!(check(&rules, ANONYMOUS, "list", &nodes).is_ok());
        let all = [rule("*", &[])];
        assert!(check(&all, ANONYMOUS, "delete", &nodes).is_err());
        // A subresource is its own RBAC resource: `pods` does not cover `pods/status`.
        let status = path(Kind::Pod, Some("a"), Some("p"), Some("status"));
        assert!(check(&[rule("pods", &[])], ANONYMOUS, "get", &status).is_ok());
        assert!(check(&[rule("pods/status", &[])], ANONYMOUS, "get", &status).is_err());
    }

    #[test]
    fn requests_are_anonymous_unless_they_impersonate_a_user() {
        let mut headers = HeaderMap::new();
        assert_eq!(user(&headers), "system:anonymous");
        headers.insert(
            "Impersonate-User",
            axum::http::HeaderValue::from_static("system:serviceaccount:default:daemonscope"),
        );
        assert_eq!(user(&headers), "system:serviceaccount:default:daemonscope");
    }
}
