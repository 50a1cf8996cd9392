//! The simulated cluster's HTTP API: the Kubernetes REST paths, verbs and wire formats that
//! kubectl and kube-rs use (see `docs/kube-api-wire.md`), served by axum over the `Store`.
//!
//! Resource paths are parsed by hand (`/api/v1/namespaces/NS/pods/NAME/status`) rather than
//! with route patterns, because Kubernetes paths are ambiguous by position
//! (`namespaces/X/status` is a subresource, `namespaces/X/pods` a collection).
mod admission;
pub mod authz;
mod discovery;
pub mod events_v1;
mod list_version;
mod patch;
pub(crate) mod pod_security;
pub(crate) mod priority;
mod priority_validation;
mod protobuf;
mod read;
mod readyz;
pub mod status;
pub mod storage;
mod table;
mod validate;
mod watch;
mod write;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::audit::{AuditEntry, AuditLog};
use super::store::{Kind, Store};
pub use status::ApiError;

/// Tunables of the HTTP API.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// How often an idle watch that asked for bookmarks gets one (kube-apiserver: about a
    /// minute; a scenario's `spec.apiServer.bookmarkInterval` overrides it).
    pub bookmark_interval: Duration,
    /// Watch length when the client gives no `timeoutSeconds`.
    pub default_watch_timeout: Duration,
    /// Requests refused with 403 as RBAC would (scenario `forbidden:` plus test choices).
    pub forbidden: Vec<crate::scenario::settings::ForbiddenRule>,
    /// Whether the storage answers (`/debug/storage` flips it at run time).
    pub storage: storage::StorageSwitch,
    /// How long a read or write waits for an unavailable storage before its 504
    /// (kube-apiserver's `--request-timeout`, 60 s).
    pub request_timeout: Duration,
}

impl Default for ApiSettings {
    fn default() -> Self {
        ApiSettings {
            bookmark_interval: crate::scenario::settings::DEFAULT_BOOKMARK_INTERVAL,
            default_watch_timeout: Duration::from_secs(1800),
            forbidden: Vec::new(),
            storage: storage::StorageSwitch::default(),
            request_timeout: storage::REQUEST_TIMEOUT,
        }
    }
}

/// Shared state of the handlers.
#[derive(Clone)]
pub struct ApiState {
    pub store: Store,
    pub audit: AuditLog,
    pub settings: Arc<ApiSettings>,
    /// Becomes true when the server shuts down: open watch streams end.
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// The controllers' tasks, so `/readyz` fails while one is down after a panic.
    pub tasks: daemonscope_supervise::Supervisor,
}

/// What a resource path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePath {
    pub kind: Kind,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
    /// Served as events.k8s.io/v1 (core/v1 Events converted on the way out).
    pub events_v1: bool,
}

/// A path under `/api` or `/apis`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiPath {
    /// `/api/v1`, `/apis/apps/v1`: a group-version's resource list.
    GroupVersion {
        group: String,
    },
    Resource(ResourcePath),
}

/// Parse `/api/v1/...` or `/apis/GROUP/VERSION/...`; None when the server does not serve it.
pub fn parse_path(path: &str) -> Option<ApiPath> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, rest) = match segs.as_slice() {
        ["api", "v1", rest @ ..] => ("", rest),
        ["apis", "apps", "v1", rest @ ..] => ("apps", rest),
        ["apis", crate::store::SCHEDULING_GROUP, "v1", rest @ ..] => {
            (crate::store::SCHEDULING_GROUP, rest)
        }
        ["apis", events_v1::GROUP, "v1", rest @ ..] => (events_v1::GROUP, rest),
        _ => return None,
    };
    let events_v1 = group == events_v1::GROUP;
    let resource = |plural: &str| {
        if events_v1 {
            (plural == "events").then_some(Kind::Event)
        } else {
            Kind::from_resource(group, plural)
        }
    };
    let path = |kind: Kind, namespace: Option<&str>, name: Option<&str>, sub: Option<&str>| {
        Some(ApiPath::Resource(ResourcePath {
            kind,
            namespace: namespace.map(str::to_string),
            name: name.map(str::to_string),
            subresource: sub.map(str::to_string),
            events_v1,
        }))
    };
    match rest {
        [] => Some(ApiPath::GroupVersion {
            group: group.to_string(),
        }),
        ["namespaces", ns, plural, tail @ ..] if resource(plural).is_some_and(Kind::namespaced) => {
            let kind = resource(plural)?;
            match tail {
                [] => path(kind, Some(ns), None, None),
                [name] => path(kind, Some(ns), Some(name), None),
                [name, sub] => path(kind, Some(ns), Some(name), Some(sub)),
                _ => None,
            }
        }
        [plural] => path(resource(plural)?, None, None, None),
        [plural, name] => {
            let kind = resource(plural)?;
            (!kind.namespaced()).then_some(())?;
            path(kind, None, Some(name), None)
        }
        [plural, name, sub] => {
            let kind = resource(plural)?;
            (!kind.namespaced()).then_some(())?;
            path(kind, None, Some(name), Some(sub))
        }
        _ => None,
    }
}

/// Query parameters of resource requests. kube-rs sends `?&limit=500`: empty pairs are skipped.
#[derive(Debug, Clone, Default)]
pub struct Params {
    pub watch: bool,
    pub label_selector: String,
    pub field_selector: String,
    pub limit: Option<usize>,
    pub continue_token: Option<String>,
    pub resource_version: Option<String>,
    pub resource_version_match: Option<String>,
    pub allow_watch_bookmarks: bool,
    pub send_initial_events: Option<bool>,
    pub timeout_seconds: Option<u64>,
    pub include_object: Option<String>,
    pub field_validation: Option<String>,
    pub grace_period_seconds: Option<i64>,
    pub dry_run: bool,
}

impl Params {
    /// Parse a raw query string.
    pub fn parse(query: Option<&str>) -> Result<Params, ApiError> {
        let mut p = Params::default();
        let truthy = |v: &str| v == "true" || v == "1";
        for (k, v) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            let number = |what: &str| -> Result<i64, ApiError> {
                v.parse::<i64>().map_err(|_| {
                    ApiError::bad_request(format!("invalid value {v:?} for {what}: not an integer"))
                })
            };
            match k.as_ref() {
                "watch" => p.watch = truthy(&v),
                "labelSelector" => p.label_selector = v.into_owned(),
                "fieldSelector" => p.field_selector = v.into_owned(),
                "limit" => p.limit = Some(number("limit")?.max(0) as usize),
                "continue" if !v.is_empty() => p.continue_token = Some(v.into_owned()),
                "resourceVersion" => p.resource_version = Some(v.into_owned()),
                "resourceVersionMatch" if !v.is_empty() => {
                    p.resource_version_match = Some(v.into_owned())
                }
                "allowWatchBookmarks" => p.allow_watch_bookmarks = truthy(&v),
                "sendInitialEvents" => p.send_initial_events = Some(truthy(&v)),
                "timeoutSeconds" => {
                    p.timeout_seconds = Some(number("timeoutSeconds")?.max(0) as u64)
                }
                "includeObject" => p.include_object = Some(v.into_owned()),
                "fieldValidation" => p.field_validation = Some(v.into_owned()),
                "gracePeriodSeconds" => {
                    p.grace_period_seconds = Some(number("gracePeriodSeconds")?)
                }
                "dryRun" => p.dry_run = !v.is_empty(),
                _ => {}
            }
        }
        Ok(p)
    }
}

/// How the client wants objects rendered, from its Accept header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rendering {
    Json,
    Table,
    PartialMetadata,
}

/// Pick a rendering; protobuf and anything unknown get JSON, as a real server negotiates.
pub fn rendering(headers: &HeaderMap) -> Rendering {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if accept.contains("as=Table") {
        Rendering::Table
    } else if accept.contains("as=PartialObjectMetadata") {
        Rendering::PartialMetadata
    } else {
        Rendering::Json
    }
}

/// The audit verb of a request, as the API server's audit log names it.
pub fn verb(method: &Method, path: &ApiPath, params: &Params) -> &'static str {
    let named = matches!(path, ApiPath::Resource(ResourcePath { name: Some(_), .. }));
    match *method {
        Method::GET if params.watch => "watch",
        Method::GET if named => "get",
        Method::GET => "list",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE if named => "delete",
        Method::DELETE => "deletecollection",
        _ => "unknown",
    }
}

/// The router of the whole API (no socket: testable with `oneshot`).
pub fn router(state: ApiState) -> Router {
    Router::new()
        .route("/version", get(discovery::version))
        .route("/api", get(discovery::core_root))
        .route("/apis", get(discovery::groups_root))
        .route("/openapi/v3", get(discovery::openapi_root))
        .route("/openapi/v3/{*gv}", get(discovery::openapi_group_version))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz::readyz))
        .route("/livez", get(|| async { "ok" }))
        .route("/debug/audit", get(debug_audit))
        .route("/debug/history", get(debug_history))
        .route("/debug/storage", get(storage::get).put(storage::put))
        .fallback(resource)
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BODY_BYTES))
        .layer(middleware::from_fn_with_state(state.clone(), audit_layer))
        .with_state(state)
}

async fn debug_audit(State(state): State<ApiState>) -> Response {
    let body = serde_json::to_string(&state.audit.entries()).unwrap_or_else(|_| "[]".into());
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// What the watch history holds (changes, JSON bytes, oldest age in seconds): the figures
/// behind the window's memory bound in the README.
async fn debug_history(State(state): State<ApiState>) -> Response {
    let s = state.store.history_stats();
    let body = serde_json::json!({"entries": s.entries, "bytes": s.bytes,
        "oldestAgeSeconds": s.oldest_age.as_secs_f64(), "resourceVersion": state.store.resource_version()});
    (
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Record every request in the audit log, with its status code.
async fn audit_layer(State(state): State<ApiState>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let uri = request.uri().clone();
    let user_agent = request
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let response = next.run(request).await;
    if uri.path().starts_with("/debug/") {
        return response;
    }
    let params = Params::parse(uri.query()).unwrap_or_default();
    let parsed = parse_path(uri.path());
    let (verb_name, resource, namespace, name, subresource) = match &parsed {
        Some(p @ ApiPath::Resource(r)) => (
            verb(&method, p, &params).to_string(),
            r.kind.plural().to_string(),
            r.namespace.clone(),
            r.name.clone(),
            r.subresource.clone(),
        ),
        _ => (
            method.as_str().to_ascii_lowercase(),
            String::new(),
            None,
            None,
            None,
        ),
    };
    state.audit.record(AuditEntry {
        seq: 0,
        verb: verb_name,
        resource,
        namespace,
        name,
        subresource,
        path: uri.path().to_string(),
        query: uri.query().unwrap_or("").to_string(),
        user_agent,
        code: response.status().as_u16(),
    });
    response
}

/// kube-apiserver's `MaxRequestBodyBytes` default (3 MiB): a larger body is refused.
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;

/// Every resource request: dispatch on the parsed path and the method.
async fn resource(
    State(state): State<ApiState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    // Over the limit, kube-apiserver answers a Status 413 RequestEntityTooLarge (issue 15),
    // which kube-rs and kubectl parse; axum's own rejection is plain text.
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return ApiError::too_large(MAX_REQUEST_BODY_BYTES).into_response()
        }
        Err(rejection) => return ApiError::bad_request(rejection.body_text()).into_response(),
    };
    match dispatch(&state, &method, &uri, &headers, body).await {
        Ok(response) => response,
        Err(err) => err.into_response(),
    }
}

async fn dispatch(
    state: &ApiState,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let path = parse_path(uri.path()).ok_or_else(ApiError::no_route)?;
    let params = Params::parse(uri.query())?;
    let rp = match path {
        ApiPath::GroupVersion { group } if *method == Method::GET => {
            if group == events_v1::GROUP {
                return Ok(json_response(
                    axum::http::StatusCode::OK,
                    events_v1::resource_list().to_string(),
                ));
            }
            return Ok(discovery::group_version(&group));
        }
        ApiPath::GroupVersion { .. } => {
            return Err(ApiError::method_not_allowed("only GET is served here"))
        }
        ApiPath::Resource(rp) => rp,
    };
    let sub_ok = match rp.subresource.as_deref() {
        None => true,
        Some("status") => rp.kind.has_status(),
        Some(_) => false,
    };
    if !sub_ok {
        return Err(ApiError::no_route());
    }
    // Authorization comes after routing, as in kube-apiserver's filter chain.
    let request_verb = verb(method, &ApiPath::Resource(rp.clone()), &params);
    authz::check(
        &state.settings.forbidden,
        &authz::user(headers),
        request_verb,
        &rp,
    )?;
    if rp.events_v1 && *method != Method::GET {
        return Err(ApiError::method_not_allowed(format!(
            "{method} is not supported on events.k8s.io/v1 by the simulated cluster (write core/v1 Events)"
        )));
    }
    let render = rendering(headers);
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json");
    // Without its storage, kube-apiserver still serves watches from its cache; the rest waits
    // for etcd until the request timeout.
    if !params.watch {
        if let Err(timed_out) = state
            .settings
            .storage
            .wait(state.settings.request_timeout)
            .await
        {
            return Ok(timed_out);
        }
    }
    match (method.clone(), rp.name.is_some()) {
        (Method::GET, _) if params.watch => watch::watch(state, &rp, &params, render),
        (Method::GET, true) => read::get(state, &rp, &params, render),
        (Method::GET, false) => read::list(state, &rp, &params, render).await,
        (Method::POST, false) => write::create(state, &rp, &params, content_type, &body),
        (Method::PUT, true) => write::update(state, &rp, &params, &body),
        (Method::PATCH, true) => write::patch(state, &rp, &params, content_type, &body),
        (Method::DELETE, true) => write::delete(state, &rp, &params, &body),
        (Method::DELETE, false) => write::delete_collection(state, &rp, &params, &body),
        _ => Err(ApiError::method_not_allowed(format!(
            "{method} is not supported on this path"
        ))),
    }
}

/// A JSON response with an explicit status code.
pub(crate) fn json_response(
    code: axum::http::StatusCode,
    body: impl Into<axum::body::Body>,
) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = code;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests;
