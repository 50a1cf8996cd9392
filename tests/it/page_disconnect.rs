//! A browser that leaves before it has read a page costs the server nothing but the render
//! (issue 27 item 7): no panic in the log.
//!
//! Before `web::complete`, a client that closed the connection while the matrix or a
//! DaemonSet page was streaming made the server log reactive_graph's "tried to access a
//! reactive value ... already disposed" (or "use_navigate outside a <Router>") with a
//! backtrace: the page's resource tasks kept running after the response, and with it the
//! reactive owner, was dropped. It showed most on the first pages a fresh server renders, so
//! this test starts `daemonscope serve --demo` twice and leaves every page at once, after the
//! first bytes, and with a reset, then checks the server still answers and logged no panic.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const PAGES: &[&str] = &[
    "/",
    "/?problems=0&group=none",
    "/ds/monitoring/node-exporter",
    "/ds/kube-system/log-collector",
    "/node/worker-1",
    "/pod/kube-system/no-such-pod",
];

struct Server {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Server {
    fn start(dir: &std::path::Path, n: usize) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let log = dir.join(format!("serve-{n}.log"));
        let out = std::fs::File::create(&log).expect("server log");
        let child = Command::new(env!("CARGO_BIN_EXE_daemonscope"))
            .args(["serve", "--demo", "--listen", &format!("127.0.0.1:{port}")])
            .env("RUST_BACKTRACE", "1")
            .stdout(out.try_clone().expect("log handle"))
            .stderr(out)
            .spawn()
            .expect("run daemonscope serve --demo");
        let server = Server { child, port, log };
        let deadline = Instant::now() + Duration::from_secs(60);
        while server.status("/readyz") != Some(200) {
            assert!(
                Instant::now() < deadline,
                "not ready in 60 s:\n{}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    fn connect(&self, path: &str) -> TcpStream {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n"
        )
        .expect("send the request");
        stream
    }

    /// The status of a whole GET, or None when the server does not answer.
    fn status(&self, path: &str) -> Option<u16> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .ok()?;
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
        .ok()?;
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).ok()?;
        std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Leaves `path` in one of three ways: right after the request, after the first bytes of the
/// answer, or after them with a TCP reset (what a closed tab sends).
fn leave(server: &Server, path: &str, how: usize) {
    let mut stream = server.connect(path);
    if how > 0 {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut first = [0u8; 64];
        let _ = stream.read(&mut first);
    }
    if how == 2 {
        // SO_LINGER 0 is not in std; shutting both halves down and dropping is the closest.
        let _ = stream.shutdown(Shutdown::Both);
    }
    drop(stream);
}

#[test]
fn leaving_a_page_mid_stream_logs_no_panic_and_the_server_keeps_answering() {
    let dir = tempfile::tempdir().expect("temp dir");
    for n in 0..2 {
        let server = Server::start(dir.path(), n);
        for how in 0..3 {
            for page in PAGES {
                leave(&server, page, how);
            }
        }
        // Whatever was left half-read finishes in the background; give it the time a page takes.
        std::thread::sleep(Duration::from_millis(1500));
        assert_eq!(server.status("/"), Some(200), "{}", server.log());
        assert_eq!(
            server.status("/ds/monitoring/node-exporter"),
            Some(200),
            "{}",
            server.log()
        );
        let log = server.log();
        assert!(
            !log.contains("panicked"),
            "the server panicked after a browser left a page:\n{log}"
        );
    }
}
