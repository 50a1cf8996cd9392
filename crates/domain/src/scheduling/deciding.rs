//! The one rule that decides a cell, as a line a person reads in a table row.
//!
//! Why: a page listing many cells (the node page, one row per DaemonSet) cannot show every
//! reason of every cell; it shows the one that settles the verdict, and the full explanation
//! stays one click away. The order is `NodeShouldRunDaemonPod`'s own (§a.2): node name, then
//! nodeSelector and required node affinity, then the taints; the first failing check is the
//! one the controller stops at.

use super::{Placement, Reason, Rule};

/// The deciding rule of a placement that keeps the daemon pod off the node (`shouldRun` false):
/// `nodeSelector workload-type=gpu: the node has no such label`. `None` when the pod should run
/// here, since then no single rule decides it. Informational reasons (cordon, readiness, gated
/// operators) never decide (§a.6).
pub fn deciding_rule(placement: &Placement) -> Option<String> {
    if placement.should_run {
        return None;
    }
    let first = |rule: Rule| {
        placement
            .reasons
            .iter()
            .find(|r| r.rule == rule && !r.passed)
    };
    if let Some(r) = first(Rule::NodeName) {
        return Some(format!(
            "spec.nodeName {}: this node is {}",
            r.pod_value, r.node_value
        ));
    }
    if let Some(r) = first(Rule::NodeSelector) {
        return Some(node_selector_line(r));
    }
    if let Some(r) = first(Rule::NodeAffinity) {
        return Some(format!(
            "required node affinity {}: no term matches the node",
            r.pod_value
        ));
    }
    let r = first(Rule::Taint)?;
    Some(if placement.should_continue_running {
        // §a.2 step 3: a NoSchedule taint keeps new pods off but a running one stays.
        format!(
            "taint {}: not tolerated (a running pod may stay)",
            r.node_value
        )
    } else {
        format!("taint {}: not tolerated", r.node_value)
    })
}

/// `nodeSelector k=v: the node has no such label` or `...: the node has k=other`.
fn node_selector_line(r: &Reason) -> String {
    let wanted = &r.pod_value;
    let has = match wanted.split_once('=') {
        Some((key, _)) if r.node_value.starts_with(&format!("{key}=")) => {
            format!("the node has {}", r.node_value)
        }
        _ => "the node has no such label".to_string(),
    };
    format!("nodeSelector {wanted}: {has}")
}

#[cfg(test)]
mod tests {
    use super::super::placement;
    use super::*;
    use crate::facts::{Taint, TaintEffect, TemplateFacts, Toleration};
    use crate::testing::{labelled, node, req};

    fn template() -> TemplateFacts {
        TemplateFacts::default()
    }

    #[test]
    fn a_missing_node_selector_label_is_named_a2_step_2() {
        let t = TemplateFacts {
            node_selector: [("workload-type".to_string(), "gpu".to_string())].into(),
            ..template()
        };
        let p = placement(&node("w1"), &t);
        assert_eq!(
            deciding_rule(&p).as_deref(),
            Some("nodeSelector workload-type=gpu: the node has no such label")
        );
        let p = placement(&labelled("w1", &[("workload-type", "cpu")]), &t);
        assert_eq!(
            deciding_rule(&p).as_deref(),
            Some("nodeSelector workload-type=gpu: the node has workload-type=cpu")
        );
    }

    #[test]
    fn a_pod_that_should_run_has_no_deciding_rule_a2() {
        let p = placement(&node("w1"), &template());
        assert!(p.should_run);
        assert_eq!(deciding_rule(&p), None);
    }

    #[test]
    fn node_name_is_checked_before_the_selector_a2_step_1() {
        let t = TemplateFacts {
            node_name: "w9".into(),
            node_selector: [("a".to_string(), "b".to_string())].into(),
            ..template()
        };
        let p = placement(&node("w1"), &t);
        assert_eq!(
            deciding_rule(&p).as_deref(),
            Some("spec.nodeName w9: this node is w1")
        );
    }

    #[test]
    fn a_required_affinity_no_term_matches_decides_after_the_selector_a2_step_2() {
        let t = TemplateFacts {
            required_node_affinity: Some(vec![crate::facts::NodeSelectorTerm {
                match_expressions: vec![req("topology.kubernetes.io/zone", "In", &["eu-west-1a"])],
                match_fields: vec![],
            }]),
            ..template()
        };
        let p = placement(
            &labelled("w1", &[("topology.kubernetes.io/zone", "eu-west-1b")]),
            &t,
        );
        let line = deciding_rule(&p).unwrap_or_default();
        assert!(line.starts_with("required node affinity "), "{line}");
        assert!(line.ends_with(": no term matches the node"), "{line}");
        let p = placement(
            &labelled("w1", &[("topology.kubernetes.io/zone", "eu-west-1a")]),
            &t,
        );
        assert_eq!(deciding_rule(&p), None);
    }

    fn tainted(effect: TaintEffect) -> crate::facts::NodeFacts {
        crate::facts::NodeFacts {
            taints: vec![Taint {
                key: "dedicated".into(),
                value: "ml".into(),
                effect,
            }],
            ..node("g1")
        }
    }

    #[test]
    fn an_untolerated_taint_decides_and_no_schedule_lets_a_running_pod_stay_a2_step_3() {
        let p = placement(&tainted(TaintEffect::NoExecute), &template());
        let line = deciding_rule(&p).unwrap_or_default();
        assert!(line.starts_with("taint dedicated=ml:NoExecute"), "{line}");
        assert!(line.ends_with("not tolerated"), "{line}");
        let p = placement(&tainted(TaintEffect::NoSchedule), &template());
        let line = deciding_rule(&p).unwrap_or_default();
        assert!(
            line.ends_with("not tolerated (a running pod may stay)"),
            "{line}"
        );
    }

    #[test]
    fn a_tolerated_taint_decides_nothing_a5() {
        let t = TemplateFacts {
            tolerations: vec![Toleration {
                key: "dedicated".into(),
                operator: "Exists".into(),
                value: String::new(),
                effect: String::new(),
                toleration_seconds: None,
            }],
            ..template()
        };
        let p = placement(&tainted(TaintEffect::NoExecute), &t);
        assert_eq!(deciding_rule(&p), None);
    }
}
