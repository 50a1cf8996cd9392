//! The request body limit of the server functions under `/api/`, answered as HTTP says.
//!
//! Why: a body over axum's default limit (2 MiB) reached the server-function handler, which
//! failed while reading it and answered 500 "length limit exceeded" (issue 15). A client that
//! sent too much should hear 413 Payload Too Large, and the server should not call it a fault
//! of its own. Buffering here through axum's `Bytes` extractor applies the same limit and
//! turns an overlong body into its 413 rejection before any handler runs.

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Buffers the body of every non-GET request under `/api/` within axum's limit; over it, 413.
pub async fn limit_api_bodies(request: Request, next: Next) -> Response {
    if request.method() == Method::GET || !request.uri().path().starts_with("/api/") {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    match Bytes::from_request(Request::from_parts(parts.clone(), body), &()).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(rejection) => rejection.into_response(),
    }
}
