//! What the live-path integration tests share, whichever backend they run against (the
//! embedded simulated cluster in `live_sim.rs`, Kubernetes' own control plane in
//! `live_k8s.rs`): a TCP proxy the test controls, the dashboard's watchers behind it, the
//! matrix the rules engine computes from a backend's objects, and the waits.
//!
//! Why one module: "the live-path tests run against both backends" (issue 11) means the same
//! notion of converged on both sides; only where the objects come from differs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![allow(dead_code)]

use daemonscope::cluster::connect;
use daemonscope::cluster::watch::Freshness;
use daemonscope::cluster::Live;
use daemonscope::domain::coverage::{build_snapshot, CellState, NewNodeGrace};
use daemonscope::domain::view::MatrixSnapshot;
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

// ---- a proxy the test controls ------------------------------------------------------------

/// Whether the proxy forwards, holds new connections, or refuses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Forward,
    Hold,
    Refuse,
}

/// A TCP proxy in front of the API server: the dashboard only ever talks to it. It relays
/// bytes, so a TLS server stays TLS end to end (the client verifies the server's certificate
/// for the name in its URL, `127.0.0.1` either way).
pub struct Proxy {
    pub addr: SocketAddr,
    upstream: Arc<Mutex<SocketAddr>>,
    mode: watch::Sender<Mode>,
    /// While true, open connections stay open and forward nothing (a stuck proxy).
    silenced: watch::Sender<bool>,
    connections: Arc<Mutex<JoinSet<()>>>,
    _accept: tokio::task::JoinHandle<()>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let upstream = Arc::new(Mutex::new(upstream));
        let (mode, mode_rx) = watch::channel(Mode::Forward);
        let (silenced, silenced_rx) = watch::channel(false);
        let connections = Arc::new(Mutex::new(JoinSet::new()));
        let (up, conns) = (upstream.clone(), connections.clone());
        let accept = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let mut mode_rx = mode_rx.clone();
                let silenced_rx = silenced_rx.clone();
                let up = up.clone();
                let task = async move {
                    loop {
                        let mode = *mode_rx.borrow_and_update();
                        match mode {
                            Mode::Forward => break,
                            Mode::Refuse => return,
                            Mode::Hold => {
                                if mode_rx.changed().await.is_err() {
                                    return;
                                }
                            }
                        }
                    }
                    let target = *up.lock().unwrap_or_else(|e| e.into_inner());
                    if let Ok(outbound) = TcpStream::connect(target).await {
                        let (in_read, in_write) = inbound.into_split();
                        let (out_read, out_write) = outbound.into_split();
                        tokio::join!(
                            pipe(in_read, out_write, silenced_rx.clone()),
                            pipe(out_read, in_write, silenced_rx)
                        );
                    }
                };
                conns.lock().unwrap_or_else(|e| e.into_inner()).spawn(task);
            }
        });
        Ok(Proxy {
            addr,
            upstream,
            mode,
            silenced,
            connections,
            _accept: accept,
        })
    }

    /// Drops every open connection (watches included) and applies `mode` to new ones.
    pub fn cut(&self, mode: Mode) {
        let _ = self.mode.send(mode);
        self.connections
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .abort_all();
    }

    /// Keeps every connection open but forwards nothing (`true`), or forwards again, the bytes
    /// held meanwhile first (`false`): a proxy or load balancer that stops passing traffic.
    pub fn silence(&self, silent: bool) {
        let _ = self.silenced.send(silent);
    }

    pub fn set_mode(&self, mode: Mode) {
        let _ = self.mode.send(mode);
    }

    pub fn redirect(&self, upstream: SocketAddr) {
        *self.upstream.lock().unwrap_or_else(|e| e.into_inner()) = upstream;
    }
}

/// Copies `from` to `to`; a chunk read while silenced waits until the silence ends.
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut silenced: watch::Receiver<bool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if silenced.wait_for(|s| !*s).await.is_err() {
            break;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

// ---- the dashboard under test -------------------------------------------------------------

/// The dashboard's live state, fed by its watchers through the proxy.
pub struct Dashboard {
    pub live: Arc<Live>,
    pub proxy: Proxy,
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Dashboard {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Dashboard {
    /// Starts the dashboard's watchers (`web::start_watching`, as `serve` does) on `config`,
    /// with its server URL pointed at a new proxy in front of the server it named.
    pub async fn start(
        config: kube::Config,
        cluster: &str,
        user: &str,
    ) -> Result<Dashboard, Box<dyn std::error::Error>> {
        Self::start_tuned(config, cluster, user, Freshness::default()).await
    }

    /// [`Dashboard::start`] with its freshness checks paced by `freshness` (tests use seconds).
    pub async fn start_tuned(
        mut config: kube::Config,
        cluster: &str,
        user: &str,
        freshness: Freshness,
    ) -> Result<Dashboard, Box<dyn std::error::Error>> {
        let url = config.cluster_url.clone();
        let upstream: SocketAddr = url
            .authority()
            .ok_or_else(|| format!("no host:port in {url}"))?
            .as_str()
            .parse()?;
        let proxy = Proxy::start(upstream).await?;
        let scheme = url.scheme_str().unwrap_or("http");
        config.cluster_url = format!("{scheme}://{}", proxy.addr).parse()?;
        let mut conn = connect::from_config(config, cluster.into(), user.into())?;
        conn.freshness = freshness;
        let (live, tasks) = daemonscope::web::start_watching(&conn, &[]).await;
        Ok(Dashboard { live, proxy, tasks })
    }

    pub fn cell(&self, node: &str, ds: &str) -> Option<CellState> {
        self.live.read(|s| s.cell(node, ds))
    }

    /// How many (re)lists the watchers have done, from `/metrics`.
    pub fn relists(&self) -> u64 {
        self.relists_by_resource().values().sum()
    }

    /// The (re)lists per watched resource, from `/metrics`: a failing test says which
    /// watcher relisted, not only that one did.
    pub fn relists_by_resource(&self) -> std::collections::BTreeMap<String, u64> {
        let text = self.live.metrics().encode().unwrap_or_default();
        text.lines()
            .filter_map(|l| l.strip_prefix("daemonscope_watch_relists_total"))
            .filter_map(|l| {
                let (labels, count) = l.rsplit_once(' ')?;
                Some((labels.to_string(), count.parse::<u64>().ok()?))
            })
            .collect()
    }
}

// ---- what the rules engine says --------------------------------------------------------------

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// What the rules engine says the matrix is, from the sim's own objects.
pub fn expected_from_store(store: &daemonscope::sim::store::Store) -> MatrixSnapshot {
    expected_from(
        &store.list::<Node>(None),
        &store.list::<DaemonSet>(None),
        &store.list::<ControllerRevision>(None),
        &store.list::<Pod>(None),
    )
}

/// What the rules engine says the matrix is, from a backend's objects
/// (`domain::coverage::build_snapshot` over `cluster::convert`).
pub fn expected_from(
    nodes: &[Node],
    daemonsets: &[DaemonSet],
    revisions: &[ControllerRevision],
    pods: &[Pod],
) -> MatrixSnapshot {
    use daemonscope::edge::convert::{daemonset_facts, node_facts, pod_facts};
    let mut nodes: Vec<_> = nodes.iter().map(node_facts).collect();
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    let mut daemonsets: Vec<_> = daemonsets
        .iter()
        .filter_map(|d| daemonset_facts(d).ok())
        .map(|mut ds| {
            // §d.4: the current revision is the owned ControllerRevision with the highest number.
            let current = revisions
                .iter()
                .filter(|r| {
                    r.metadata
                        .owner_references
                        .iter()
                        .flatten()
                        .any(|o| o.uid == ds.uid && o.controller == Some(true))
                })
                .max_by_key(|r| r.revision.unwrap_or_default());
            if let Some(hash) = current.and_then(|r| {
                r.metadata
                    .labels
                    .as_ref()?
                    .get("controller-revision-hash")
                    .cloned()
            }) {
                ds.current_revision_hash = hash;
            }
            ds
        })
        .collect();
    daemonsets.sort_by_key(|d| d.key());
    let pods: Vec<_> = pods.iter().map(pod_facts).collect();
    // The dashboard under test runs without a new-node grace (`web::start_watching`): the
    // fidelity tests compare the Kubernetes rules alone.
    build_snapshot(&nodes, &daemonsets, &pods, now(), "", NewNodeGrace::OFF)
}

/// One cell of a snapshot.
pub fn cell_of(snapshot: &MatrixSnapshot, node: &str, ds: &str) -> Option<CellState> {
    let column = snapshot.daemonsets.iter().position(|d| d.key == ds)?;
    let row = snapshot.nodes.iter().find(|n| n.name == node)?;
    row.cells.get(column).copied()
}

// ---- waits --------------------------------------------------------------------------------

/// How long a wait may take and how often it looks.
#[derive(Debug, Clone, Copy)]
pub struct Patience {
    pub timeout: Duration,
    pub poll: Duration,
}

impl Patience {
    /// The simulated cluster: objects change only when the test changes them.
    pub const SIM: Patience = Patience {
        timeout: Duration::from_secs(15),
        poll: Duration::from_millis(50),
    };
}

/// Waits until the dashboard shows exactly what the rules engine computes from the backend's
/// objects; `want` reads them (None: cannot read them right now, look again).
pub async fn converges<F, Fut>(dash: &Dashboard, what: &str, patience: Patience, mut want: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<MatrixSnapshot>>,
{
    let deadline = Instant::now() + patience.timeout;
    loop {
        let want = want().await;
        let mut got = dash.live.snapshot();
        // The pace is the live store's own observation over time (its samples), and the
        // missing causes need its events and clock; the rules engine's one-shot snapshot has
        // neither, so the comparison leaves them out.
        for column in &mut got.daemonsets {
            column.pace = None;
            column.missing_causes = None;
        }
        if let Some(want) = &want {
            if got.nodes == want.nodes && got.daemonsets == want.daemonsets {
                return;
            }
        }
        if Instant::now() > deadline {
            let want = want.map(|w| (w.daemonsets, w.nodes));
            panic!(
                "after {what}, the dashboard did not converge.\n dashboard: {:#?}\n rules engine: {:#?}\n health: {:#?}",
                (&got.daemonsets, &got.nodes),
                want,
                got.health
            );
        }
        tokio::time::sleep(patience.poll).await;
    }
}

/// Polls `condition` until it holds, or panics naming `what` after `timeout`.
pub async fn until_within(what: &str, timeout: Duration, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// [`until_within`] 15 s.
pub async fn until(what: &str, condition: impl FnMut() -> bool) {
    until_within(what, Duration::from_secs(15), condition).await;
}
