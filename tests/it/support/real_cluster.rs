//! Kubernetes' own control plane for a test: `tools/k8s/cluster.sh` in a temporary directory
//! (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok), stopped on drop.
//!
//! Why a shell script under a Rust guard: the Playwright specs start the same harness, so
//! there is one way to run the reference cluster, and the guard makes sure a failing test
//! never leaves its processes behind (only the PIDs the script started are stopped).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// The repository root (integration tests run with it as the working directory).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A running control plane. Dropping it stops every process it started.
pub struct RealCluster {
    dir: tempfile::TempDir,
    /// Admin kubeconfig (static token in group system:masters).
    pub kubeconfig: PathBuf,
    /// `https://127.0.0.1:PORT`.
    pub server: String,
    /// From the first process started to the API server answering, in milliseconds.
    pub startup_ms: u64,
}

fn cluster_sh() -> PathBuf {
    root().join("tools/k8s/cluster.sh")
}

fn env_value(dir: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("env")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")).map(str::to_string))
}

impl RealCluster {
    /// Starts a control plane whose kubelet stand-in crash-loops the pods of `failing_images`.
    /// Panics, naming what to do, when the binaries have not been built.
    pub fn start(failing_images: &[String]) -> RealCluster {
        Self::start_with(failing_images, &[])
    }

    /// As `start`, with more kube-controller-manager controllers running (e.g.
    /// `replicaset-controller`, for a test that installs a Deployment).
    pub fn start_with(failing_images: &[String], extra_controllers: &[&str]) -> RealCluster {
        let bin = root().join(".tools/k8s/bin/kube-apiserver");
        assert!(
            bin.exists(),
            "{} is missing: run `make k8s` to build Kubernetes' control plane first",
            bin.display()
        );
        let dir = tempfile::Builder::new()
            .prefix("daemonscope-k8s-")
            .tempdir()
            .expect("a temporary directory");
        let out = Command::new(cluster_sh())
            .arg("up")
            .arg(dir.path())
            .env("KWOK_FAILING_IMAGES", failing_images.join(" "))
            .env("KWOK_READY_DELAY_MS", "300")
            .env("EXTRA_CONTROLLERS", extra_controllers.join(","))
            .output()
            .expect("tools/k8s/cluster.sh runs");
        let cluster = RealCluster {
            kubeconfig: dir.path().join("kubeconfig"),
            server: env_value(dir.path(), "SERVER").unwrap_or_default(),
            startup_ms: env_value(dir.path(), "STARTUP_MS")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
            dir,
        };
        assert!(
            out.status.success(),
            "the control plane did not start:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        cluster
    }

    /// A value of the harness's `env` file (APISERVER_PORT, TOKEN, SERVER).
    pub fn env(&self, key: &str) -> String {
        env_value(self.dir.path(), key).unwrap_or_else(|| panic!("{key} is not in the harness env"))
    }

    /// The harness directory (logs/, audit.log, pki/).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// A kube-rs configuration with the admin token.
    pub async fn kube_config(&self) -> kube::Config {
        let kubeconfig =
            kube::config::Kubeconfig::read_from(&self.kubeconfig).expect("harness kubeconfig");
        kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .expect("harness kubeconfig is usable")
    }

    /// An admin client, for the test's own writes (never the dashboard's).
    pub async fn admin(&self) -> kube::Client {
        kube::Client::try_from(self.kube_config().await).expect("a client for the harness")
    }

    /// Runs kubectl against this cluster.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        kubectl(&self.kubeconfig, args)
    }

    /// Stops kube-apiserver alone (etcd and the controllers keep running).
    pub fn stop_apiserver(&self) {
        self.script("stop-apiserver");
    }

    /// Starts kube-apiserver again on the same port and waits until it is ready.
    pub fn start_apiserver(&self) {
        self.script("start-apiserver");
    }

    /// Kills etcd alone: kube-apiserver keeps running, without its storage.
    pub fn stop_etcd(&self) {
        self.script("stop-etcd");
    }

    /// Starts etcd again on its ports with its data, and waits until it is healthy.
    pub fn start_etcd(&self) {
        self.script("start-etcd");
    }

    fn script(&self, command: &str) {
        let out = Command::new(cluster_sh())
            .arg(command)
            .arg(self.dir.path())
            .output()
            .expect("tools/k8s/cluster.sh runs");
        assert!(
            out.status.success(),
            "cluster.sh {command} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for RealCluster {
    fn drop(&mut self) {
        let _ = Command::new(cluster_sh())
            .arg("down")
            .arg(self.dir.path())
            .output();
        if std::thread::panicking() {
            // Keep the logs of a failed test where the message says.
            let kept = self.dir.path().with_extension("kept");
            let _ = std::fs::rename(self.dir.path(), &kept);
            eprintln!("control-plane logs kept in {}", kept.display());
        }
    }
}

/// kubectl (KUBECTL, or .tools/bin/kubectl) with a kubeconfig.
pub fn kubectl(kubeconfig: &Path, args: &[&str]) -> Output {
    let bin = std::env::var("KUBECTL")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root().join(".tools/bin/kubectl"));
    Command::new(&bin)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e} (make deps-kubectl)", bin.display()))
}

/// Polls `condition` every 100 ms until it holds or `timeout` passes.
pub async fn eventually(what: &str, timeout: Duration, mut condition: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + timeout;
    while !condition() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Two nodes (kwok, the kubelet stand-in, makes them Ready) and one DaemonSet: its pods, its
/// ControllerRevision and the Events of both come from the real controllers.
pub const TWO_NODES_AND_A_DAEMONSET: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: worker-1, labels: {kubernetes.io/hostname: worker-1, kubernetes.io/os: linux}}
---
apiVersion: v1
kind: Node
metadata: {name: worker-2, labels: {kubernetes.io/hostname: worker-2, kubernetes.io/os: linux}}
---
apiVersion: v1
kind: Namespace
metadata: {name: agents}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: log-collector, namespace: agents}
spec:
  selector: {matchLabels: {app: log-collector}}
  template:
    metadata: {labels: {app: log-collector}}
    spec:
      containers: [{name: fluent-bit, image: "fluent/fluent-bit:3.1.9"}]
"#;

/// A command's stdout and stderr together, for assertion messages.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Polls `probe` every 200 ms until it gives a value; panics naming `what` after `secs`.
pub fn wait_for<T>(what: &str, secs: u64, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out after {secs}s waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}
