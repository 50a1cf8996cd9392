//! The embedded simulated cluster: an object store, a Kubernetes-API-compatible HTTP server
//! over it (kubectl and kube-rs cannot tell it from an API server for what daemonscope does),
//! and, from the controller modules, a DaemonSet controller and kubelet stand-in.
//!
//! `start_in_process` serves it on a loopback port for the dashboard and tests;
//! `run_standalone` is `daemonscope sim`.
// A dependency the library never names fails its build (rustc's lint; tests excluded, since
// dev-dependencies are not its to judge).
#![cfg_attr(not(test), deny(unused_crate_dependencies))]
pub mod api;
pub mod audit;
pub mod clock;
pub mod controller;
pub mod generator;
pub mod kubeconfig;
pub mod kubelet;
pub mod node_lifecycle;
pub mod quota;
pub mod recorder;
pub mod replay;
pub mod scenario;
pub mod store;
pub mod taint_eviction;
pub mod validation;

use daemonscope_domain as domain;
use daemonscope_edge as edge;

use axum::serve::ListenerExt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use api::{ApiSettings, ApiState};
use audit::AuditLog;
use store::{Store, StoreSettings};

/// Where the simulated cluster's initial objects come from.
#[derive(Debug, Clone)]
pub enum ScenarioSource {
    File(PathBuf),
    Generate(String),
    /// The demo scenario compiled into the binary ([`DEMO_SCENARIO`]), so `serve --demo`
    /// works from any directory.
    BuiltInDemo,
}

/// `scenarios/demo.yaml` as it was at build time: `serve --demo` and `sim` without a file
/// load it, so a binary copied alone still has its demo (issue 23).
pub const DEMO_SCENARIO: &str = include_str!("../../../scenarios/demo.yaml");

/// How messages name the built-in demo.
pub const DEMO_SCENARIO_NAME: &str = "scenarios/demo.yaml (built in)";

impl ScenarioSource {
    /// How messages name this source: the path, or the generator spec.
    pub fn describe(&self) -> String {
        match self {
            ScenarioSource::File(path) => path.display().to_string(),
            ScenarioSource::Generate(spec) => format!("generated cluster `{spec}`"),
            ScenarioSource::BuiltInDemo => DEMO_SCENARIO_NAME.to_string(),
        }
    }

    /// From the `sim` command's flags; the built-in demo scenario when neither is given.
    pub fn from_args(scenario: Option<PathBuf>, generate: Option<String>) -> Self {
        match (scenario, generate) {
            (_, Some(spec)) => ScenarioSource::Generate(spec),
            (Some(path), None) => ScenarioSource::File(path),
            (None, None) => ScenarioSource::BuiltInDemo,
        }
    }
}

/// Options of `daemonscope sim`.
#[derive(Debug, Clone)]
pub struct SimOptions {
    pub source: ScenarioSource,
    pub listen: SocketAddr,
    pub allow_non_loopback: bool,
    pub write_kubeconfig: Option<PathBuf>,
}

/// Why the simulated cluster could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("refusing to listen on {addr}: it is not a loopback address and anyone who reaches it can change the simulated cluster; pass --allow-non-loopback to do it anyway")]
    NonLoopback { addr: SocketAddr },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot write the kubeconfig {path}: {source}", path = .path.display())]
    Kubeconfig {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot load the scenario {source_name}: {message}")]
    Scenario {
        source_name: String,
        message: String,
    },
}

/// Everything `start_with` can be told.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Initial objects; None starts an empty cluster (tests that create through the API).
    pub source: Option<ScenarioSource>,
    pub listen: SocketAddr,
    pub allow_non_loopback: bool,
    pub store: StoreSettings,
    pub api: ApiSettings,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            source: None,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            allow_non_loopback: false,
            store: StoreSettings::default(),
            api: ApiSettings::default(),
        }
    }
}

/// A running simulated cluster. Dropping it stops the server.
pub struct SimHandle {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    pub addr: SocketAddr,
    pub store: Store,
    pub audit: AuditLog,
    /// The storage switch: `set_available(false)` is an etcd outage (see `api::storage`).
    pub storage: api::storage::StorageSwitch,
    stop: tokio::sync::watch::Sender<bool>,
    server: Option<tokio::task::JoinHandle<()>>,
    /// The DaemonSet controller and kubelet stand-in (None for an empty, API-only cluster).
    controllers: Option<controller::Controllers>,
}

impl std::fmt::Debug for SimHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimHandle")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl SimHandle {
    /// A kube-rs configuration for this server.
    pub fn kube_config(&self) -> kube::Config {
        // The URL is built from a bound socket address, so it always parses.
        match kubeconfig::kube_config(&self.url) {
            Ok(c) => c,
            Err(_) => kube::Config::new(http::Uri::from_static("http://127.0.0.1")),
        }
    }

    /// Write a kubeconfig for kubectl.
    pub fn write_kubeconfig(&self, path: &std::path::Path) -> Result<(), SimError> {
        kubeconfig::write(path, &self.url).map_err(|source| SimError::Kubeconfig {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Stop serving: open watches end, then the listener closes.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(controllers) = self.controllers.take() {
            controllers.shutdown().await;
        }
        if let Some(server) = self.server.take() {
            let abort = server.abort_handle();
            if tokio::time::timeout(Duration::from_secs(5), server)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(controllers) = &self.controllers {
            controllers.stop();
        }
        if let Some(server) = self.server.take() {
            server.abort();
        }
    }
}

/// Load the scenario (file or generator) and put its objects into the store.
fn load_scenario(source: &ScenarioSource) -> Result<scenario::Scenario, SimError> {
    scenario::load(source).map_err(|err| SimError::Scenario {
        source_name: source.describe(),
        message: err.to_string(),
    })
}

/// Start the simulated cluster on a loopback port, loaded from `source`.
pub async fn start_in_process(source: ScenarioSource) -> Result<SimHandle, SimError> {
    start_with(SimConfig {
        source: Some(source),
        ..SimConfig::default()
    })
    .await
}

/// Start the simulated cluster with explicit settings.
pub async fn start_with(config: SimConfig) -> Result<SimHandle, SimError> {
    if !config.listen.ip().is_loopback() && !config.allow_non_loopback {
        return Err(SimError::NonLoopback {
            addr: config.listen,
        });
    }
    let scenario = match &config.source {
        Some(source) => Some(load_scenario(source)?),
        None => None,
    };
    let settings = scenario
        .as_ref()
        .map(|s| s.settings.clone())
        .unwrap_or_default();
    let clock = clock::SimClock::new(settings.speed);
    let store = Store::new(StoreSettings {
        now: clock.now_fn(),
        ..config.store.clone()
    });
    if let Some(scenario) = &scenario {
        scenario::apply(scenario, &store).map_err(|err| SimError::Scenario {
            source_name: scenario.source_name.clone(),
            message: err.to_string(),
        })?;
        tracing::info!(
            source = %scenario.source_name,
            nodes = scenario.nodes.len(),
            daemonsets = scenario.daemonsets.len(),
            pods = scenario.pods.len(),
            "scenario loaded"
        );
    }
    // Without a scenario (API tests that create everything themselves) no controller runs,
    // so the objects stay exactly as the test wrote them.
    // The scenario's refusals add to those the caller chose.
    let mut api_settings = config.api.clone();
    api_settings
        .forbidden
        .extend(settings.forbidden.iter().cloned());
    // A scenario's API server settings win over the defaults (tests pass their own `api`
    // without a scenario).
    if scenario.is_some() {
        api_settings.bookmark_interval = settings.api_server.bookmark_interval;
        if settings.api_server.storage_unavailable {
            api_settings.storage.set_available(false);
        }
    }
    let storage = api_settings.storage.clone();
    let controllers = scenario
        .is_some()
        .then(|| controller::spawn(store.clone(), settings, clock));
    let audit = AuditLog::new();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let state = ApiState {
        store: store.clone(),
        audit: audit.clone(),
        settings: Arc::new(api_settings),
        shutdown: stopped.clone(),
        tasks: controllers
            .as_ref()
            .map(controller::Controllers::supervisor)
            .unwrap_or_default(),
    };
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|source| SimError::Bind {
            addr: config.listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| SimError::Bind {
        addr: config.listen,
        source,
    })?;
    // Watch events are small writes on a long-lived response: without TCP_NODELAY, Nagle's
    // algorithm holds each one until the client's delayed ACK (tens of milliseconds).
    let listener = listener.tap_io(|tcp| {
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::debug!(%err, "cannot set TCP_NODELAY on a simulated API server connection");
        }
    });
    let router = api::router(state);
    let mut until = stopped;
    let server = tokio::spawn(async move {
        let serve = axum::serve(listener, router).with_graceful_shutdown(async move {
            let _ = until.wait_for(|stop| *stop).await;
        });
        if let Err(err) = serve.await {
            tracing::error!(%err, "simulated API server stopped");
        }
    });
    let url = format!("http://{addr}");
    Ok(SimHandle {
        url,
        addr,
        store,
        audit,
        storage,
        stop,
        server: Some(server),
        controllers,
    })
}

/// Run the simulated API server until interrupted.
pub async fn run_standalone(options: SimOptions) -> Result<(), std::io::Error> {
    let config = SimConfig {
        source: Some(options.source.clone()),
        listen: options.listen,
        allow_non_loopback: options.allow_non_loopback,
        ..SimConfig::default()
    };
    let handle = start_with(config).await.map_err(std::io::Error::other)?;
    if handle.addr.ip().is_loopback() {
        tracing::info!(url = %handle.url, "simulated Kubernetes API listening on loopback only; no credentials are checked");
    } else {
        tracing::warn!(url = %handle.url, "simulated Kubernetes API listening on a NON-loopback address: anyone who reaches it can change the simulated cluster");
    }
    if let Some(path) = &options.write_kubeconfig {
        handle
            .write_kubeconfig(path)
            .map_err(std::io::Error::other)?;
        tracing::info!(path = %path.display(), "wrote kubeconfig; try: KUBECONFIG={} kubectl get nodes", path.display());
    }
    eprintln!("daemonscope sim: serving {} (Ctrl-C to stop)", handle.url);
    tokio::signal::ctrl_c().await?;
    handle.shutdown().await;
    Ok(())
}
