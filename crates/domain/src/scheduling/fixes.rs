//! What to paste to make a daemon pod run on a node: the exact `kubectl` command for the node
//! or the exact YAML for the DaemonSet, for every rule that keeps the pod off (§a.2).
//!
//! Why structured and computed from the facts (not from the reasons' prose): a person copies
//! this text into a shell or a manifest, so it must be exact, quoted for the shell
//! ([`crate::shell::shell_command`]) or for YAML ([`super::toleration::yaml_scalar`]), and
//! correct: each option, applied, removes its blocker. The unit tests prove that by parsing the
//! text back, applying it to the facts and re-running [`super::placement`]. The dashboard is
//! read-only: every command is text the user runs themselves.

use super::selector::{parse_term, LabelOp, Term};
use super::toleration::{effect_str, render_taint, render_toleration, toleration_for, yaml_scalar};
use super::{DaemonPod, Rule};
use crate::facts::{NodeFacts, Taint, TaintEffect, TemplateFacts};
use crate::shell::shell_command;
use serde::{Deserialize, Serialize};

/// Where the required node affinity's terms live in a DaemonSet manifest.
pub const NODE_SELECTOR_TERMS_PATH: &str =
    "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
/// Where the pod template's tolerations live in a DaemonSet manifest.
pub const TOLERATIONS_PATH: &str = "spec.template.spec.tolerations";
/// Where the pod template's nodeSelector lives in a DaemonSet manifest.
pub const NODE_SELECTOR_PATH: &str = "spec.template.spec.nodeSelector";
/// The pod template's spec, which holds `nodeName`.
pub const POD_SPEC_PATH: &str = "spec.template.spec";

/// How a YAML snippet goes into the manifest. Why: "add these list items" and "delete these
/// entries" need different hands on the keyboard, and the page says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PatchEdit {
    /// Append the snippet's list items to the list at `path` (create it if absent).
    Append,
    /// Delete the snippet's entries from the mapping at `path`.
    Remove,
}

/// The text of one fix. Why two kinds: a node is changed with `kubectl`, a DaemonSet in its
/// manifest (where GitOps tools expect the change), and the page labels each accordingly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FixAction {
    /// A command the user runs themselves, every argument shell-quoted.
    Command { command: String },
    /// YAML for the DaemonSet manifest: `edit` it at `path` (a dotted field path).
    DaemonSetPatch {
        path: String,
        edit: PatchEdit,
        yaml: String,
    },
}

/// One fix: a line saying what it does and the exact text to copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    pub description: String,
    pub action: FixAction,
}

impl Fix {
    /// The exact text a Copy button copies: the command, or the YAML snippet.
    pub fn text(&self) -> &str {
        match &self.action {
            FixAction::Command { command } => command,
            FixAction::DaemonSetPatch { yaml, .. } => yaml,
        }
    }
}

/// One rule that keeps the pod off the node, and the alternative fixes for it: any one of
/// `options` removes this blocker. Why grouped by rule: when a selector and a taint both fail,
/// the person needs one fix from each group, and the page says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocker {
    pub rule: Rule,
    /// What is wrong, in one line.
    pub problem: String,
    /// Alternatives; may be empty when no exact text can be given (then `problem` says why).
    pub options: Vec<Fix>,
}

/// Taint keys a Kubernetes controller manages: removing them by hand is undone.
fn managed_taint(key: &str) -> bool {
    key.starts_with("node.kubernetes.io/") || key.starts_with("node.cloudprovider.kubernetes.io/")
}

/// `kubectl label nodes NODE k=v… k-… [--overwrite]`, every argument quoted.
fn label_command(node: &str, set: &[(String, String)], remove: &[String]) -> String {
    let mut args: Vec<String> = ["kubectl", "label", "nodes", node]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(set.iter().map(|(k, v)| format!("{k}={v}")));
    args.extend(remove.iter().map(|k| format!("{k}-")));
    if !set.is_empty() {
        args.push("--overwrite".into());
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    shell_command(&argv)
}

/// `kubectl taint nodes NODE key:Effect-…`: removes each taint by key and effect.
pub(crate) fn untaint_command(node: &str, taints: &[&Taint]) -> String {
    let specs: Vec<String> = taints
        .iter()
        .map(|t| format!("{}:{}-", t.key, effect_str(&t.effect)))
        .collect();
    let mut argv = vec!["kubectl", "taint", "nodes", node];
    argv.extend(specs.iter().map(String::as_str));
    shell_command(&argv)
}

/// The blockers of §a.2 for this node and template, each with its fixes; empty when the pod
/// should run here. Every failing check is reported, not only the first the controller stops
/// at, so applying one option of each blocker makes shouldRun true.
pub fn blockers(node: &NodeFacts, template: &TemplateFacts) -> Vec<Blocker> {
    let pod = DaemonPod::new(template);
    if pod.verdict(node).0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    if !pod.fits_node_name(node) {
        out.push(node_name_blocker(template));
    }
    let missing: Vec<(String, String)> = template
        .node_selector
        .iter()
        .filter(|(k, v)| node.labels.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !missing.is_empty() {
        out.push(node_selector_blocker(node, &pod, &missing));
    }
    if let Some(terms) = &template.required_node_affinity {
        let parsed: Vec<Term> = terms.iter().map(parse_term).collect();
        if !parsed.iter().any(|t| t.matches(node)) {
            out.push(affinity_blocker(node, template, &parsed));
        }
    }
    let untolerated: Vec<&Taint> = node
        .taints
        .iter()
        .filter(|t| matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute))
        .filter(|t| !pod.tolerated(t))
        .collect();
    if !untolerated.is_empty() {
        out.push(taint_blocker(node, &untolerated));
    }
    out
}

/// §a.2 step 1: only the template can change.
fn node_name_blocker(template: &TemplateFacts) -> Blocker {
    let pinned = &template.node_name;
    Blocker {
        rule: Rule::NodeName,
        problem: format!("The template's spec.nodeName pins every pod to {pinned}."),
        options: vec![Fix {
            description: "Remove nodeName from the pod template (DaemonSet pods are placed on every matching node without it).".into(),
            action: FixAction::DaemonSetPatch {
                path: POD_SPEC_PATH.into(),
                edit: PatchEdit::Remove,
                yaml: format!("nodeName: {}", yaml_scalar(pinned)),
            },
        }],
    }
}

/// §a.2 step 2, nodeSelector: label the node, or drop the pairs from the selector.
fn node_selector_blocker(
    node: &NodeFacts,
    pod: &DaemonPod,
    missing: &[(String, String)],
) -> Blocker {
    let pairs: Vec<String> = missing.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let yaml: Vec<String> = missing
        .iter()
        .map(|(k, v)| format!("{}: {}", yaml_scalar(k), yaml_scalar(v)))
        .collect();
    let mut options = Vec::new();
    let mut labelled = node.clone();
    labelled.labels.extend(missing.iter().cloned());
    // Labelling must not break a required node affinity that holds today (a NotIn on the key).
    let affinity_kept = pod.fits_affinity_terms(&labelled) || !pod.fits_affinity_terms(node);
    if !node.name.is_empty() && affinity_kept {
        options.push(Fix {
            description: format!("Label the node {} (run it yourself).", pairs.join(", ")),
            action: FixAction::Command {
                command: label_command(&node.name, missing, &[]),
            },
        });
    }
    options.push(Fix {
        description: format!(
            "{}emove these entries from the DaemonSet's nodeSelector (the pod then runs on every node that passes the other rules).",
            if options.is_empty() { "R" } else { "Or r" }
        ),
        action: FixAction::DaemonSetPatch {
            path: NODE_SELECTOR_PATH.into(),
            edit: PatchEdit::Remove,
            yaml: yaml.join("\n"),
        },
    });
    Blocker {
        rule: Rule::NodeSelector,
        problem: format!(
            "The nodeSelector asks for {}, which the node lacks.",
            pairs.join(", ")
        ),
        options,
    }
}

/// Labels to set (`key`, `value`) and label keys to remove on a node.
type LabelChanges = (Vec<(String, String)>, Vec<String>);

/// The label changes that make one term match: `None` when the term cannot be satisfied by
/// labels alone (a field requirement, a parse error, an impossible range) or only by touching a
/// nodeSelector key. The result is checked by matching the changed labels again, with and
/// without the nodeSelector's pairs added, so it combines with either nodeSelector fix.
fn label_changes_for_term(
    node: &NodeFacts,
    template: &TemplateFacts,
    term: &Term,
) -> Option<LabelChanges> {
    let Term::Valid { labels, .. } = term else {
        return None;
    };
    let mut after = node.clone();
    let (mut set, mut remove): LabelChanges = (Vec::new(), Vec::new());
    for r in labels {
        if term_req_holds(r, &after) {
            continue;
        }
        let key = r.source.key.clone();
        if template.node_selector.contains_key(&key) {
            return None;
        }
        let value = match &r.op {
            LabelOp::In => r.source.values.first().cloned(),
            LabelOp::Exists => Some("true".to_string()),
            LabelOp::Gt(n) => n.checked_add(1).map(|m| m.to_string()),
            LabelOp::Lt(n) => n.checked_sub(1).filter(|m| *m >= 0).map(|m| m.to_string()),
            LabelOp::NotIn | LabelOp::DoesNotExist => None,
        };
        match (&r.op, value) {
            (LabelOp::NotIn | LabelOp::DoesNotExist, _) => {
                after.labels.remove(&key);
                remove.push(key);
            }
            (_, Some(v)) => {
                after.labels.insert(key.clone(), v.clone());
                set.push((key, v));
            }
            (_, None) => return None,
        }
    }
    let mut with_selector = after.clone();
    with_selector.labels.extend(template.node_selector.clone());
    (term.matches(&after) && term.matches(&with_selector)).then_some((set, remove))
}

fn term_req_holds(r: &super::selector::LabelReq, node: &NodeFacts) -> bool {
    super::selector::label_op_matches(&r.source.key, &r.op, &r.source.values, &node.labels)
}

/// §a.2 step 2, required node affinity: label the node for the term needing the fewest
/// changes, or add a term that admits this node by name (terms are ORed).
fn affinity_blocker(node: &NodeFacts, template: &TemplateFacts, parsed: &[Term]) -> Blocker {
    let mut options = Vec::new();
    let best = parsed
        .iter()
        .enumerate()
        .filter_map(|(i, t)| label_changes_for_term(node, template, t).map(|c| (i, c)))
        .min_by_key(|(_, (set, remove))| set.len() + remove.len());
    if let (Some((i, (set, remove))), false) = (best, node.name.is_empty()) {
        let mut changes: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
        changes.extend(remove.iter().map(|k| format!("remove {k}")));
        options.push(Fix {
            description: format!(
                "Label the node so that term {} matches: {} (run it yourself).",
                i + 1,
                changes.join(", ")
            ),
            action: FixAction::Command {
                command: label_command(&node.name, &set, &remove),
            },
        });
    }
    if !node.name.is_empty() {
        options.push(Fix {
            description: format!(
                "{}dd a node selector term that admits this node by name (terms are ORed).",
                if options.is_empty() { "A" } else { "Or a" }
            ),
            action: FixAction::DaemonSetPatch {
                path: NODE_SELECTOR_TERMS_PATH.into(),
                edit: PatchEdit::Append,
                yaml: format!(
                    "- matchFields: [{{key: metadata.name, operator: In, values: [{}]}}]",
                    yaml_scalar(&node.name)
                ),
            },
        });
    }
    let problem = if parsed.is_empty() {
        "The required node affinity has no terms, so it matches no node.".to_string()
    } else {
        "No term of the required node affinity matches this node.".to_string()
    };
    Blocker {
        rule: Rule::NodeAffinity,
        problem,
        options,
    }
}

/// §a.2 step 3: tolerate the taints in the template, or remove them from the node (not the
/// ones a controller manages, which it would add back).
fn taint_blocker(node: &NodeFacts, taints: &[&Taint]) -> Blocker {
    let shown: Vec<String> = taints.iter().map(|t| render_taint(t)).collect();
    let mut options = vec![Fix {
        description: format!(
            "Add {} to the DaemonSet's pod template.",
            if taints.len() == 1 {
                "this toleration"
            } else {
                "these tolerations"
            }
        ),
        action: FixAction::DaemonSetPatch {
            path: TOLERATIONS_PATH.into(),
            edit: PatchEdit::Append,
            yaml: taints
                .iter()
                .map(|t| format!("- {}", render_toleration(&toleration_for(t))))
                .collect::<Vec<_>>()
                .join("\n"),
        },
    }];
    let managed: Vec<&str> = taints
        .iter()
        .filter(|t| managed_taint(&t.key))
        .map(|t| t.key.as_str())
        .collect();
    let mut problem = format!(
        "The node has {} the pod does not tolerate: {}.",
        if taints.len() == 1 {
            "a taint"
        } else {
            "taints"
        },
        shown.join(", ")
    );
    if managed.is_empty() && !node.name.is_empty() {
        options.push(Fix {
            description: format!(
                "Or remove the {} from the node (run it yourself; other pods may rely on it).",
                if taints.len() == 1 { "taint" } else { "taints" }
            ),
            action: FixAction::Command {
                command: untaint_command(&node.name, taints),
            },
        });
    } else if !managed.is_empty() {
        problem.push_str(&format!(
            " {} is set by a Kubernetes controller, which adds it back if removed, so only a toleration helps.",
            managed.join(", ")
        ));
    }
    Blocker {
        rule: Rule::Taint,
        problem,
        options,
    }
}

#[cfg(test)]
mod tests;
