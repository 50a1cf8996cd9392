//! Reasons for §a.2 step 3 (one per taint) and the informational reasons of §a.5 and §a.6.
//!
//! Why separate: the taint verdict is one line of logic, but saying *why* a taint is or is
//! not tolerated (an automatic toleration, a near miss, a gated `Lt`) is most of the value.

use super::toleration::{
    effect_str, is_gated_operator, is_working_operator, render_taint, render_toleration,
    toleration_for, toleration_tolerates, PodToleration,
};
use super::{Reason, Rule};
use crate::facts::{NodeFacts, Taint, TaintEffect, TemplateFacts};

const NOT_READY: &str = crate::names::TAINT_NOT_READY;
const UNREACHABLE: &str = crate::names::TAINT_UNREACHABLE;
const NETWORK_UNAVAILABLE: &str = crate::names::TAINT_NETWORK_UNAVAILABLE;

/// Why a user toleration that looks aimed at this taint does not tolerate it.
fn near_misses(taint: &Taint, template: &TemplateFacts) -> Vec<String> {
    template
        .tolerations
        .iter()
        .filter(|t| t.key == taint.key && (t.effect.is_empty() || t.effect == effect_str(&taint.effect)))
        .filter_map(|t| {
            let shown = render_toleration(t);
            if is_gated_operator(&t.operator) {
                Some(format!(
                    "the toleration {shown} uses operator {}, which tolerates nothing while the \
                     TaintTolerationComparisonOperators feature gate is off, its default (§a.5)",
                    t.operator
                ))
            } else if !is_working_operator(&t.operator) {
                Some(format!("the toleration {shown} has the unknown operator {:?}, which tolerates nothing (§a.5)", t.operator))
            } else if t.operator != "Exists" && t.value != taint.value {
                let wanted = if taint.value.is_empty() { "no value".to_string() } else { format!("the value {:?}", taint.value) };
                let written = if t.value.is_empty() {
                    "no value (operator Equal, the default when operator is left out)".to_string()
                } else {
                    format!("the value {:?}", t.value)
                };
                Some(format!("the toleration {shown} has {written}, but the taint has {wanted} (§a.5)"))
            } else {
                None
            }
        })
        .collect()
}

/// One reason per node taint, in the node's order.
pub(super) fn taint_reasons(
    node: &NodeFacts,
    template: &TemplateFacts,
    tolerations: &[PodToleration],
) -> Vec<Reason> {
    if node.taints.is_empty() {
        return vec![Reason {
            rule: Rule::Taint,
            passed: true,
            node_value: "(no taints)".into(),
            pod_value: String::new(),
            message: "The node has no taints.".into(),
            fix: None,
        }];
    }
    node.taints
        .iter()
        .map(|taint| taint_reason(node, template, tolerations, taint))
        .collect()
}

fn taint_reason(
    node: &NodeFacts,
    template: &TemplateFacts,
    tolerations: &[PodToleration],
    taint: &Taint,
) -> Reason {
    let shown = render_taint(taint);
    match &taint.effect {
        TaintEffect::PreferNoSchedule => {
            return Reason {
                rule: Rule::Taint,
                passed: true,
                node_value: shown.clone(),
                pod_value: String::new(),
                message: format!("The taint {shown} is PreferNoSchedule, which the DaemonSet controller ignores (§a.2 step 3)."),
                fix: None,
            }
        }
        TaintEffect::Other(effect) => {
            return Reason {
                rule: Rule::Taint,
                passed: true,
                node_value: shown.clone(),
                pod_value: String::new(),
                message: format!(
                    "The taint {shown} has the effect {effect:?}, neither NoSchedule nor NoExecute, so the \
                     DaemonSet controller ignores it (§a.2 step 3)."
                ),
                fix: None,
            }
        }
        TaintEffect::NoSchedule | TaintEffect::NoExecute => {}
    }
    let no_execute = taint.effect == TaintEffect::NoExecute;
    if let Some(by) = tolerations
        .iter()
        .find(|t| toleration_tolerates(&t.toleration, taint))
    {
        let source = if by.automatic {
            "added automatically by the DaemonSet controller (§b)"
        } else {
            "from the template"
        };
        let mut message = format!(
            "The taint {shown} is tolerated by {} ({source}).",
            render_toleration(&by.toleration)
        );
        if no_execute {
            if let Some(seconds) = by.toleration.toleration_seconds {
                message.push_str(&format!(
                    " Its tolerationSeconds {seconds} does not change the DaemonSet controller's verdict, but the \
                     taint-eviction controller evicts the pod {seconds} s after the taint appears, and the \
                     DaemonSet controller then creates it again: create, evict, create (§a.5, trap 8)."
                ));
            }
        }
        return Reason {
            rule: Rule::Taint,
            passed: true,
            node_value: shown,
            pod_value: render_toleration(&by.toleration),
            message,
            fix: None,
        };
    }
    let mut message = if no_execute {
        format!(
            "The taint {shown} is not tolerated (not even by the automatic tolerations, §b): no daemon pod is \
             created here, and an existing one is deleted (§a.2 step 3)."
        )
    } else {
        format!(
            "The taint {shown} is not tolerated (not even by the automatic tolerations, §b): no new daemon pod \
             is created here; an existing one keeps running unless a NoExecute taint is untolerated too \
             (§a.2 step 3)."
        )
    };
    if !no_execute && (taint.key == NOT_READY || taint.key == UNREACHABLE) {
        message.push_str(&format!(
            " Only the NoExecute form of {} is tolerated automatically; the node lifecycle controller adds this \
             NoSchedule form too (§a.6, trap 4).",
            taint.key
        ));
    }
    if taint.key == NETWORK_UNAVAILABLE && !template.host_network {
        message
            .push_str(" It is tolerated automatically only for pods with hostNetwork: true (§b).");
    }
    for miss in near_misses(taint, template) {
        message.push_str(&format!(" Note: {miss}."));
    }
    let pod_value = if template.tolerations.is_empty() {
        "(no tolerations in the template)".to_string()
    } else {
        template
            .tolerations
            .iter()
            .map(render_toleration)
            .collect::<Vec<_>>()
            .join(", ")
    };
    Reason {
        rule: Rule::Taint,
        passed: false,
        node_value: shown,
        pod_value,
        message,
        fix: Some(format!(
            "add the toleration {} to spec.template.spec.tolerations, or remove the taint with {}",
            render_toleration(&toleration_for(taint)),
            super::fixes::untaint_command(&node.name, &[taint])
        )),
    }
}

/// §a.5: one informational reason per template toleration whose operator tolerates nothing
/// under the default gates.
pub(super) fn operator_reasons(template: &TemplateFacts) -> Vec<Reason> {
    template
        .tolerations
        .iter()
        .filter(|t| !is_working_operator(&t.operator))
        .map(|t| {
            let shown = render_toleration(t);
            let message = if is_gated_operator(&t.operator) {
                format!(
                    "The toleration {shown} uses operator {}, which tolerates nothing on a cluster with default \
                     feature gates (§a.5, trap 10). It only takes effect where TaintTolerationComparisonOperators \
                     is enabled (in kube-controller-manager for this controller, in kube-scheduler for binding \
                     the pod); use Equal or Exists to tolerate everywhere.",
                    t.operator
                )
            } else {
                format!(
                    "The toleration {shown} has the unknown operator {:?}, which tolerates nothing (§a.5); use \
                     Equal or Exists.",
                    t.operator
                )
            };
            Reason {
                rule: Rule::TolerationOperator,
                passed: true,
                node_value: String::new(),
                pod_value: shown,
                message,
                fix: None,
            }
        })
        .collect()
}

/// §a.6: cordon is shown but ignored.
pub(super) fn unschedulable_reason(node: &NodeFacts) -> Option<Reason> {
    node.unschedulable.then(|| Reason {
        rule: Rule::Unschedulable,
        passed: true,
        node_value: "spec.unschedulable: true (cordoned)".into(),
        pod_value: "{key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule} (automatic, §b)".into(),
        message: "The node is cordoned, which the DaemonSet controller ignores (§a.6, trap 1); the automatic \
                  toleration of node.kubernetes.io/unschedulable lets the scheduler place the pod too. This is why \
                  kubectl drain needs --ignore-daemonsets."
            .into(),
        fix: None,
    })
}

/// §a.6: readiness is shown but never read; only the taints derived from it count.
pub(super) fn readiness_reason(node: &NodeFacts) -> Option<Reason> {
    let state = match node.ready {
        Some(true) => return None,
        Some(false) => "Ready=False (NotReady)",
        None => "Ready=Unknown",
    };
    let has_no_schedule = node.taints.iter().any(|t| {
        (t.key == NOT_READY || t.key == UNREACHABLE) && t.effect == TaintEffect::NoSchedule
    });
    let taint_note = if has_no_schedule {
        "The node carries the NoSchedule form of the not-ready/unreachable taint, which is not tolerated \
         automatically (see its taint reason)."
    } else {
        "The node carries no NoSchedule not-ready/unreachable taint, so readiness changes nothing here yet; the \
         node lifecycle controller usually adds one, and only its NoExecute form is tolerated automatically."
    };
    Some(Reason {
        rule: Rule::NodeReady,
        passed: true,
        node_value: state.into(),
        pod_value: String::new(),
        message: format!(
            "The DaemonSet controller never reads node readiness; only the taints derived from it count \
             (§a.6, trap 4). {taint_note}"
        ),
        fix: None,
    })
}
