//! Connecting the way kubectl does: kubeconfig (KUBECONFIG, `--kubeconfig`, `--context`) or
//! the in-cluster service account, through kube's own config loading.
//!
//! Why kube's loader: tokens, client certificates and exec plugins all work, and there is no
//! TLS shortcut. Every request carries the user agent `daemonscope/<version>`, so an audit
//! log (the simulated cluster's, or a real one) can tell the dashboard's requests apart.

use crate::cluster::activity::{Activity, ActivityLayer};
use crate::cluster::watch::Freshness;
use crate::cluster::ConnectError;
use kube::client::ClientBuilder;
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Client, Config};
use std::path::Path;

mod contexts;
use contexts::check_user_defined;
pub use contexts::{choose_contexts, current_context_name};

/// The user agent of every request the dashboard sends.
pub fn user_agent() -> String {
    format!("daemonscope/{}", env!("CARGO_PKG_VERSION"))
}

/// A client and what the page header and error messages say about it.
#[derive(Clone)]
pub struct Connection {
    /// The kube client (read-only use: list and watch).
    pub client: Client,
    /// "cluster (context)" for the page header.
    pub cluster: String,
    /// The configured user, named in "forbidden for user X" when the server does not say.
    pub user: String,
    /// When bytes last arrived per resource path (the client's `ActivityLayer`), so a watch
    /// that went quiet is noticed.
    pub activity: Activity,
    /// How the freshness checks are paced (serve's flags; tests use seconds).
    pub freshness: Freshness,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("cluster", &self.cluster)
            .field("user", &self.user)
            .finish()
    }
}

/// Adds the `daemonscope/<version>` user agent to every request of `config`.
fn with_user_agent(mut config: Config) -> Config {
    match http::HeaderValue::from_str(&user_agent()) {
        Ok(value) => config.headers.push((http::header::USER_AGENT, value)),
        Err(err) => tracing::warn!(error = %err, "cannot set the user agent header"),
    }
    config
}

/// Builds a client from a ready kube `Config` (the demo cluster's, or one loaded here).
pub fn from_config(
    config: Config,
    cluster: String,
    user: String,
) -> Result<Connection, ConnectError> {
    let config = with_user_agent(config);
    let activity = Activity::default();
    // kube's own stack (TLS, auth, timeouts) with the observing layer outermost.
    let client = ClientBuilder::try_from(config)
        .map_err(|source| ConnectError::Client {
            cluster: cluster.clone(),
            source,
        })?
        .with_layer(&ActivityLayer::new(activity.clone()))
        .build();
    Ok(Connection {
        client,
        cluster,
        user,
        activity,
        freshness: Freshness::default(),
    })
}

pub(super) fn read_kubeconfig(path: &Path) -> Result<Kubeconfig, ConnectError> {
    // `--kubeconfig` comes from KUBECONFIG too, which may list several files.
    let wrap = |source: KubeconfigError| ConnectError::Kubeconfig {
        path: path.display().to_string(),
        source,
    };
    let mut merged = Kubeconfig::default();
    let mut any = false;
    for file in std::env::split_paths(path.as_os_str()).filter(|p| !p.as_os_str().is_empty()) {
        // kube-rs reads the file itself (and resolves relative certificate paths against
        // it); refuse a device or FIFO and an oversized file before it does (issue 15).
        check_kubeconfig_file(&file)?;
        merged = merged
            .merge(Kubeconfig::read_from(&file).map_err(wrap)?)
            .map_err(wrap)?;
        any = true;
    }
    if !any {
        return Err(wrap(KubeconfigError::FindPath));
    }
    Ok(merged)
}

/// Largest kubeconfig accepted: real ones are kilobytes, even with embedded certificates.
const MAX_KUBECONFIG_BYTES: u64 = 8 * 1024 * 1024;

/// A kubeconfig must be a regular file of at most `MAX_KUBECONFIG_BYTES`.
fn check_kubeconfig_file(file: &Path) -> Result<(), ConnectError> {
    crate::edge::files::check_regular_file(file)?;
    let len = std::fs::metadata(file).map_or(0, |m| m.len());
    if len > MAX_KUBECONFIG_BYTES {
        return Err(crate::edge::files::ReadFileError::TooLarge {
            path: file.display().to_string(),
            limit: MAX_KUBECONFIG_BYTES,
            what: "a kubeconfig",
        }
        .into());
    }
    Ok(())
}

/// What the header says for a kubeconfig context, and the user it authenticates as.
fn describe(kubeconfig: &Kubeconfig, context: &str) -> (String, String) {
    let named = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref());
    let cluster = named.map(|c| c.cluster.clone()).unwrap_or_default();
    let user = named
        .and_then(|c| c.user.clone())
        .unwrap_or_else(|| "unknown".into());
    let label = if cluster.is_empty() || cluster == context {
        context.to_string()
    } else {
        format!("{cluster} (context {context})")
    };
    (label, user)
}

/// Connects with a kubeconfig (`path`, else KUBECONFIG/~/.kube/config) and an optional
/// context; without any kubeconfig, with the in-cluster service account.
pub async fn from_kubeconfig(
    path: Option<&Path>,
    context: Option<&str>,
) -> Result<Connection, ConnectError> {
    let kubeconfig = match path {
        Some(path) => Some(read_kubeconfig(path)?),
        None => match Kubeconfig::read() {
            Ok(kc) => Some(kc),
            Err(err) => {
                tracing::debug!(error = %err, "no kubeconfig found, trying in-cluster configuration");
                None
            }
        },
    };
    let Some(kubeconfig) = kubeconfig else {
        if let Some(context) = context {
            return Err(ConnectError::NoCluster {
                detail: format!("--context {context} given but no kubeconfig was found"),
            });
        }
        if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() {
            check_service_account_files(Path::new(SERVICE_ACCOUNT_DIR))?;
        }
        let config = Config::incluster().map_err(|err| ConnectError::NoCluster {
            detail: format!("no kubeconfig (KUBECONFIG or ~/.kube/config) and not in a pod: {err}"),
        })?;
        let label = format!("in-cluster ({})", config.cluster_url);
        return from_config(config, label, "the pod's service account".into());
    };
    let context_name = context
        .map(str::to_string)
        .or_else(|| kubeconfig.current_context.clone())
        .unwrap_or_default();
    check_user_defined(&kubeconfig, &context_name)?;
    let (label, user) = describe(&kubeconfig, &context_name);
    let options = KubeConfigOptions {
        context: context.map(str::to_string),
        ..KubeConfigOptions::default()
    };
    let shown = path.map_or_else(
        || "KUBECONFIG or ~/.kube/config".to_string(),
        |p| p.display().to_string(),
    );
    let config = Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|source| ConnectError::Kubeconfig {
            path: shown,
            source,
        })?;
    // kube keeps only the PEM blocks tagged CERTIFICATE and would then fail every
    // connection with "client error (Connect)"; client-go refuses such a CA at once.
    if config.root_cert.as_ref().is_some_and(Vec::is_empty) {
        return Err(ConnectError::NoCertificate {
            context: context_name,
        });
    }
    from_config(config, label, user)
}

/// Whether the server is new enough to be asked for streaming lists (WatchList, beta and on
/// by default since Kubernetes 1.32); older servers get paginated lists.
pub async fn supports_streaming_lists(client: &Client) -> bool {
    match client.apiserver_version().await {
        Ok(info) => {
            let major: u32 = info.major.trim_end_matches('+').parse().unwrap_or(0);
            let minor: u32 = info.minor.trim_end_matches('+').parse().unwrap_or(0);
            major > 1 || (major == 1 && minor >= 32)
        }
        Err(err) => {
            tracing::warn!(error = %err, "cannot read the server version, using paginated lists");
            false
        }
    }
}

/// Where kubelet mounts a pod's service account (the token, the cluster's CA, the namespace),
/// and where kube's in-cluster configuration reads them.
const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Names the first file of a service-account mount that cannot be read, before kube's
/// in-cluster configuration fails on it with a message that names no file.
fn check_service_account_files(dir: &Path) -> Result<(), ConnectError> {
    for file in ["token", "ca.crt", "namespace"] {
        let path = dir.join(file);
        let reason = match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() && meta.len() > 0 => continue,
            Ok(meta) if meta.is_file() => "it is empty".to_string(),
            Ok(_) => "it is not a file".to_string(),
            Err(err) => err.to_string(),
        };
        return Err(ConnectError::ServiceAccountFile {
            path: path.display().to_string(),
            reason,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECONFIG: &str = r#"
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: prod-eu
  cluster: { server: "https://127.0.0.1:6443" }
contexts:
- name: dev
  context: { cluster: prod-eu, user: alice }
users:
- name: alice
  user: { token: "abc" }
"#;

    #[test]
    fn the_header_names_the_cluster_and_the_context_and_403s_name_the_context_user() {
        let kc = Kubeconfig::from_yaml(KUBECONFIG).unwrap_or_default();
        assert_eq!(
            describe(&kc, "dev"),
            ("prod-eu (context dev)".to_string(), "alice".to_string())
        );
    }

    #[tokio::test]
    async fn a_missing_kubeconfig_file_is_an_error_naming_the_file() {
        let err = from_kubeconfig(Some(Path::new("/nonexistent/kubeconfig")), None)
            .await
            .err();
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("/nonexistent/kubeconfig"), "{text}");
    }

    #[tokio::test]
    async fn a_context_that_is_not_in_the_kubeconfig_is_an_error() {
        let dir = tempfile::tempdir();
        let Ok(dir) = dir else { return };
        let path = dir.path().join("config");
        assert!(std::fs::write(&path, KUBECONFIG).is_ok());
        let err = from_kubeconfig(Some(&path), Some("nope")).await.err();
        assert!(err.is_some());
    }

    #[test]
    fn a_missing_or_empty_service_account_file_is_named() {
        let Ok(dir) = tempfile::tempdir() else { return };
        let named = |dir: &Path| {
            check_service_account_files(dir)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(
            named(dir.path()).contains("/token: "),
            "{}",
            named(dir.path())
        );
        assert!(std::fs::write(dir.path().join("token"), "t").is_ok());
        assert!(
            named(dir.path()).contains("/ca.crt: "),
            "{}",
            named(dir.path())
        );
        assert!(std::fs::write(dir.path().join("ca.crt"), "").is_ok());
        assert!(
            named(dir.path()).contains("ca.crt: it is empty"),
            "{}",
            named(dir.path())
        );
        assert!(std::fs::write(dir.path().join("ca.crt"), "pem").is_ok());
        assert!(
            named(dir.path()).contains("/namespace: "),
            "{}",
            named(dir.path())
        );
        assert!(std::fs::write(dir.path().join("namespace"), "ns").is_ok());
        assert!(check_service_account_files(dir.path()).is_ok());
    }

    #[test]
    fn every_request_carries_the_daemonscope_user_agent() {
        let config = with_user_agent(Config::new(http::Uri::from_static("http://127.0.0.1:1")));
        let agents: Vec<&http::HeaderValue> = config
            .headers
            .iter()
            .filter(|(k, _)| k == http::header::USER_AGENT)
            .map(|(_, v)| v)
            .collect();
        assert_eq!(agents.len(), 1);
        assert_eq!(
            agents[0].to_str().ok(),
            Some(format!("daemonscope/{}", env!("CARGO_PKG_VERSION")).as_str())
        );
    }
}
