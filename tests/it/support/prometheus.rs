//! A real Prometheus for a test: Debian's `prometheus` 2.42 (`make deps-apt`), started on a
//! free loopback port with a generated config and its own TSDB in a temporary directory,
//! stopped on drop.
//!
//! Why the packaged binary: a cold Go build of Prometheus' tools took more than 3 minutes on
//! this machine (README, Alerts and metrics). Why its own port and storage: on a machine run by
//! systemd the package starts a Prometheus of its own on :9090, which a test must never read.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![allow(dead_code)]

use super::demo::{free_port, get};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// One scrape target: `host:port` and the target labels Prometheus adds (e.g. `cluster`).
pub struct Target {
    pub addr: String,
    pub labels: Vec<(String, String)>,
}

impl Target {
    /// A daemonscope at `addr` that Prometheus labels `cluster="<cluster>"`.
    pub fn cluster(addr: String, cluster: &str) -> Target {
        Target {
            addr,
            labels: vec![("cluster".into(), cluster.into())],
        }
    }
}

/// A running Prometheus. Dropping it stops it.
pub struct Prometheus {
    child: Child,
    dir: tempfile::TempDir,
    /// Its loopback port.
    pub port: u16,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The config: 1 s scrapes and rule evaluations, one job `daemonscope` with every target.
fn config(targets: &[Target], rules: Option<&Path>) -> String {
    let mut text = String::from("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n");
    if let Some(rules) = rules {
        let _ = writeln!(text, "rule_files:\n  - {:?}", rules.display().to_string());
    }
    text.push_str("scrape_configs:\n  - job_name: daemonscope\n    static_configs:\n");
    for target in targets {
        let _ = writeln!(text, "      - targets: [{:?}]", target.addr);
        let labels: Vec<String> = target
            .labels
            .iter()
            .map(|(k, v)| format!("{k}: {v:?}"))
            .collect();
        let _ = writeln!(text, "        labels: {{{}}}", labels.join(", "));
    }
    text
}

impl Prometheus {
    /// Starts Prometheus scraping `targets`, evaluating the rules file `rules` (if any), and
    /// waits until it is ready. Panics, naming what to install, when the binary is missing.
    pub fn start(targets: &[Target], rules: Option<&Path>) -> Prometheus {
        let dir = tempfile::Builder::new()
            .prefix("daemonscope-prometheus-")
            .tempdir()
            .expect("a temporary directory");
        let file = dir.path().join("prometheus.yml");
        std::fs::write(&file, config(targets, rules)).expect("write prometheus.yml");
        Self::start_with(dir, &[format!("--config.file={}", file.display())])
    }

    /// Starts Prometheus on an existing TSDB (`storage`), scraping nothing: for the bench's
    /// backfilled blocks.
    pub fn start_on(storage: &Path) -> Prometheus {
        let dir = tempfile::Builder::new()
            .prefix("daemonscope-prometheus-")
            .tempdir()
            .expect("a temporary directory");
        let file = dir.path().join("prometheus.yml");
        std::fs::write(&file, "global:\n  scrape_interval: 1m\n").expect("write prometheus.yml");
        Self::start_with(
            dir,
            &[
                format!("--config.file={}", file.display()),
                format!("--storage.tsdb.path={}", storage.display()),
            ],
        )
    }

    fn start_with(dir: tempfile::TempDir, args: &[String]) -> Prometheus {
        let port = free_port();
        let log = std::fs::File::create(dir.path().join("prometheus.log")).expect("log");
        let has_storage = args.iter().any(|a| a.starts_with("--storage.tsdb.path="));
        let mut command = Command::new(binary());
        command
            .args(args)
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .arg("--storage.tsdb.retention.time=100y")
            .stdout(log.try_clone().expect("log handle"))
            .stderr(log);
        if !has_storage {
            command.arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ));
        }
        let child = command.spawn().unwrap_or_else(|e| {
            panic!(
                "cannot run {}: {e} (Debian's prometheus package: make deps-apt)",
                binary().display()
            )
        });
        let prometheus = Prometheus { child, dir, port };
        let deadline = Instant::now() + Duration::from_secs(20);
        while get(port, "/-/ready").is_none() {
            assert!(
                Instant::now() < deadline,
                "Prometheus not ready after 20 s:\n{}",
                prometheus.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        prometheus
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its log so far, for assertion messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("prometheus.log")).unwrap_or_default()
    }

    /// An instant query's `data.result` (a vector's samples), or None when the query failed.
    pub fn query(&self, expr: &str) -> Option<Vec<serde_json::Value>> {
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("query", expr)
            .finish();
        let body = get(self.port, &format!("/api/v1/query?{query}"))?;
        let answer: serde_json::Value = serde_json::from_str(&body).ok()?;
        (answer["status"] == "success")
            .then(|| answer["data"]["result"].as_array().cloned())
            .flatten()
    }

    /// The alerts now firing (state `firing`), as `/api/v1/alerts` gives them.
    pub fn firing(&self) -> Vec<serde_json::Value> {
        let body = get(self.port, "/api/v1/alerts").unwrap_or_default();
        let answer: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        answer["data"]["alerts"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|a| a["state"] == "firing")
            .collect()
    }
}

/// PROMETHEUS, or Debian's `/usr/bin/prometheus`.
pub fn binary() -> PathBuf {
    std::env::var("PROMETHEUS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("/usr/bin/prometheus"))
}
