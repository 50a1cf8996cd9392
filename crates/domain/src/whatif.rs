//! What-if previews: what the DaemonSet controller and the taint-eviction controller would do
//! if a node were tainted, labelled or cordoned, or a DaemonSet given a toleration or a new
//! nodeSelector, without touching the cluster.
//!
//! Why here: the preview must agree with the real verdicts cell for cell, so it applies the
//! edits to copies of the facts and asks the same placement functions (§a, §b) and the same
//! eviction function (§a.5, §g.8) as the matrix, before and after. No rule is restated; this
//! module only compares two verdicts and names the difference. It is pure so the browser runs
//! it (WASM) over the URL's edits, and the server runs it for the first render.

mod digest;
mod parse;
mod render;
pub mod requests;
mod summary;

pub use digest::{digest, PreviewDigest};
pub use parse::{parse_edits, EditError, EditScope, MAX_EDITS};
pub use render::{decode, describe_edits, encode, to_query, toleration_spec};
pub use summary::summary;

use crate::facts::{Labels, NodeFacts, Taint, TaintEffect, TemplateFacts, Toleration};
use crate::names;
use crate::scheduling::{
    daemon_pod_tolerations, deciding_rule, taint_eviction, DaemonPod, Eviction,
};
use serde::{Deserialize, Serialize};

/// One change to a node, as `kubectl taint`, `kubectl label` or `kubectl cordon` would make it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeEdit {
    /// `kubectl taint node N key=value:Effect --overwrite`: replaces a taint with the same key
    /// and effect (the API server keeps taints unique by that pair, §i.2).
    AddTaint(Taint),
    /// `kubectl taint node N key:Effect-`, or `key-` (no effect) for every effect.
    RemoveTaint {
        /// The taint key.
        key: String,
        /// `None` removes the key whatever its effect.
        effect: Option<TaintEffect>,
    },
    /// `kubectl label node N key=value --overwrite`.
    SetLabel {
        /// The label key.
        key: String,
        /// The new value.
        value: String,
    },
    /// `kubectl label node N key-`.
    RemoveLabel {
        /// The label key.
        key: String,
    },
    /// `kubectl cordon`: `spec.unschedulable` and the `unschedulable:NoSchedule` taint (§a.6).
    Cordon,
    /// `kubectl uncordon`: the reverse.
    Uncordon,
}

/// One change to a DaemonSet's pod template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TemplateEdit {
    /// Appends a toleration to `spec.template.spec.tolerations` (after the existing ones, so
    /// an earlier matching toleration still decides eviction, §a.5).
    AddToleration(Toleration),
    /// Replaces `spec.template.spec.nodeSelector` as a whole (empty: no nodeSelector).
    SetNodeSelector(Labels),
    /// Sets what the pod asks per resource (`resource`, quantity as written), as a change of
    /// the containers' `resources.requests` would (§j.2); checked by
    /// [`requests::parse_requests`].
    SetRequests(Vec<(String, String)>),
}

/// The edits of one preview, in the order they were given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edits {
    /// Applied to every node of the preview.
    pub node: Vec<NodeEdit>,
    /// Applied to every DaemonSet of the preview.
    pub template: Vec<TemplateEdit>,
}

impl Edits {
    /// No edit at all: nothing to preview.
    pub fn is_empty(&self) -> bool {
        self.node.is_empty() && self.template.is_empty()
    }
}

/// A node with `edits` applied in order, as the API server would store it after each command.
pub fn apply_node_edits(node: &NodeFacts, edits: &[NodeEdit]) -> NodeFacts {
    let mut out = node.clone();
    for edit in edits {
        match edit {
            NodeEdit::AddTaint(taint) => {
                out.taints
                    .retain(|t| !(t.key == taint.key && t.effect == taint.effect));
                out.taints.push(taint.clone());
            }
            NodeEdit::RemoveTaint { key, effect } => out
                .taints
                .retain(|t| !(&t.key == key && effect.as_ref().is_none_or(|e| e == &t.effect))),
            NodeEdit::SetLabel { key, value } => {
                out.labels.insert(key.clone(), value.clone());
            }
            NodeEdit::RemoveLabel { key } => {
                out.labels.remove(key);
            }
            NodeEdit::Cordon => {
                // §a.6: the node lifecycle controller mirrors spec.unschedulable as this taint.
                out.unschedulable = true;
                let cordon = cordon_taint();
                if !out.taints.contains(&cordon) {
                    out.taints.push(cordon);
                }
            }
            NodeEdit::Uncordon => {
                out.unschedulable = false;
                let cordon = cordon_taint();
                out.taints.retain(|t| t != &cordon);
            }
        }
    }
    out
}

/// `node.kubernetes.io/unschedulable:NoSchedule`, the taint a cordon brings (§a.6).
fn cordon_taint() -> Taint {
    Taint {
        key: names::TAINT_UNSCHEDULABLE.to_string(),
        value: String::new(),
        effect: TaintEffect::NoSchedule,
    }
}

/// A template with `edits` applied in order.
pub fn apply_template_edits(template: &TemplateFacts, edits: &[TemplateEdit]) -> TemplateFacts {
    let mut out = template.clone();
    for edit in edits {
        match edit {
            TemplateEdit::AddToleration(t) => out.tolerations.push(t.clone()),
            TemplateEdit::SetNodeSelector(selector) => out.node_selector = selector.clone(),
            TemplateEdit::SetRequests(pairs) => requests::apply_requests(&mut out.requests, pairs),
        }
    }
    out
}

/// What would happen to one (node, DaemonSet) cell. The slugs ([`Outcome::slug`]) are a
/// public contract (`data-whatif` in the HTML).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// Nothing changes for this cell.
    Unaffected,
    /// No pod now; shouldRun turns true, so the controller creates one (§a.7).
    WouldStart,
    /// No pod now and one was due (shouldRun true); it turns false, so none is created.
    WouldNotStart,
    /// The pod is there; shouldRun and shouldContinueRunning both turn false, so the
    /// DaemonSet controller deletes it (§a.2, §a.7).
    WouldStop,
    /// The pod is there and stays (shouldContinueRunning true) but shouldRun turns false: it
    /// is no longer desired and counts as misscheduled (§c, §g.3).
    KeepsRunning,
    /// The pod is there and was kept though not desired; shouldRun turns true again (§c).
    DesiredAgain,
    /// The taint-eviction controller evicts the running pod for a `NoExecute` taint (§a.5):
    /// `None` at once (untolerated), `Some(s)` after the toleration's `tolerationSeconds`.
    Evicted(Option<u64>),
    /// The pod should run here, but with the edited requests the node has no room for it
    /// (NodeResourcesFit, §j.4): the scheduler would leave it Pending.
    WouldNotFit,
}

impl Outcome {
    /// The `data-whatif` value.
    pub fn slug(self) -> &'static str {
        match self {
            Outcome::Unaffected => "unaffected",
            Outcome::WouldStart => "start",
            Outcome::WouldNotStart => "not-start",
            Outcome::WouldStop => "stop",
            Outcome::KeepsRunning => "keep",
            Outcome::DesiredAgain => "desired",
            Outcome::Evicted(_) => "evict",
            Outcome::WouldNotFit => "not-fit",
        }
    }

    /// The outcome as a short phrase a person reads in a table cell.
    pub fn phrase(self) -> String {
        match self {
            Outcome::Unaffected => "unaffected".into(),
            Outcome::WouldStart => "would start".into(),
            Outcome::WouldNotStart => "would no longer be created".into(),
            Outcome::WouldStop => "would stop (the DaemonSet controller deletes the pod)".into(),
            Outcome::KeepsRunning => {
                "keeps running, no longer scheduled (counted misscheduled)".into()
            }
            Outcome::DesiredAgain => "becomes desired again (no longer misscheduled)".into(),
            Outcome::Evicted(None) => "evicted at once by a NoExecute taint".into(),
            Outcome::Evicted(Some(s)) => {
                format!("evicted by a NoExecute taint after tolerationSeconds {s} s")
            }
            Outcome::WouldNotFit => "would not fit: the scheduler leaves it Pending".into(),
        }
    }
}

/// The before and after of one cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellChange {
    /// The node's name.
    pub node: String,
    /// The DaemonSet's `namespace/name`.
    pub daemonset: String,
    /// A daemon pod is on the node now.
    pub has_pod: bool,
    /// `(shouldRun, shouldContinueRunning)` now (§a.2).
    pub before: (bool, bool),
    /// The same after the edits.
    pub after: (bool, bool),
    /// What would happen.
    pub outcome: Outcome,
    /// The rule behind it: after the edits, the one keeping the pod off (§a.2), or for a pod
    /// that would start, the one that kept it off before; with a note for an evict cycle.
    pub why: Option<String>,
}

/// The preview of one cell: the same verdict (§a.2) and eviction (§a.5) computed on the facts
/// before and after the edits, compared.
pub fn preview_cell(
    node: (&NodeFacts, &NodeFacts),
    template: (&TemplateFacts, &TemplateFacts),
    has_pod: bool,
) -> (Outcome, Option<String>) {
    let (node_before, node_after) = node;
    let (pod_before, pod_after) = (DaemonPod::new(template.0), DaemonPod::new(template.1));
    let before = pod_before.verdict(node_before);
    let after = pod_after.verdict(node_after);
    let off_after = || deciding_rule(&pod_after.placement(node_after));
    let off_before = || deciding_rule(&pod_before.placement(node_before));
    let evict_before = taint_eviction(&daemon_pod_tolerations(template.0), &node_before.taints);
    let evict_after = taint_eviction(&daemon_pod_tolerations(template.1), &node_after.taints);
    if has_pod {
        if evict_after != Eviction::Never && evict_after != evict_before {
            return match evict_after {
                Eviction::After(s) => {
                    // §g.8: still tolerated, so shouldRun stays and the pod comes back.
                    let again = after
                        .0
                        .then(|| format!("tolerated for {s} s only: the DaemonSet controller creates it again, then it is evicted again (§g.8)"));
                    (Outcome::Evicted(Some(s)), again.or_else(off_after))
                }
                _ => (Outcome::Evicted(None), off_after()),
            };
        }
        return match (before, after) {
            ((_, true), (_, false)) => (Outcome::WouldStop, off_after()),
            ((true, _), (false, true)) => (Outcome::KeepsRunning, off_after()),
            ((false, _), (true, _)) => (Outcome::DesiredAgain, off_before()),
            _ => (Outcome::Unaffected, None),
        };
    }
    match (before.0, after.0) {
        (false, true) => {
            let note = match evict_after {
                Eviction::After(s) => Some(format!(
                    "tolerated for {s} s only: evicted {s} s after it starts, then created again (§g.8)"
                )),
                _ => off_before().map(|line| format!("until now kept off by {line}")),
            };
            (Outcome::WouldStart, note)
        }
        (true, false) => (Outcome::WouldNotStart, off_after()),
        _ => (Outcome::Unaffected, None),
    }
}

/// The facts a preview needs, as the server sends them to the page: the nodes and the
/// DaemonSets the edits may touch, and which cells hold a pod now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WhatIfFacts {
    /// The nodes of the preview (one on a node page, every node on a DaemonSet page).
    pub nodes: Vec<NodeFacts>,
    /// `(namespace/name, template)` of the DaemonSets of the preview.
    pub daemonsets: Vec<(String, TemplateFacts)>,
    /// `(node, namespace/name)` of every cell with a daemon pod now, sorted.
    pub pods: Vec<(String, String)>,
    /// Each node's room, sorted by node, for a requests edit on one DaemonSet (its own pods in
    /// `own`); empty unless asked, so a preview without one is sent no sums.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rooms: Vec<requests::NodeRoomFacts>,
}

impl WhatIfFacts {
    /// Drops every node label that no DaemonSet of the facts reads (nodeSelector keys, required
    /// node affinity `matchExpressions` keys, §a.2 step 2) and that is not in `extra` (the keys a
    /// nodeSelector edit names). Why: on a DaemonSet page the facts carry every node, and at
    /// 5,000 nodes their full labels are megabytes; the verdicts read only these keys, so the
    /// preview is the same with or without the others.
    pub fn keep_read_labels(&mut self, extra: &[String]) {
        let mut keys: std::collections::BTreeSet<&str> = extra.iter().map(String::as_str).collect();
        for (_, t) in &self.daemonsets {
            keys.extend(t.node_selector.keys().map(String::as_str));
            for term in t.required_node_affinity.iter().flatten() {
                keys.extend(term.match_expressions.iter().map(|r| r.key.as_str()));
            }
        }
        let keys: std::collections::BTreeSet<String> =
            keys.into_iter().map(str::to_string).collect();
        for node in &mut self.nodes {
            node.labels.retain(|k, _| keys.contains(k));
        }
    }
}

/// The label keys the template edits name (a nodeSelector edit's keys): the facts must keep
/// them ([`WhatIfFacts::keep_read_labels`]).
pub fn edited_label_keys(edits: &Edits) -> Vec<String> {
    let mut keys: Vec<String> = edits
        .template
        .iter()
        .flat_map(|e| match e {
            TemplateEdit::SetNodeSelector(s) => s.keys().cloned().collect::<Vec<_>>(),
            TemplateEdit::AddToleration(_) | TemplateEdit::SetRequests(_) => Vec::new(),
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Whether the edits change what a pod asks: the preview then needs each node's room
/// ([`WhatIfFacts::rooms`]).
pub fn edits_requests(edits: &Edits) -> bool {
    edits
        .template
        .iter()
        .any(|e| matches!(e, TemplateEdit::SetRequests(_)))
}

/// Every cell of `facts` with its outcome under `edits`, node by node, in the order given.
/// Node edits apply to every node of the facts, template edits to every DaemonSet. With a
/// requests edit, a cell that should run after the edits but whose node has no room for the
/// asked pod (§j.4, [`requests::shortfalls`]) is [`Outcome::WouldNotFit`], the short resources
/// and by how much as its reason.
pub fn preview(facts: &WhatIfFacts, edits: &Edits) -> Vec<CellChange> {
    let check_fit = edits_requests(edits);
    let templates: Vec<(&String, &TemplateFacts, TemplateFacts)> = facts
        .daemonsets
        .iter()
        .map(|(key, t)| (key, t, apply_template_edits(t, &edits.template)))
        .collect();
    let mut out = Vec::with_capacity(facts.nodes.len() * templates.len());
    for node in &facts.nodes {
        let edited = apply_node_edits(node, &edits.node);
        for (key, before, after) in &templates {
            let has_pod = facts
                .pods
                .binary_search_by(|(n, k)| {
                    (n.as_str(), k.as_str()).cmp(&(node.name.as_str(), key.as_str()))
                })
                .is_ok();
            let (b, a) = (
                DaemonPod::new(before).verdict(node),
                DaemonPod::new(after).verdict(&edited),
            );
            let (mut outcome, mut why) = preview_cell((node, &edited), (before, after), has_pod);
            let room = check_fit
                .then(|| {
                    facts
                        .rooms
                        .binary_search_by(|r| r.node.as_str().cmp(node.name.as_str()))
                        .ok()
                })
                .flatten()
                .map(|i| &facts.rooms[i]);
            if let Some(room) = room.filter(|_| a.0) {
                let short = requests::shortfalls(room, &edited.allocatable, &after.requests);
                if !short.is_empty() {
                    outcome = Outcome::WouldNotFit;
                    why = Some(requests::shortfall_words(&short));
                }
            }
            out.push(CellChange {
                node: node.name.clone(),
                daemonset: (*key).clone(),
                has_pod,
                before: b,
                after: a,
                outcome,
                why,
            });
        }
    }
    out
}

#[cfg(test)]
mod parse_tests;
#[cfg(test)]
mod tests;
