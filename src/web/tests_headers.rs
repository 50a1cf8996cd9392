//! The security headers (issue 23 item 5) on every kind of response: pages (the CSP names the
//! nonce every inline script of that response carries, and a new one each time), the site's
//! files, the live feeds, server functions, probes; and `serve`'s refusal to start without a
//! site. Through `router()` with `oneshot`, on a site in a temporary directory.

use super::site::{Site, REQUIRED_FILES};
use super::tests::{get, synced, text};
use super::*;
use axum::body::Body;
use axum::http::{header, HeaderMap, Request, StatusCode};
use tower::ServiceExt;

/// A site laid out as `make build` leaves it, with tiny stand-ins for its files.
fn site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::create_dir_all(dir.path().join("pkg")).expect("pkg/");
    for file in REQUIRED_FILES.iter().chain(&["favicon.svg"]) {
        std::fs::write(dir.path().join(file), b"stand-in").expect("a site file");
    }
    dir
}

fn app_on(site: &tempfile::TempDir) -> Router {
    router(AppState::with_site(
        SocketAddr::from(([127, 0, 0, 1], 3000)),
        synced(),
        Site::Disk(site.path().to_path_buf()),
    ))
}

fn value<'a>(headers: &'a HeaderMap, name: &header::HeaderName) -> &'a str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// The headers every response carries, whatever its kind.
fn assert_hardened(what: &str, headers: &HeaderMap) {
    assert_eq!(
        value(headers, &header::X_CONTENT_TYPE_OPTIONS),
        "nosniff",
        "{what}"
    );
    assert_eq!(
        value(headers, &header::REFERRER_POLICY),
        "no-referrer",
        "{what}"
    );
    assert_eq!(value(headers, &header::X_FRAME_OPTIONS), "DENY", "{what}");
    let csp = value(headers, &header::CONTENT_SECURITY_POLICY);
    assert!(csp.contains("frame-ancestors 'none'"), "{what}: {csp}");
    assert!(!csp.contains("unsafe-inline"), "{what}: {csp}");
    assert!(!csp.contains("'unsafe-eval'"), "{what}: {csp}");
}

/// The nonce a page's CSP allows.
fn nonce_of(csp: &str) -> String {
    let start = csp.find("'nonce-").expect("a nonce in the page's CSP") + "'nonce-".len();
    let len = csp[start..].find('\'').expect("the nonce's closing quote");
    csp[start..start + len].to_string()
}

#[tokio::test]
async fn a_page_allows_exactly_the_inline_scripts_that_carry_its_nonce() {
    let site = site();
    for path in ["/", "/node/a", "/ds/kube-system/log", "/no/such/page"] {
        let response = get(app_on(&site), path, &[]).await;
        let headers = response.headers().clone();
        assert_hardened(path, &headers);
        let csp = value(&headers, &header::CONTENT_SECURITY_POLICY).to_string();
        assert!(
            csp.contains("'wasm-unsafe-eval'") && csp.contains("style-src 'self';"),
            "{path}: {csp}"
        );
        let nonce = nonce_of(&csp);
        assert_eq!(nonce.len(), 22, "128 bits, base64url: {nonce}");
        let body = text(response).await;
        let scripts: Vec<&str> = body.split("<script").skip(1).collect();
        assert!(scripts.len() >= 2, "{path}: hydration and theme scripts");
        for script in scripts {
            let tag = &script[..script.find('>').unwrap_or(script.len())];
            assert!(
                tag.contains(&format!("nonce=\"{nonce}\"")),
                "{path}: <script{tag}> without the response's nonce {nonce}"
            );
        }
        assert!(!body.contains("style=\""), "{path}: an inline style");
    }
    let first = get(app_on(&site), "/", &[]).await;
    let second = get(app_on(&site), "/", &[]).await;
    assert_ne!(
        nonce_of(value(first.headers(), &header::CONTENT_SECURITY_POLICY)),
        nonce_of(value(second.headers(), &header::CONTENT_SECURITY_POLICY)),
        "a nonce is never reused"
    );
}

#[tokio::test]
async fn files_feeds_server_functions_and_probes_allow_nothing_to_run() {
    let site = site();
    let paths = [
        "/pkg/daemonscope.js",
        "/pkg/daemonscope_bg.wasm",
        "/pkg/daemonscope.css",
        "/favicon.svg",
        "/api/live",
        "/api/view",
        "/healthz",
        "/readyz",
        "/metrics",
    ];
    for path in paths {
        let response = get(app_on(&site), path, &[]).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_hardened(path, response.headers());
        assert_eq!(
            value(response.headers(), &header::CONTENT_SECURITY_POLICY),
            headers::CSP,
            "{path}"
        );
    }
    // Without --fleet-prometheus the fleet route answers from the watched cluster, hardened
    // like the others.
    let response = get(app_on(&site), "/api/fleet", &[]).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_hardened("/api/fleet", response.headers());
    assert_eq!(
        value(response.headers(), &header::CONTENT_SECURITY_POLICY),
        headers::CSP
    );
    use leptos::server_fn::ServerFn;
    let request = Request::post(<crate::server_fns::ExplainCell as ServerFn>::PATH)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from("node=a&daemonset=kube-system%2Flog"))
        .expect("a valid request");
    let response = app_on(&site).oneshot(request).await.expect("infallible");
    assert_eq!(response.status(), StatusCode::OK);
    assert_hardened("a server function", response.headers());
    assert_eq!(
        value(response.headers(), &header::CONTENT_SECURITY_POLICY),
        headers::CSP
    );
}

#[test]
fn a_site_without_its_files_is_refused_with_one_line_naming_what_is_missing() {
    let empty = tempfile::tempdir().expect("a temporary directory");
    let err = Site::Disk(empty.path().to_path_buf())
        .check()
        .expect_err("no site there");
    let line = err.to_string();
    assert!(!line.contains('\n'), "{line}");
    assert!(line.contains("pkg/daemonscope.js is missing"), "{line}");
    assert!(
        line.contains("make build") && line.contains("--site-root"),
        "{line}"
    );
    assert!(Site::Disk(site().path().to_path_buf()).check().is_ok());
}
