//! Pages are rendered to their end even when the browser leaves half-way.
//!
//! Why: Leptos renders a page inside a reactive owner that lives as long as the response
//! future and its body stream. When a browser closed the connection before it had read the
//! page (a reload, a click elsewhere, a closed tab), hyper dropped both, the owner disposed its
//! signals, and the page's resource tasks, still running, read them and panicked ("tried to
//! access a reactive value ... already disposed", "use_navigate outside a <Router>"): a
//! backtrace in the log for every impatient user. Here the handler runs in a task of its own
//! and an HTML body is drained to its end by another task, forwarding the chunks while the
//! browser still reads them; the owner is then cleaned up where Leptos expects it, at the end
//! of the stream. The cost of a browser that left is one finished render, as if it had stayed.
//! Live feeds (`text/event-stream`, endless) and files pass through untouched.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

/// Chunks a page may run ahead of a slow reader before the renderer waits for it.
const AHEAD: usize = 16;

/// True for responses whose body is a rendered page (the ones that hold a reactive owner).
pub fn is_rendered_page(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"))
}

/// Middleware: runs the handler, and then drains an HTML body to its end, in a task of its
/// own that outlives the browser's connection.
pub async fn finish_pages(request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let (head_sender, head) = tokio::sync::oneshot::channel::<Response>();
    tokio::spawn(async move {
        let response = next.run(request).await;
        if !is_rendered_page(&response) {
            let _ = head_sender.send(response);
            return;
        }
        let (parts, body) = response.into_parts();
        let (sender, mut receiver) =
            tokio::sync::mpsc::channel::<Result<Bytes, axum::Error>>(AHEAD);
        // A closed channel answers None again when polled again (the compression layer does).
        let forwarded = futures::stream::poll_fn(move |cx| receiver.poll_recv(cx));
        let mut reader = head_sender
            .send(Response::from_parts(parts, Body::from_stream(forwarded)))
            .is_ok()
            .then_some(sender);
        let mut chunks = body.into_data_stream();
        while let Some(chunk) = chunks.next().await {
            if let Some(open) = &reader {
                if open.send(chunk).await.is_err() {
                    // The browser left: keep rendering, drop what it would have read.
                    tracing::debug!(path = %path, "browser left before the end of the page");
                    reader = None;
                }
            }
        }
    });
    match head.await {
        Ok(response) => response,
        // The handler's task ended without an answer: it panicked (logged by the hook).
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_html_counts_as_a_rendered_page() {
        let with = |content_type: &str| {
            let mut response = Response::new(Body::empty());
            if let Ok(value) = content_type.parse() {
                response.headers_mut().insert(header::CONTENT_TYPE, value);
            }
            is_rendered_page(&response)
        };
        assert!(with("text/html; charset=utf-8"));
        assert!(!with("text/event-stream"));
        assert!(!with("application/wasm"));
        assert!(!with(""));
    }
}
