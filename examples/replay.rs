//! Replays a scenario into a real API server: the Namespaces, Nodes and DaemonSets a user
//! would create (see `daemonscope::sim::replay`). Test tooling for the suites that run against
//! Kubernetes' own control plane (`tools/k8s/cluster.sh`): it writes to the cluster, so it is
//! an example, not a command of the read-only `daemonscope` binary.
//!
//!   cargo run --features ssr --example replay -- --kubeconfig K (--scenario FILE | --generate SPEC)
//!   ... --failing-images   print the crash-looping images (for KWOK_FAILING_IMAGES) and exit
//!   ... --sim-scenario     print the same objects as a `daemonscope sim` scenario and exit
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use anyhow::Context;
use clap::Parser;
use daemonscope::sim::replay::prepare;
use daemonscope::sim::{scenario, ScenarioSource};
use std::path::PathBuf;

#[derive(Parser)]
struct Args {
    /// The cluster to create the objects in.
    #[arg(long)]
    kubeconfig: Option<PathBuf>,
    /// A scenario file (scenarios/demo.yaml, or any `kubectl get -o yaml` dump).
    #[arg(long, conflicts_with = "generate")]
    scenario: Option<PathBuf>,
    /// A generated cluster, e.g. `nodes=1000,daemonsets=30,seed=1`.
    #[arg(long)]
    generate: Option<String>,
    /// Print the images whose pods crash-loop, space separated, and create nothing.
    #[arg(long)]
    failing_images: bool,
    /// Print the same objects as a scenario for `daemonscope sim`, and create nothing.
    #[arg(long)]
    sim_scenario: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let source = ScenarioSource::from_args(args.scenario, args.generate);
    let loaded =
        scenario::load(&source).with_context(|| format!("loading {}", source.describe()))?;
    let replay = prepare(&loaded);
    if args.sim_scenario {
        print!("{}", replay.to_sim_scenario()?);
        return Ok(());
    }
    if args.failing_images {
        println!("{}", replay.failing_images.join(" "));
        return Ok(());
    }
    let path = args.kubeconfig.context("--kubeconfig is required")?;
    let kubeconfig = kube::config::Kubeconfig::read_from(&path)
        .with_context(|| format!("reading {}", path.display()))?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .with_context(|| format!("using {}", path.display()))?;
    let client = kube::Client::try_from(config)?;
    let started = std::time::Instant::now();
    replay.create_all(&client).await?;
    eprintln!(
        "replayed {}: {} nodes, {} DaemonSets in {:.1} s",
        source.describe(),
        replay.nodes.len(),
        replay.daemonsets.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
