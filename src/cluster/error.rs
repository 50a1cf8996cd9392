//! Errors of the cluster layer, one type per layer: connecting at start-up, and looking
//! things up in the live state while serving.
//!
//! Why split: a start-up error ends the process (main.rs prints one line, exit code 2), while a
//! lookup error is an answer to one request that the server functions turn into a
//! `DashboardError` the page shows. One enum for both let a page match on a kubeconfig error
//! that can never reach it, and tempted callers to compare message text.

/// Why the dashboard could not connect to a cluster (start-up only).
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
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
    /// In a pod (`KUBERNETES_SERVICE_HOST` set) but a file of the service account's mount is
    /// missing: the one line names the file, where kube's own error names none of them.
    #[error(
        "in-cluster: cannot read the service account's {path}: {reason} (mount a service account \
         token: automountServiceAccountToken, or point --kubeconfig at a kubeconfig)"
    )]
    ServiceAccountFile {
        /// The file the pod's service-account mount should hold.
        path: String,
        /// Why it could not be read.
        reason: String,
    },
    /// `--context NAME` names no context of the kubeconfig.
    #[error("no context {name:?} in the kubeconfig; its contexts: {known}")]
    UnknownContext {
        /// The context asked for.
        name: String,
        /// The contexts the kubeconfig has, comma-separated.
        known: String,
    },
    /// The context names a user the kubeconfig does not define.
    #[error("user {user:?} was not found for context {context:?} in the kubeconfig")]
    UserNotFound {
        /// The context used.
        context: String,
        /// The user it names.
        user: String,
    },
    /// The cluster's certificate-authority(-data) holds no PEM certificate.
    #[error(
        "the certificate authority of context {context:?} holds no PEM certificate \
         (-----BEGIN CERTIFICATE-----)"
    )]
    NoCertificate {
        /// The context used.
        context: String,
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
    Demo(#[source] crate::sim::SimError),
}

/// Why a request's object could not be read from the live state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// A node named in a request is not in the cluster (any more).
    #[error("node {0:?} not found")]
    NodeNotFound(String),
    /// A DaemonSet named in a request is not in the cluster (any more).
    #[error("daemonset {0:?} not found (expected namespace/name)")]
    DaemonSetNotFound(String),
    /// The API server refused to list the resource the object would be in (403), so its
    /// absence proves nothing.
    #[error("cannot read {resource}: {detail}")]
    Denied {
        /// The watcher's scope, e.g. `daemonsets` or `daemonsets in kube-system`.
        resource: String,
        /// The API server's message.
        detail: String,
    },
    /// The resource has not been listed yet (start-up, or the API server is unreachable).
    #[error("{resource} not listed yet{}", detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    NotListed {
        /// The watcher's scope.
        resource: String,
        /// The last watch error, if any.
        detail: Option<String>,
    },
}
