//! Reasons for §a.2 step 2: the nodeSelector map and the required node affinity.
//!
//! Why separate from the matching in `selector`: matching must stay cheap for the matrix,
//! while an explanation names every requirement, what the node has, and what would change it.

use super::selector::{
    node_field, render_requirement, render_term, FieldReq, LabelOp, LabelReq, Term,
};
use super::{Reason, Rule};
use crate::facts::{NodeFacts, NodeSelectorTerm};
use crate::shell::shell_command;

/// The node's value of a label for people: `k=v` or `k: (absent)`.
fn node_label(node: &NodeFacts, key: &str) -> String {
    match node.labels.get(key) {
        Some(v) => format!("{key}={v}"),
        None => format!("{key}: (absent)"),
    }
}

/// One reason per nodeSelector entry (§a.2 step 2: every pair must be on the node).
pub(super) fn node_selector_reasons(
    node: &NodeFacts,
    selector: &crate::facts::Labels,
) -> Vec<Reason> {
    if selector.is_empty() {
        return vec![Reason {
            rule: Rule::NodeSelector,
            passed: true,
            node_value: String::new(),
            pod_value: "(none)".into(),
            message: "The template has no nodeSelector, so it imposes nothing.".into(),
            fix: None,
        }];
    }
    selector
        .iter()
        .map(|(key, want)| {
            let have = node.labels.get(key);
            let passed = have == Some(want);
            let message = match have {
                Some(v) if v == want => format!("The node has the label {key}={want} that the nodeSelector asks for."),
                Some(v) => format!(
                    "The nodeSelector asks for {key}={want}, but the node has {key}={v}: no daemon pod here, \
                     and an existing one is deleted (§a.2)."
                ),
                None => format!(
                    "The nodeSelector asks for {key}={want}, but the node has no label {key}: no daemon pod \
                     here, and an existing one is deleted (§a.2)."
                ),
            };
            let fix = (!passed).then(|| {
                let pair = format!("{key}={want}");
                let mut argv = vec!["kubectl", "label", "nodes", node.name.as_str(), pair.as_str()];
                if have.is_some() {
                    argv.push("--overwrite");
                }
                format!(
                    "label the node {key}={want} ({}), or remove {key} from spec.template.spec.nodeSelector",
                    shell_command(&argv)
                )
            });
            Reason {
                rule: Rule::NodeSelector,
                passed,
                node_value: node_label(node, key),
                pod_value: format!("{key}={want}"),
                message,
                fix,
            }
        })
        .collect()
}

/// Whether one label requirement holds, why, and what node change would make it hold.
fn explain_label(r: &LabelReq, node: &NodeFacts) -> (bool, String, Option<String>) {
    let key = &r.source.key;
    let values = r.source.values.join(", ");
    let have = node.labels.get(key);
    let name = &node.name;
    let matched = super::selector::label_op_matches(key, &r.op, &r.source.values, &node.labels);
    let text = match (&r.op, have) {
        (_, Some(v)) => format!("{} (node has {key}={v})", render_requirement(&r.source)),
        (_, None) => format!(
            "{} (node has no label {key})",
            render_requirement(&r.source)
        ),
    };
    if matched {
        return (true, text, None);
    }
    let first = r.source.values.first().cloned().unwrap_or_default();
    // Every suggested command is quoted: names and keys come from the cluster (issue 15).
    let set = |value: &str| {
        let pair = format!("{key}={value}");
        shell_command(&["kubectl", "label", "nodes", name, &pair, "--overwrite"])
    };
    let remove = || {
        let unset = format!("{key}-");
        shell_command(&["kubectl", "label", "nodes", name, &unset])
    };
    let fix = match &r.op {
        LabelOp::In => Some(format!("label the node {key}={first} ({})", set(&first))),
        LabelOp::NotIn => Some(format!(
            "give the node a value of {key} outside [{values}], or remove it ({})",
            remove()
        )),
        LabelOp::Exists => Some(format!("add a label {key} to the node, any value ({})", {
            let pair = format!("{key}=true");
            shell_command(&["kubectl", "label", "nodes", name, &pair])
        })),
        LabelOp::DoesNotExist => Some(format!("remove the label: {}", remove())),
        LabelOp::Gt(n) => n.checked_add(1).map(|m| {
            format!(
                "label the node {key} with an integer greater than {n}, e.g. {key}={m} ({})",
                set(&m.to_string())
            )
        }),
        LabelOp::Lt(n) => match n.checked_sub(1).filter(|m| *m >= 0) {
            Some(m) => Some(format!(
                "label the node {key} with an integer less than {n}, e.g. {key}={m} ({})",
                set(&m.to_string())
            )),
            None => Some(format!(
                "change the requirement: no label value is an integer less than {n}"
            )),
        },
    };
    (false, text, fix)
}

/// Whether one field requirement holds, why, and what would change it (§a.4).
fn explain_field(f: &FieldReq, node: &NodeFacts) -> (bool, String, Option<String>) {
    let op = if f.equal { "In" } else { "NotIn" };
    let have = node_field(node, &f.key);
    let matched = node.name.is_empty() || f.matches(node);
    let text = if f.key == crate::names::METADATA_NAME_FIELD {
        format!(
            "field metadata.name {op} [{}] (node is {})",
            f.value, node.name
        )
    } else {
        format!(
            "field {} {op} [{}] (a node has no field {}; it reads as empty, §a.4)",
            f.key, f.value, f.key
        )
    };
    if matched {
        return (true, text, None);
    }
    let fix = if f.key != crate::names::METADATA_NAME_FIELD {
        format!(
            "use the key metadata.name: {} is not a node field and reads as \"{have}\"",
            f.key
        )
    } else if f.equal {
        format!("this requirement admits only the node named {}; add {} to a term, or drop the requirement", f.value, node.name)
    } else {
        format!(
            "this requirement excludes the node {} by name; drop it to admit this node",
            node.name
        )
    };
    (false, text, Some(fix))
}

/// Outcome of one term for people: matched, the detail, the fixes for its failing parts.
fn explain_term(
    term: &Term,
    source: &NodeSelectorTerm,
    node: &NodeFacts,
) -> (bool, String, Vec<String>) {
    match term {
        Term::Empty => (
            false,
            "{} is an empty term, which matches no node (§a.2)".to_string(),
            vec!["give the empty term at least one matchExpressions or matchFields entry, or delete it".into()],
        ),
        Term::Invalid(error) => (
            false,
            format!("{} cannot be parsed ({error}), so it matches no node whatever its labels (§a.3)", render_term(source)),
            vec![format!("correct the term: {error}")],
        ),
        Term::Valid { labels, fields } => {
            let mut parts = Vec::new();
            let mut fixes = Vec::new();
            let mut all = true;
            for (ok, text, fix) in labels.iter().map(|r| explain_label(r, node)).chain(fields.iter().map(|f| explain_field(f, node))) {
                all &= ok;
                parts.push(format!("{} {}", if ok { "holds:" } else { "fails:" }, text));
                fixes.extend(fix);
            }
            (all, parts.join("; "), fixes)
        }
    }
}

/// One reason for the required node affinity as a whole: terms are ORed (§a.2 step 2).
pub(super) fn affinity_reason(
    node: &NodeFacts,
    source: Option<&[NodeSelectorTerm]>,
    parsed: Option<&[Term]>,
) -> Reason {
    let (Some(source), Some(parsed)) = (source, parsed) else {
        return Reason {
            rule: Rule::NodeAffinity,
            passed: true,
            node_value: String::new(),
            pod_value: "(none)".into(),
            message: "The template has no required node affinity, so it imposes nothing.".into(),
            fix: None,
        };
    };
    let pod_value = if source.is_empty() {
        "nodeSelectorTerms: []".to_string()
    } else {
        source
            .iter()
            .map(|t| format!("({})", render_term(t)))
            .collect::<Vec<_>>()
            .join(" OR ")
    };
    let mut keys: Vec<&str> = source
        .iter()
        .flat_map(|t| t.match_expressions.iter().map(|r| r.key.as_str()))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let mut node_value: Vec<String> = keys.iter().map(|k| node_label(node, k)).collect();
    if source.iter().any(|t| !t.match_fields.is_empty()) {
        node_value.push(format!("metadata.name={}", node.name));
    }
    let node_value = node_value.join(", ");
    if source.is_empty() {
        return Reason {
            rule: Rule::NodeAffinity,
            passed: false,
            node_value,
            pod_value,
            message: "requiredDuringSchedulingIgnoredDuringExecution has no nodeSelectorTerms, so it matches no \
                      node (§a.2); the API server rejects this, but an object stored earlier keeps it."
                .into(),
            fix: Some(
                "add at least one term to nodeSelectorTerms, or remove the requiredDuringSchedulingIgnoredDuringExecution block".into(),
            ),
        };
    }
    let outcomes: Vec<(bool, String, Vec<String>)> = parsed
        .iter()
        .zip(source)
        .map(|(term, src)| explain_term(term, src, node))
        .collect();
    let winner = outcomes.iter().position(|(ok, _, _)| *ok);
    let detail = |i: usize, o: &(bool, String, Vec<String>)| format!("term {}: {}", i + 1, o.1);
    match winner {
        Some(i) => Reason {
            rule: Rule::NodeAffinity,
            passed: true,
            node_value,
            pod_value,
            message: format!(
                "Required node affinity matches: {} (terms are ORed, §a.2).",
                detail(i, &outcomes[i])
            ),
            fix: None,
        },
        None => {
            let details: Vec<String> = outcomes
                .iter()
                .enumerate()
                .map(|(i, o)| detail(i, o))
                .collect();
            let fixes: Vec<String> = outcomes
                .iter()
                .enumerate()
                .filter(|(_, o)| !o.2.is_empty())
                .map(|(i, o)| format!("for term {}: {}", i + 1, o.2.join(" and ")))
                .collect();
            Reason {
                rule: Rule::NodeAffinity,
                passed: false,
                node_value,
                pod_value,
                message: format!(
                    "No term of the required node affinity matches, so no daemon pod here and an existing one \
                     is deleted (§a.2): {}.",
                    details.join("; ")
                ),
                fix: Some(if fixes.is_empty() { "change the required node affinity".to_string() } else { fixes.join("; or ") }),
            }
        }
    }
}
