//! POST, PUT, PATCH and DELETE: body decoding and validation, namespace and name checks
//! against the URL, patch application with retry on concurrent writes, and the responses
//! (201 on create, the object or a Success Status on delete) kubectl expects.
use axum::body::Bytes;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};

use super::read::Selection;
use super::validate::FieldValidation;
use super::{json_response, patch, protobuf, validate, ApiError, ApiState, Params, ResourcePath};
use crate::store::{DeleteOptions, DeleteOutcome, Kind, StoreError, UpdateTarget};

fn parse_body(kind: Kind, body: &Bytes) -> Result<Value, ApiError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!("{k} in version \"v1\" cannot be handled as a {k}: couldn't decode the body as JSON: {e}", k = kind.kind_name()))
    })?;
    if !v.is_object() {
        return Err(ApiError::bad_request(
            "the request body must be a JSON object",
        ));
    }
    Ok(v)
}

/// The write's `fieldValidation` directive; `options_kind` names its options type in the 422.
fn directive(params: &Params, options_kind: &str) -> Result<FieldValidation, ApiError> {
    FieldValidation::parse(params.field_validation.as_deref(), options_kind)
}

/// `response` with one `Warning: 299 - "text"` header per warning, as kube-apiserver sends
/// them (apimachinery `net.NewWarningHeader`: agent `-`, text quoted with `"` and `\`
/// escaped). A text a header cannot carry is dropped, as the API server drops it.
fn with_warnings(mut response: Response, warnings: &[String]) -> Response {
    for text in warnings {
        if text.chars().any(char::is_control) {
            continue;
        }
        let quoted = text.replace('\\', "\\\\").replace('"', "\\\"");
        if let Ok(value) = HeaderValue::from_str(&format!("299 - \"{quoted}\"")) {
            response.headers_mut().append(header::WARNING, value);
        }
    }
    response
}

/// Fill the namespace from the URL, or reject a body that names another one.
fn check_namespace(rp: &ResourcePath, obj: &mut Value) -> Result<(), ApiError> {
    if !rp.kind.namespaced() {
        return Ok(());
    }
    let Some(path_ns) = rp.namespace.as_deref() else {
        return Err(ApiError::method_not_allowed(
            "a namespaced object must be written under /namespaces/NAMESPACE/",
        ));
    };
    let body_ns = obj
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !body_ns.is_empty() && body_ns != path_ns {
        return Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    if let Some(meta) = obj
        .as_object_mut()
        .map(|o| o.entry("metadata").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
    {
        meta.insert("namespace".into(), json!(path_ns));
    }
    Ok(())
}

fn check_name(rp: &ResourcePath, obj: &Value) -> Result<(), ApiError> {
    let url_name = rp.name.as_deref().unwrap_or("");
    let body_name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if body_name != url_name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({url_name})"
        )));
    }
    Ok(())
}

fn target(rp: &ResourcePath) -> UpdateTarget {
    if rp.subresource.as_deref() == Some("status") {
        UpdateTarget::Status
    } else {
        UpdateTarget::Object
    }
}

/// POST: create (201 with the stored object).
pub fn create(
    state: &ApiState,
    rp: &ResourcePath,
    params: &Params,
    content_type: &str,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let directive = directive(params, "CreateOptions")?;
    let mut obj = if content_type.starts_with("application/vnd.kubernetes.protobuf") {
        if rp.kind != Kind::Namespace {
            return Err(ApiError::unsupported_media_type(content_type));
        }
        protobuf::decode_namespace(body)
            .map_err(|e| ApiError::bad_request(format!("cannot decode the protobuf body: {e}")))?
    } else {
        parse_body(rp.kind, body)?
    };
    check_namespace(rp, &mut obj)?;
    let (mut obj, warnings) = validate::normalize(rp.kind, &obj, directive)?;
    super::admission::admit_create(rp.kind, &mut obj);
    // The Priority admission (mutating, so before validation): an unknown class (§k.5).
    if rp.kind == Kind::Pod {
        if let Ok(pod) = serde_json::from_value::<k8s_openapi::api::core::v1::Pod>(obj.clone()) {
            if let Some(message) = super::priority::refusal(&state.store, &pod) {
                return Err(forbidden_pod(&message));
            }
        }
    }
    crate::validation::check(rp.kind, &obj)?;
    if rp.kind == Kind::PriorityClass {
        super::priority_validation::check_create(&state.store, &obj)?; // §k.5
    }
    // Validating admission after validation, as kube-apiserver orders them: Pod Security (§l.3).
    if rp.kind == Kind::Pod {
        if let Ok(pod) = serde_json::from_value::<k8s_openapi::api::core::v1::Pod>(obj.clone()) {
            let namespace = pod.metadata.namespace.clone().unwrap_or_default();
            // ResourceQuota last (§l.6): kube-apiserver runs it after every other plugin.
            let refused = super::pod_security::refusal(&state.store, &namespace, &pod)
                .or_else(|| crate::quota::refusal(&state.store, &namespace, &pod));
            if let Some(message) = refused {
                return Err(forbidden_pod(&message));
            }
        }
    }
    if params.dry_run {
        let response = json_response(StatusCode::CREATED, obj.to_string());
        return Ok(with_warnings(response, &warnings));
    }
    let stored = state.store.create_value(rp.kind, obj, false)?;
    let response = json_response(StatusCode::CREATED, stored.raw.clone());
    Ok(with_warnings(response, &warnings))
}

/// PUT: replace the object or its status.
pub fn update(
    state: &ApiState,
    rp: &ResourcePath,
    params: &Params,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let directive = directive(params, "UpdateOptions")?;
    let mut obj = parse_body(rp.kind, body)?;
    check_namespace(rp, &mut obj)?;
    check_name(rp, &obj)?;
    let (obj, warnings) = validate::normalize(rp.kind, &obj, directive)?;
    if target(rp) == UpdateTarget::Object {
        crate::validation::check(rp.kind, &obj)?;
        if rp.kind == Kind::PriorityClass {
            super::priority_validation::check_update(&state.store, &obj)?; // §k.5
        }
    }
    if params.dry_run {
        let response = json_response(StatusCode::OK, obj.to_string());
        return Ok(with_warnings(response, &warnings));
    }
    let stored = state.store.update_value(rp.kind, obj, target(rp))?;
    let response = json_response(StatusCode::OK, stored.raw.clone());
    Ok(with_warnings(response, &warnings))
}

/// PATCH with any of the three patch types; retried when another write lands in between.
pub fn patch(
    state: &ApiState,
    rp: &ResourcePath,
    params: &Params,
    content_type: &str,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let directive = directive(params, "PatchOptions")?;
    let media = content_type.split(';').next().unwrap_or("").trim();
    if !matches!(
        media,
        "application/json-patch+json"
            | "application/merge-patch+json"
            | "application/strategic-merge-patch+json"
    ) {
        return Err(ApiError::unsupported_media_type(content_type));
    }
    let patch_doc: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
    let name = rp.name.clone().unwrap_or_default();
    for _attempt in 0..8 {
        let existing = state
            .store
            .get_raw(rp.kind, rp.namespace.as_deref(), &name)
            .ok_or_else(|| StoreError::NotFound {
                kind: rp.kind,
                namespace: rp.namespace.clone(),
                name: name.clone(),
            })?;
        let mut doc = existing.value()?;
        let applied = match media {
            "application/json-patch+json" => {
                serde_json::from_value::<json_patch::Patch>(patch_doc.clone())
                    .map_err(patch::PatchError::from)
                    .and_then(|p| {
                        json_patch::patch(&mut doc, &p.0)
                            .map_err(|e| patch::PatchError::from(Box::new(e)))
                    })
            }
            "application/merge-patch+json" => {
                json_patch::merge(&mut doc, &patch_doc);
                Ok(())
            }
            _ => patch::strategic_merge(rp.kind, &mut doc, &patch_doc),
        };
        applied.map_err(|e| {
            ApiError::invalid(
                rp.kind,
                &name,
                format!(
                    "the patch could not be applied to {} {name:?}: {e}",
                    rp.kind.qualified_resource()
                ),
            )
        })?;
        if let Some(meta) = doc.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("name".into(), json!(name));
            if let Some(ns) = &rp.namespace {
                meta.insert("namespace".into(), json!(ns));
            }
        }
        let current_rv = existing.resource_version.to_string();
        let precondition_is_ours = doc
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .is_none_or(|rv| rv == current_rv);
        if let Some(meta) = doc.get_mut("metadata").and_then(Value::as_object_mut) {
            if precondition_is_ours {
                meta.insert("resourceVersion".into(), json!(current_rv));
            }
        }
        let (obj, warnings) = validate::normalize(rp.kind, &doc, directive)?;
        if target(rp) == UpdateTarget::Object {
            crate::validation::check(rp.kind, &obj)?;
            if rp.kind == Kind::PriorityClass {
                super::priority_validation::check_update(&state.store, &obj)?; // §k.5
            }
        }
        if params.dry_run {
            let response = json_response(StatusCode::OK, obj.to_string());
            return Ok(with_warnings(response, &warnings));
        }
        match state.store.update_value(rp.kind, obj, target(rp)) {
            Ok(stored) => {
                let response = json_response(StatusCode::OK, stored.raw.clone());
                return Ok(with_warnings(response, &warnings));
            }
            Err(StoreError::Conflict { .. }) if precondition_is_ours => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(StoreError::Conflict {
        kind: rp.kind,
        name,
        reason: crate::store::STALE_MESSAGE.into(),
    }
    .into())
}

fn delete_options(params: &Params, body: &Bytes) -> Result<DeleteOptions, ApiError> {
    let mut opts = DeleteOptions {
        grace_period_seconds: params.grace_period_seconds,
        ..DeleteOptions::default()
    };
    if !body.is_empty() {
        let v: Value = serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")))?;
        if let Some(g) = v.get("gracePeriodSeconds").and_then(Value::as_i64) {
            opts.grace_period_seconds = Some(g);
        }
        opts.precondition_uid = v
            .pointer("/preconditions/uid")
            .and_then(Value::as_str)
            .map(str::to_string);
        opts.precondition_resource_version = v
            .pointer("/preconditions/resourceVersion")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    Ok(opts)
}

fn success_status(rp: &ResourcePath, name: &str, uid: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "details": {"name": name, "group": rp.kind.group(), "kind": rp.kind.plural(), "uid": uid}})
}

/// DELETE one object: the terminating object (200), or a Success Status once it is gone.
pub fn delete(
    state: &ApiState,
    rp: &ResourcePath,
    params: &Params,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let opts = delete_options(params, body)?;
    let name = rp.name.clone().unwrap_or_default();
    if rp.kind == Kind::PriorityClass {
        super::priority_validation::check_delete(&name)?; // §k.5
    }
    if params.dry_run {
        let obj = state
            .store
            .get_raw(rp.kind, rp.namespace.as_deref(), &name)
            .ok_or_else(|| StoreError::NotFound {
                kind: rp.kind,
                namespace: rp.namespace.clone(),
                name: name.clone(),
            })?;
        return Ok(json_response(StatusCode::OK, obj.raw.clone()));
    }
    Ok(
        match state
            .store
            .delete_object(rp.kind, rp.namespace.as_deref(), &name, &opts)?
        {
            DeleteOutcome::Terminating(obj) => json_response(StatusCode::OK, obj.raw.clone()),
            DeleteOutcome::Deleted(obj) => json_response(
                StatusCode::OK,
                success_status(rp, &name, &obj.facts.uid).to_string(),
            ),
        },
    )
}

/// DELETE on a collection: delete every selected object.
pub fn delete_collection(
    state: &ApiState,
    rp: &ResourcePath,
    params: &Params,
    body: &Bytes,
) -> Result<Response, ApiError> {
    let selection = Selection::from_params(rp, params)?;
    let opts = delete_options(params, body)?;
    let page = state
        .store
        .list_page(rp.kind, rp.namespace.as_deref(), None, None, &|o| {
            selection.matches(o)
        });
    if !params.dry_run {
        for obj in &page.items {
            match state.store.delete_object(
                rp.kind,
                obj.facts.namespace.as_deref(),
                &obj.facts.name,
                &opts,
            ) {
                Ok(_) | Err(StoreError::NotFound { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    Ok(json_response(
        StatusCode::OK,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"})
            .to_string(),
    ))
}

/// The 403 of an admission plugin that refuses a pod, from its kube-apiserver message
/// (`pods "NAME" is forbidden: CAUSE`): the Priority and Pod Security admissions word their
/// refusals whole, and the status names the pod and the cause apart.
fn forbidden_pod(message: &str) -> ApiError {
    let cause = message
        .split_once(" is forbidden: ")
        .map_or(message, |(_, c)| c);
    let name = message
        .split_once('"')
        .and_then(|(_, rest)| rest.split_once('"'))
        .map_or("Unknown", |(name, _)| name);
    ApiError::forbidden(Kind::Pod, name, cause)
}
