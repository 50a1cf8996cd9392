//! `serve`: connect to each cluster, start its watchers, listen.
//!
//! Why each cluster on its own: with several clusters in one process (`--context a --context
//! b`, `--all-contexts`) one that is down, slow or refuses the credentials must never blank or
//! slow the others, so each has its own client, watchers, store, readiness poll and errors,
//! started side by side; one that cannot even be connected to is still listed, with its
//! error on its pages and on the fleet page.

use super::{router, AppState, ClusterTarget, ServeOptions};
use crate::cluster::connect::{self, Connection};
use crate::cluster::state::{Clock, ClusterState};
use crate::cluster::{watch, ConnectError, Live, Reader};
use crate::server_fns::context::{Clusters, ServerContext};
use crate::windows::Windows;
use std::sync::Arc;

/// One cluster as `serve` started it: what the pages read, the tasks to stop at the end, and
/// the embedded simulated cluster behind it (the demo), which must live as long as the server.
struct Started {
    context: ServerContext,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    sim: Option<crate::sim::SimHandle>,
}

/// Connects to the demo cluster: the sim in-process, reached through kube-rs.
async fn connect_demo(
    source: &crate::sim::ScenarioSource,
) -> Result<(Connection, crate::sim::SimHandle), ConnectError> {
    let sim = crate::sim::start_in_process(source.clone())
        .await
        .map_err(ConnectError::Demo)?;
    let conn = connect::from_config(
        sim.kube_config(),
        format!("demo cluster ({})", sim.url),
        "demo-user".into(),
    )?;
    Ok((conn, sim))
}

/// Starts watching `conn` as `serve` does: its clock, grace and stall threshold.
async fn watch_cluster(
    name: String,
    mut conn: Connection,
    clock: Clock,
    options: &ServeOptions,
) -> (ServerContext, Vec<tokio::task::JoinHandle<()>>) {
    conn.freshness = options.freshness;
    tracing::info!(cluster = %conn.cluster, name = %name, "connected");
    let stall_after = i64::try_from(options.stall_after.as_secs()).unwrap_or(i64::MAX);
    let state = ClusterState::with_clock(conn.cluster.clone(), clock)
        .with_grace(options.new_node_grace)
        .with_stall_after(stall_after);
    let (live, tasks) = start_watching_with(&conn, &options.namespaces, state).await;
    let windows = Windows::start(&live);
    let reader = Reader::new(conn.client.clone());
    (ServerContext::new(name, live, Some(reader), windows), tasks)
}

/// A cluster that could not be connected to: no watcher, its error on every page of it.
fn unavailable_cluster(name: String, err: &ConnectError) -> ServerContext {
    let reason = format!("cannot connect to context {name}: {err}");
    tracing::warn!(cluster = %name, "{reason}");
    let live = Live::not_connected(format!("{name} (not connected)"), reason);
    let windows = Windows::start(&live);
    ServerContext::new(name, live, None, windows)
}

/// Connects to and starts every cluster of `options`. One cluster (the demo, the current
/// context or a single `--context`) that cannot be connected to ends the start, as before;
/// among several, that cluster is listed unavailable and the others start.
async fn start_all(options: &ServeOptions) -> Result<Vec<Started>, ConnectError> {
    match &options.target {
        ClusterTarget::Demo(source) => {
            let (conn, sim) = connect_demo(source).await?;
            // "Now" is the sim's simulated clock (which may run faster than real time).
            let store = sim.store.clone();
            let clock = Clock::new(move || store.now().as_second());
            let (context, tasks) = watch_cluster("demo".into(), conn, clock, options).await;
            Ok(vec![Started {
                context,
                tasks,
                sim: Some(sim),
            }])
        }
        ClusterTarget::Kubeconfig {
            path,
            contexts,
            all_contexts,
        } if contexts.is_empty() && !all_contexts => {
            let conn = connect::from_kubeconfig(path.as_deref(), None).await?;
            let name = connect::current_context_name(path.as_deref());
            let (context, tasks) = watch_cluster(name, conn, Clock::default(), options).await;
            Ok(vec![Started {
                context,
                tasks,
                sim: None,
            }])
        }
        ClusterTarget::Kubeconfig {
            path,
            contexts,
            all_contexts,
        } => {
            let names = connect::choose_contexts(path.as_deref(), contexts, *all_contexts)?;
            if let [only] = names.as_slice() {
                let conn = connect::from_kubeconfig(path.as_deref(), Some(only)).await?;
                let (context, tasks) =
                    watch_cluster(only.clone(), conn, Clock::default(), options).await;
                return Ok(vec![Started {
                    context,
                    tasks,
                    sim: None,
                }]);
            }
            // Side by side: a cluster slow to answer its version delays no other.
            let starts = names.into_iter().map(|name| async move {
                match connect::from_kubeconfig(path.as_deref(), Some(&name)).await {
                    Ok(conn) => {
                        let (context, tasks) =
                            watch_cluster(name, conn, Clock::default(), options).await;
                        Started {
                            context,
                            tasks,
                            sim: None,
                        }
                    }
                    Err(err) => Started {
                        context: unavailable_cluster(name, &err),
                        tasks: Vec::new(),
                        sim: None,
                    },
                }
            });
            Ok(futures::future::join_all(starts).await)
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
    let started = start_all(&options).await.map_err(std::io::Error::other)?;
    let names: Vec<String> = started.iter().map(|s| s.context.name.clone()).collect();
    let shown: Vec<String> = started
        .iter()
        .map(|s| s.context.live.read(|state| state.cluster().to_string()))
        .collect();
    let Some(clusters) = Clusters::new(started.iter().map(|s| s.context.clone()).collect()) else {
        return Err(std::io::Error::other("no cluster to serve"));
    };
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(|err| {
            std::io::Error::new(
                err.kind(),
                format!("cannot listen on {}: {err}", options.listen),
            )
        })?;
    let addr = listener.local_addr()?;
    if let [one] = shown.as_slice() {
        println!("daemonscope: serving {one} on http://{addr}");
    } else {
        println!(
            "daemonscope: serving {} clusters ({}) on http://{addr} (all of them: http://{addr}/fleet)",
            names.len(),
            names.join(", ")
        );
    }
    super::conn::serve(
        listener,
        router(AppState::with_clusters(addr, clusters, options.site).with_fleet(options.fleet)),
        super::conn::HEADER_READ_TIMEOUT,
        shutdown_signal(),
    )
    .await;
    for one in started {
        for task in one.tasks {
            task.abort();
        }
        if let Some(sim) = one.sim {
            sim.shutdown().await;
        }
    }
    Ok(())
}
