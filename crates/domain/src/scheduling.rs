//! Placement of a daemon pod on a node (§a, §b): the DaemonSet controller's two booleans and
//! the reasons behind them.
//!
//! Why this shape: the matrix asks "should it run here?" 150,000 times, so a template is
//! compiled once into a [`DaemonPod`] (merged tolerations, parsed selector terms) and
//! checked per node by [`DaemonPod::verdict`]. A click asks "why?", answered by
//! [`DaemonPod::placement`], which runs the same checks and says what each one saw.

mod affinity;
mod deciding;
mod eviction;
mod fixes;
pub mod preemption;
pub mod priority_class;
mod selector;
mod taints;
mod toleration;
pub mod unschedulable;

use super::facts::*;
use serde::{Deserialize, Serialize};

/// Which rule a reason reports on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Rule {
    /// §a.2 step 1
    NodeName,
    /// §a.2 step 2, nodeSelector map
    NodeSelector,
    /// §a.2 step 2, required node affinity
    NodeAffinity,
    /// §a.2 step 3, one reason per taint
    Taint,
    /// informational: cordon is ignored (§a.6)
    Unschedulable,
    /// informational: readiness is not read (§a.6)
    NodeReady,
    /// informational: Lt/Gt tolerations under the default gate (§a.5)
    TolerationOperator,
}

/// One structured line of an explanation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    pub rule: Rule,
    pub passed: bool,
    /// What the node has (label value, taint, name), rendered for people.
    pub node_value: String,
    /// What the pod asks or carries (selector, toleration), rendered for people.
    pub pod_value: String,
    pub message: String,
    /// For a failing reason: what would change the verdict (the toleration to add, the label).
    pub fix: Option<String>,
}

/// The controller's two booleans (§a) with the reasons behind them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    pub should_run: bool,
    pub should_continue_running: bool,
    pub reasons: Vec<Reason>,
}

/// The synthetic pod of §a.1 for one template, compiled once and checked against many nodes:
/// the template's tolerations merged with the automatic ones (§b), the required node affinity
/// parsed as `NewLazyErrorNodeSelector` does (§a.2).
#[derive(Debug, Clone)]
pub struct DaemonPod<'a> {
    template: &'a TemplateFacts,
    tolerations: Vec<toleration::PodToleration>,
    terms: Option<Vec<selector::Term>>,
}

impl<'a> DaemonPod<'a> {
    /// Compile a template; cost is independent of the node count.
    pub fn new(template: &'a TemplateFacts) -> Self {
        let terms = template
            .required_node_affinity
            .as_ref()
            .map(|terms| terms.iter().map(selector::parse_term).collect());
        DaemonPod {
            template,
            tolerations: toleration::merged_tolerations(template),
            terms,
        }
    }

    /// §a.2 step 1: an empty template nodeName or this node's name.
    fn fits_node_name(&self, node: &NodeFacts) -> bool {
        self.template.node_name.is_empty() || self.template.node_name == node.name
    }

    /// §a.2 step 2: nodeSelector AND required node affinity (terms ORed).
    fn fits_node_affinity(&self, node: &NodeFacts) -> bool {
        let selector_ok = self
            .template
            .node_selector
            .iter()
            .all(|(k, v)| node.labels.get(k) == Some(v));
        selector_ok && self.fits_affinity_terms(node)
    }

    /// §a.2 step 2, the required node affinity alone: no block, or any term matches.
    fn fits_affinity_terms(&self, node: &NodeFacts) -> bool {
        match &self.terms {
            None => true,
            Some(terms) => terms.iter().any(|t| t.matches(node)),
        }
    }

    /// §a.5 `TolerationsTolerateTaint` over the merged list.
    fn tolerated(&self, taint: &Taint) -> bool {
        self.tolerations
            .iter()
            .any(|t| toleration::toleration_tolerates(&t.toleration, taint))
    }

    /// §a.2 `NodeShouldRunDaemonPod`: `(shouldRun, shouldContinueRunning)`, no explanation.
    pub fn verdict(&self, node: &NodeFacts) -> (bool, bool) {
        if !self.fits_node_name(node) || !self.fits_node_affinity(node) {
            return (false, false);
        }
        let counts =
            |t: &&Taint| matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute);
        if node.taints.iter().filter(counts).all(|t| self.tolerated(t)) {
            return (true, true);
        }
        let no_execute_ok = node
            .taints
            .iter()
            .filter(|t| t.effect == TaintEffect::NoExecute)
            .all(|t| self.tolerated(t));
        (false, no_execute_ok)
    }

    /// The verdict with every reason: node name, each nodeSelector pair, the affinity, each
    /// taint, then the informational notes (gated operators, cordon, readiness).
    pub fn placement(&self, node: &NodeFacts) -> Placement {
        let (should_run, should_continue_running) = self.verdict(node);
        let mut reasons = vec![self.node_name_reason(node)];
        reasons.extend(affinity::node_selector_reasons(
            node,
            &self.template.node_selector,
        ));
        reasons.push(affinity::affinity_reason(
            node,
            self.template.required_node_affinity.as_deref(),
            self.terms.as_deref(),
        ));
        reasons.extend(taints::taint_reasons(
            node,
            self.template,
            &self.tolerations,
        ));
        reasons.extend(taints::operator_reasons(self.template));
        reasons.extend(taints::unschedulable_reason(node));
        reasons.extend(taints::readiness_reason(node));
        Placement {
            should_run,
            should_continue_running,
            reasons,
        }
    }

    fn node_name_reason(&self, node: &NodeFacts) -> Reason {
        let pinned = &self.template.node_name;
        let passed = self.fits_node_name(node);
        let message = if pinned.is_empty() {
            "The template does not set spec.nodeName, so it does not pin pods to one node."
                .to_string()
        } else if passed {
            format!("The template sets spec.nodeName: {pinned}, which is this node.")
        } else {
            format!(
                "The template sets spec.nodeName: {pinned}, so its pod runs only on {pinned}: none here, and an \
                 existing one is deleted (§a.2 step 1)."
            )
        };
        Reason {
            rule: Rule::NodeName,
            passed,
            node_value: node.name.clone(),
            pod_value: if pinned.is_empty() { "(not set)".into() } else { pinned.clone() },
            message,
            fix: (!passed).then(|| {
                format!("remove spec.nodeName from the pod template (it pins every pod to {pinned}), or set it to {}", node.name)
            }),
        }
    }
}

/// §a: `NodeShouldRunDaemonPod` for one node and one template.
pub fn placement(node: &NodeFacts, template: &TemplateFacts) -> Placement {
    DaemonPod::new(template).placement(node)
}

/// §b: the template's tolerations merged with the automatic ones, as on a created pod.
pub fn daemon_pod_tolerations(template: &TemplateFacts) -> Vec<Toleration> {
    toleration::merged_tolerations(template)
        .into_iter()
        .map(|t| t.toleration)
        .collect()
}

/// §a.5: `ToleratesTaint` with the comparison-operator gate at its default (off).
pub fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    toleration::toleration_tolerates(toleration, taint)
}

pub use deciding::deciding_rule;
pub use eviction::{taint_eviction, Eviction};
pub use fixes::{
    blockers, Blocker, Fix, FixAction, PatchEdit, NODE_SELECTOR_PATH, NODE_SELECTOR_TERMS_PATH,
    POD_SPEC_PATH, TOLERATIONS_PATH,
};
pub(crate) use toleration::{effect_str, merged_tolerations, render_taint, render_toleration};

#[cfg(test)]
mod tests;
