//! The dashboard's accept loop: axum's router on hyper-util's connection builder, so that a
//! client which never finishes its request headers is cut off.
//!
//! Why not `axum::serve`: it builds hyper's connection without a timer, and hyper's
//! `header_read_timeout` only works with one, so a connection that sent half its headers was
//! held for ever (300 such connections held for 40 s and more, issue 15). This serves HTTP/1.1
//! only, as the dashboard did (axum was built without its `http2` feature), without protocol
//! upgrades (no WebSockets here: the live feed is SSE), and shuts down gracefully.

use axum::Router;
use hyper::server::conn::http1::Builder;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::time::Duration;
use tokio::net::TcpListener;

/// How long a client may take to send a request's headers (hyper's own default, now in force).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// How long shutdown waits for open connections (live feeds never end by themselves).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` until `shutdown` completes; `header_timeout` bounds the time to
/// receive a request's headers.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    header_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let mut builder = Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(err) => {
                    // Out of file descriptors and the like: wait a moment instead of spinning.
                    tracing::debug!(%err, "cannot accept a dashboard connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Live deltas are small SSE writes: without TCP_NODELAY, Nagle's algorithm holds each
        // one until the browser's delayed ACK.
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::debug!(%err, "cannot set TCP_NODELAY on a dashboard connection");
        }
        let service = TowerToHyperService::new(app.clone());
        let conn = graceful.watch(builder.serve_connection(TokioIo::new(tcp), service));
        tokio::spawn(async move {
            if let Err(err) = conn.await {
                tracing::debug!(%peer, %err, "dashboard connection ended with an error");
            }
        });
    }
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(SHUTDOWN_GRACE) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_client_that_sends_half_its_headers_is_cut_off() {
        // Issue 15 reproduction 9: connections that sent half their headers were never timed
        // out. hyper closes them after header_read_timeout once a timer is set.
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let app = Router::new().route("/", axum::routing::get(|| async { "ok" }));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(
            listener,
            app,
            Duration::from_millis(200),
            async move {
                let _ = stopped.await;
            },
        ));
        // A complete request is served.
        let mut ok = tokio::net::TcpStream::connect(addr).await.expect("connect");
        ok.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .expect("write");
        let mut answer = String::new();
        ok.read_to_string(&mut answer).await.expect("read");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        // Half the headers, then silence: the server closes within the timeout plus slack.
        let mut slow = tokio::net::TcpStream::connect(addr).await.expect("connect");
        slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n")
            .await
            .expect("write");
        let mut buf = Vec::new();
        let closed = tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut buf)).await;
        assert!(
            closed.is_ok(),
            "the half-sent request was still held after 5 s"
        );
        let _ = stop.send(());
        let _ = server.await;
    }
}
