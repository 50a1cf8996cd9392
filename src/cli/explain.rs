//! `daemonscope explain`: why a DaemonSet's pod should (not) run on a node, from two dumps.
//!
//! Why offline: people debugging placement often have only `kubectl get -o yaml` output (from
//! a ticket, a support bundle). The same rules as the dashboard answer from those files.

use super::{read_daemonset, read_node, to_json, CliError, OutputFormat};
use crate::domain::coverage::{human_seconds, NewNodeGrace};
use crate::domain::scheduling::{
    blockers, daemon_pod_tolerations, placement, Blocker, FixAction, PatchEdit, Placement,
};
use crate::domain::shell::strip_control;
use crate::domain::validation::{validate_daemonset, Invalid};
use serde_json::json;
use std::path::Path;

/// Explain one node × DaemonSet pair from two files. `grace` is the dashboard's new-node grace
/// (`--new-node-grace`): the dumps hold no pods, so the command cannot say whether the pod is
/// missing, but it says whether the node is young enough that a missing pod would show as
/// `starting`, counted from the node's creationTimestamp to wall time now.
pub fn run(
    node: &Path,
    daemonset: &Path,
    output: OutputFormat,
    grace: NewNodeGrace,
) -> Result<String, CliError> {
    let node = read_node(node)?;
    let ds = read_daemonset(daemonset)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let in_grace = grace.covers(node.created, now);
    let placed = placement(&node, &ds.template);
    let invalid = validate_daemonset(&ds);
    let summary = verdict_sentence(&placed);
    let fixes = blockers(&node, &ds.template);
    Ok(match output {
        OutputFormat::Json => to_json(&json!({
            "node": node.name,
            "daemonset": ds.key(),
            "shouldRun": placed.should_run,
            "shouldContinueRunning": placed.should_continue_running,
            "summary": summary,
            "reasons": placed.reasons.iter().map(|r| json!({
                "rule": r.rule,
                "passed": r.passed,
                "message": r.message,
                "nodeValue": r.node_value,
                "podValue": r.pod_value,
                "fix": r.fix,
            })).collect::<Vec<_>>(),
            "podTolerations": daemon_pod_tolerations(&ds.template).iter().map(|t| json!({
                "key": t.key,
                "operator": t.operator,
                "value": t.value,
                "effect": t.effect,
                "tolerationSeconds": t.toleration_seconds,
            })).collect::<Vec<_>>(),
            "fixes": fixes,
            "invalid": invalid.iter().map(|i| json!({"field": i.field, "rule": i.rule})).collect::<Vec<_>>(),
            "newNodeGrace": {
                "graceSeconds": grace.seconds(),
                "nodeCreated": node.created,
                "nodeAgeSeconds": node.created.map(|c| now.saturating_sub(c).max(0)),
                "inGrace": in_grace,
                "graceEndsAt": grace.ends_at(node.created),
                // What the dashboard shows for this cell if the pod is not there (yet).
                "withoutPod": if !placed.should_run {
                    "excluded"
                } else if in_grace {
                    "starting"
                } else {
                    "missing"
                },
            },
        })),
        OutputFormat::Text => {
            let mut text = render_text(&node.name, &ds.key(), &placed, &summary, &invalid);
            if placed.should_run && in_grace {
                let age = node.created.map_or(0, |c| now.saturating_sub(c).max(0));
                let left = grace
                    .ends_at(node.created)
                    .map_or(0, |e| e.saturating_sub(now));
                text.push_str(&format!(
                    "\n\nNew node: it joined {} ago, so a daemon pod not created yet shows as `starting` \
                     for {} more (new-node grace {}), then as `missing`.",
                    human_seconds(age),
                    human_seconds(left),
                    human_seconds(grace.seconds()),
                ));
            }
            text.push_str(&render_fixes(&fixes));
            text
        }
    })
}

/// The controller's two booleans in one sentence (§a.2 summary table).
fn verdict_sentence(p: &Placement) -> String {
    match (p.should_run, p.should_continue_running) {
        (true, _) => {
            "should run here: the controller creates a daemon pod if there is none.".into()
        }
        (false, true) => "no new pod here, but an existing pod keeps running (shouldRun false, \
                          shouldContinueRunning true)."
            .into(),
        (false, false) => {
            "should not run here: no pod is created, and an existing one is deleted.".into()
        }
    }
}

/// Text for a terminal: every string that came from the files (names, keys, values, and the
/// rules' messages that quote them) has its control characters stripped, so an escape
/// sequence in a label cannot drive the terminal (issue 15). Suggested commands are already
/// shell-quoted by the rules.
fn render_text(node: &str, ds: &str, p: &Placement, summary: &str, invalid: &[Invalid]) -> String {
    let (node, ds) = (strip_control(node), strip_control(ds));
    let mut out = format!(
        "DaemonSet {ds} on node {node}: {summary}\nshouldRun={} shouldContinueRunning={}\n\nReasons:\n",
        p.should_run, p.should_continue_running
    );
    for r in &p.reasons {
        out.push_str(&format!(
            "  [{}] {:?}: {}\n",
            if r.passed { "pass" } else { "FAIL" },
            r.rule,
            strip_control(&r.message)
        ));
        if !r.node_value.is_empty() {
            out.push_str(&format!(
                "         node: {}\n",
                strip_control(&r.node_value)
            ));
        }
        if !r.pod_value.is_empty() {
            out.push_str(&format!("         pod:  {}\n", strip_control(&r.pod_value)));
        }
    }
    if !invalid.is_empty() {
        out.push_str("\nThe API server would reject this DaemonSet (the verdict above is what the controller does with it anyway, §i.3):\n");
        for i in invalid {
            out.push_str(&format!(
                "  {}: {}\n",
                strip_control(&i.field),
                strip_control(&i.rule)
            ));
        }
    }
    out.trim_end().to_string()
}

/// The fixes as a terminal shows them: per blocking rule its alternatives, each command or
/// YAML snippet indented on its own lines, ready to copy (control characters stripped, as for
/// everything printed from the files).
fn render_fixes(blockers: &[Blocker]) -> String {
    if blockers.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n\nWhat would change it ({}; daemonscope never runs these, run them yourself):\n",
        if blockers.len() == 1 {
            "one rule blocks the pod: apply one option".to_string()
        } else {
            format!(
                "{} rules block the pod: apply one option for each",
                blockers.len()
            )
        }
    );
    for b in blockers {
        out.push_str(&format!("  {:?}: {}\n", b.rule, strip_control(&b.problem)));
        for fix in &b.options {
            out.push_str(&format!("    - {}\n", strip_control(&fix.description)));
            if let FixAction::DaemonSetPatch { path, edit, .. } = &fix.action {
                let verb = match edit {
                    PatchEdit::Append => "add under",
                    PatchEdit::Remove => "delete from",
                };
                out.push_str(&format!("      ({verb} {path})\n"));
            }
            for line in fix.text().lines() {
                out.push_str(&format!("        {}\n", strip_control(line)));
            }
        }
    }
    out.trim_end().to_string()
}
