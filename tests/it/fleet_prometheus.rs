//! `serve --fleet-prometheus` (issue 25 item 5): the fleet read from Prometheus' query API.
//!
//! Against a fake Prometheus (an axum handler here) that is down, slow, answers garbage or
//! an error: `/api/fleet` says so in one typed error naming the query, within the timeout,
//! and the rest of the server is untouched. Against the real Prometheus of
//! `prometheus_real`, [`assert_fleet_matches_each_cluster`] holds the summary to each scraped
//! instance's own matrix.

use crate::support::demo::{free_port, Demo};
use daemonscope::domain::alerts::{stall_flags, RolloutSignal};
use daemonscope::domain::fleet::from_metrics::stall_words;
use daemonscope::domain::fleet::{ClusterHealth, FleetSummary};
use daemonscope::domain::view::{LiveMessage, MatrixSnapshot, StateCounts};
use std::future::IntoFuture;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The first event of `/api/live` on `port`: the whole matrix the cluster's page shows.
pub fn live_snapshot(port: u16) -> Option<MatrixSnapshot> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(
        stream,
        "GET /api/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut bytes = Vec::new();
    let mut buf = [0u8; 65536];
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let n = stream.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        bytes.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&bytes);
        let Some((_, body)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let body = crate::support::demo::dechunk(body);
        let Some(at) = body.find("data: ") else {
            continue;
        };
        let Some(end) = body[at..].find("\n\n") else {
            continue;
        };
        let message: LiveMessage = serde_json::from_str(&body[at + 6..at + end]).ok()?;
        return match message {
            LiveMessage::Snapshot(snapshot) => Some(snapshot),
            LiveMessage::Deltas { .. } => None,
        };
    }
    None
}

/// What the fleet should say about one cluster, from its own matrix: node and DaemonSet
/// counts, problem cells, and per DaemonSet the cells per state, refusals and stall words.
fn expected(snapshot: &MatrixSnapshot) -> String {
    let mut lines = vec![format!(
        "nodes {} daemonsets {} problems {}",
        snapshot.nodes.len(),
        snapshot.daemonsets.len(),
        snapshot
            .daemonsets
            .iter()
            .map(|c| c.problem_nodes)
            .sum::<i64>()
    )];
    let mut columns: Vec<_> = snapshot.daemonsets.iter().enumerate().collect();
    columns.sort_by(|a, b| (&a.1.namespace, &a.1.name).cmp(&(&b.1.namespace, &b.1.name)));
    for (i, column) in columns {
        let counts = StateCounts::of(snapshot.nodes.iter().filter_map(|row| row.cells.get(i)));
        let stalled = (daemonscope::domain::alerts::rollout_signal(column.pace.as_ref())
            == RolloutSignal::Stalled)
            .then(|| {
                stall_words(
                    stall_flags(column.pace.as_ref())
                        .into_iter()
                        .filter(|(_, on)| *on)
                        .map(|(cause, _)| cause),
                )
            });
        let refused = column.refused.as_ref().map_or(0, |_| column.missing);
        lines.push(format!(
            "{} {:?} refused {refused} stalled {stalled:?}",
            column.key,
            counts.iter().collect::<Vec<_>>()
        ));
    }
    lines.join("\n")
}

/// The same lines from the fleet summary, for `cluster`.
fn reported(fleet: &FleetSummary, cluster: &str) -> String {
    let Some(line) = fleet.clusters.iter().find(|c| c.name == cluster) else {
        return format!("cluster {cluster} not in the fleet");
    };
    let mut lines = vec![format!(
        "nodes {} daemonsets {} problems {}",
        line.nodes, line.daemonsets, line.problem_cells
    )];
    for ds in &fleet.daemonsets {
        for placement in ds.placements.iter().filter(|p| p.cluster == cluster) {
            lines.push(format!(
                "{}/{} {:?} refused {} stalled {:?}",
                ds.namespace,
                ds.name,
                placement.counts.iter().collect::<Vec<_>>(),
                placement.refused,
                placement.stalled
            ));
        }
    }
    lines.join("\n")
}

/// Within 20 s, the fleet read from `prometheus` (through `read`) says of each
/// `(cluster, port)` exactly what that daemonscope's own matrix shows, and every cluster is
/// live and linked through `template`. Retried because a rollout moves between the scrape
/// and the look at the matrix.
pub fn assert_fleet_matches_each_cluster(
    read: impl Fn() -> Result<FleetSummary, String>,
    clusters: &[(&str, u16)],
    template: &str,
) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let fleet = read().expect("the fleet is read from the real Prometheus");
        let mut differences = Vec::new();
        for (name, port) in clusters {
            let own = expected(&live_snapshot(*port).expect("the cluster's own matrix"));
            let from_prometheus = reported(&fleet, name);
            if own != from_prometheus {
                differences.push(format!(
                    "cluster {name}:\n--- its matrix\n{own}\n--- the fleet\n{from_prometheus}"
                ));
            }
        }
        let names: Vec<&str> = fleet.clusters.iter().map(|c| c.name.as_str()).collect();
        let want: Vec<&str> = clusters.iter().map(|(n, _)| *n).collect();
        if differences.is_empty() && names == want {
            for cluster in &fleet.clusters {
                assert_eq!(cluster.health, ClusterHealth::Live, "{}", cluster.name);
                assert_eq!(
                    cluster.link.as_deref(),
                    Some(template.replace("{cluster}", &cluster.name).as_str())
                );
            }
            assert!(
                fleet.daemonsets.iter().any(|d| d
                    .placements
                    .iter()
                    .any(|p| p.stalled.is_some() && p.has_problem())),
                "the demo's stall is in the fleet"
            );
            return;
        }
        assert!(
            Instant::now() < deadline,
            "after 20 s the fleet differs from the clusters ({names:?}):\n{}",
            differences.join("\n")
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A fake Prometheus on a free port answering every request with `status` and `body` after
/// `delay` (for a minute, then it stops).
fn fake_prometheus(
    status: u16,
    body: &'static str,
    delay: Duration,
) -> (u16, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    listener.set_nonblocking(true).expect("nonblocking");
    let handle = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let app = axum::Router::new().fallback(move || async move {
                tokio::time::sleep(delay).await;
                (
                    axum::http::StatusCode::from_u16(status).expect("status"),
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    body,
                )
            });
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let _ = tokio::time::timeout(
                Duration::from_secs(60),
                axum::serve(listener, app).into_future(),
            )
            .await;
        });
    });
    (port, handle)
}

/// `serve --demo --fleet-prometheus URL --fleet-timeout 1s`, waiting for its matrix.
fn demo_with_fleet(dir: &std::path::Path, name: &str, url: &str) -> Demo {
    let demo = Demo::start(
        &dir.join(format!("{name}.log")),
        &["--fleet-prometheus", url, "--fleet-timeout", "1s"],
    );
    crate::support::real_cluster::wait_for("the demo to serve", 30, || demo.get("/readyz"));
    demo
}

/// `/api/fleet`'s status and body; status 0 when nothing answers.
pub fn api_fleet(port: u16) -> (u16, String) {
    crate::support::demo::request(port, "/api/fleet").unwrap_or((0, String::new()))
}

#[test]
fn a_prometheus_down_slow_refusing_or_answering_garbage_is_one_clear_error_and_nothing_else() {
    let dir = tempfile::tempdir().expect("temp dir");
    let down = free_port();
    let (slow, _s) = fake_prometheus(200, "{}", Duration::from_secs(30));
    let (garbage, _g) = fake_prometheus(200, "<html>not prometheus</html>", Duration::ZERO);
    let (refusing, _r) = fake_prometheus(
        503,
        r#"{"status":"error","errorType":"unavailable","error":"too many queries"}"#,
        Duration::ZERO,
    );
    let cases = [
        (down, "cannot reach Prometheus at http://127.0.0.1:"),
        (slow, "gave no answer within 1s"),
        (
            garbage,
            "answered something that is not its query API's JSON",
        ),
        (
            refusing,
            "refused it (HTTP 503, unavailable): too many queries",
        ),
    ];
    for (port, words) in cases {
        let url = format!("http://127.0.0.1:{port}");
        let demo = demo_with_fleet(dir.path(), &port.to_string(), &url);
        let started = Instant::now();
        let (status, body) = api_fleet(demo.port);
        let took = started.elapsed();
        assert_eq!(status, 502, "{body}");
        let error: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        let error = error["error"].as_str().expect("an error text");
        assert!(
            error.starts_with("reading the fleet from Prometheus: the ")
                && error.contains(" query (")
                && error.contains(words),
            "{url}: {error}"
        );
        assert!(
            took < Duration::from_secs(5),
            "{url}: answered after {took:?}"
        );
        // Nothing else is affected: the cluster's own pages and metrics still answer.
        assert!(demo
            .get("/metrics")
            .is_some_and(|m| m.contains("daemonscope_nodes ")));
        assert!(demo.get("/readyz").is_some());
        let log =
            std::fs::read_to_string(dir.path().join(format!("{port}.log"))).unwrap_or_default();
        assert!(log.contains("fleet not read"), "logged: {log}");
    }
    let no_fleet = Demo::start(&dir.path().join("none.log"), &[]);
    crate::support::real_cluster::wait_for("the demo", 30, || no_fleet.get("/readyz"));
    // Without --fleet-prometheus the route answers from the demo itself: one live cluster.
    let (status, body) = api_fleet(no_fleet.port);
    assert_eq!(status, 200, "{body}");
    let summary: serde_json::Value = serde_json::from_str(&body).expect("the fleet as JSON");
    assert_eq!(
        summary["clusters"].as_array().map(Vec::len),
        Some(1),
        "{body}"
    );
}
