//! CONTRACT STUB: the axum server.
use std::net::SocketAddr;
use std::path::PathBuf;

/// Which cluster to show.
#[derive(Debug, Clone)]
pub enum ClusterTarget {
    Kubeconfig {
        path: Option<PathBuf>,
        context: Option<String>,
    },
    Demo(crate::sim::ScenarioSource),
}

/// Options of `daemonscope serve`.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: SocketAddr,
    pub target: ClusterTarget,
    pub namespaces: Vec<String>,
}

/// Serve the dashboard until interrupted.
pub async fn serve(_options: ServeOptions) -> Result<(), std::io::Error> {
    todo!("contract stub")
}
