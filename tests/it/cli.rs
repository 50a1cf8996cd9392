//! The offline commands, run as a user runs them: the built binary on kubectl-shaped dumps
//! in `tests/fixtures/`. Each case names the rule of `docs/kubernetes-rules.md` it mirrors.
//! Run with `cargo test --features ssr --test cli`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use serde_json::Value;
use std::path::PathBuf;
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
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run daemonscope: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn explain_json(node: &str, ds: &str) -> Value {
    let (n, d) = (fixture(node), fixture(ds));
    let (code, stdout, stderr) = run(&[
        "explain",
        "--node",
        &n.to_string_lossy(),
        "--daemonset",
        &d.to_string_lossy(),
        "--output",
        "json",
    ]);
    assert_eq!(code, 0, "explain {node} {ds}: {stderr}");
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("explain {node} {ds}: not JSON ({e}): {stdout}"))
}

fn rollout_json(ds: &str) -> Value {
    let d = fixture(ds);
    let (code, stdout, stderr) = run(&[
        "rollout",
        "--daemonset",
        &d.to_string_lossy(),
        "--output",
        "json",
    ]);
    assert_eq!(code, 0, "rollout {ds}: {stderr}");
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("rollout {ds}: not JSON ({e}): {stdout}"))
}

fn verdict(v: &Value) -> (bool, bool) {
    (
        v["shouldRun"].as_bool().unwrap_or_default(),
        v["shouldContinueRunning"].as_bool().unwrap_or_default(),
    )
}

fn failing(v: &Value) -> Vec<&Value> {
    v["reasons"]
        .as_array()
        .map(|r| r.iter().filter(|r| r["passed"] == false).collect())
        .unwrap_or_default()
}

fn reasons_of<'a>(v: &'a Value, rule: &str) -> Vec<&'a Value> {
    v["reasons"]
        .as_array()
        .map(|r| r.iter().filter(|r| r["rule"] == rule).collect())
        .unwrap_or_default()
}

#[test]
fn explain_verdicts_match_the_controller_on_the_fixture_cluster() {
    let cases: &[(&str, &str, &str, (bool, bool))] = &[
        (
            "§a.2.3 control-plane taint, no toleration",
            "node-control-plane.yaml",
            "ds-log-collector.yaml",
            (false, true),
        ),
        (
            "§a.5 MetalLB speaker tolerates the control plane",
            "node-control-plane.yaml",
            "ds-speaker.yaml",
            (true, true),
        ),
        (
            "§a.2.2 nodeSelector workload-type=gpu on a GPU node (JSON)",
            "node-gpu.json",
            "ds-gpu-monitor.json",
            (true, true),
        ),
        (
            "§a.2.2 nodeSelector workload-type=gpu elsewhere",
            "node-dedicated.yaml",
            "ds-gpu-monitor.json",
            (false, false),
        ),
        (
            "§a.2 plain DaemonSet on a plain GPU node",
            "node-gpu.json",
            "ds-log-collector.yaml",
            (true, true),
        ),
        (
            "§a.2.3 dedicated NoSchedule taint, no toleration",
            "node-dedicated.yaml",
            "ds-log-collector.yaml",
            (false, true),
        ),
        (
            "§a.5 Equal toleration of the dedicated taint",
            "node-dedicated.yaml",
            "ds-infra-agent.yaml",
            (true, true),
        ),
        (
            "§a.6 trap 1: cordoned node still runs daemon pods",
            "node-cordoned.yaml",
            "ds-log-collector.yaml",
            (true, true),
        ),
        (
            "§a.6 trap 4: not-ready:NoSchedule is not auto-tolerated",
            "node-notready.yaml",
            "ds-log-collector.yaml",
            (false, true),
        ),
        (
            "§a.5 operator Exists with empty key tolerates NotReady",
            "node-notready.yaml",
            "ds-not-observed.yaml",
            (true, true),
        ),
        (
            "§a.2 trap 12: nodeSelectorTerms: [] matches no node",
            "node-gpu.json",
            "ds-empty-terms.yaml",
            (false, false),
        ),
        (
            "§i.3 empty-key Equal toleration matches by value",
            "node-dedicated.yaml",
            "ds-manifest-invalid.yaml",
            (true, true),
        ),
        (
            "§a.5 trap 10: Lt toleration tolerates nothing",
            "node-control-plane.yaml",
            "ds-manifest-invalid.yaml",
            (false, true),
        ),
    ];
    for (name, node, ds, want) in cases {
        assert_eq!(verdict(&explain_json(node, ds)), *want, "{name}");
    }
}

#[test]
fn explain_json_has_structured_reasons_with_fixes() {
    let v = explain_json("node-dedicated.yaml", "ds-log-collector.yaml");
    assert_eq!(v["node"], "infra-1");
    assert_eq!(v["daemonset"], "logging/log-collector");
    let fails = failing(&v);
    assert_eq!(fails.len(), 1, "only the dedicated taint fails: {fails:?}");
    let taint = fails[0];
    assert_eq!(taint["rule"], "Taint");
    assert_eq!(taint["nodeValue"], "dedicated=infra:NoSchedule");
    let fix = taint["fix"].as_str().unwrap_or_default();
    assert!(
        fix.contains("{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}"),
        "{fix}"
    );
    assert!(
        fix.contains("kubectl taint nodes infra-1 dedicated:NoSchedule-"),
        "{fix}"
    );
    let prefer = reasons_of(&v, "Taint")
        .into_iter()
        .find(|r| r["nodeValue"] == "spot=true:PreferNoSchedule")
        .cloned();
    assert_eq!(
        prefer.map(|r| r["passed"].clone()),
        Some(Value::Bool(true)),
        "§a.2 trap 2: PreferNoSchedule ignored"
    );
    // §a.2 step 3: the structured fixes, exactly as pasted.
    let options = &v["fixes"][0]["options"];
    assert_eq!(
        options[0]["action"]["DaemonSetPatch"]["yaml"],
        "- {key: dedicated, operator: Equal, value: infra, effect: NoSchedule}"
    );
    assert_eq!(
        options[1]["action"]["Command"]["command"],
        "kubectl taint nodes infra-1 dedicated:NoSchedule-"
    );
    for r in v["reasons"].as_array().into_iter().flatten() {
        for key in ["rule", "passed", "message", "nodeValue", "podValue", "fix"] {
            assert!(r.get(key).is_some(), "reason has {key}: {r}");
        }
    }
    assert_eq!(v["invalid"], serde_json::json!([]));
    let keys: Vec<&str> = v["podTolerations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["key"].as_str())
        .collect();
    assert_eq!(
        keys.len(),
        6,
        "§b: the six automatic tolerations, no hostNetwork: {keys:?}"
    );
    assert_eq!(keys[0], "node.kubernetes.io/not-ready");
}

#[test]
fn explain_says_which_label_the_node_lacks() {
    let v = explain_json("node-dedicated.yaml", "ds-gpu-monitor.json");
    let fails = failing(&v);
    let selector = fails
        .iter()
        .find(|r| r["rule"] == "NodeSelector")
        .expect("a failing nodeSelector reason");
    assert_eq!(selector["podValue"], "workload-type=gpu");
    assert_eq!(selector["nodeValue"], "workload-type: (absent)");
    assert!(selector["fix"]
        .as_str()
        .unwrap_or_default()
        .contains("label the node workload-type=gpu"));
}

#[test]
fn explain_notes_cordon_and_readiness_without_failing_on_them() {
    let cordoned = explain_json("node-cordoned.yaml", "ds-log-collector.yaml");
    let note = reasons_of(&cordoned, "Unschedulable");
    assert_eq!(note.len(), 1);
    assert_eq!(note[0]["passed"], true);
    assert!(failing(&cordoned).is_empty(), "§a.6 cordon never fails");

    let not_ready = explain_json("node-notready.yaml", "ds-infra-agent.yaml");
    assert_eq!(
        verdict(&not_ready),
        (false, true),
        "§a.6: the template tolerates only NoExecute not-ready"
    );
    assert_eq!(reasons_of(&not_ready, "NodeReady").len(), 1);
    let kept = reasons_of(&not_ready, "Taint")
        .into_iter()
        .find(|r| r["passed"] == true)
        .cloned()
        .unwrap_or_default();
    assert!(
        kept["message"].as_str().unwrap_or_default().contains("300"),
        "trap 8 eviction note: {kept}"
    );
}

#[test]
fn explain_reports_what_the_api_server_would_reject() {
    let v = explain_json("node-control-plane.yaml", "ds-manifest-invalid.yaml");
    let fields: Vec<&str> = v["invalid"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["field"].as_str())
        .collect();
    assert_eq!(
        fields,
        vec![
            "spec.template.spec.tolerations[0].operator",
            "spec.template.spec.tolerations[1].operator",
            "spec.updateStrategy.rollingUpdate.maxSurge",
        ],
        "§i.2"
    );
    let gated = reasons_of(&v, "TolerationOperator");
    assert_eq!(gated.len(), 1);
    assert!(gated[0]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("TaintTolerationComparisonOperators"));
}

#[test]
fn explain_text_puts_the_verdict_first_then_each_reason() {
    let (n, d) = (
        fixture("node-control-plane.yaml"),
        fixture("ds-log-collector.yaml"),
    );
    let (code, stdout, _) = run(&[
        "explain",
        "--node",
        &n.to_string_lossy(),
        "--daemonset",
        &d.to_string_lossy(),
    ]);
    assert_eq!(code, 0);
    let first = stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("DaemonSet logging/log-collector on node cp-1: no new pod here"),
        "{first}"
    );
    assert!(stdout.contains(
        "[FAIL] Taint: The taint node-role.kubernetes.io/control-plane:NoSchedule is not tolerated"
    ));
    assert!(stdout.contains(
        "      (add under spec.template.spec.tolerations)\n        - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}\n"
    ));
    assert!(stdout.contains(
        "        kubectl taint nodes cp-1 node-role.kubernetes.io/control-plane:NoSchedule-"
    ));
    assert!(stdout.contains("[pass] NodeName"));
}

#[test]
fn rollout_verdicts_and_budgets_match_kubectl_and_the_controller() {
    // (name, file, done, message, maxUnavailable, maxSurge, desired)
    type Row<'a> = (&'a str, &'a str, bool, &'a str, Value, Value, Value);
    let null = Value::Null;
    let cases: Vec<Row> = vec![
        (
            "§e.3 updated < desired",
            "ds-rolling.yaml",
            false,
            "Waiting for daemon set \"node-exporter\" rollout to finish: 3 out of 6 new pods have been updated...",
            1.into(),
            0.into(),
            6.into(),
        ),
        (
            "§e.3 available < desired; §d.2 25% of 7 rounds up to 2",
            "ds-rolling-available.json",
            false,
            "Waiting for daemon set \"engine-image\" rollout to finish: 5 of 7 updated pods are available...",
            0.into(),
            2.into(),
            7.into(),
        ),
        (
            "§d.2 trap 5: 50% of 3 rounds up to 2",
            "ds-gpu-monitor.json",
            false,
            "Waiting for daemon set \"gpu-monitor\" rollout to finish: 2 of 3 updated pods are available...",
            2.into(),
            0.into(),
            3.into(),
        ),
        ("§e.3 done", "ds-log-collector.yaml", true, "daemon set \"log-collector\" successfully rolled out", 1.into(), 0.into(), 9.into()),
        (
            "§e.2 generation not observed; 10% of 12 rounds up to 2",
            "ds-not-observed.yaml",
            false,
            "Waiting for daemon set spec update to be observed...",
            2.into(),
            0.into(),
            12.into(),
        ),
        (
            "§i.4 trap 14: a manifest without status, defaulted to 1/0",
            "ds-manifest.yaml",
            false,
            "Waiting for daemon set spec update to be observed...",
            1.into(),
            0.into(),
            null.clone(),
        ),
        (
            "§e trap 9, §d.2: desired 0 is rolled out; \"5\" has no budget",
            "ds-empty-terms.yaml",
            true,
            "daemon set \"pinned-agent\" successfully rolled out",
            null.clone(),
            null.clone(),
            0.into(),
        ),
    ];
    for (name, file, done, message, mu, ms, desired) in cases {
        let v = rollout_json(file);
        assert_eq!(v["done"], done, "{name}");
        assert_eq!(v["message"], message, "{name}");
        assert_eq!(v["error"], Value::Null, "{name}");
        assert_eq!(v["maxUnavailable"], mu, "{name}");
        assert_eq!(v["maxSurge"], ms, "{name}");
        assert_eq!(v["desired"], desired, "{name}");
        assert_eq!(v["strategy"]["type"], "RollingUpdate", "{name}");
    }
}

#[test]
fn rollout_without_status_says_there_is_none_i4() {
    let v = rollout_json("ds-manifest.yaml");
    assert!(
        v["note"]
            .as_str()
            .unwrap_or_default()
            .contains("no controller status yet"),
        "{v}"
    );
    assert_eq!(
        v["strategy"],
        serde_json::json!({"type": "RollingUpdate", "maxUnavailable": 1, "maxSurge": 0})
    );
}

#[test]
fn rollout_of_a_string_budget_reports_the_controllers_error_d2() {
    let v = rollout_json("ds-empty-terms.yaml");
    assert!(
        v["budgetError"]
            .as_str()
            .unwrap_or_default()
            .contains("not a percentage"),
        "{v}"
    );
}

#[test]
fn rollout_of_on_delete_is_kubectls_error_e1() {
    let v = rollout_json("ds-ondelete.yaml");
    assert_eq!(
        v["error"],
        "rollout status is only available for RollingUpdate strategy type"
    );
    assert_eq!(v["message"], "");
    assert_eq!(v["done"], true);
    assert_eq!(v["strategy"]["type"], "OnDelete");
    assert_eq!(v["maxUnavailable"], Value::Null);
    let d = fixture("ds-ondelete.yaml");
    let (code, stdout, _) = run(&["rollout", "--daemonset", &d.to_string_lossy()]);
    assert_eq!(code, 0);
    assert!(
        stdout
            .starts_with("error: rollout status is only available for RollingUpdate strategy type"),
        "{stdout}"
    );
}

#[test]
fn rollout_of_an_invalid_manifest_lists_findings() {
    let v = rollout_json("ds-manifest-invalid.yaml");
    let fields: Vec<&str> = v["invalid"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["field"].as_str())
        .collect();
    assert!(
        fields.contains(&"spec.updateStrategy.rollingUpdate.maxSurge"),
        "{fields:?}"
    );
    assert_eq!(
        v["strategy"]["maxUnavailable"], 1,
        "§i.1: only maxSurge set keeps maxUnavailable 1"
    );
    assert_eq!(
        v["maxUnavailable"],
        Value::Null,
        "a percent needs desiredNumberScheduled"
    );
}

#[test]
fn rollout_text_starts_with_kubectls_line() {
    let d = fixture("ds-rolling.yaml");
    let (code, stdout, _) = run(&["rollout", "--daemonset", &d.to_string_lossy()]);
    assert_eq!(code, 0);
    let mut lines = stdout.lines();
    assert_eq!(
        lines.next(),
        Some("Waiting for daemon set \"node-exporter\" rollout to finish: 3 out of 6 new pods have been updated...")
    );
    assert!(
        stdout.contains("budget: maxUnavailable 1, maxSurge 0 (of 6 desired nodes)"),
        "{stdout}"
    );
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let empty = dir.path().join("empty.yaml");
    let binary = dir.path().join("binary.yaml");
    let two = dir.path().join("two.yaml");
    std::fs::write(&empty, "").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x01]).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        &two,
        "kind: DaemonSet\nmetadata: {name: a}\n---\nkind: DaemonSet\nmetadata: {name: b}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "missing file",
            s(fixture("no-such-file.yaml")),
            "cannot read the file",
        ),
        (
            "not YAML/JSON",
            s(fixture("not-a-manifest.txt")),
            "not valid YAML",
        ),
        (
            "wrong kind",
            s(fixture("pod.yaml")),
            "is a Pod, not a DaemonSet",
        ),
        (
            "a Node given as DaemonSet",
            s(fixture("node-gpu.json")),
            "is a Node, not a DaemonSet",
        ),
        (
            "DaemonSet without template",
            s(fixture("ds-no-template.yaml")),
            "DaemonSet broken has no spec.template",
        ),
        ("empty file", s(empty), "empty"),
        ("binary file", s(binary), "not UTF-8"),
        ("two objects", s(two), "holds 2 objects"),
        ("a directory", s(fixture("")), "is a directory"),
    ];
    for (name, path, needle) in cases {
        let rollout = run(&["rollout", "--daemonset", &path]);
        let explain = run(&[
            "explain",
            "--node",
            &s(fixture("node-gpu.json")),
            "--daemonset",
            &path,
        ]);
        for (cmd, (code, stdout, stderr)) in [("rollout", rollout), ("explain", explain)] {
            assert_eq!(code, 2, "{cmd} {name}: {stderr}");
            assert!(stdout.is_empty(), "{cmd} {name}: nothing on stdout");
            assert_eq!(
                stderr.trim_end().lines().count(),
                1,
                "{cmd} {name}: one line: {stderr}"
            );
            assert!(
                stderr.starts_with(&format!("error: {path}")),
                "{cmd} {name}: names the file: {stderr}"
            );
            assert!(
                stderr.contains(needle),
                "{cmd} {name}: says {needle:?}: {stderr}"
            );
            assert!(
                !stderr.contains("panicked"),
                "{cmd} {name}: no panic: {stderr}"
            );
        }
    }
}

#[test]
fn a_bad_node_file_is_named_in_the_error() {
    let node = fixture("ds-rolling.yaml");
    let ds = fixture("ds-rolling.yaml");
    let (code, _, stderr) = run(&[
        "explain",
        "--node",
        &node.to_string_lossy(),
        "--daemonset",
        &ds.to_string_lossy(),
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr.trim_end(),
        format!("error: {}: is a DaemonSet, not a Node", node.display())
    );
}

/// Issue 14 item 5: the dumps hold no pods, so `explain` says what the dashboard would show
/// for a pod-less cell: `starting` on a node younger than `--new-node-grace`, `missing` on an
/// older one (or with the grace off), `excluded` where the pod should not run.
#[test]
fn explain_says_whether_a_missing_pod_would_show_as_starting_on_a_new_node() {
    let dir = tempfile::tempdir().unwrap();
    let joined = std::time::SystemTime::now() - std::time::Duration::from_secs(30);
    let stamp = k8s_openapi::jiff::Timestamp::try_from(joined)
        .unwrap()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let fresh = std::fs::read_to_string(fixture("node-cordoned.yaml"))
        .unwrap()
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("creationTimestamp:") {
                format!("  creationTimestamp: \"{stamp}\"")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        fresh.contains(&stamp),
        "the fixture has a creationTimestamp"
    );
    let node = dir.path().join("node-new.yaml");
    std::fs::write(&node, fresh).unwrap();
    let ds = fixture("ds-log-collector.yaml");
    let explain = |output: &str, grace: &str| {
        let (code, stdout, stderr) = run(&[
            "explain",
            "--node",
            &node.to_string_lossy(),
            "--daemonset",
            &ds.to_string_lossy(),
            "--output",
            output,
            "--new-node-grace",
            grace,
        ]);
        assert_eq!(code, 0, "{stderr}");
        stdout
    };
    let v: Value = serde_json::from_str(&explain("json", "2m")).unwrap();
    assert_eq!(
        v["shouldRun"], true,
        "§a.6: a cordoned node still gets daemon pods"
    );
    let grace = &v["newNodeGrace"];
    assert_eq!(grace["graceSeconds"], 120);
    assert_eq!(grace["inGrace"], true);
    assert_eq!(grace["withoutPod"], "starting");
    let age = grace["nodeAgeSeconds"].as_i64().unwrap();
    assert!((30..60).contains(&age), "{age}");
    let text = explain("text", "2m");
    assert!(text.contains("New node: it joined"), "{text}");
    assert!(text.contains("shows as `starting`"), "{text}");
    let off: Value = serde_json::from_str(&explain("json", "0")).unwrap();
    assert_eq!(off["newNodeGrace"]["withoutPod"], "missing");
    assert!(!explain("text", "0").contains("New node"));
    let old = explain_json("node-cordoned.yaml", "ds-log-collector.yaml");
    assert_eq!(
        old["newNodeGrace"]["withoutPod"], "missing",
        "a node from 2026-11"
    );
    let (code, _, stderr) = run(&[
        "explain",
        "--node",
        &node.to_string_lossy(),
        "--daemonset",
        &ds.to_string_lossy(),
        "--new-node-grace",
        "500ms",
    ]);
    assert_eq!(
        code, 2,
        "a fraction of a second is refused, not read as off"
    );
    assert!(stderr.contains("at least 1s"), "{stderr}");
}
