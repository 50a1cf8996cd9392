//! Discovery and OpenAPI: `/version`, `/api`, `/apis` (aggregated or legacy, chosen by the
//! Accept header and announced in the Content-Type, which is all client-go looks at), the
//! group-version resource lists, and the minimal OpenAPI v3 documents kubectl needs before
//! `create -f` and `apply -f` (a PATCH operation with the `fieldValidation` parameter).
use axum::extract::Path;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::{json_response, ApiError};
use crate::store::{Kind, SCHEDULING_GROUP};

/// The Kubernetes version the simulated cluster claims.
pub const GIT_VERSION: &str = "v1.37.0";
const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

fn wants_aggregated(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("as=APIGroupDiscoveryList"))
}

fn typed(content_type: &'static str, body: Value) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, content_type)],
        body.to_string(),
    )
        .into_response()
}

/// `GET /version`.
pub async fn version() -> Response {
    typed(
        "application/json",
        json!({
            "major": "1", "minor": "37", "gitVersion": GIT_VERSION, "gitCommit": "daemonscope-sim",
            "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.25.0",
            "compiler": "gc", "platform": "linux/amd64",
        }),
    )
}

fn kinds_of(group: &str) -> impl Iterator<Item = Kind> + '_ {
    Kind::ALL.into_iter().filter(move |k| k.group() == group)
}

fn scope(kind: Kind) -> &'static str {
    if kind.namespaced() {
        "Namespaced"
    } else {
        "Cluster"
    }
}

fn aggregated_group(group: &str) -> Value {
    let resources: Vec<Value> = kinds_of(group)
        .map(|k| {
            let gvk = json!({"group": group, "version": "v1", "kind": k.kind_name()});
            let mut r = json!({
                "resource": k.plural(), "responseKind": gvk, "scope": scope(k), "singularResource": k.singular(),
                "verbs": VERBS, "shortNames": k.short_names(),
            });
            if matches!(k, Kind::Pod | Kind::DaemonSet | Kind::Node) {
                r["categories"] = json!(["all"]);
            }
            if k.has_status() {
                r["subresources"] = json!([{"subresource": "status", "responseKind": gvk, "verbs": ["get", "patch", "update"]}]);
            }
            r
        })
        .collect();
    let metadata = if group.is_empty() {
        json!({})
    } else {
        json!({"name": group})
    };
    json!({"metadata": metadata, "versions": [{"version": "v1", "freshness": "Current", "resources": resources}]})
}

/// `GET /api`.
pub async fn core_root(headers: HeaderMap) -> Response {
    if wants_aggregated(&headers) {
        return typed(
            AGGREGATED,
            json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": [aggregated_group("")]}),
        );
    }
    typed(
        "application/json",
        json!({"kind": "APIVersions", "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}),
    )
}

/// `GET /apis`.
pub async fn groups_root(headers: HeaderMap) -> Response {
    if wants_aggregated(&headers) {
        return typed(
            AGGREGATED,
            json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": [aggregated_group("apps"), super::events_v1::aggregated_group(), aggregated_group(SCHEDULING_GROUP)]}),
        );
    }
    let gv = json!({"groupVersion": "apps/v1", "version": "v1"});
    let scheduling = json!({"groupVersion": format!("{SCHEDULING_GROUP}/v1"), "version": "v1"});
    typed(
        "application/json",
        json!({"kind": "APIGroupList", "apiVersion": "v1",
        "groups": [{"name": "apps", "versions": [gv], "preferredVersion": gv}, super::events_v1::legacy_group(),
            {"name": SCHEDULING_GROUP, "versions": [scheduling], "preferredVersion": scheduling}]}),
    )
}

/// `GET /api/v1` or `/apis/apps/v1`: the legacy resource list.
pub fn group_version(group: &str) -> Response {
    let mut resources = Vec::new();
    for k in kinds_of(group) {
        let mut r = json!({"name": k.plural(), "singularName": k.singular(), "namespaced": k.namespaced(),
            "kind": k.kind_name(), "verbs": VERBS, "shortNames": k.short_names()});
        if matches!(k, Kind::Pod | Kind::DaemonSet | Kind::Node) {
            r["categories"] = json!(["all"]);
        }
        resources.push(r);
        if k.has_status() {
            resources.push(json!({"name": format!("{}/status", k.plural()), "singularName": "", "namespaced": k.namespaced(),
                "kind": k.kind_name(), "verbs": ["get", "patch", "update"]}));
        }
    }
    let group_version = if group.is_empty() {
        "v1".to_string()
    } else {
        format!("{group}/v1")
    };
    json_response(StatusCode::OK, json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}).to_string())
}

fn openapi_hash(group: &str) -> &'static str {
    match group {
        "" => "core-v1",
        SCHEDULING_GROUP => "scheduling-v1",
        _ => "apps-v1",
    }
}

/// `GET /openapi/v3`: where each group-version's document is.
pub async fn openapi_root() -> Response {
    json_response(StatusCode::OK, json!({"paths": {
        "api/v1": {"serverRelativeURL": format!("/openapi/v3/api/v1?hash={}", openapi_hash(""))},
        "apis/apps/v1": {"serverRelativeURL": format!("/openapi/v3/apis/apps/v1?hash={}", openapi_hash("apps"))},
        "apis/scheduling.k8s.io/v1": {"serverRelativeURL": format!("/openapi/v3/apis/scheduling.k8s.io/v1?hash={}", openapi_hash(SCHEDULING_GROUP))},
    }}).to_string())
}

/// `GET /openapi/v3/api/v1` or `/openapi/v3/apis/apps/v1`: PATCH operations that announce
/// `fieldValidation`, so kubectl leaves validation to the server (which is strict).
pub async fn openapi_group_version(Path(gv): Path<String>) -> Response {
    let (group, prefix) = match gv.as_str() {
        "api/v1" => ("", "/api/v1"),
        "apis/apps/v1" => ("apps", "/apis/apps/v1"),
        "apis/scheduling.k8s.io/v1" => (SCHEDULING_GROUP, "/apis/scheduling.k8s.io/v1"),
        _ => return ApiError::no_route().into_response(),
    };
    let mut paths = serde_json::Map::new();
    for k in kinds_of(group) {
        let path = if k.namespaced() {
            format!("{prefix}/namespaces/{{namespace}}/{}/{{name}}", k.plural())
        } else {
            format!("{prefix}/{}/{{name}}", k.plural())
        };
        let op = json!({
            "x-kubernetes-group-version-kind": {"group": group, "version": "v1", "kind": k.kind_name()},
            "parameters": [
                {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}},
                {"name": "fieldManager", "in": "query", "schema": {"type": "string"}},
                {"name": "dryRun", "in": "query", "schema": {"type": "string"}},
            ],
            "responses": {"200": {"description": "OK"}},
        });
        paths.insert(path, json!({"patch": op, "put": op}));
    }
    json_response(
        StatusCode::OK,
        json!({"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": GIT_VERSION},
        "components": {"schemas": {}}, "paths": paths})
        .to_string(),
    )
}
