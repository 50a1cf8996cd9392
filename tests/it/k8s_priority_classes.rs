//! Differential: the sim's PriorityClasses are kube-apiserver v1.37.2's (§k.5). Both sides
//! list the same classes (the two built-ins from the start, word for word), and every write
//! kube-apiserver refuses (a reserved `system-` name, a value above 1,000,000,000, an unknown
//! preemption policy, a second global default, a changed value or policy, deleting a built-in)
//! is refused by the sim with the same error kubectl prints.
//!
//! Run on the control plane `k8s_scheduling` already started (a start costs ~5 s), after its
//! own comparison: a global default made here would change the priority of pods created after.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use crate::k8s_differential::{both, write_temp, Pair, Side};
use crate::support::real_cluster::kubectl;
use serde_json::Value;
use std::path::Path;

/// `kubectl get pc -o json` without what each server makes up (uid, resourceVersion,
/// creationTimestamp, managedFields), one line per class, sorted by name.
fn classes(side: &Side) -> Vec<String> {
    let list: Value =
        serde_json::from_str(&side.kubectl(&["get", "pc", "-o", "json"])).expect("a class list");
    let mut out: Vec<String> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| {
            let mut item = item.clone();
            if let Some(meta) = item["metadata"].as_object_mut() {
                for key in [
                    "uid",
                    "resourceVersion",
                    "creationTimestamp",
                    "managedFields",
                ] {
                    meta.remove(key);
                }
            }
            item.to_string()
        })
        .collect();
    out.sort();
    out
}

/// `kubectl get pc` without its AGE column.
fn table(side: &Side) -> Vec<String> {
    side.kubectl(&["get", "pc", "--no-headers"])
        .lines()
        .map(|l| {
            let mut cols: Vec<&str> = l.split_whitespace().collect();
            if cols.len() > 3 {
                cols.remove(3);
            }
            cols.join(" ")
        })
        .collect()
}

fn class_yaml(name: &str, rest: &str) -> String {
    format!("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: {name}}}\n{rest}\n")
}

/// kubectl's stderr for `args` on one side (`label`), which must fail.
fn refused(side: &Side, label: &str, args: &[&str]) -> String {
    let out = tokio::task::block_in_place(|| kubectl(&side.kubeconfig, args));
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert!(
        !out.status.success(),
        "kubectl {} succeeded on {label}, stdout {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

fn create_args(dir: &Path, file: &str, text: &str) -> Vec<String> {
    let path = write_temp(dir, file, text);
    vec!["create".into(), "-f".into(), path]
}

fn args(line: &str) -> Vec<String> {
    line.split(' ').map(str::to_string).collect()
}

/// Run by `k8s_scheduling`'s comparison on its pair.
pub(crate) async fn priority_classes_agree(pair: &Pair) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (sim, real) = (classes(&pair.sim), classes(&pair.real));
    assert_eq!(sim, real, "§k.5: `kubectl get pc -o json` differs");
    assert!(
        real.iter()
            .any(|c| c.contains("\"name\":\"system-node-critical\"")
                && c.contains("\"value\":2000001000")),
        "§k.5: the built-ins are listed: {real:#?}"
    );
    let d = dir.path();
    let defaults = class_yaml("first-default", "value: 5\nglobalDefault: true")
        + "---\n"
        + &class_yaml("plain", "value: 7");
    let defaults = write_temp(d, "defaults.yaml", &defaults);
    both(pair, &["create", "-f", &defaults]);
    both(
        pair,
        &[
            "patch",
            "pc",
            "system-node-critical",
            "-p",
            r#"{"description":"edited"}"#,
        ],
    );
    let writes: Vec<(&str, Vec<String>)> = vec![
        (
            "a reserved name",
            create_args(d, "mine.yaml", &class_yaml("system-mine", "value: 10")),
        ),
        (
            "a built-in's name with another value",
            create_args(
                d,
                "node.yaml",
                &class_yaml("system-node-critical", "value: 5"),
            ),
        ),
        (
            "a built-in again",
            create_args(
                d,
                "again.yaml",
                &class_yaml("system-cluster-critical", "value: 2000000000"),
            ),
        ),
        (
            "a value above the user maximum",
            create_args(d, "high.yaml", &class_yaml("too-high", "value: 1000000001")),
        ),
        (
            "an unknown policy, with a reserved name",
            create_args(
                d,
                "policy.yaml",
                &class_yaml("system-x", "value: 1\npreemptionPolicy: Sometimes"),
            ),
        ),
        (
            "a second global default",
            create_args(
                d,
                "second.yaml",
                &class_yaml("second-default", "value: 6\nglobalDefault: true"),
            ),
        ),
        (
            "a changed value and policy",
            args(r#"patch pc plain -p {"value":8,"preemptionPolicy":"Never"}"#),
        ),
        (
            "a built-in's value",
            args(r#"patch pc system-node-critical -p {"value":8}"#),
        ),
        (
            "a class made default beside another",
            args(r#"patch pc plain -p {"globalDefault":true}"#),
        ),
        (
            "deleting a built-in",
            args("delete pc system-node-critical"),
        ),
        (
            "deleting the other built-in",
            args("delete pc system-cluster-critical"),
        ),
    ];
    let mut texts = Vec::new();
    for (what, write) in &writes {
        let write: Vec<&str> = write.iter().map(String::as_str).collect();
        let (s, r) = (
            refused(&pair.sim, "the sim", &write),
            refused(&pair.real, "kubernetes", &write),
        );
        assert_eq!(
            s, r,
            "§k.5 {what}: kubectl's error differs (sim, kubernetes)"
        );
        texts.push(r);
    }
    // What kube-apiserver v1.37.2 printed, so a change of words on both sides is seen too.
    assert!(
        texts[0].ends_with("metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"),
        "{}",
        texts[0]
    );
    assert!(
        texts[9].contains("\"system-node-critical\" is forbidden: this is a system priority class and cannot be deleted"),
        "{}",
        texts[9]
    );
    let (sim, real) = (classes(&pair.sim), classes(&pair.real));
    assert_eq!(sim, real, "§k.5: the classes differ after the writes");
    assert_eq!(
        table(&pair.sim),
        table(&pair.real),
        "§k.5: `kubectl get pc` differs"
    );
}
