//! `daemonscope serve` (`--demo`, or a kubeconfig) as a child process on a free loopback port,
//! killed on drop, with a plain blocking GET.
//!
//! Why a process and not the in-process router: the suites that use it (alert rules, the real
//! Prometheus) scrape `/metrics` over TCP as Prometheus does, and several of them run side by
//! side as separate "clusters".
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

/// A running `serve`.
pub struct Demo {
    child: Child,
    /// Its loopback port.
    pub port: u16,
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port (bound and released; the caller binds it at once).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

impl Demo {
    /// Starts `serve --demo` with `args` (e.g. `--stall-after 3s`), logging to `log`.
    pub fn start(log: &Path, args: &[&str]) -> Demo {
        Self::serve(log, &["--demo"], args)
    }

    /// Starts `serve --demo SCENARIO` with `args`.
    pub fn start_scenario(log: &Path, scenario: &Path, args: &[&str]) -> Demo {
        let scenario = scenario.to_string_lossy();
        Self::serve(log, &["--demo", &scenario], args)
    }

    /// Starts `serve --kubeconfig FILE` (a real cluster) on `port`, chosen beforehand (e.g.
    /// so Prometheus can be told where to scrape before the cluster is up).
    pub fn start_kubeconfig(log: &Path, kubeconfig: &Path, port: u16) -> Demo {
        let kubeconfig = kubeconfig.to_string_lossy();
        Self::serve_on(log, &["--kubeconfig", &kubeconfig], &[], port)
    }

    fn serve(log: &Path, target: &[&str], args: &[&str]) -> Demo {
        Self::serve_on(log, target, args, free_port())
    }

    fn serve_on(log: &Path, target: &[&str], args: &[&str], port: u16) -> Demo {
        let out = std::fs::File::create(log).expect("server log");
        let child = Command::new(env!("CARGO_BIN_EXE_daemonscope"))
            .arg("serve")
            .args(target)
            .args(args)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .stdout(out.try_clone().expect("log handle"))
            .stderr(out)
            .spawn()
            .expect("run daemonscope serve");
        Demo { child, port }
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The body of a GET, when the status is 200.
    pub fn get(&self, path: &str) -> Option<String> {
        get(self.port, path)
    }
}

/// The body of a GET to `127.0.0.1:port`, when the status is 200.
pub fn get(port: u16, path: &str) -> Option<String> {
    match request(port, path)? {
        (200, body) => Some(body),
        _ => None,
    }
}

/// The status and body of a GET to `127.0.0.1:port` (None when nothing answers).
pub fn request(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    let answer = String::from_utf8(answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    let status = head.get(9..12)?.parse().ok()?;
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return Some((status, dechunk(body)));
    }
    Some((status, body.to_string()))
}

/// The payload of a chunked body (as much of it as has arrived).
pub fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        let (Some(chunk), Some(after)) = (rest.get(..size), rest.get(size..)) else {
            break;
        };
        if size == 0 {
            break;
        }
        out.push_str(chunk);
        body = after.trim_start_matches("\r\n");
    }
    out
}
