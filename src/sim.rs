//! CONTRACT STUB: the embedded simulated cluster.
use std::net::SocketAddr;
use std::path::PathBuf;

/// Where the simulated cluster's initial objects come from.
#[derive(Debug, Clone)]
pub enum ScenarioSource {
    File(PathBuf),
    Generate(String),
}

impl ScenarioSource {
    /// From the `sim` command's flags; the demo scenario when neither is given.
    pub fn from_args(scenario: Option<PathBuf>, generate: Option<String>) -> Self {
        match (scenario, generate) {
            (_, Some(spec)) => ScenarioSource::Generate(spec),
            (Some(path), None) => ScenarioSource::File(path),
            (None, None) => ScenarioSource::File(PathBuf::from("scenarios/demo.yaml")),
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

/// Run the simulated API server until interrupted.
pub async fn run_standalone(_options: SimOptions) -> Result<(), std::io::Error> {
    todo!("contract stub")
}
