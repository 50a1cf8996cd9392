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
pub mod select;
pub mod serve;
pub mod site;
pub mod view;

pub use serve::{serve, start_watching, start_watching_with};

use crate::cluster::{Live, Reader};
use crate::server_fns::context::{Clusters, ServerContext};
use crate::windows::Windows;
use axum::extract::FromRef;
use axum::routing::get;
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// Which clusters to show.
#[derive(Debug, Clone)]
pub enum ClusterTarget {
    /// Clusters from a kubeconfig (`path`, else KUBECONFIG/~/.kube/config, else in-cluster):
    /// the current context when `contexts` is empty and `all_contexts` false, else each named
    /// context (or every one), each watched on its own.
    Kubeconfig {
        /// `--kubeconfig` (may list several files, as KUBECONFIG does).
        path: Option<PathBuf>,
        /// `--context` (repeatable), in the order given.
        contexts: Vec<String>,
        /// `--all-contexts`.
        all_contexts: bool,
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

/// What every axum handler gets: the Leptos options and the watched clusters. The server
/// functions get the same [`Clusters`] as their context.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Site root, package names, address: built in code, no cargo-leptos variables needed.
    pub leptos_options: LeptosOptions,
    /// Every watched cluster, each with its live state, on-demand reader and windows; the
    /// first is what the URLs without `/c/NAME` show.
    pub clusters: Clusters,
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

/// The name of the one cluster of a server built around a single live state
/// ([`AppState::new`]): what `/c/NAME/` calls it.
pub const SINGLE_CLUSTER: &str = "default";

impl AppState {
    /// The state for a server on `listen` showing `live`, with the default site (the
    /// embedded one when the binary has it, else `target/site`).
    pub fn new(listen: SocketAddr, live: Arc<Live>) -> Self {
        Self::with_site(listen, live, site::Site::default())
    }

    /// The state for a server on `listen` showing `live`, serving the browser's files from
    /// `site`.
    pub fn with_site(listen: SocketAddr, live: Arc<Live>, site: site::Site) -> Self {
        let windows = Windows::start(&live);
        let one = ServerContext::new(SINGLE_CLUSTER, live, None, windows);
        Self::with_clusters(listen, Clusters::one(one), site)
    }

    /// The state for a server on `listen` showing several clusters.
    pub fn with_clusters(listen: SocketAddr, clusters: Clusters, site: site::Site) -> Self {
        let leptos_options = LeptosOptions::builder()
            .output_name("daemonscope")
            .site_root(site.leptos_root())
            .site_pkg_dir("pkg")
            .site_addr(listen)
            .env(leptos::config::Env::PROD)
            .build();
        Self {
            leptos_options,
            clusters,
            site,
            fleet: None,
        }
    }

    /// The same state, with on-demand reads of its first cluster through `reader` (a pod in
    /// full, revision templates).
    pub fn with_reader(mut self, reader: Reader) -> Self {
        let mut all: Vec<ServerContext> = self.clusters.iter().cloned().collect();
        if let Some(first) = all.first_mut() {
            first.reader = Some(reader);
        }
        if let Some(clusters) = Clusters::new(all) {
            self.clusters = clusters;
        }
        self
    }

    /// The same state, with `/api/fleet` (and the fleet page) read from `source`.
    pub fn with_fleet(mut self, source: Option<crate::fleet_prometheus::FleetSource>) -> Self {
        self.fleet = source.map(Arc::new);
        self
    }

    /// The first cluster (what the URLs without `/c/NAME` show).
    pub fn first(&self) -> &ServerContext {
        self.clusters.first()
    }
}

/// The app's routes, generated once per process.
///
/// Why once: leptos_axum's route generation renders the app with a process-global flag set
/// (`SuppressResourceLoad`), and a resource first polled by any other thread while it is set
/// waits for ever (leptos issue #4773). A second router built while a page renders (the unit
/// tests build one per test, side by side) hung that page's stream mid-body: the SSR test hang
/// of issue 27. Generated once, before the first router exists, no render can overlap it.
fn route_list() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<leptos_axum::AxumRouteListing>> =
        std::sync::OnceLock::new();
    ROUTES
        .get_or_init(|| generate_route_list(crate::app::App))
        .clone()
}

/// The whole application as one router (testable with `oneshot`).
pub fn router(state: AppState) -> Router {
    let routes = route_list();
    let options = state.leptos_options.clone();
    // What the server functions and the server-side render read; `web` provides it, they
    // never name `web` (no import cycle).
    let context = state.clusters.clone();
    let fallback_context = context.clone();
    let prometheus = state
        .fleet
        .clone()
        .map(crate::server_fns::context::PrometheusFleet);
    let fallback_prometheus = prometheus.clone();
    let clusters = state.clusters.clone();
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
            move || {
                provide_context(context.clone());
                if let Some(source) = prometheus.clone() {
                    provide_context(source);
                }
            },
            move || page_shell(options.clone()),
        )
        .fallback(site::fallback(move || {
            provide_context(fallback_context.clone());
            if let Some(source) = fallback_prometheus.clone() {
                provide_context(source);
            }
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
    let inner = headers::secure(router).with_state(state);
    // In front of the routing: `/c/NAME/api/...` is routed as `/api/...` (web::select).
    let selecting = tower::Layer::layer(
        &axum::middleware::from_fn_with_state(clusters, select::select_cluster),
        inner,
    );
    Router::new().fallback_service(selecting)
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

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_clusters;
#[cfg(test)]
mod tests_headers;
#[cfg(test)]
mod tests_limits;
#[cfg(test)]
mod tests_view;
