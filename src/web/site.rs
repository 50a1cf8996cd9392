//! The browser's files (the WASM, its JS glue, the CSS, the favicon): from disk, or from the
//! binary itself with the `embed-site` feature.
//!
//! Why two sources: a release binary copied alone to a machine must serve the dashboard from
//! any directory (`make release` embeds `target/site`), while a debug build must compile
//! without the WASM being built first (`make test` builds both side by side), so it reads
//! `target/site` at run time as before. Requests that match no file get the app's 404 page.

use super::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap};
use axum::response::Response;
#[cfg(feature = "embed-site")]
use leptos::prelude::*;
use std::path::PathBuf;

/// Where the site comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Site {
    /// A directory laid out as `make build` leaves `target/site` (`--site-root`).
    Disk(PathBuf),
    /// The files compiled into the binary (`embed-site`).
    #[cfg(feature = "embed-site")]
    Embedded,
}

/// The directory `make build` and `make release` write the site to.
pub const DEFAULT_SITE_ROOT: &str = "target/site";

/// The files without which no page hydrates: `serve` refuses to start without them.
pub const REQUIRED_FILES: [&str; 3] = [
    "pkg/daemonscope.js",
    "pkg/daemonscope_bg.wasm",
    "pkg/daemonscope.css",
];

/// Why the site cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error(
        "no site at {root}: {file} is missing (run `make build`, pass --site-root DIR, \
         or use a binary built with --features embed-site, as `make release` does)"
    )]
    Missing { root: String, file: &'static str },
}

impl Default for Site {
    /// The embedded files when the binary has them, else `target/site` on disk.
    fn default() -> Self {
        #[cfg(feature = "embed-site")]
        {
            Site::Embedded
        }
        #[cfg(not(feature = "embed-site"))]
        {
            Site::Disk(PathBuf::from(DEFAULT_SITE_ROOT))
        }
    }
}

impl Site {
    /// From `--site-root`: that directory, else the default.
    pub fn from_arg(root: Option<PathBuf>) -> Self {
        root.map(Site::Disk).unwrap_or_default()
    }

    /// Checks that the files a page needs are there, so a server without its site stops at
    /// once with one line instead of serving pages that never come alive.
    pub fn check(&self) -> Result<(), SiteError> {
        for file in REQUIRED_FILES {
            let present = match self {
                Site::Disk(root) => root.join(file).is_file(),
                #[cfg(feature = "embed-site")]
                Site::Embedded => super::embedded::contains(file),
            };
            if !present {
                return Err(SiteError::Missing {
                    root: self.describe(),
                    file,
                });
            }
        }
        Ok(())
    }

    /// How messages name the site.
    pub fn describe(&self) -> String {
        match self {
            Site::Disk(root) => root.display().to_string(),
            #[cfg(feature = "embed-site")]
            Site::Embedded => "the files built into this binary".to_string(),
        }
    }

    /// The `site_root` Leptos is told about: the directory, or the default for the
    /// embedded site (Leptos reads no file of it; only the fallback below serves files).
    pub fn leptos_root(&self) -> String {
        match self {
            Site::Disk(root) => root.display().to_string(),
            #[cfg(feature = "embed-site")]
            Site::Embedded => DEFAULT_SITE_ROOT.to_string(),
        }
    }
}

/// The router's fallback: a file of the site, else the app's 404 page. `provide` puts the
/// server functions' context in place for the 404 page's render.
pub fn fallback(
    provide: impl Fn() + Clone + Send + Sync + 'static,
) -> impl Fn(
    State<AppState>,
    Request,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Response> + Send>>
       + Clone
       + Send
       + Sync
       + 'static {
    move |State(state): State<AppState>, request: Request| {
        let provide = provide.clone();
        Box::pin(async move {
            match &state.site {
                Site::Disk(_) => {
                    // Leptos' own handler: tower-http's ServeDir under `site_root`, then the
                    // 404 page.
                    let handler = leptos_axum::file_and_error_handler_with_context::<AppState, _>(
                        provide,
                        super::page_shell,
                    );
                    handler(request.uri().clone(), State(state.clone()), request).await
                }
                #[cfg(feature = "embed-site")]
                Site::Embedded => match super::embedded::respond(&request) {
                    Some(response) => response,
                    None => not_found(state, provide, request).await,
                },
            }
        })
    }
}

/// The app's "Page not found", rendered as Leptos' file handler renders it (404 unless the
/// render chose another status).
#[cfg(feature = "embed-site")]
async fn not_found(
    state: AppState,
    provide: impl Fn() + Clone + Send + Sync + 'static,
    request: Request,
) -> Response {
    use futures::StreamExt as _;
    let options = state.leptos_options.clone();
    let mut response = leptos_axum::handle_response_inner(
        move || {
            provide_context(state.clone());
            provide();
        },
        move || super::page_shell(options),
        request,
        |app, chunks, _supports_ooo| {
            Box::pin(async move {
                let app = app.to_html_stream_in_order().collect::<String>().await;
                Box::pin(futures::stream::once(async move { app }).chain(chunks()))
                    as std::pin::Pin<Box<dyn futures::Stream<Item = String> + Send>>
            })
        },
    )
    .await;
    if response.status() == axum::http::StatusCode::OK {
        *response.status_mut() = axum::http::StatusCode::NOT_FOUND;
    }
    response
}

// HTTP caching and encoding for the embedded files (`embedded`), here so that `make test`,
// which builds without the feature, tests them.

/// A strong validator from the file's SHA-256 (the first 16 bytes are plenty).
#[cfg_attr(not(feature = "embed-site"), allow(dead_code))]
pub(super) fn etag(hash: &[u8; 32]) -> String {
    let hex: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// `If-None-Match` names this ETag (or `*`).
#[cfg_attr(not(feature = "embed-site"), allow(dead_code))]
pub(super) fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == etag || tag == "*")
}

/// `Accept-Encoding` lists gzip with a non-zero quality.
#[cfg_attr(not(feature = "embed-site"), allow(dead_code))]
pub(super) fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let coding = parts.next().unwrap_or_default();
            let zero = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !zero
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(name: header::HeaderName, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn gzip_is_sent_only_to_browsers_that_accept_it() {
        assert!(accepts_gzip(&headers(
            header::ACCEPT_ENCODING,
            "gzip, deflate, br"
        )));
        assert!(accepts_gzip(&headers(
            header::ACCEPT_ENCODING,
            "br;q=1.0, gzip;q=0.8"
        )));
        assert!(!accepts_gzip(&headers(header::ACCEPT_ENCODING, "gzip;q=0")));
        assert!(!accepts_gzip(&headers(header::ACCEPT_ENCODING, "br")));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn a_matching_if_none_match_is_a_304() {
        let tag = etag(&[7; 32]);
        assert!(not_modified(&headers(header::IF_NONE_MATCH, &tag), &tag));
        assert!(not_modified(
            &headers(header::IF_NONE_MATCH, &format!("\"x\", W/{tag}")),
            &tag
        ));
        assert!(!not_modified(
            &headers(header::IF_NONE_MATCH, "\"other\""),
            &tag
        ));
    }
}
