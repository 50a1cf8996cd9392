//! Errors of the cluster layer: connecting, and looking things up in the live state.
//!
//! Why typed: the web layer maps each variant to a status code and a message a person can
//! act on, and main.rs turns a connection error into one line and exit code 2.

/// What went wrong in the cluster layer, with the object or setting involved.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// No kubeconfig, no in-cluster service account and no `--demo`.
    #[error(
        "no cluster configured ({detail}). Point KUBECONFIG or --kubeconfig at a kubeconfig \
         (optionally with --context), run inside a pod with a service account, or start the \
         embedded demo cluster with --demo"
    )]
    NoCluster {
        /// Why kube's config inference failed.
        detail: String,
    },
    /// A kubeconfig was named but could not be read or used.
    #[error("cannot use kubeconfig {path}: {source}")]
    Kubeconfig {
        /// The file (or list of files) named.
        path: String,
        /// kube's error.
        #[source]
        source: kube::config::KubeconfigError,
    },
    /// A kubeconfig file named is not a regular file, or is too large to be one.
    #[error("cannot use kubeconfig {0}")]
    KubeconfigFile(#[from] crate::edge::files::ReadFileError),
    /// The kube client could not be built from a valid configuration.
    #[error("cannot build a Kubernetes client for {cluster}: {source}")]
    Client {
        /// The cluster the configuration points at.
        cluster: String,
        /// kube's error.
        #[source]
        source: kube::Error,
    },
    /// The embedded simulated cluster did not start.
    #[error("cannot start the embedded demo cluster: {0}")]
    Demo(String),
    /// A node named in a request is not in the cluster (any more).
    #[error("node {0:?} not found")]
    NodeNotFound(String),
    /// A DaemonSet named in a request is not in the cluster (any more).
    #[error("daemonset {0:?} not found (expected namespace/name)")]
    DaemonSetNotFound(String),
}
