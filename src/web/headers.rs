//! Security headers on every response (tower-http `set-header`), and the page's own
//! Content-Security-Policy with its nonce.
//!
//! Why: the page shows untrusted cluster data (labels, event messages). A strict Content
//! Security Policy limits what injected markup could do, and the other headers stop framing,
//! MIME sniffing and referrer leaks.
//!
//! What a page runs, and why each is allowed (found by reading Leptos 0.8's SSR output and
//! checked by `end2end/tests/csp.spec.ts` on every route):
//! - Leptos' hydration bootstrap, an inline `<script type="module">` in `<head>`, the
//!   resource and streaming `<script>`s it appends after the body, and the theme script
//!   (`components::theme`): each carries the per-response nonce leptos_axum draws (128 random
//!   bits), which [`page_policy`] names. No `'unsafe-inline'`, no hash to keep in step;
//! - `/pkg/daemonscope.js`, imported by the bootstrap: `'self'`;
//! - the WASM, compiled by the browser: `'wasm-unsafe-eval'` (not `'unsafe-eval'`);
//! - the stylesheet `/pkg/daemonscope.css`: `'self'`; no inline style (the gauges are SVG).
//!
//! Every other response (JSON, the live feeds, files) gets [`CSP`], which allows nothing.

use axum::http::{header, HeaderName, HeaderValue};
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;

/// The Content-Security-Policy of every response that is not a page: nothing may load or run
/// (a JSON body or an SVG opened on its own is inert), and nothing may frame it.
pub const CSP: &str =
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The Content-Security-Policy of a page whose inline scripts carry `nonce`.
pub fn page_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; \
         object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// Sends the page's policy with the response being rendered (called from the shell, where
/// leptos_axum has provided the response options and the nonce). Outside a render, nothing.
pub fn send_page_policy() {
    let Some(nonce) = leptos::nonce::use_nonce() else {
        return;
    };
    let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() else {
        return;
    };
    if let Ok(value) = HeaderValue::from_str(&page_policy(&nonce)) {
        response.insert_header(header::CONTENT_SECURITY_POLICY, value);
    }
}

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

/// Adds the security headers to every response of `router` (unless a handler set its own:
/// a page sets its CSP with its nonce).
pub fn secure<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    headers().into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::if_not_present(name, value))
    })
}
