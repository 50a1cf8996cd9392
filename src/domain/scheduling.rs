//! CONTRACT STUB (to be replaced by the scheduling implementation): placement of a daemon pod
//! on a node (§a, §b). Signatures are the contract other layers code against.

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

/// §a: `NodeShouldRunDaemonPod` for one node and one template.
pub fn placement(_node: &NodeFacts, _template: &TemplateFacts) -> Placement {
    todo!("contract stub")
}

/// §b: the template's tolerations merged with the automatic ones, as on a created pod.
pub fn daemon_pod_tolerations(_template: &TemplateFacts) -> Vec<Toleration> {
    todo!("contract stub")
}

/// §a.5: `ToleratesTaint` with the comparison-operator gate at its default (off).
pub fn tolerates(_toleration: &Toleration, _taint: &Taint) -> bool {
    todo!("contract stub")
}
