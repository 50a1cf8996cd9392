//! `Status` error responses, with the code, reason and message a real API server sends, so
//! kubectl prints `Error from server (NotFound): daemonsets.apps "x" not found` and kube-rs
//! sees the right `ErrorResponse`.
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::store::{Kind, StoreError};

/// An API error rendered as a `Status` object.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
    pub details: Option<Value>,
}

impl ApiError {
    /// 400 BadRequest.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            code: 400,
            reason: "BadRequest",
            message: message.into(),
            details: None,
        }
    }

    /// 404 for a path the server does not serve.
    pub fn no_route() -> ApiError {
        ApiError {
            code: 404,
            reason: "NotFound",
            message: "the server could not find the requested resource".into(),
            details: None,
        }
    }

    /// 405 for a verb a resource does not support.
    pub fn method_not_allowed(message: impl Into<String>) -> ApiError {
        ApiError {
            code: 405,
            reason: "MethodNotAllowed",
            message: message.into(),
            details: None,
        }
    }

    /// 415 for a patch type the server does not implement.
    pub fn unsupported_media_type(content_type: &str) -> ApiError {
        ApiError { code: 415, reason: "UnsupportedMediaType", message: format!("the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got {content_type:?})"), details: None }
    }

    /// 403 Forbidden from an admission plugin (`admission.NewForbidden`):
    /// `RESOURCE "NAME" is forbidden: CAUSE`, details naming the object.
    pub fn forbidden(kind: Kind, name: &str, cause: &str) -> ApiError {
        let resource = match kind.group() {
            "" => kind.plural().to_string(),
            group => format!("{}.{group}", kind.plural()),
        };
        ApiError {
            code: 403,
            reason: "Forbidden",
            message: format!("{resource} {name:?} is forbidden: {cause}"),
            details: Some(json!({"name": name, "group": kind.group(), "kind": kind.plural()})),
        }
    }

    /// 422 Invalid.
    pub fn invalid(kind: Kind, name: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            code: 422,
            reason: "Invalid",
            message: message.into(),
            details: Some(json!({"name": name, "group": kind.group(), "kind": kind.kind_name()})),
        }
    }

    /// 413 for a body over the server's limit (apimachinery `NewRequestEntityTooLargeError`).
    pub fn too_large(limit: usize) -> ApiError {
        ApiError {
            code: 413,
            reason: "RequestEntityTooLarge",
            message: format!("Request entity too large: limit is {limit}"),
            details: None,
        }
    }

    /// 410 Expired for a continue token or resourceVersion that left the history.
    pub fn expired(message: impl Into<String>) -> ApiError {
        ApiError {
            code: 410,
            reason: "Expired",
            message: message.into(),
            details: None,
        }
    }

    /// The `Status` object.
    pub fn status_json(&self) -> Value {
        let mut status = json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": self.message, "reason": self.reason, "code": self.code,
        });
        if let (Some(details), Some(obj)) = (&self.details, status.as_object_mut()) {
            obj.insert("details".into(), details.clone());
        }
        status
    }
}

fn details(kind: Kind, name: &str) -> Value {
    json!({"name": name, "group": kind.group(), "kind": kind.plural()})
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> ApiError {
        let message = err.to_string();
        match err {
            StoreError::NotFound { kind, name, .. } => ApiError {
                code: 404,
                reason: "NotFound",
                message,
                details: Some(details(kind, &name)),
            },
            StoreError::AlreadyExists { kind, name, .. } => ApiError {
                code: 409,
                reason: "AlreadyExists",
                message,
                details: Some(details(kind, &name)),
            },
            StoreError::Conflict { kind, name, .. } => ApiError {
                code: 409,
                reason: "Conflict",
                message,
                details: Some(details(kind, &name)),
            },
            StoreError::Invalid {
                kind,
                name,
                message,
                causes,
            } => {
                if causes.is_empty() {
                    ApiError::invalid(
                        kind,
                        &name,
                        format!("{kind} {name:?} is invalid: {message}"),
                    )
                } else {
                    crate::validation::invalid_error(kind, &name, &causes)
                }
            }
            StoreError::Gone { .. } => ApiError::expired(message),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (
            code,
            [(header::CONTENT_TYPE, "application/json")],
            self.status_json().to_string(),
        )
            .into_response()
    }
}
