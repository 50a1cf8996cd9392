//! Read-only and least privilege, proven by Kubernetes itself (issue 11, item 5).
//!
//! A real control plane (`tools/k8s/cluster.sh`: kube-apiserver with RBAC and a JSON audit log)
//! accepts the manifests of `deploy/`; the dashboard, running as the service account of
//! `deploy/rbac.yaml` with a token kube-apiserver issued, serves every page without a 403; and
//! kube-apiserver's own audit log shows that it sent only get, list and watch, none refused, and
//! that the ClusterRole grants exactly the resources it reads: a grant nobody uses fails this
//! test as surely as a missing one.
//!
//! Needs `make k8s` (the control plane binaries). Run with
//! `cargo test --features ssr --test k8s_rbac`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![cfg(feature = "ssr")]

use crate::support::audit::{assert_read_only_as, dashboard_requests, Request, READ_VERBS};
use crate::support::real_cluster::{text, wait_for, TWO_NODES_AND_A_DAEMONSET};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The identity `deploy/rbac.yaml` creates, as kube-apiserver names it.
const SERVICE_ACCOUNT: &str = "system:serviceaccount:daemonscope:daemonscope";
/// The ClusterRole of `deploy/rbac.yaml`.
const ROLE: &str = "daemonscope-read";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// kubectl as the other tests find it: `$KUBECTL`, else `.tools/bin/kubectl`.
fn kubectl_bin() -> PathBuf {
    std::env::var_os("KUBECTL").map_or_else(|| root().join(".tools/bin/kubectl"), PathBuf::from)
}

/// A control plane started by `cluster.sh up` in a temporary directory. Dropping it (a panic
/// included) runs `cluster.sh down`; after a failure the directory (logs, audit log) is kept.
struct Cluster {
    dir: Option<tempfile::TempDir>,
}

impl Cluster {
    fn up() -> Cluster {
        let apiserver = root().join(".tools/k8s/bin/kube-apiserver");
        assert!(
            apiserver.exists(),
            "no Kubernetes control plane ({} is missing): run `make k8s` first",
            apiserver.display()
        );
        let dir = tempfile::Builder::new()
            .prefix("daemonscope-rbac-")
            .tempdir()
            .expect("tempdir");
        // The guard exists before `up`, so a half-started control plane is stopped too.
        let cluster = Cluster { dir: Some(dir) };
        let out = Command::new(root().join("tools/k8s/cluster.sh"))
            .arg("up")
            .arg(cluster.dir())
            .output()
            .expect("run tools/k8s/cluster.sh");
        assert!(out.status.success(), "cluster.sh up: {}", text(&out));
        cluster
    }

    fn dir(&self) -> &Path {
        self.dir.as_ref().expect("cluster dir").path()
    }

    /// A value of `DIR/env` (APISERVER_PORT, TOKEN, SERVER).
    fn env(&self, key: &str) -> String {
        let env = std::fs::read_to_string(self.dir().join("env")).expect("DIR/env");
        env.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("{key} not in DIR/env: {env}"))
            .to_string()
    }

    /// kubectl with `kubeconfig` (the admin one when `None`); success and its output.
    fn kubectl_as(&self, kubeconfig: Option<&Path>, args: &[&str]) -> (bool, String) {
        let admin = self.dir().join("kubeconfig");
        let out = Command::new(kubectl_bin())
            .arg("--kubeconfig")
            .arg(kubeconfig.unwrap_or(&admin))
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", kubectl_bin().display()));
        (out.status.success(), text(&out))
    }

    /// kubectl as admin; panics with its output unless it succeeds.
    fn kubectl(&self, args: &[&str]) -> String {
        let (ok, out) = self.kubectl_as(None, args);
        assert!(ok, "kubectl {}: {out}", args.join(" "));
        out
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(root().join("tools/k8s/cluster.sh"))
            .arg("down")
            .arg(self.dir())
            .status();
        if std::thread::panicking() {
            if let Some(dir) = self.dir.take() {
                eprintln!("k8s_rbac: kept {} (logs/, audit.log)", dir.keep().display());
            }
        }
    }
}

/// `daemonscope serve` as a child process, killed on drop.
struct Dashboard {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Dashboard {
    fn serve(kubeconfig: &Path, log: PathBuf) -> Dashboard {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free loopback port")
            .port();
        let out = std::fs::File::create(&log).expect("dashboard log");
        let child = Command::new(env!("CARGO_BIN_EXE_daemonscope"))
            .arg("serve")
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .arg("--listen")
            .arg(format!("127.0.0.1:{port}"))
            .stdout(out.try_clone().expect("log handle"))
            .stderr(out)
            .spawn()
            .expect("run daemonscope serve");
        Dashboard { child, port, log }
    }

    /// Status code and body of a GET (curl, so no HTTP client is needed here).
    fn get(&self, path: &str) -> (u16, String) {
        let url = format!("http://127.0.0.1:{}{path}", self.port);
        let out = Command::new("curl")
            .args(["-s", "--max-time", "10", "-w", "\n%{http_code}", &url])
            .output()
            .expect("run curl");
        let body = String::from_utf8_lossy(&out.stdout).into_owned();
        let (body, code) = body.rsplit_once('\n').unwrap_or(("", &body));
        (code.trim().parse().unwrap_or(0), body.to_string())
    }

    /// Panics with the log when the process has exited.
    fn assert_running(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!("daemonscope exited ({status}):\n{}", self.log());
        }
    }

    /// The log so far, for failure messages.
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Dashboard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A kubeconfig for the service account: a token from the TokenRequest API, the server and CA
/// of the control plane.
fn service_account_kubeconfig(cluster: &Cluster) -> PathBuf {
    let token = cluster.kubectl(&["create", "token", "daemonscope", "-n", "daemonscope"]);
    let path = cluster.dir().join("daemonscope.kubeconfig");
    let config = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: rbac-test\n  cluster: {{server: \"{}\", certificate-authority: \"{}\"}}\nusers:\n- name: daemonscope\n  user: {{token: \"{}\"}}\ncontexts:\n- name: rbac-test\n  context: {{cluster: rbac-test, user: daemonscope}}\ncurrent-context: rbac-test\n",
        cluster.env("SERVER"),
        cluster.dir().join("pki/ca.crt").display(),
        token.trim()
    );
    std::fs::write(&path, config).expect("write the service account kubeconfig");
    path
}

/// GETs `path` until it answers 200 with every one of `shows`, then checks it names no refused
/// resource: the banner a 403 raises ("cannot list pods: forbidden for user X") or a load error.
fn assert_page(dashboard: &Dashboard, path: &str, shows: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let body = loop {
        let (code, body) = dashboard.get(path);
        if code == 200 && shows.iter().all(|s| body.contains(s)) {
            break body;
        }
        assert!(
            Instant::now() < deadline,
            "{path} did not answer 200 showing {shows:?} in 30s: {code}\n{body}\n{}",
            dashboard.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let lower = body.to_lowercase();
    for refused in [
        "forbidden",
        "data-testid=\"stale-banner\"",
        "data-testid=\"load-error\"",
    ] {
        assert!(
            !lower.contains(refused),
            "{path} shows {refused:?}:\n{body}"
        );
    }
}

/// The (apiGroup, resource) pairs the ClusterRole grants, as kube-apiserver holds it; asserts
/// each rule is read-only and names its resources (no wildcard, no non-resource URL).
fn granted(cluster: &Cluster) -> BTreeSet<(String, String)> {
    let role: Value =
        serde_json::from_str(&cluster.kubectl(&["get", "clusterrole", ROLE, "-o", "json"]))
            .expect("the ClusterRole as JSON");
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut pairs = BTreeSet::new();
    for rule in role["rules"].as_array().expect("rules") {
        let verbs = strings(&rule["verbs"]);
        assert!(
            verbs.iter().all(|v| READ_VERBS.contains(&v.as_str())),
            "{ROLE} grants {verbs:?}: only get, list, watch (rule {rule})"
        );
        assert!(rule.get("nonResourceURLs").is_none(), "rule {rule}");
        for group in strings(&rule["apiGroups"]) {
            for resource in strings(&rule["resources"]) {
                assert!(
                    group != "*" && resource != "*",
                    "a wildcard in {ROLE}: {rule}"
                );
                pairs.insert((group.clone(), resource));
            }
        }
    }
    pairs
}

#[test]
fn the_deploy_role_shows_every_page_and_grants_exactly_what_the_dashboard_reads() {
    let started = Instant::now();
    let cluster = Cluster::up();

    // The manifests as a user applies them (README: rbac.yaml, then deployment.yaml). rbac.yaml
    // is applied for real first: a server-side dry run does not create the Namespace, so every
    // namespaced object of deploy/ would fail NotFound in a dry run on an empty cluster.
    let rbac = root().join("deploy/rbac.yaml");
    cluster.kubectl(&["apply", "-f", &rbac.to_string_lossy()]);
    // Every file of deploy/ (kubectl reads a whole directory) through kube-apiserver's
    // validation and admission, without being created.
    let deploy = root().join("deploy");
    let out = cluster.kubectl(&["apply", "--dry-run=server", "-f", &deploy.to_string_lossy()]);
    assert!(
        out.lines().all(|l| l.ends_with("(server dry run)")) && out.contains("deployment.apps"),
        "dry run of deploy/: {out}"
    );

    let objects = cluster.dir().join("objects.yaml");
    std::fs::write(&objects, TWO_NODES_AND_A_DAEMONSET).expect("write objects.yaml");
    cluster.kubectl(&["apply", "-f", &objects.to_string_lossy()]);
    let kubeconfig = service_account_kubeconfig(&cluster);

    // The token is the service account's, and its role reads no Secret and writes nothing.
    for (verb, resource) in [("list", "secrets"), ("create", "pods"), ("delete", "nodes")] {
        let (ok, out) =
            cluster.kubectl_as(Some(&kubeconfig), &["auth", "can-i", verb, resource, "-A"]);
        assert!(!ok && out.trim() == "no", "can-i {verb} {resource}: {out}");
    }

    let mut dashboard = Dashboard::serve(&kubeconfig, cluster.dir().join("daemonscope.log"));
    wait_for("/readyz", 30, || {
        dashboard.assert_running();
        (dashboard.get("/readyz").0 == 200).then_some(())
    });

    // Every page, as the service account sees it: the matrix with both nodes, the DaemonSet's
    // Events (core/v1 events) and the node's, and the watch metrics.
    let cell = |node: &str| format!("data-node=\"{node}\" data-daemonset=\"agents/log-collector\"");
    let (cell1, cell2) = (cell("worker-1"), cell("worker-2"));
    assert_page(&dashboard, "/", &[&cell1, &cell2]);
    assert_page(
        &dashboard,
        "/ds/agents/log-collector",
        &[&cell1, &cell2, "SuccessfulCreate"],
    );
    assert_page(
        &dashboard,
        "/node/worker-1",
        &["data-node=\"worker-1\"", "RegisteredNode"],
    );
    // The pod page reads one daemon pod on demand (get pods).
    let pod = cluster.kubectl(&[
        "get",
        "pods",
        "-n",
        "agents",
        "-o",
        "jsonpath={.items[0].metadata.name}",
    ]);
    assert_page(
        &dashboard,
        &format!("/pod/agents/{}", pod.trim()),
        &["data-testid=\"pod-page\"", "/ds/agents/log-collector"],
    );
    let synced: Vec<String> = ["nodes", "daemonsets", "pods", "controllerrevisions"]
        .iter()
        .map(|r| format!("daemonscope_watch_synced{{resource=\"{r}\"}} 1"))
        .collect();
    let synced: Vec<&str> = synced.iter().map(String::as_str).collect();
    assert_page(&dashboard, "/metrics", &synced);
    for probe in ["/healthz", "/readyz"] {
        assert_eq!(dashboard.get(probe).0, 200, "{probe}");
    }

    // kube-apiserver's audit log (batched, 1 s): wait until the dashboard's requests cover the
    // role and include a list and a watch, so that none of what follows can pass vacuously.
    let grants = granted(&cluster);
    let used = |requests: &[Request]| -> BTreeSet<(String, String)> {
        requests.iter().filter_map(|r| r.resource.clone()).collect()
    };
    let audit_log = cluster.dir().join("audit.log");
    // A grant never used ends the wait at the deadline, and fails below with the difference.
    let seen = |requests: &[Request], verb: &str| requests.iter().any(|r| r.verb == verb);
    let deadline = Instant::now() + Duration::from_secs(20);
    let requests = loop {
        let requests = dashboard_requests(&audit_log);
        let complete = seen(&requests, "list")
            && seen(&requests, "watch")
            && used(&requests).is_superset(&grants);
        if complete || Instant::now() > deadline {
            break requests;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(seen(&requests, "list"), "no list audited: {requests:#?}");
    assert!(seen(&requests, "watch"), "no watch audited: {requests:#?}");
    assert_read_only_as(&requests, SERVICE_ACCOUNT);
    // Least privilege: every grant is used and every resource read is granted.
    assert_eq!(
        grants,
        used(&requests),
        "{ROLE} (left) against what daemonscope requested (right): {requests:#?}"
    );

    eprintln!(
        "k8s_rbac: {} dashboard requests audited ({}), done in {} ms",
        requests.len(),
        requests
            .iter()
            .map(|r| format!("{} {}", r.verb, r.uri.split('?').next().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(", "),
        started.elapsed().as_millis()
    );
}
