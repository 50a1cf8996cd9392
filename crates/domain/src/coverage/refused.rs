//! A missing cell whose pod creations the API server refuses (§l): which refusal, on which
//! nodes, and what to paste to find and change what refuses it.
//!
//! Why here: the placement rules (§a) say the pod should run, so the explanation's own fix
//! plan has nothing to change; the answer is in the DaemonSet's FailedCreate events (§f),
//! which the live store keeps. This turns "check the DaemonSet's events" into the refuser's
//! kind, name and words, with the commands that show it.

use super::CellState;
use crate::admission::{classify_refusal, RefusalKind};
use crate::rollout::FailedCreate;
use crate::scheduling::{Fix, FixAction};
use crate::shell::shell_command;
use crate::view::{CellExplanation, CellRefusal, RefusedCreation};

/// At most this many node names are listed with a refusal (the rest are counted).
pub const REFUSED_NODES_SHOWN: usize = 20;

/// The refusal a DaemonSet's missing pods are owed to: its newest FailedCreate event,
/// classified (§l), when `missing` nodes lack the pod; None when no node misses it (the
/// events outlive the problem by up to their TTL) or no event is kept.
pub fn refused_creation(failed_creates: &[FailedCreate], missing: i64) -> Option<RefusedCreation> {
    if missing <= 0 {
        return None;
    }
    let newest = failed_creates.iter().max_by_key(|e| e.last_seen)?;
    Some(RefusedCreation {
        refusal: classify_refusal(&newest.message),
        last_seen: newest.last_seen,
    })
}

/// Puts the refusal into a `missing` cell's explanation: the summary names the refuser and
/// its words, the plan says what to change and lists the commands that show it; `nodes` are
/// the DaemonSet's missing nodes (at most [`REFUSED_NODES_SHOWN`] kept). Any other state is
/// left as it is: only a missing pod is the creation's to explain.
pub fn attribute_refusal(
    e: &mut CellExplanation,
    refused: &RefusedCreation,
    namespace: &str,
    name: &str,
    nodes: &[&str],
) {
    if e.state != CellState::Missing {
        return;
    }
    let r = &refused.refusal;
    let words = if r.reason.is_empty() {
        r.message.clone()
    } else {
        r.reason.clone()
    };
    e.summary = format!(
        "Should run here but has no pod: the API server refuses the DaemonSet controller's pod creation. {} says: {words}",
        r.headline()
    );
    let command = |description: &str, argv: &[&str]| Fix {
        description: description.to_string(),
        action: FixAction::Command {
            command: shell_command(argv),
        },
    };
    let mut steps = Vec::new();
    let change = match r.kind {
        RefusalKind::Webhook => {
            steps.push(command(
                "Find the webhook configuration that holds this webhook (run it yourself).",
                &[
                    "kubectl",
                    "get",
                    "validatingwebhookconfigurations,mutatingwebhookconfigurations",
                    "-o",
                    "custom-columns=NAME:.metadata.name,WEBHOOKS:.webhooks[*].name",
                ],
            ));
            "Change what the webhook rejects, or exempt this namespace or DaemonSet in its configuration (namespaceSelector, objectSelector)"
        }
        RefusalKind::ValidatingAdmissionPolicy => {
            if let Some(policy) = &r.name {
                steps.push(command(
                    "Read the policy's validations (run it yourself).",
                    &[
                        "kubectl",
                        "get",
                        "validatingadmissionpolicy",
                        policy,
                        "-o",
                        "yaml",
                    ],
                ));
            }
            if let Some(binding) = &r.binding {
                steps.push(command(
                    "Read the binding that applies it here (run it yourself).",
                    &[
                        "kubectl",
                        "get",
                        "validatingadmissionpolicybinding",
                        binding,
                        "-o",
                        "yaml",
                    ],
                ));
            }
            "Change the template to pass the policy's validation, or narrow the binding's matchResources"
        }
        RefusalKind::PodSecurity => {
            steps.push(command(
                "Read the namespace's Pod Security labels (run it yourself).",
                &["kubectl", "get", "namespace", namespace, "--show-labels"],
            ));
            steps.push(command(
                "Or, if this agent needs host access, let its namespace run privileged pods (run it yourself; it lowers the guard for every pod of the namespace).",
                &[
                    "kubectl",
                    "label",
                    "namespace",
                    namespace,
                    "pod-security.kubernetes.io/enforce=privileged",
                    "--overwrite",
                ],
            ));
            "Remove the violated fields from the template, or run the agent in a namespace whose enforce level allows them"
        }
        RefusalKind::ResourceQuota => {
            let mut argv = vec!["kubectl", "describe", "resourcequota", "-n", namespace];
            if let Some(quota) = &r.name {
                argv.insert(3, quota);
            }
            steps.push(command(
                "Read the quota's use and limits (run it yourself).",
                &argv,
            ));
            "Raise the quota, free what it counts, or lower the template's requests"
        }
        RefusalKind::LimitRange => {
            steps.push(command(
                "Read the namespace's LimitRanges (run it yourself).",
                &["kubectl", "describe", "limitrange", "-n", namespace],
            ));
            "Bring the template's requests and limits within the LimitRange"
        }
        RefusalKind::Other => "Change what the message names",
    };
    steps.push(command(
        "Read the FailedCreate events (run it yourself).",
        &[
            "kubectl",
            "get",
            "events",
            "-n",
            namespace,
            "--field-selector",
            &format!(
                "involvedObject.kind=DaemonSet,involvedObject.name={name},reason=FailedCreate"
            ),
        ],
    ));
    e.fixes.headline = format!(
        "The placement rules let the pod run here; the API server refuses to create it ({}). {change}; the controller retries by itself.",
        r.kind.title()
    );
    e.fixes.reconcile = steps;
    e.refusal = Some(CellRefusal {
        refused: refused.clone(),
        nodes: nodes
            .iter()
            .take(REFUSED_NODES_SHOWN)
            .map(|n| n.to_string())
            .collect(),
        nodes_total: nodes.len(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::explain_cell;
    use crate::testing::{ds, node};

    const WEBHOOK: &str = "Error creating: admission webhook \"validate.policy.example.com\" denied the request: node worker-3 is reserved for a hardware investigation";

    fn events() -> Vec<FailedCreate> {
        vec![
            FailedCreate {
                message: "Error creating: pods \"a-\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1".into(),
                last_seen: 10,
            },
            FailedCreate {
                message: WEBHOOK.into(),
                last_seen: 20,
            },
        ]
    }

    #[test]
    fn the_newest_failed_create_names_the_refusal_while_a_node_misses_the_pod_j() {
        let r = refused_creation(&events(), 1).expect("a node misses the pod");
        assert_eq!(
            r.refusal.kind,
            RefusalKind::Webhook,
            "the newest event (§f)"
        );
        assert_eq!(r.last_seen, 20);
        assert!(
            refused_creation(&events(), 0).is_none(),
            "no node misses it: old news"
        );
        assert!(
            refused_creation(&[], 3).is_none(),
            "no event kept: nothing to say"
        );
    }

    #[test]
    fn a_missing_cell_names_the_webhook_its_words_and_the_nodes_j1() {
        let d = ds();
        let mut e = explain_cell(&node("worker-3"), &d, &[], 100);
        assert_eq!(e.state, CellState::Missing);
        let refused = refused_creation(&events(), 2).expect("refused");
        attribute_refusal(
            &mut e,
            &refused,
            &d.namespace,
            &d.name,
            &["worker-3", "worker-9"],
        );
        assert!(
            e.summary.contains("admission webhook \u{201c}validate.policy.example.com\u{201d} says: node worker-3 is reserved"),
            "{}",
            e.summary
        );
        assert!(!e.summary.contains("check the DaemonSet's events"));
        let r = e.refusal.as_ref().expect("attributed");
        assert_eq!((r.nodes.len(), r.nodes_total), (2, 2));
        let commands: Vec<&str> = e.fixes.reconcile.iter().map(|f| f.text()).collect();
        assert!(
            commands
                .iter()
                .any(|c| c.contains("validatingwebhookconfigurations")),
            "{commands:?}"
        );
        assert!(
            commands.iter().any(|c| c.contains("reason=FailedCreate")),
            "{commands:?}"
        );
    }

    #[test]
    fn pod_security_suggests_the_namespace_label_quoted_for_the_shell_j3() {
        let d = ds();
        let mut e = explain_cell(&node("n1"), &d, &[], 100);
        let refused = refused_creation(
            &[FailedCreate {
                message: "Error creating: pods \"x-\" is forbidden: violates PodSecurity \"baseline:latest\": host namespaces (hostNetwork=true)".into(),
                last_seen: 1,
            }],
            1,
        )
        .expect("refused");
        attribute_refusal(&mut e, &refused, "ns; rm -rf /", &d.name, &["n1"]);
        let label = e
            .fixes
            .reconcile
            .iter()
            .map(|f| f.text())
            .find(|c| c.contains("pod-security.kubernetes.io/enforce=privileged"))
            .expect("the label fix");
        assert!(
            label.contains("'ns; rm -rf /'"),
            "cluster text is shell-quoted: {label}"
        );
        assert!(
            e.summary
                .contains("Pod Security \u{201c}baseline:latest\u{201d}"),
            "{}",
            e.summary
        );
    }

    #[test]
    fn only_a_missing_cell_is_attributed_and_nodes_are_bounded() {
        let d = ds();
        let refused = refused_creation(&events(), 1).expect("refused");
        let mut excluded = explain_cell(&node("n1"), &d, &[], 100);
        excluded.state = CellState::Excluded;
        let before = excluded.clone();
        attribute_refusal(&mut excluded, &refused, &d.namespace, &d.name, &["n1"]);
        assert_eq!(excluded, before);
        let many: Vec<String> = (0..50).map(|i| format!("n{i}")).collect();
        let names: Vec<&str> = many.iter().map(String::as_str).collect();
        let mut e = explain_cell(&node("n1"), &d, &[], 100);
        attribute_refusal(&mut e, &refused, &d.namespace, &d.name, &names);
        let r = e.refusal.expect("attributed");
        assert_eq!((r.nodes.len(), r.nodes_total), (REFUSED_NODES_SHOWN, 50));
    }
}
