//! Security headers on every response (tower-http `set-header`).
//!
//! Why: the page shows untrusted cluster data (labels, event messages). A strict Content
//! Security Policy limits what injected markup could do, and the other headers stop framing,
//! MIME sniffing and referrer leaks. WASM needs `'wasm-unsafe-eval'`; Leptos' hydration
//! bootstrap is an inline module script, hence `'unsafe-inline'` for scripts (no `eval`).

use axum::http::{header, HeaderName, HeaderValue};
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;

/// The Content-Security-Policy sent with every response.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; \
style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; \
object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// The headers, as (name, value) pairs.
pub fn headers() -> [(HeaderName, HeaderValue); 6] {
    [
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ),
        (
            HeaderName::from_static("permissions-policy"),
            HeaderValue::from_static("camera=(), microphone=(), geolocation=()"),
        ),
        (
            HeaderName::from_static("cross-origin-opener-policy"),
            HeaderValue::from_static("same-origin"),
        ),
    ]
}

/// Adds the security headers to every response of `router` (unless a handler set its own).
pub fn secure<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    headers().into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::if_not_present(name, value))
    })
}
