//! Several clusters in one `serve` (issue 25, item 1) and the fleet page's data (item 2):
//! two simulated API servers and three broken contexts behind one kubeconfig.
//!
//! The dashboard is the real binary (`daemonscope serve --context … --context …`), talked to
//! over HTTP: each cluster's matrix under `/c/NAME/`, the fleet's server function, `/metrics`
//! and `/readyz`. What a user would notice is asserted: each cluster shows its own nodes; a
//! broken context shows its error and leaves the others live; the fleet lists exactly the
//! problem cells each matrix counts; an API server that stops turns only its cluster stale.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use daemonscope::sim::{start_in_process, ScenarioSource};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A kubeconfig with the two sims and three contexts that cannot work: a user that is not
/// defined, a CA that is not a certificate, a server URL that does not parse.
fn kubeconfig(a: &str, b: &str) -> String {
    format!(
        r#"apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {{server: "{a}"}}
- name: b
  cluster: {{server: "{b}"}}
- name: tls
  cluster: {{server: "https://127.0.0.1:9", certificate-authority-data: "bm90IGEgY2VydGlmaWNhdGU="}}
- name: garbled
  cluster: {{server: "http://[::1"}}
contexts:
- name: a
  context: {{cluster: a, user: plain}}
- name: b
  context: {{cluster: b, user: plain}}
- name: no-user
  context: {{cluster: a, user: ghost}}
- name: bad-cert
  context: {{cluster: tls, user: plain}}
- name: bad-url
  context: {{cluster: garbled, user: plain}}
current-context: a
users:
- name: plain
  user: {{}}
"#
    )
}

/// The running `serve` child, killed when dropped.
struct Serve {
    child: Child,
    base: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn site_root() -> String {
    format!("{}/target/site", env!("CARGO_MANIFEST_DIR"))
}

fn serve(kubeconfig: &Path, args: &[&str]) -> Serve {
    let mut child = Command::new(env!("CARGO_BIN_EXE_daemonscope"))
        .arg("serve")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["--listen", "127.0.0.1:0", "--site-root", &site_root()])
        .args(["--readyz-every", "500ms", "--new-node-grace", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read the serving line");
    let base = line
        .split(" on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Serve { child, base }
}

/// GET `path`: status and body.
fn get(serve: &Serve, path: &str) -> (u16, String) {
    let out = Command::new("curl")
        .args(["-s", "-o", "-", "-w", "\n%{http_code}", "--max-time", "10"])
        .arg(format!("{}{path}", serve.base))
        .output()
        .expect("run curl");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (body, code) = text.rsplit_once('\n').unwrap_or(("", "0"));
    (code.trim().parse().unwrap_or(0), body.to_string())
}

/// POST a server function (`/api/NAME` under `prefix`) with `query=…`: its JSON answer.
fn server_fn(serve: &Serve, prefix: &str, name: &str, query: &str) -> Value {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "10", "--data-urlencode"])
        .arg(format!("query={query}"))
        .arg(format!("{}{prefix}/api/{name}", serve.base))
        .output()
        .expect("run curl");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|err| {
        panic!(
            "{prefix}/api/{name}: {err}: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn cluster<'a>(fleet: &'a Value, name: &str) -> &'a Value {
    fleet["summary"]["clusters"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no cluster {name} in {fleet}"))
}

fn health(fleet: &Value, name: &str) -> String {
    match &cluster(fleet, name)["health"] {
        Value::String(s) => s.clone(),
        Value::Object(o) => o.keys().next().cloned().unwrap_or_default(),
        other => panic!("health {other}"),
    }
}

fn wait_until(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < timeout, "{what}: not within {timeout:?}");
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The problem cells per DaemonSet as the cluster's matrix counts them.
fn matrix_problems(serve: &Serve, cluster: &str) -> Vec<(String, u64)> {
    let window = server_fn(
        serve,
        &format!("/c/{cluster}"),
        "matrix_window",
        "problems=0",
    );
    let mut out: Vec<(String, u64)> = window["daemonsets"]
        .as_array()
        .expect("columns")
        .iter()
        .filter(|c| c["problem_nodes"].as_u64().unwrap_or(0) > 0)
        .map(|c| {
            (
                c["key"].as_str().unwrap_or_default().to_string(),
                c["problem_nodes"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    out.sort();
    out
}

/// The problem cells per DaemonSet of one cluster as the fleet lists them.
fn fleet_problems(fleet: &Value, cluster: &str) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = fleet["summary"]["daemonsets"]
        .as_array()
        .expect("daemonsets")
        .iter()
        .flat_map(|d| {
            let key = format!(
                "{}/{}",
                d["namespace"].as_str().unwrap_or_default(),
                d["name"].as_str().unwrap_or_default()
            );
            d["placements"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["cluster"] == cluster && p["problem_cells"].as_u64() > Some(0))
                .map(move |p| (key.clone(), p["problem_cells"].as_u64().unwrap_or(0)))
        })
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn each_context_is_watched_on_its_own_and_the_fleet_lists_each_matrixs_problems() {
    let a = start_in_process(ScenarioSource::BuiltInDemo).await.unwrap();
    let b = start_in_process(ScenarioSource::Generate(
        "nodes=6,daemonsets=3,seed=7".into(),
    ))
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("kubeconfig");
    std::fs::write(&config, kubeconfig(&a.url, &b.url)).unwrap();
    let dash = serve(
        &config,
        &[
            "--context",
            "a",
            "--context",
            "b",
            "--context",
            "no-user",
            "--context",
            "bad-cert",
            "--context",
            "bad-url",
        ],
    );

    let fleet = || server_fn(&dash, "", "fleet_view", "");
    wait_until(
        "both sims live on the fleet page",
        Duration::from_secs(60),
        || {
            let f = fleet();
            health(&f, "a") == "Live" && health(&f, "b") == "Live"
        },
    );
    let f = fleet();
    for broken in ["no-user", "bad-cert", "bad-url"] {
        assert_eq!(health(&f, broken), "Unavailable", "{broken}: {f}");
        let reason = cluster(&f, broken)["health"]["Unavailable"]["reason"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            reason.contains(broken),
            "{broken}'s reason names it: {reason}"
        );
    }
    assert_eq!(cluster(&f, "b")["nodes"], 6);
    assert_eq!(cluster(&f, "b")["daemonsets"], 3);

    // The fleet lists exactly the problem cells each cluster's matrix shows.
    for name in ["a", "b"] {
        let matrix = matrix_problems(&dash, name);
        assert_eq!(fleet_problems(&f, name), matrix, "cluster {name}");
        let total: u64 = matrix.iter().map(|(_, n)| n).sum();
        assert_eq!(cluster(&f, name)["problem_cells"], total, "cluster {name}");
    }
    assert!(
        !matrix_problems(&dash, "a").is_empty(),
        "the demo has problem cells to compare"
    );

    // Every page and API path is per cluster; the plain URLs mean the first.
    let b_window = server_fn(&dash, "/c/b", "matrix_window", "problems=0");
    let b_node = b_window["rows"][0]["name"]
        .as_str()
        .expect("b has nodes")
        .to_string();
    let (status, page) = get(&dash, &format!("/c/b/node/{b_node}"));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains(&b_node));
    let (status, _) = get(&dash, &format!("/c/a/node/{b_node}"));
    assert_eq!(status, 404, "the demo has no {b_node}");
    assert_eq!(
        get(&dash, "/node/worker-1").0,
        200,
        "the demo's node on the first cluster"
    );
    let (status, text) = get(&dash, "/c/nope/");
    assert_eq!(status, 404);
    assert!(
        text.contains("\"nope\"") && text.contains("a, b, no-user"),
        "{text}"
    );
    let (status, page) = get(&dash, "/c/no-user");
    assert_eq!(status, 200);
    assert!(
        page.contains("cannot connect to context no-user"),
        "the broken cluster's page says why"
    );
    let (_, metrics) = get(&dash, "/metrics");
    assert!(metrics.contains("cluster=\"a\"") && metrics.contains("cluster=\"b\""));
    assert_eq!(metrics.matches("# EOF").count(), 1);
    let (status, ready) = get(&dash, "/readyz");
    assert_eq!(status, 200, "{ready}");
    assert!(ready.starts_with("2 of 5 clusters ready"), "{ready}");

    // The same fleet read back from Prometheus (`serve --fleet-prometheus`, issue 25 item 5)
    // agrees with the in-process one: a real Prometheus scrapes this serve's `/metrics`, whose
    // series carry each cluster's name, and a second daemonscope reads the fleet from it.
    same_fleet_through_prometheus(&dash, dir.path());

    // One API server stops: its cluster turns stale, the other stays live.
    b.shutdown().await;
    wait_until(
        "b stale after its API server stopped",
        Duration::from_secs(30),
        || health(&fleet(), "b") == "Stale",
    );
    assert_eq!(health(&fleet(), "a"), "Live");
    assert_eq!(get(&dash, "/c/a").0, 200);
}

#[test]
fn an_unknown_context_ends_the_start_with_one_line_naming_it_and_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("kubeconfig");
    std::fs::write(
        &config,
        kubeconfig("http://127.0.0.1:9", "http://127.0.0.1:9"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_daemonscope"))
        .arg("serve")
        .arg("--kubeconfig")
        .arg(&config)
        .args(["--context", "a", "--context", "prod-eu"])
        .args(["--listen", "127.0.0.1:0", "--site-root", &site_root()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("\"prod-eu\""), "{err}");
    assert!(
        lines[0].contains("a, b, no-user, bad-cert, bad-url"),
        "{err}"
    );
}

/// What both fleet sources must agree on for clusters `a` and `b`: each cluster's line and
/// each DaemonSet's placement there (the broken contexts export no series, so Prometheus
/// cannot know them).
fn comparable(fleet: &Value) -> Vec<String> {
    let wanted = |c: &Value| c == "a" || c == "b";
    let mut lines: Vec<String> = fleet["clusters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| wanted(&c["name"]))
        .map(|c| {
            format!(
                "cluster {} {} nodes={} daemonsets={} problem_cells={}",
                c["name"], c["health"], c["nodes"], c["daemonsets"], c["problem_cells"]
            )
        })
        .collect();
    for d in fleet["daemonsets"].as_array().into_iter().flatten() {
        for p in d["placements"].as_array().into_iter().flatten() {
            if wanted(&p["cluster"]) {
                lines.push(format!(
                    "{}/{} on {}: counts={} refused={} stalled={} problem_cells={}",
                    d["namespace"],
                    d["name"],
                    p["cluster"],
                    p["counts"],
                    p["refused"],
                    p["stalled"],
                    p["problem_cells"]
                ));
            }
        }
    }
    lines.sort();
    lines
}

fn same_fleet_through_prometheus(dash: &Serve, dir: &Path) {
    use crate::support::demo::Demo;
    use crate::support::prometheus::{Prometheus, Target};
    let addr = dash.base.trim_start_matches("http://").to_string();
    let prometheus = Prometheus::start(
        &[Target {
            addr,
            labels: Vec::new(),
        }],
        None,
    );
    let from_prometheus = Demo::start(
        &dir.join("fleet.log"),
        &["--fleet-prometheus", &prometheus.url()],
    );
    let read = |port: Option<u16>| -> Option<Value> {
        let (status, body) = match port {
            Some(port) => crate::fleet_prometheus::api_fleet(port),
            None => get(dash, "/api/fleet"),
        };
        (status == 200)
            .then(|| serde_json::from_str(&body).ok())
            .flatten()
    };
    // Prometheus is a scrape (1 s) behind, and the demo's rollout moves: wait for a moment
    // where both say the same.
    let started = Instant::now();
    let mut last = (Vec::new(), Vec::new());
    while started.elapsed() < Duration::from_secs(60) {
        if let (Some(here), Some(there)) = (read(None), read(Some(from_prometheus.port))) {
            last = (comparable(&here), comparable(&there));
            if !last.0.is_empty() && last.0 == last.1 {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let (here, there) = last;
    let only_here: Vec<_> = here.iter().filter(|l| !there.contains(l)).collect();
    let only_there: Vec<_> = there.iter().filter(|l| !here.contains(l)).collect();
    panic!(
        "the fleet from Prometheus never equalled the in-process fleet in 60 s\nonly in process: {only_here:#?}\nonly from Prometheus: {only_there:#?}\nPrometheus log: {}",
        prometheus.log()
    );
}
