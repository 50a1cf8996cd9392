//! When the API server last sent anything for a resource: a tower layer under the kube
//! `Client` that notes the instant response headers or body bytes arrive, per request path.
//!
//! Why a layer and not the watcher's events: kube-runtime's `watcher` asks for bookmarks
//! (`allowWatchBookmarks=true`) but consumes them itself and yields no stream item for them,
//! so from the outside a healthy idle watch (bookmarks once a minute) and a watch whose
//! connection silently stopped delivering (a stuck proxy, a load balancer that keeps the
//! connection and drops the traffic, kube-apiserver serving from its cache without etcd) look
//! the same. The bytes on the wire do not: a bookmark is a line of JSON. Counting bytes of
//! every GET on a resource path (lists, streaming lists and watches alike) also covers a list
//! that hangs. A second watch of our own beside the watcher would double the API server's
//! load to learn the same thing. The layer only observes: it never changes a request.

use bytes::Bytes;
use http::{Method, Request, Response};
use http_body::{Body as HttpBody, Frame, SizeHint};
use kube::client::{Body, DynBody};
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::time::Instant;
use tower::{BoxError, Layer, Service};

/// The last instant anything arrived, per request path (`/api/v1/pods`, shared by clones).
#[derive(Debug, Clone, Default)]
pub struct Activity {
    last: Arc<Mutex<HashMap<String, Instant>>>,
}

impl Activity {
    /// Notes that something for `path` arrived now.
    pub fn touch(&self, path: &str) {
        let now = Instant::now();
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        match last.get_mut(path) {
            Some(at) => *at = now,
            None => {
                last.insert(path.to_string(), now);
            }
        }
    }

    /// When something for `path` last arrived (None: never).
    pub fn last(&self, path: &str) -> Option<Instant> {
        self.last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(path)
            .copied()
    }
}

/// The resource path a request reads, if it is a read of an API resource (`GET /api/...`,
/// `GET /apis/...`); other requests (discovery of `/version`, `/readyz`) are not tracked.
pub fn tracked_path(method: &Method, path: &str) -> Option<String> {
    (method == Method::GET && (path.starts_with("/api/") || path.starts_with("/apis/")))
        .then(|| path.to_string())
}

/// The layer to put on the client's service stack (outermost, so paths are relative).
#[derive(Debug, Clone)]
pub struct ActivityLayer {
    activity: Activity,
}

impl ActivityLayer {
    /// A layer recording into `activity`.
    pub fn new(activity: Activity) -> Self {
        Self { activity }
    }
}

impl<S> Layer<S> for ActivityLayer {
    type Service = ActivityService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ActivityService {
            inner,
            activity: self.activity.clone(),
        }
    }
}

/// The service of [`ActivityLayer`].
#[derive(Debug, Clone)]
pub struct ActivityService<S> {
    inner: S,
    activity: Activity,
}

type BoxFuture<T> = Pin<Box<dyn std::future::Future<Output = T> + Send>>;

impl<S> Service<Request<Body>> for ActivityService<S>
where
    S: Service<Request<Body>, Response = Response<Box<DynBody>>, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response<Box<DynBody>>;
    type Error = BoxError;
    type Future = BoxFuture<Result<Self::Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let path = tracked_path(request.method(), request.uri().path());
        let activity = self.activity.clone();
        let future = self.inner.call(request);
        Box::pin(async move {
            let response = future.await?;
            let Some(path) = path else {
                return Ok(response);
            };
            activity.touch(&path);
            Ok(response.map(|body| {
                Box::new(Tracked {
                    inner: body,
                    activity,
                    path,
                }) as Box<DynBody>
            }))
        })
    }
}

/// A response body that notes every frame (and its end) as activity on its path.
struct Tracked {
    inner: Box<DynBody>,
    activity: Activity,
    path: String,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(_)) | None) = &polled {
            self.activity.touch(&self.path);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reads_of_api_resources_are_tracked() {
        assert_eq!(
            tracked_path(&Method::GET, "/api/v1/pods"),
            Some("/api/v1/pods".into())
        );
        assert_eq!(
            tracked_path(&Method::GET, "/apis/apps/v1/namespaces/a/daemonsets"),
            Some("/apis/apps/v1/namespaces/a/daemonsets".into())
        );
        assert_eq!(tracked_path(&Method::GET, "/readyz"), None);
        assert_eq!(tracked_path(&Method::GET, "/version"), None);
        assert_eq!(tracked_path(&Method::POST, "/api/v1/pods"), None);
    }

    #[tokio::test(start_paused = true)]
    async fn the_last_arrival_is_kept_per_path() {
        let activity = Activity::default();
        assert_eq!(activity.last("/api/v1/nodes"), None);
        activity.touch("/api/v1/nodes");
        let first = activity.last("/api/v1/nodes");
        tokio::time::advance(std::time::Duration::from_secs(5)).await;
        activity.touch("/api/v1/nodes");
        let second = activity.last("/api/v1/nodes");
        assert!(first.is_some() && second > first);
        assert_eq!(activity.last("/api/v1/pods"), None);
    }
}
