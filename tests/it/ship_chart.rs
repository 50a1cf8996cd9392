//! The Helm chart, the OCI image and daemonscope in-cluster, for real (issue 23, items 2 and 3).
//!
//! Without a cluster: `helm lint` passes, values.schema.json refuses a bad value with a message
//! naming it, and deploy/*.yaml are the chart's own rendering. Against Kubernetes' control
//! plane (`tools/k8s/cluster.sh`, with the Deployment and ReplicaSet controllers): the chart
//! installs into a namespace that enforces the `restricted` Pod Security Standard and the
//! ReplicaSet controller's pod is admitted; then the image (built by `tools/ship/image.sh` from
//! this build's binary, unpacked) runs its own entrypoint as a pod would: its files only, a
//! read-only root, user 65532 without capabilities, the service account's token and CA mounted
//! at /var/run/secrets/kubernetes.io/serviceaccount and KUBERNETES_SERVICE_HOST/PORT naming
//! kube-apiserver: the in-cluster path. Every page answers, and kube-apiserver's audit log shows
//! only get, list and watch from that service account, on exactly what the chart grants.
//!
//! Needs `make ship` (helm, crane), `make k8s`, `make build` (target/site), and user
//! namespaces (`unshare -r`). Run with `cargo test --features ssr --test it ship_chart::`;
//! `DAEMONSCOPE_IMAGE_DIR=target/image` runs `make image`'s image instead of building one.

use crate::support::audit::{assert_read_only_as, dashboard_requests, Request};
use crate::support::real_cluster::{root, text, wait_for, RealCluster, TWO_NODES_AND_A_DAEMONSET};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const CHART: &str = "deploy/helm/daemonscope";
/// The release's namespace, where Pod Security enforces `restricted`.
const NS: &str = "dashboards";
const SERVICE_ACCOUNT: &str = "system:serviceaccount:dashboards:daemonscope";

/// The login settings the schema requires while `auth.enabled` (the default).
const LOGIN_VALUES: &str = "auth:
  oauth2Proxy:
    issuerURL: https://login.example.com/realms/ops
    clientID: daemonscope
    existingSecret: daemonscope-oidc
    redirectURL: https://daemonscope.example.com/oauth2/callback
    emailDomains: [example.com]
    allowedGroups: [sre]
";

fn tool(name: &str) -> PathBuf {
    let path = root().join(".tools/ship/bin").join(name);
    assert!(
        path.exists(),
        "{} is missing: run `make ship` (crane, helm, oauth2-proxy from the Go module proxy)",
        path.display()
    );
    path
}

/// helm with its caches and configuration in `home` (never the user's).
fn helm(home: &Path, args: &[&str]) -> Output {
    Command::new(tool("helm"))
        .args(args)
        .env("HELM_CACHE_HOME", home.join("cache"))
        .env("HELM_CONFIG_HOME", home.join("config"))
        .env("HELM_DATA_HOME", home.join("data"))
        .current_dir(root())
        .output()
        .expect("run helm")
}

fn login_values(dir: &Path) -> String {
    let path = dir.join("login.yaml");
    std::fs::write(&path, LOGIN_VALUES).expect("write login.yaml");
    path.to_string_lossy().into_owned()
}

#[test]
fn the_chart_lints_refuses_bad_values_by_name_and_renders_deploy() {
    let home = tempfile::tempdir().expect("tempdir");
    let login = login_values(home.path());

    let out = helm(home.path(), &["lint", "--strict", CHART, "-f", &login]);
    assert!(out.status.success(), "helm lint: {}", text(&out));

    // Each refused value fails `helm template` (as it fails `helm install`) with a message
    // that names it; the same command with the good values renders.
    let ok = helm(
        home.path(),
        &["template", "daemonscope", CHART, "-f", &login],
    );
    assert!(ok.status.success(), "helm template: {}", text(&ok));
    let refused: [(&[&str], &str); 7] = [
        // The login is on by default: installing without saying where to log in is refused.
        (&[], "issuerURL"),
        (&["-f", &login, "--set", "replicas=2"], "replicas"),
        (
            &["-f", &login, "--set", "namespaces[0]=Kube_System"],
            "namespaces",
        ),
        (
            &["-f", &login, "--set", "probes.readinessPath=/ready"],
            "readinessPath",
        ),
        (
            &[
                "-f",
                &login,
                "--set",
                "auth.oauth2Proxy.redirectURL=https://x.example.com/",
            ],
            "redirectURL",
        ),
        (
            &["-f", &login, "--set", "image.pullPolicy=Sometimes"],
            "pullPolicy",
        ),
        // An egress policy that does not say where kube-apiserver is would cut the dashboard off.
        (
            &[
                "-f",
                &login,
                "--set",
                "networkPolicy.enabled=true",
                "--set",
                "networkPolicy.restrictEgress=true",
            ],
            "apiServer/cidrs",
        ),
    ];
    for (extra, named) in refused {
        let mut args = vec!["template", "daemonscope", CHART];
        args.extend_from_slice(extra);
        let out = helm(home.path(), &args);
        let message = text(&out);
        assert!(!out.status.success(), "{extra:?} was accepted:\n{message}");
        assert!(
            message.contains("values don't meet the specifications of the schema")
                && message.contains(named),
            "{extra:?}: the refusal does not name {named}:\n{message}"
        );
    }

    // deploy/*.yaml are the chart's rendering (`make deploy-manifests`).
    let out_dir = home.path().join("deploy");
    let out = Command::new(root().join("tools/ship/manifests.sh"))
        .arg(&out_dir)
        .env("HELM", tool("helm"))
        .env("HELM_CACHE_HOME", home.path().join("cache"))
        .env("HELM_CONFIG_HOME", home.path().join("config"))
        .env("HELM_DATA_HOME", home.path().join("data"))
        .output()
        .expect("run tools/ship/manifests.sh");
    assert!(out.status.success(), "manifests.sh: {}", text(&out));
    for file in ["rbac.yaml", "deployment.yaml"] {
        let rendered = std::fs::read_to_string(out_dir.join(file)).expect("rendered");
        let committed =
            std::fs::read_to_string(root().join("deploy").join(file)).unwrap_or_default();
        assert!(
            rendered == committed,
            "deploy/{file} is not the chart's rendering: run `make deploy-manifests`\n--- rendered\n{rendered}"
        );
    }
}

fn kubectl_ok(cluster: &RealCluster, args: &[&str]) -> String {
    let out = cluster.kubectl(args);
    assert!(
        out.status.success(),
        "kubectl {}: {}",
        args.join(" "),
        text(&out)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn kubectl_json(cluster: &RealCluster, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_str(&kubectl_ok(cluster, &all)).expect("kubectl JSON")
}

/// The image built from this test build's binary: `tools/ship/image.sh` (crane, no daemon).
fn build_image(out: &Path) -> Output {
    let site = root().join("target/site");
    assert!(
        site.join("pkg").exists(),
        "{} is missing: run `make build`",
        site.display()
    );
    Command::new(root().join("tools/ship/image.sh"))
        .arg(out)
        .arg(env!("CARGO_BIN_EXE_daemonscope"))
        .arg(&site)
        .env("CRANE", tool("crane"))
        .output()
        .expect("run tools/ship/image.sh")
}

/// The image's entrypoint running as a pod runs it, killed on drop.
struct Container {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Container {
    /// Unpacks the image tarball into `dir/rootfs` and starts `entrypoint + args` in it: a new
    /// user and mount namespace; the root bind-mounted read-only; the service account's
    /// directory `sa` bind-mounted read-only where kubelet mounts it; then a nested user
    /// namespace in which the process is user and group 65532 (the image's USER), chrooted,
    /// in the image's working directory, with no capabilities, and with only the environment a
    /// pod gets for the API server.
    fn run(
        dir: &Path,
        image: &Path,
        sa: &Path,
        apiserver_port: &str,
        args: &[String],
    ) -> Container {
        let rootfs = dir.join("rootfs");
        std::fs::create_dir_all(&rootfs).expect("rootfs");
        let mut export = Command::new(tool("crane"))
            .args(["export", "-", "-"])
            .stdin(std::fs::File::open(image.join("daemonscope.tar")).expect("image tarball"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("crane export");
        let untar = Command::new("tar")
            .arg("-x")
            .arg("-C")
            .arg(&rootfs)
            .stdin(export.stdout.take().expect("crane's stdout"))
            .status()
            .expect("tar");
        assert!(
            export.wait().expect("crane export").success(),
            "crane export failed"
        );
        assert!(untar.success(), "unpacking the image failed");
        // Here user 65532 of the nested namespace is this test's own user outside, so file
        // permissions cannot refuse it; in a pod it owns nothing in the image: everything must
        // be readable (and directories and the binary executable) by others, nothing writable.
        assert_world_readable(&rootfs, &rootfs);

        let config: Value = serde_json::from_str(
            &std::fs::read_to_string(image.join("config.json")).expect("config.json"),
        )
        .expect("the image config");
        let config = &config["config"];
        assert_eq!(
            config["User"], "65532:65532",
            "the image runs as a non-root user"
        );
        let workdir = config["WorkingDir"]
            .as_str()
            .expect("WorkingDir")
            .to_string();
        let entrypoint: Vec<String> =
            serde_json::from_value(config["Entrypoint"].clone()).expect("the image's entrypoint");

        // A runtime creates the mount point; the image holds no such directory itself.
        let mount_point = "var/run/secrets/kubernetes.io/serviceaccount";
        std::fs::create_dir_all(rootfs.join(mount_point)).expect("mount point");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                if a.ends_with(":3000") {
                    format!("127.0.0.1:{port}")
                } else {
                    a.clone()
                }
            })
            .collect();
        let script = format!(
            "set -e; r=$1; sa=$2; shift 2
             mount --bind \"$r\" \"$r\"
             mount --bind \"$sa\" \"$r/{mount_point}\"
             mount -o remount,bind,ro \"$r/{mount_point}\"
             mount -o remount,bind,ro \"$r\"
             exec /usr/bin/unshare --map-user=65532 --map-group=65532 --root=\"$r\" --wd={workdir} \"$@\""
        );
        let log = dir.join("container.log");
        let out = std::fs::File::create(&log).expect("log");
        let child = Command::new("/usr/bin/unshare")
            .args(["--map-root-user", "--mount", "/bin/sh", "-c", &script, "sh"])
            .arg(&rootfs)
            .arg(sa)
            .args(&entrypoint)
            .args(&args)
            .env_clear()
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
            .env("KUBERNETES_SERVICE_PORT", apiserver_port)
            .stdout(out.try_clone().expect("log"))
            .stderr(out)
            .spawn()
            .expect("unshare (util-linux)");
        Container { child, port, log }
    }

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

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// GETs `path` until it answers 200 showing all of `shows`; then checks it names no refusal.
    fn assert_page(&mut self, path: &str, shows: &[&str]) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        let body = loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("the container exited ({status}):\n{}", self.log());
            }
            let (code, body) = self.get(path);
            if code == 200 && shows.iter().all(|s| body.contains(s)) {
                break body;
            }
            assert!(
                Instant::now() < deadline,
                "{path} did not answer 200 showing {shows:?} in 30s: {code}\n{body}\n{}",
                self.log()
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
        body
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every file and directory under `dir` is readable by any user (directories and the binary
/// also searchable/executable), and none is writable by one.
fn assert_world_readable(root: &Path, dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(dir).expect("read the image's tree") {
        let path = entry.expect("an entry").path();
        let meta = std::fs::symlink_metadata(&path).expect("metadata");
        let mode = meta.permissions().mode();
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        if meta.file_type().is_symlink() {
            continue;
        }
        assert_eq!(mode & 0o002, 0, "{shown} is writable by others ({mode:o})");
        assert_ne!(
            mode & 0o004,
            0,
            "{shown} is not readable by others ({mode:o})"
        );
        if meta.is_dir() || shown == "app/daemonscope" {
            assert_ne!(
                mode & 0o001,
                0,
                "{shown} is not executable by others ({mode:o})"
            );
        }
        if meta.is_dir() {
            assert_world_readable(root, &path);
        }
    }
}

/// The (apiGroup, resource) pairs granted by `rules` (a Role's or ClusterRole's), each rule
/// checked read-only and without wildcards.
fn granted(rules: &Value, into: &mut BTreeSet<(String, String)>) {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    for rule in rules.as_array().expect("rules") {
        assert_eq!(
            strings(&rule["verbs"]),
            ["get", "list", "watch"],
            "rule {rule}"
        );
        for group in strings(&rule["apiGroups"]) {
            for resource in strings(&rule["resources"]) {
                assert!(group != "*" && resource != "*", "a wildcard: {rule}");
                into.insert((group.clone(), resource));
            }
        }
    }
}

#[test]
fn the_chart_installs_under_restricted_pod_security_and_its_image_serves_every_page_in_cluster() {
    let started = Instant::now();
    let work = tempfile::Builder::new()
        .prefix("daemonscope-chart-")
        .tempdir()
        .expect("tempdir");
    // DAEMONSCOPE_IMAGE_DIR: an image already built (`make image`: target/image) instead of
    // one from this test build's debug binary.
    let prebuilt = std::env::var_os("DAEMONSCOPE_IMAGE_DIR").map(|d| root().join(d));
    let image_dir = prebuilt
        .clone()
        .unwrap_or_else(|| work.path().join("image"));
    // The image builds (~5 s) while the control plane starts.
    let (image_build, cluster) = std::thread::scope(|s| {
        let image = s.spawn(|| prebuilt.is_none().then(|| build_image(&image_dir)));
        let cluster =
            RealCluster::start_with(&[], &["deployment-controller", "replicaset-controller"]);
        (image.join().expect("image thread"), cluster)
    });
    if let Some(out) = image_build {
        assert!(out.status.success(), "image.sh: {}", text(&out));
    }
    let image_ms = started.elapsed().as_millis();

    let objects = work.path().join("objects.yaml");
    std::fs::write(&objects, TWO_NODES_AND_A_DAEMONSET).expect("objects.yaml");
    kubectl_ok(&cluster, &["apply", "-f", &objects.to_string_lossy()]);
    kubectl_ok(&cluster, &["create", "namespace", NS]);
    kubectl_ok(
        &cluster,
        &[
            "label",
            "namespace",
            NS,
            "pod-security.kubernetes.io/enforce=restricted",
            "pod-security.kubernetes.io/enforce-version=latest",
        ],
    );
    kubectl_ok(
        &cluster,
        &[
            "create",
            "secret",
            "generic",
            "daemonscope-oidc",
            "-n",
            NS,
            "--from-literal=client-secret=not-used-here",
            "--from-literal=cookie-secret=0123456789abcdef0123456789abcdef",
        ],
    );
    // Pod Security is enforced for real in that namespace: a pod without the restricted
    // settings is refused, so the admission below is a verdict, not a formality.
    let refused = cluster.kubectl(&[
        "run",
        "plain",
        "-n",
        NS,
        "--image=busybox",
        "--dry-run=server",
    ]);
    assert!(
        !refused.status.success()
            && text(&refused).contains("violates PodSecurity \"restricted:latest\""),
        "a pod without the restricted settings was not refused: {}",
        text(&refused)
    );

    // helm install into kube-apiserver, DaemonSets of `agents` only (Roles there).
    let home = work.path().join("helm");
    let login = login_values(work.path());
    let kubeconfig = cluster.kubeconfig.to_string_lossy().into_owned();
    let out = helm(
        &home,
        &[
            "install",
            "daemonscope",
            CHART,
            "--namespace",
            NS,
            "--kubeconfig",
            &kubeconfig,
            "-f",
            &login,
            "--set",
            "namespaces={agents}",
        ],
    );
    assert!(out.status.success(), "helm install: {}", text(&out));

    // kube-controller-manager's ReplicaSet controller creates the pod, and PodSecurity admits
    // it (a refusal would show as the ReplicaSet's ReplicaFailure condition, quoted here).
    let selector = "app.kubernetes.io/instance=daemonscope";
    let pod = wait_for("the Deployment's pod to be admitted", 60, || {
        let pods = kubectl_json(&cluster, &["get", "pods", "-n", NS, "-l", selector]);
        pods["items"]
            .as_array()
            .and_then(|a| a.first().cloned())
            .or_else(|| {
                let rs = kubectl_json(&cluster, &["get", "replicasets", "-n", NS, "-l", selector]);
                for set in rs["items"].as_array().into_iter().flatten() {
                    for c in set["status"]["conditions"].as_array().into_iter().flatten() {
                        assert_ne!(c["type"], "ReplicaFailure", "the pod was refused: {c}");
                    }
                }
                None
            })
    });
    let containers: Vec<&str> = pod["spec"]["containers"]
        .as_array()
        .expect("containers")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(
        containers,
        ["daemonscope", "oauth2-proxy"],
        "the login proxy runs beside it"
    );

    // The optional Ingress and NetworkPolicy pass kube-apiserver's validation too.
    let optional = helm(
        &home,
        &[
            "template",
            "daemonscope",
            CHART,
            "--namespace",
            NS,
            "-f",
            &login,
            "--set",
            "ingress.enabled=true",
            "--set",
            "ingress.tlsSecretName=daemonscope-tls",
            "--set",
            "networkPolicy.enabled=true",
            "--set",
            "networkPolicy.restrictEgress=true",
            "--set",
            "networkPolicy.apiServer.cidrs={10.96.0.1/32}",
            "--show-only",
            "templates/ingress.yaml",
            "--show-only",
            "templates/networkpolicy.yaml",
        ],
    );
    assert!(
        optional.status.success(),
        "helm template: {}",
        text(&optional)
    );
    let optional_file = work.path().join("optional.yaml");
    std::fs::write(&optional_file, &optional.stdout).expect("optional.yaml");
    let created = kubectl_ok(
        &cluster,
        &[
            "create",
            "--dry-run=server",
            "-f",
            &optional_file.to_string_lossy(),
        ],
    );
    assert!(
        created.contains("ingress.networking.k8s.io/daemonscope created (server dry run)")
            && created
                .contains("networkpolicy.networking.k8s.io/daemonscope created (server dry run)"),
        "{created}"
    );

    // What the chart grants: nodes cluster-wide, the rest in `agents` only.
    let mut grants = BTreeSet::new();
    granted(
        &kubectl_json(&cluster, &["get", "clusterrole", "daemonscope-read"])["rules"],
        &mut grants,
    );
    assert_eq!(
        grants,
        BTreeSet::from([(String::new(), "nodes".to_string())]),
        "only nodes cluster-wide"
    );
    granted(
        &kubectl_json(
            &cluster,
            &["get", "role", "daemonscope-read", "-n", "agents"],
        )["rules"],
        &mut grants,
    );

    // The in-cluster run: the image's entrypoint with the installed Deployment's arguments, as
    // the service account with a token kube-apiserver issued (TokenRequest).
    let sa = work.path().join("serviceaccount");
    std::fs::create_dir_all(&sa).expect("sa dir");
    let token = kubectl_ok(&cluster, &["create", "token", "daemonscope", "-n", NS]);
    std::fs::write(sa.join("token"), token.trim()).expect("token");
    std::fs::copy(cluster.dir().join("pki/ca.crt"), sa.join("ca.crt")).expect("ca.crt");
    std::fs::write(sa.join("namespace"), NS).expect("namespace");
    let deployment = kubectl_json(&cluster, &["get", "deployment", "daemonscope", "-n", NS]);
    let args: Vec<String> = deployment["spec"]["template"]["spec"]["containers"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "daemonscope"))
        .and_then(|c| serde_json::from_value(c["args"].clone()).ok())
        .expect("the daemonscope container's args");
    assert!(
        args.windows(2).any(|w| w == ["--namespace", "agents"]),
        "{args:?}"
    );
    let mut container = Container::run(
        work.path(),
        &image_dir,
        &sa,
        &cluster.env("APISERVER_PORT"),
        &args,
    );

    // Every page, from the image's own files (the site included), read-only.
    let cell = |node: &str| format!("data-node=\"{node}\" data-daemonset=\"agents/log-collector\"");
    let (cell1, cell2) = (cell("worker-1"), cell("worker-2"));
    let home_page = container.assert_page("/", &[&cell1, &cell2]);
    assert!(
        home_page.contains("in-cluster"),
        "the header names the in-cluster connection:\n{home_page}"
    );
    container.assert_page(
        "/ds/agents/log-collector",
        &[&cell1, &cell2, "SuccessfulCreate"],
    );
    container.assert_page("/node/worker-1", &["data-node=\"worker-1\""]);
    container.assert_page("/pkg/daemonscope.css", &[]);
    // As a pod runs it: user 65532 inside its namespace, no capability left.
    let pid = container.child.id();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("its status");
    assert!(status.contains("CapEff:\t0000000000000000"), "{status}");
    let uid_map = std::fs::read_to_string(format!("/proc/{pid}/uid_map")).expect("its uid_map");
    assert_eq!(
        uid_map.split_whitespace().next(),
        Some("65532"),
        "{uid_map}"
    );
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).expect("its executable");
    assert!(
        exe.ends_with("rootfs/app/daemonscope"),
        "the image's binary runs: {exe:?}"
    );
    for probe in ["/healthz", "/readyz"] {
        assert_eq!(container.get(probe).0, 200, "{probe}");
    }

    // kube-apiserver's audit log: only get/list/watch, as the chart's service account, none
    // refused, on exactly what the chart grants (nodes cluster-wide; the rest in `agents`).
    let audit_log = cluster.dir().join("audit.log");
    let used = |requests: &[Request]| -> BTreeSet<(String, String)> {
        requests.iter().filter_map(|r| r.resource.clone()).collect()
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    let requests = loop {
        let requests = dashboard_requests(&audit_log);
        let seen = |verb: &str| requests.iter().any(|r| r.verb == verb);
        if (seen("list") && seen("watch") && used(&requests).is_superset(&grants))
            || Instant::now() > deadline
        {
            break requests;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        requests.iter().any(|r| r.verb == "watch"),
        "no watch audited: {requests:#?}"
    );
    assert_read_only_as(&requests, SERVICE_ACCOUNT);
    for r in requests.iter().filter(|r| r.resource.is_some()) {
        assert!(
            r.uri.starts_with("/api/v1/namespaces/agents/")
                || r.uri.starts_with("/apis/apps/v1/namespaces/agents/")
                || r.uri.starts_with("/api/v1/nodes"),
            "read outside `agents` (only nodes are cluster-wide): {r:?}"
        );
    }
    assert_eq!(
        grants,
        used(&requests),
        "granted (left) against read (right): {requests:#?}"
    );
    drop(container);

    // Bad input in a pod: a service-account mount without its token (or CA) stops the image's
    // entrypoint at once with one line naming the missing file.
    for missing in ["token", "ca.crt"] {
        let partial = work.path().join(format!("sa-without-{missing}"));
        std::fs::create_dir_all(&partial).expect("partial sa dir");
        for file in ["token", "ca.crt", "namespace"] {
            if file != missing {
                std::fs::copy(sa.join(file), partial.join(file)).expect("copy an sa file");
            }
        }
        let mut failing = Container::run(
            &work.path().join(format!("run-without-{missing}")),
            &image_dir,
            &partial,
            &cluster.env("APISERVER_PORT"),
            &args,
        );
        let status = wait_for("the entrypoint to exit", 30, || {
            failing.child.try_wait().ok().flatten()
        });
        let log = failing.log();
        let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(status.code(), Some(2), "{log}");
        assert_eq!(lines.len(), 1, "one line: {log}");
        assert!(
            lines[0].contains(&format!(
                "/var/run/secrets/kubernetes.io/serviceaccount/{missing}"
            )),
            "{log}"
        );
    }

    eprintln!(
        "ship_chart: image built in {image_ms} ms beside the control plane; {} requests audited; done in {} ms",
        requests.len(),
        started.elapsed().as_millis()
    );
}
