//! The `daemonscope` binary: a thin clap front over the library. Errors end here as one line.

use clap::{Parser, Subcommand, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// `--version`: the crate's version and the commit it was built from (build.rs; "unknown"
/// without git), so a copied binary still says which code it is.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("DAEMONSCOPE_COMMIT"),
    ")"
);

#[derive(Parser)]
#[command(name = "daemonscope", version = VERSION, about = "A read-only, live dashboard for Kubernetes DaemonSets", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Output format of the offline commands.
#[derive(Clone, Copy, ValueEnum)]
enum Output {
    Text,
    Json,
}

impl From<Output> for daemonscope::cli::OutputFormat {
    fn from(o: Output) -> Self {
        match o {
            Output::Text => daemonscope::cli::OutputFormat::Text,
            Output::Json => daemonscope::cli::OutputFormat::Json,
        }
    }
}

// Parsed once at start; boxing the big `serve` variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve the dashboard for a cluster (kubeconfig, in-cluster, or --demo).
    Serve {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:3000")]
        listen: SocketAddr,
        /// Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config).
        #[arg(long, env = "KUBECONFIG")]
        kubeconfig: Option<PathBuf>,
        /// Kubeconfig context to show (repeatable: each is watched on its own, under
        /// /c/CONTEXT/, with all of them on /fleet; default: the current context).
        #[arg(long = "context", conflicts_with = "demo")]
        contexts: Vec<String>,
        /// Show every context of the kubeconfig (as with one --context per context).
        #[arg(long, conflicts_with_all = ["contexts", "demo"])]
        all_contexts: bool,
        /// Only show DaemonSets in this namespace (repeatable). Nodes are always cluster-wide.
        #[arg(long = "namespace", short = 'n')]
        namespaces: Vec<String>,
        /// Run against the embedded simulated cluster, optionally with a scenario file
        /// (default: the demo scenario built into the binary, scenarios/demo.yaml).
        #[arg(long, num_args = 0..=1)]
        demo: Option<Option<PathBuf>>,
        /// With --demo: generate a cluster instead of a scenario file,
        /// e.g. nodes=5000,daemonsets=30,seed=1.
        #[arg(long, requires = "demo")]
        generate: Option<String>,
        /// How long after a node joins its missing daemon pods show as `starting` instead of
        /// `missing` (e.g. 2m, 90s, 1m30s; 0 turns it off).
        #[arg(long, default_value = "2m", value_parser = parse_grace)]
        new_node_grace: daemonscope::domain::coverage::NewNodeGrace,
        /// Report a rollout as stalled after this long without progress (e.g. 5m, 90s).
        #[arg(long, default_value = "5m", value_parser = parse_stall_after)]
        stall_after: std::time::Duration,
        /// Restart a watch, and show its data stale, after this long with neither an event nor
        /// a bookmark (kube-apiserver sends one about every minute; e.g. 130s, 3s).
        #[arg(long, default_value = "130s", value_parser = parse_positive)]
        watch_quiet_after: std::time::Duration,
        /// How often to read the API server's /readyz?verbose (e.g. 2s, 500ms).
        #[arg(long, default_value = "2s", value_parser = parse_positive)]
        readyz_every: std::time::Duration,
        /// Serve the WASM, JS and CSS from this directory (as `make build` lays out
        /// target/site). Default: the files built into the binary when it has them
        /// (`make release`), else target/site.
        #[arg(long, env = "DAEMONSCOPE_SITE_ROOT")]
        site_root: Option<PathBuf>,
        /// Serve the fleet (`/api/fleet`) read from this Prometheus' query API (or Thanos,
        /// Mimir, VictoriaMetrics), e.g. http://prometheus-operated.monitoring:9090: every
        /// cluster whose daemonscope it scrapes, with no watch on them.
        #[arg(long)]
        fleet_prometheus: Option<String>,
        /// The label that names each cluster in Prometheus (a target or external label).
        #[arg(long, default_value = "cluster", requires = "fleet_prometheus")]
        fleet_cluster_label: String,
        /// Each cluster's own daemonscope, `{cluster}` replaced by its name, e.g.
        /// https://ds.{cluster}.example.com.
        #[arg(long, requires = "fleet_prometheus")]
        fleet_link_template: Option<String>,
        /// How long one fleet query to Prometheus may take (e.g. 10s, 500ms).
        #[arg(long, default_value = "10s", value_parser = parse_positive, requires = "fleet_prometheus")]
        fleet_timeout: std::time::Duration,
    },
    /// Run the simulated Kubernetes API server standalone (for kubectl and tests).
    Sim {
        /// Scenario file: multi-document YAML of Nodes, DaemonSets, Pods and a settings document.
        #[arg(long, conflicts_with = "generate")]
        scenario: Option<PathBuf>,
        /// Generated cluster spec, e.g. nodes=5000,daemonsets=30,seed=1.
        #[arg(long)]
        generate: Option<String>,
        /// Address to listen on (loopback unless --allow-non-loopback).
        #[arg(long, default_value = "127.0.0.1:6443")]
        listen: SocketAddr,
        /// Allow a non-loopback --listen: anyone who reaches it can change the simulated cluster.
        #[arg(long)]
        allow_non_loopback: bool,
        /// Write a kubeconfig for kubectl pointing at this server.
        #[arg(long)]
        write_kubeconfig: Option<PathBuf>,
    },
    /// Explain whether a DaemonSet's pod should run on a node, from kubectl -o yaml|json dumps.
    Explain {
        /// File with one Node (JSON or YAML, as `kubectl get node X -o yaml` prints it).
        #[arg(long)]
        node: PathBuf,
        /// File with one DaemonSet (JSON or YAML).
        #[arg(long)]
        daemonset: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
        /// The dashboard's new-node grace: says whether a missing pod on this node would show as
        /// `starting` (e.g. 2m, 90s; 0 turns it off).
        #[arg(long, default_value = "2m", value_parser = parse_grace)]
        new_node_grace: daemonscope::domain::coverage::NewNodeGrace,
    },
    /// Print the budget and the verdict `kubectl rollout status` would give for a DaemonSet dump.
    Rollout {
        /// File with one DaemonSet (JSON or YAML).
        #[arg(long)]
        daemonset: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        output: Output,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    daemonscope::cli::init_tracing();
    match cli.command {
        Command::Explain {
            node,
            daemonset,
            output,
            new_node_grace,
        } => print_or_fail(daemonscope::cli::explain::run(
            &node,
            &daemonset,
            output.into(),
            new_node_grace,
        )),
        Command::Rollout { daemonset, output } => {
            print_or_fail(daemonscope::cli::rollout::run(&daemonset, output.into()))
        }
        Command::Sim {
            scenario,
            generate,
            listen,
            allow_non_loopback,
            write_kubeconfig,
        } => {
            let options = daemonscope::sim::SimOptions {
                source: daemonscope::sim::ScenarioSource::from_args(scenario, generate),
                listen,
                allow_non_loopback,
                write_kubeconfig,
            };
            run_async(daemonscope::sim::run_standalone(options))
        }
        Command::Serve {
            listen,
            kubeconfig,
            contexts,
            all_contexts,
            namespaces,
            demo,
            generate,
            new_node_grace,
            stall_after,
            watch_quiet_after,
            readyz_every,
            site_root,
            fleet_prometheus,
            fleet_cluster_label,
            fleet_link_template,
            fleet_timeout,
        } => {
            let fleet = match fleet_prometheus
                .map(|url| {
                    fleet_source(
                        &url,
                        &fleet_cluster_label,
                        fleet_link_template.as_deref(),
                        fleet_timeout,
                    )
                })
                .transpose()
            {
                Ok(fleet) => fleet,
                Err(err) => {
                    eprintln!("error: {err}");
                    return ExitCode::from(2);
                }
            };
            let target = match (demo, generate) {
                (_, Some(spec)) => daemonscope::web::ClusterTarget::Demo(
                    daemonscope::sim::ScenarioSource::Generate(spec),
                ),
                (Some(Some(path)), None) => daemonscope::web::ClusterTarget::Demo(
                    daemonscope::sim::ScenarioSource::File(path),
                ),
                (Some(None), None) => daemonscope::web::ClusterTarget::Demo(
                    daemonscope::sim::ScenarioSource::BuiltInDemo,
                ),
                (None, None) => daemonscope::web::ClusterTarget::Kubeconfig {
                    path: kubeconfig,
                    contexts,
                    all_contexts,
                },
            };
            let options = daemonscope::web::ServeOptions {
                listen,
                target,
                namespaces,
                new_node_grace,
                stall_after,
                freshness: daemonscope::cluster::watch::Freshness {
                    quiet_after: watch_quiet_after,
                    readyz_every,
                },
                site: daemonscope::web::site::Site::from_arg(site_root),
                fleet,
            };
            run_async(daemonscope::web::serve(options))
        }
    }
}

/// The fleet's source from `--fleet-prometheus` and its companions, or the first one wrong.
fn fleet_source(
    url: &str,
    label: &str,
    links: Option<&str>,
    timeout: std::time::Duration,
) -> Result<daemonscope::fleet_prometheus::FleetSource, String> {
    let client = daemonscope::fleet_prometheus::client::PromClient::new(url, timeout)
        .map_err(|e| e.to_string())?;
    let label = daemonscope::domain::fleet::from_metrics::ClusterLabel::new(label)
        .map_err(|e| format!("--fleet-cluster-label: {e}"))?;
    let links = links
        .map(daemonscope::domain::fleet::LinkTemplate::new)
        .transpose()
        .map_err(|e| format!("--fleet-link-template: {e}"))?;
    Ok(daemonscope::fleet_prometheus::FleetSource::new(
        client, label, links,
    ))
}

/// `--new-node-grace`: a duration as the scenario files write them (`2m`, `90s`, `1m30s`, a
/// bare number of seconds), in whole seconds; `0` turns the grace off, and a fraction of a
/// second is refused rather than silently turning it off.
fn parse_grace(text: &str) -> Result<daemonscope::domain::coverage::NewNodeGrace, String> {
    let duration =
        daemonscope::sim::scenario::settings::parse_duration(text).map_err(|e| e.to_string())?;
    if !duration.is_zero() && duration.as_secs() == 0 {
        return Err(format!("{text}: at least 1s, or 0 to turn the grace off"));
    }
    let seconds = i64::try_from(duration.as_secs()).map_err(|_| format!("{text}: too long"))?;
    Ok(daemonscope::domain::coverage::NewNodeGrace::from_seconds(
        seconds,
    ))
}

/// `--stall-after`: a duration as the scenario files write them (`90s`, `5m`), at least 1 s.
fn parse_stall_after(text: &str) -> Result<std::time::Duration, String> {
    let duration =
        daemonscope::sim::scenario::settings::parse_duration(text).map_err(|e| e.to_string())?;
    if duration < std::time::Duration::from_secs(1) {
        return Err("must be at least 1s".to_string());
    }
    Ok(duration)
}

/// `--watch-quiet-after`, `--readyz-every`: a duration of at least 100 ms, at most a day.
fn parse_positive(text: &str) -> Result<std::time::Duration, String> {
    let duration =
        daemonscope::sim::scenario::settings::parse_duration(text).map_err(|e| e.to_string())?;
    if duration < std::time::Duration::from_millis(100) {
        return Err("must be at least 100ms".to_string());
    }
    if duration > std::time::Duration::from_secs(86_400) {
        return Err("must be at most 24h".to_string());
    }
    Ok(duration)
}

/// Offline commands: print the result, or one line on stderr and exit 2.
fn print_or_fail(result: Result<String, daemonscope::cli::CliError>) -> ExitCode {
    match result {
        Ok(out) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}

/// Long-running commands: a runtime, then one error line and exit 2 on failure.
fn run_async<E: std::fmt::Display>(
    fut: impl std::future::Future<Output = Result<(), E>>,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(fut) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}
