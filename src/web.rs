//! The axum server: Leptos SSR pages and server functions, the live feed, probes, metrics.
//!
//! Layer: ssr only; may import anything. `router(state)` builds the whole application so HTTP
//! tests run through `tower::ServiceExt::oneshot` without a socket; `serve` connects to the
//! cluster (or starts the demo one), spawns the watchers and listens.

pub mod complete;
pub mod conn;
#[cfg(feature = "embed-site")]
pub mod embedded;
pub mod fleet;
pub mod headers;
pub mod limits;
pub mod live;
pub mod probes;
pub mod site;
pub mod view;

use crate::cluster::connect::{self, Connection};
use crate::cluster::state::ClusterState;
use crate::cluster::{watch, ConnectError, Live, Reader};
use crate::server_fns::context::ServerContext;
use crate::windows::Windows;
use axum::extract::FromRef;
use axum::routing::get;
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// Which cluster to show.
#[derive(Debug, Clone)]
pub enum ClusterTarget {
    /// A cluster from a kubeconfig (`path`, else KUBECONFIG/~/.kube/config, else in-cluster),
    /// with an optional context.
    Kubeconfig {
        /// `--kubeconfig` (may list several files, as KUBECONFIG does).
        path: Option<PathBuf>,
        /// `--context`.
        context: Option<String>,
    },
    /// The embedded simulated cluster, started in-process and reached through kube-rs like
    /// any other cluster.
    Demo(crate::sim::ScenarioSource),
}

/// Options of `daemonscope serve`.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// The cluster to show.
    pub target: ClusterTarget,
    /// Limit DaemonSets (and their pods) to these namespaces; empty: all.
    pub namespaces: Vec<String>,
    /// How long a new node's missing daemon pods show as `starting` (`--new-node-grace`).
    pub new_node_grace: crate::domain::coverage::NewNodeGrace,
    /// A rollout with no progress for this long is reported stalled (`--stall-after`).
    pub stall_after: std::time::Duration,
    /// How often the API server's readiness is read and how long a watch may stay silent
    /// (`--readyz-every`, `--watch-quiet-after`).
    pub freshness: crate::cluster::watch::Freshness,
    /// Where the WASM, JS, CSS and favicon come from (`--site-root`, or the binary itself).
    pub site: site::Site,
    /// The fleet read from Prometheus (`--fleet-prometheus`), served on `/api/fleet`.
    pub fleet: Option<crate::fleet_prometheus::FleetSource>,
}

/// What every axum handler gets: the Leptos options and the live state. The server
/// functions get a [`ServerContext`] built from it.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Site root, package names, address: built in code, no cargo-leptos variables needed.
    pub leptos_options: LeptosOptions,
    /// The watched cluster.
    pub live: Arc<Live>,
    /// On-demand single-object reads; None when the state has no API server behind it.
    pub reader: Option<Reader>,
    /// Every page's view, cut from one read model (`/api/view`, the server functions).
    pub windows: Arc<Windows>,
    /// Where the browser's files come from.
    pub site: site::Site,
    /// The fleet's source (`--fleet-prometheus`), for `/api/fleet`; None: no fleet.
    pub fleet: Option<Arc<crate::fleet_prometheus::FleetSource>>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

impl AppState {
    /// The state for a server on `listen` showing `live`, with the default site (the
    /// embedded one when the binary has it, else `target/site`).
    pub fn new(listen: SocketAddr, live: Arc<Live>) -> Self {
        Self::with_site(listen, live, site::Site::default())
    }

    /// The state for a server on `listen` showing `live`, serving the browser's files from
    /// `site`.
    pub fn with_site(listen: SocketAddr, live: Arc<Live>, site: site::Site) -> Self {
        let leptos_options = LeptosOptions::builder()
            .output_name("daemonscope")
            .site_root(site.leptos_root())
            .site_pkg_dir("pkg")
            .site_addr(listen)
            .env(leptos::config::Env::PROD)
            .build();
        Self {
            leptos_options,
            windows: Windows::start(&live),
            live,
            reader: None,
            site,
            fleet: None,
        }
    }

    /// The same state, with on-demand reads through `reader` (a pod in full, revision
    /// templates).
    pub fn with_reader(mut self, reader: Reader) -> Self {
        self.reader = Some(reader);
        self
    }

    /// The same state, with `/api/fleet` read from `source`.
    pub fn with_fleet(mut self, source: Option<crate::fleet_prometheus::FleetSource>) -> Self {
        self.fleet = source.map(Arc::new);
        self
    }
}

/// The whole application as one router (testable with `oneshot`).
pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(crate::app::App);
    let options = state.leptos_options.clone();
    // What the server functions and the server-side render read; `web` provides it, they
    // never name `web` (no import cycle).
    let context = ServerContext::new(
        state.live.clone(),
        state.reader.clone(),
        state.windows.clone(),
    );
    let fallback_context = context.clone();
    let router = Router::new()
        .route("/healthz", get(probes::healthz))
        .route("/readyz", get(probes::readyz))
        .route("/metrics", get(probes::metrics))
        .route("/api/fleet", get(fleet::fleet))
        .route("/api/live", get(live::live_feed))
        .route("/api/view", get(view::view_feed))
        .route("/api/view/node/{name}", get(view::node_view))
        .route("/api/view/ds/{namespace}/{name}", get(view::daemonset_view))
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(context.clone()),
            move || page_shell(options.clone()),
        )
        .fallback(site::fallback(move || {
            provide_context(fallback_context.clone())
        }))
        .layer(axum::middleware::from_fn(complete::finish_pages))
        .layer(axum::middleware::from_fn(limits::limit_api_bodies))
        // gzip for HTML, JSON, CSS, JS and WASM when the browser asks: the matrix of a large
        // cluster is mostly repeated markup. tower-http's default predicate leaves
        // `text/event-stream` alone, so live deltas are never held back in a compressor.
        .layer({
            use tower_http::compression::predicate::Predicate as _;
            tower_http::compression::CompressionLayer::new().compress_when(
                tower_http::compression::predicate::DefaultPredicate::new()
                    .and(small_enough_to_compress),
            )
        });
    headers::secure(router).with_state(state)
}

/// The app's shell, sending the page's Content-Security-Policy with the nonce its inline
/// scripts carry (every rendered page, the 404 page included, goes through here).
pub fn page_shell(options: LeptosOptions) -> impl IntoView {
    headers::send_page_policy();
    crate::app::shell(options)
}

/// The largest file worth compressing on every request (the release WASM is under 2 MiB).
/// Why a bound: a debug build's WASM is over 100 MB, and gzipping that per page load in an
/// unoptimised server takes longer than the browser would wait. Streamed pages have no
/// length and are always compressed.
const MAX_COMPRESSED_BYTES: u64 = 8 * 1024 * 1024;

fn small_enough_to_compress(
    _: axum::http::StatusCode,
    _: axum::http::Version,
    headers: &axum::http::HeaderMap,
    _: &axum::http::Extensions,
) -> bool {
    headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .is_none_or(|len| len <= MAX_COMPRESSED_BYTES)
}

/// Connects to the target. The demo handle (if any) must live as long as the server.
async fn connect(
    target: &ClusterTarget,
) -> Result<(Connection, Option<crate::sim::SimHandle>), ConnectError> {
    match target {
        ClusterTarget::Kubeconfig { path, context } => Ok((
            connect::from_kubeconfig(path.as_deref(), context.as_deref()).await?,
            None,
        )),
        ClusterTarget::Demo(source) => {
            let sim = crate::sim::start_in_process(source.clone())
                .await
                .map_err(ConnectError::Demo)?;
            let conn = connect::from_config(
                sim.kube_config(),
                format!("demo cluster ({})", sim.url),
                "demo-user".into(),
            )?;
            Ok((conn, Some(sim)))
        }
    }
}

/// Waits for Ctrl-C (or SIGTERM on unix) so the server shuts down cleanly.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(err) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %err, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(err) => {
                tracing::warn!(error = %err, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down");
}

/// Starts watching a connected cluster: the live state with its watcher tasks, on wall time,
/// without a new-node grace and with the default stall threshold, so every cell is exactly
/// what the Kubernetes rules say (the fidelity tests compare it with Kubernetes itself).
/// `serve` uses [`start_watching_with`].
pub async fn start_watching(
    conn: &Connection,
    namespaces: &[String],
) -> (Arc<Live>, Vec<tokio::task::JoinHandle<()>>) {
    let state = ClusterState::new(conn.cluster.clone())
        .with_grace(crate::domain::coverage::NewNodeGrace::OFF)
        .with_stall_after(crate::domain::rollout::DEFAULT_STALL_AFTER_SECONDS);
    start_watching_with(conn, namespaces, state).await
}

/// Starts watching a connected cluster into `state` (empty, with its clock, new-node grace
/// and stall threshold chosen): the live state with its watcher tasks and the ticker that
/// applies what time alone changes.
pub async fn start_watching_with(
    conn: &Connection,
    namespaces: &[String],
    state: ClusterState,
) -> (Arc<Live>, Vec<tokio::task::JoinHandle<()>>) {
    let scopes = watch::scopes(namespaces);
    let live = Live::new(state, &scopes);
    let streaming = connect::supports_streaming_lists(&conn.client).await;
    let dog = watch::Watchdog {
        activity: conn.activity.clone(),
        freshness: conn.freshness,
    };
    let mut tasks = watch::spawn_all(&conn.client, &scopes, &live, &conn.user, streaming, &dog);
    // The API server's own readiness: an open watch says nothing when its storage is gone.
    let (polled, client) = (live.clone(), conn.client.clone());
    let every = conn.freshness.readyz_every;
    tasks.push(live.tasks().spawn("apiserver-readyz", move || {
        crate::cluster::readiness::run(client.clone(), polled.clone(), every)
    }));
    let ticking = live.clone();
    tasks.push(live.tasks().spawn("ticker", move || {
        let ticking = ticking.clone();
        async move {
            // Column summaries follow their cells twice a second; availability and new-node
            // graces are re-read once a second (see `Live::flush` and `Live::tick`).
            let mut every = tokio::time::interval(std::time::Duration::from_millis(500));
            let mut n: u64 = 0;
            loop {
                every.tick().await;
                n += 1;
                if n.is_multiple_of(2) {
                    ticking.tick().await;
                } else {
                    ticking.flush().await;
                }
            }
        }
    }));
    (live, tasks)
}

/// Serve the dashboard until interrupted.
pub async fn serve(options: ServeOptions) -> Result<(), std::io::Error> {
    // Before connecting: a server whose pages cannot come alive is a mistake to say at once.
    options.site.check().map_err(std::io::Error::other)?;
    let (mut conn, sim) = connect(&options.target)
        .await
        .map_err(std::io::Error::other)?;
    conn.freshness = options.freshness;
    tracing::info!(cluster = %conn.cluster, "connected");
    // "Now" is the clock the cluster's timestamps come from: the embedded sim's simulated
    // clock (which may run faster than real time), else wall time.
    let clock = match &sim {
        Some(sim) => {
            let store = sim.store.clone();
            crate::cluster::state::Clock::new(move || store.now().as_second())
        }
        None => crate::cluster::state::Clock::default(),
    };
    let stall_after = i64::try_from(options.stall_after.as_secs()).unwrap_or(i64::MAX);
    let state = ClusterState::with_clock(conn.cluster.clone(), clock)
        .with_grace(options.new_node_grace)
        .with_stall_after(stall_after);
    let (live, watchers) = start_watching_with(&conn, &options.namespaces, state).await;
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(|err| {
            std::io::Error::new(
                err.kind(),
                format!("cannot listen on {}: {err}", options.listen),
            )
        })?;
    let addr = listener.local_addr()?;
    println!("daemonscope: serving {} on http://{addr}", conn.cluster);
    conn::serve(
        listener,
        router(
            AppState::with_site(addr, live, options.site)
                .with_reader(Reader::new(conn.client.clone()))
                .with_fleet(options.fleet),
        ),
        conn::HEADER_READ_TIMEOUT,
        shutdown_signal(),
    )
    .await;
    for task in watchers {
        task.abort();
    }
    if let Some(sim) = sim {
        sim.shutdown().await;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_headers;
#[cfg(test)]
mod tests_limits;
#[cfg(test)]
mod tests_view;
