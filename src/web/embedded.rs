//! The site compiled into the binary (`embed-site`): `target/site` as `make release` left it.
//!
//! Why by hand rather than a file service: the files are in memory, so each one is gzipped
//! once, at the best level, the first time a browser asks for it (the compression layer would
//! gzip the WASM again, at its default level, for every page load), and its ETag is the
//! SHA-256 rust-embed computed at build time. The names carry no content hash
//! (`daemonscope_bg.wasm`), so browsers keep a copy but ask again each time (`no-cache`): the
//! answer is a 304 of a few bytes until the binary changes.

use super::site::{accepts_gzip, etag, not_modified};
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, Method, StatusCode};
use axum::response::Response;
use std::collections::HashMap;
use std::io::Write as _;
use std::sync::{Mutex, OnceLock};

/// `target/site` at build time.
#[derive(rust_embed::RustEmbed)]
#[folder = "target/site"]
struct Files;

/// True when the binary holds `path` (relative, as in [`super::site::REQUIRED_FILES`]).
pub fn contains(path: &str) -> bool {
    Files::get(path).is_some()
}

/// Every embedded file's path (for the one-binary test and messages).
pub fn paths() -> Vec<String> {
    Files::iter().map(|p| p.into_owned()).collect()
}

/// The response for a GET or HEAD of an embedded file; None when the request names none (the
/// caller then renders the 404 page).
pub fn respond(request: &Request) -> Option<Response> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return None;
    }
    let path = request.uri().path().trim_start_matches('/');
    if path.is_empty() {
        return None;
    }
    let file = Files::get(path)?;
    let etag = etag(&file.metadata.sha256_hash());
    let mut response = Response::builder()
        .header(header::CONTENT_TYPE, file.metadata.mimetype())
        .header(header::CACHE_CONTROL, "no-cache")
        .header(header::ETAG, etag.as_str())
        .header(header::VARY, "accept-encoding");
    if not_modified(request.headers(), &etag) {
        return response
            .status(StatusCode::NOT_MODIFIED)
            .body(Body::empty())
            .ok();
    }
    // Sent gzipped only when that is smaller (a tiny file can grow).
    let gz = accepts_gzip(request.headers())
        .then(|| gzipped(path, &file.data))
        .flatten()
        .filter(|gz| gz.len() < file.data.len());
    let body = match gz {
        Some(gz) => {
            response = response.header(header::CONTENT_ENCODING, "gzip");
            gz
        }
        None => match file.data {
            std::borrow::Cow::Borrowed(data) => bytes::Bytes::from_static(data),
            std::borrow::Cow::Owned(data) => bytes::Bytes::from(data),
        },
    };
    let response = response.header(header::CONTENT_LENGTH, body.len());
    let body = if request.method() == Method::HEAD {
        Body::empty()
    } else {
        Body::from(body)
    };
    response.body(body).ok()
}

/// The gzip of an embedded file, made once (level 9) and kept: the site is a handful of
/// files, a few MiB in all. None if the encoder fails (it writes into memory, so it should
/// not): the file then goes out as it is.
fn gzipped(path: &str, data: &[u8]) -> Option<bytes::Bytes> {
    static CACHE: OnceLock<Mutex<HashMap<String, bytes::Bytes>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(path).cloned()) {
        return Some(hit);
    }
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let gz = bytes::Bytes::from(
        encoder
            .write_all(data)
            .and_then(|()| encoder.finish())
            .ok()?,
    );
    if let Ok(mut c) = cache.lock() {
        c.insert(path.to_string(), gz.clone());
    }
    Some(gz)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_site_has_every_file_a_page_needs() {
        for file in super::super::site::REQUIRED_FILES {
            assert!(contains(file), "{file} not embedded: {:?}", paths());
        }
    }
}
