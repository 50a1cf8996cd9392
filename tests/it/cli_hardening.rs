//! The offline commands on input that used to fool or hang them (issue 15): a DaemonSet the
//! API server refuses, damaged status data, files that are not regular files, and cluster
//! text that reaches a terminal. Run with `cargo test --features ssr --test cli_hardening`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Exit code, stdout, stderr.
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_daemonscope"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run daemonscope: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn rollout(path: &Path, output: &str) -> (i32, String, String) {
    run(&[
        "rollout",
        "--daemonset",
        &path.to_string_lossy(),
        "--output",
        output,
    ])
}

#[test]
fn a_string_budget_without_percent_is_the_api_servers_422_not_a_rollout() {
    // Issue 15 item 6: AV ValidateRollingUpdateDaemonSet → 422 Invalid at
    // spec.updateStrategy.rollingUpdate.maxUnavailable, "a valid percent string must be a
    // numeric string followed by an ending '%'". The text used to start with "successfully
    // rolled out".
    let d = fixture("ds-string-budget.yaml");
    let (code, stdout, stderr) = rollout(&d, "text");
    assert_eq!(code, 0, "{stderr}");
    let first = stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(
            "error: the API server would refuse this DaemonSet (422 Invalid): DaemonSet.apps \"d\" is invalid: \
             spec.updateStrategy.rollingUpdate.maxUnavailable: \"1\": a valid percent string must be a numeric \
             string followed by an ending '%'"
        ),
        "{stdout}"
    );
    let (_, json, _) = rollout(&d, "json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["apiServer"]["code"], 422, "{v}");
    assert_eq!(v["apiServer"]["reason"], "Invalid");
}

#[test]
fn a_negative_desired_count_is_not_successfully_rolled_out() {
    // Issue 15 reproduction 8 (KRS semantics §e, and ValidateDaemonSetStatusUpdate).
    let (code, stdout, stderr) = rollout(&fixture("ds-negative-desired.yaml"), "text");
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("successfully rolled out"), "{stdout}");
    assert!(
        stdout.starts_with("error: invalid DaemonSet status: status.desiredNumberScheduled is -1"),
        "{stdout}"
    );
}

#[test]
fn a_fifo_or_a_device_as_input_is_refused_at_once_with_the_file_named() {
    // Issue 15 reproduction 4: the 8 MiB check read `metadata().len()`, which is 0 for a FIFO
    // (the read then blocked for ever) and for /dev/zero (read until memory ran out). Only the
    // FIFO is run here against the binary: it cannot eat memory if the check is missing.
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("node.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo unavailable; skipped");
        return;
    }
    let ds = fixture("ds-rolling.yaml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_daemonscope"))
        .args(["explain", "--node"])
        .arg(&fifo)
        .arg("--daemonset")
        .arg(&ds)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if start.elapsed() > std::time::Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let status = status.expect("explain on a FIFO must not block (killed after 5 s)");
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
    }
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("node.yaml: is not a regular file"),
        "{stderr}"
    );
}

#[test]
fn explain_text_quotes_suggested_commands_and_strips_escape_sequences() {
    // Issue 15 reproduction 7: a node named `w1;touch /tmp/x` gave an unquoted shell command
    // in the suggested fix, an escape sequence in a label reached the terminal, and an
    // empty taint key gave a toleration CV ValidateTolerations refuses.
    let dir = tempfile::tempdir().expect("tempdir");
    let node = dir.path().join("node.yaml");
    std::fs::write(
        &node,
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: \"w1;touch /tmp/x\"\n  labels: {disk: \"\\e[31mhdd\"}\nspec:\n  taints: [{key: \"\", value: v, effect: NoSchedule}]\n",
    )
    .expect("write node");
    let ds = dir.path().join("ds.yaml");
    std::fs::write(
        &ds,
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d, namespace: ns}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec:\n      nodeSelector: {disk: ssd}\n      containers: [{name: c, image: i}]\n",
    )
    .expect("write ds");
    let (code, stdout, stderr) = run(&[
        "explain",
        "--node",
        &node.to_string_lossy(),
        "--daemonset",
        &ds.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("kubectl label nodes 'w1;touch /tmp/x' disk=ssd --overwrite"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("nodes w1;touch"),
        "an unquoted node name: {stdout}"
    );
    assert!(!stdout.contains('\u{1b}'), "an escape sequence: {stdout:?}");
    assert!(
        stdout.contains("{operator: Exists, effect: NoSchedule}"),
        "{stdout}"
    );
}

/// `--version` names the version and the commit (build.rs), so a copied binary says which
/// code it is (issue 23 item 1).
#[test]
fn version_names_the_version_and_the_commit() {
    let (code, stdout, stderr) = run(&["--version"]);
    assert_eq!(code, 0, "{stderr}");
    let line = stdout.trim();
    let rest = line
        .strip_prefix(&format!(
            "daemonscope {} (commit ",
            env!("CARGO_PKG_VERSION")
        ))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("not `daemonscope VERSION (commit C)`: {line}"));
    assert!(
        rest == "unknown" || (rest.len() >= 7 && rest.chars().all(|c| c.is_ascii_hexdigit())),
        "{line}"
    );
}

/// `serve` on a site without its files stops before connecting anywhere: exit 2 and one line
/// saying what is missing and how to get it (issue 23 item 1), not a panic nor a dashboard
/// whose pages never come alive.
#[test]
fn serve_without_a_site_refuses_in_one_line() {
    let empty = tempfile::tempdir().expect("a temporary directory");
    let root = empty.path().to_string_lossy().into_owned();
    let (code, stdout, stderr) = run(&[
        "serve",
        "--demo",
        "--listen",
        "127.0.0.1:0",
        "--site-root",
        &root,
    ]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(
        stderr.trim(),
        format!(
            "error: no site at {root}: pkg/daemonscope.js is missing (run `make build`, pass \
             --site-root DIR, or use a binary built with --features embed-site, as `make \
             release` does)"
        )
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}
