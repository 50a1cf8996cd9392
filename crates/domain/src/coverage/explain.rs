//! The answer to clicking a cell: its state, one sentence, the placement reasons, the pods and
//! what would change it.

use super::{cell_state, exclusion_kind, is_counted, CellState, ExclusionKind, NewNodeGrace};
use crate::facts::{DaemonSetFacts, NodeFacts, PodFacts, PodPhase, UpdateStrategy};
use crate::rollout::{is_pod_updated, pod_order};
use crate::scheduling::{blockers, placement, Blocker, Fix, FixAction, Placement};
use crate::shell::shell_command;
use crate::view::{CellExplanation, FixPlan, PodSummary};

/// Explain one cell: runs placement (§a) for `node` and the DaemonSet's template, then
/// [`explain_cell_with`]. `pods_on_node` are the DaemonSet's pods for this node (§f). No
/// new-node grace applies; see [`explain_cell_in_grace`].
pub fn explain_cell(
    node: &NodeFacts,
    ds: &DaemonSetFacts,
    pods_on_node: &[&PodFacts],
    now: i64,
) -> CellExplanation {
    explain_cell_in_grace(node, ds, pods_on_node, now, NewNodeGrace::OFF)
}

/// [`explain_cell`] with a new-node grace: a missing pod on a node younger than `grace` is
/// explained as `starting`, with the node's age and when the cell turns missing.
pub fn explain_cell_in_grace(
    node: &NodeFacts,
    ds: &DaemonSetFacts,
    pods_on_node: &[&PodFacts],
    now: i64,
    grace: NewNodeGrace,
) -> CellExplanation {
    explained(
        node,
        placement(node, &ds.template),
        ds,
        pods_on_node,
        now,
        grace,
    )
}

/// Explain one cell from a placement already computed (so a caller holding it, or a test,
/// does not compute it twice). Never shows env, command lines or volumes: a pod is summarised
/// by name, phase, readiness, revision, restarts, waiting reason and age only.
pub fn explain_cell_with(
    node: &NodeFacts,
    placement: Placement,
    ds: &DaemonSetFacts,
    pods_on_node: &[&PodFacts],
    now: i64,
) -> CellExplanation {
    explained(node, placement, ds, pods_on_node, now, NewNodeGrace::OFF)
}

fn explained(
    node: &NodeFacts,
    placement: Placement,
    ds: &DaemonSetFacts,
    pods_on_node: &[&PodFacts],
    now: i64,
    grace: NewNodeGrace,
) -> CellExplanation {
    let state = grace.apply(
        cell_state(&placement, ds, pods_on_node, now),
        node.created,
        now,
    );
    let summary = match state {
        CellState::Starting => format!(
            "Should run here and has no pod yet: the DaemonSet controller creates one. {}",
            grace.sentence(node.created, now)
        ),
        _ => summary(state, &placement, ds, pods_on_node),
    };
    let blockers = if placement.should_run {
        Vec::new()
    } else {
        blockers(node, &ds.template)
    };
    let fixes = fix_plan(state, &placement, ds, pods_on_node, blockers);
    let mut pods: Vec<&PodFacts> = pods_on_node.to_vec();
    pods.sort_by(|a, b| pod_order(a, b));
    let pods = pods.into_iter().map(|p| pod_summary(ds, p, now)).collect();
    CellExplanation {
        node: node.name.clone(),
        daemonset: ds.key(),
        state,
        summary,
        placement,
        pods,
        fixes,
        refusal: None,
        pending: None,
    }
}

/// The plan for a cell (§a.2, §a.7, §c): the blockers' fixes when the pod should not run
/// here, what reconciles a misscheduled pod, where to look when a pod is missing.
fn fix_plan(
    state: CellState,
    placement: &Placement,
    ds: &DaemonSetFacts,
    pods: &[&PodFacts],
    blockers: Vec<Blocker>,
) -> FixPlan {
    let command = |description: &str, argv: &[&str]| Fix {
        description: description.to_string(),
        action: FixAction::Command {
            command: shell_command(argv),
        },
    };
    let rules = match blockers.len() {
        0 => String::new(),
        1 => "One rule keeps the pod off this node: apply one of the options below.".into(),
        n => format!(
            "{n} rules keep the pod off this node: apply one option for each of them; fixing only some leaves the pod off."
        ),
    };
    let (headline, reconcile) = match state {
        CellState::Misscheduled if placement.should_continue_running => {
            let live: Vec<&&PodFacts> = pods.iter().filter(|p| !p.terminating).collect();
            let delete = live
                .iter()
                .map(|p| {
                    command(
                        "Or delete the pod (run it yourself): the controller does not create another here while shouldRun is false.",
                        &["kubectl", "delete", "pod", "-n", &p.namespace, &p.name],
                    )
                })
                .collect();
            (
                format!(
                    "Misscheduled: the controller keeps this pod because no NoExecute taint forbids it (§a.2 step 3), \
                     and counts it in numberMisscheduled until shouldRun is true again or the pod is gone. {rules}"
                ),
                delete,
            )
        }
        CellState::Misscheduled => (
            format!(
                "Misscheduled: the controller deletes this pod on its next sync (shouldContinueRunning is false, §a.7). \
                 To have a pod here instead: {rules}"
            ),
            Vec::new(),
        ),
        CellState::Missing => (
            "The pod should run here and the rules allow it, so there is nothing to change in the DaemonSet or the node: \
             the controller's events (FailedCreate) say why it cannot create the pod."
                .into(),
            vec![command(
                "Read the DaemonSet's events (run it yourself).",
                &["kubectl", "describe", "daemonset", "-n", &ds.namespace, &ds.name],
            )],
        ),
        CellState::Starting => (
            "Nothing to change yet: a new node's daemon pods come once the controller has synced and the kubelet has \
             started them. If none appears before the grace ends, the cell turns missing and the controller's events \
             (FailedCreate) say why."
                .into(),
            vec![command(
                "Read the DaemonSet's events (run it yourself).",
                &["kubectl", "describe", "daemonset", "-n", &ds.namespace, &ds.name],
            )],
        ),
        _ => (rules, Vec::new()),
    };
    FixPlan {
        headline: headline.trim_end().to_string(),
        blockers,
        reconcile,
    }
}

/// A pod as the explanation and rollout pages show it: name, phase, readiness, whether it is
/// updated (§d.4), revision, restarts, waiting reason, terminating, age. Why: never env,
/// command lines or volumes (docs/architecture.md#read-only), and one definition for every page.
pub fn pod_summary(ds: &DaemonSetFacts, pod: &PodFacts, now: i64) -> PodSummary {
    PodSummary {
        name: pod.name.clone(),
        phase: pod.phase,
        ready: pod.ready,
        updated: is_pod_updated(ds, pod),
        revision_hash: pod.revision_hash.clone(),
        restart_count: pod.restart_count,
        waiting_reason: pod.waiting_reason.clone(),
        terminating: pod.terminating,
        age_seconds: now.saturating_sub(pod.created).max(0),
    }
}

/// The one sentence a person reads first.
fn summary(
    state: CellState,
    placement: &Placement,
    ds: &DaemonSetFacts,
    pods: &[&PodFacts],
) -> String {
    let why_not = || {
        let kind = match exclusion_kind(placement) {
            Some(ExclusionKind::NodeName) => "the template's spec.nodeName names another node",
            Some(ExclusionKind::NodeSelector) => "the node lacks a label the nodeSelector asks for",
            Some(ExclusionKind::NodeAffinity) => {
                "the required node affinity does not match this node"
            }
            Some(ExclusionKind::Taint) => "the node has a taint the pod does not tolerate",
            None => "the placement rules rule this node out",
        };
        kind.to_string()
    };
    let first = pods
        .iter()
        .copied()
        .filter(|p| is_counted(p) && !p.terminating)
        .min_by(|a, b| pod_order(a, b));
    match state {
        CellState::Ready => "Should run here and does: ready on the current revision.".into(),
        CellState::Outdated => {
            let hash = first.map_or("", |p| p.revision_hash.as_str());
            if matches!(ds.strategy, UpdateStrategy::RollingUpdate { .. }) {
                format!("Should run here; the pod runs an old revision ({hash}) and is replaced as the rolling update reaches this node (a problem only if the rollout stalls).")
            } else if matches!(ds.strategy, UpdateStrategy::OnDelete) {
                format!("Waiting for deletion: the pod runs an old revision ({hash}) and, with OnDelete, is replaced only when someone deletes it (kubectl delete pod); not a problem.")
            } else {
                format!("Should run here; the pod runs an old revision ({hash}), and this update strategy replaces nothing by itself.")
            }
        }
        CellState::Unready => {
            let detail = first
                .and_then(|p| match (&p.waiting_reason, p.phase) {
                    (Some(reason), _) => Some(format!(" ({reason})")),
                    (None, PodPhase::Failed) => Some(" (the pod failed; the controller deletes and recreates it)".into()),
                    _ => None,
                })
                .unwrap_or_default();
            format!("Should run here; the pod is on the current revision but not Ready{detail}.")
        }
        CellState::Pending if first.is_none() => "Should run here; the previous pod is terminating and the controller creates the new one once it is gone.".into(),
        CellState::Pending => "Should run here; the pod is pending (not yet scheduled or started).".into(),
        CellState::Starting => "Should run here and has no pod yet: the node is new and the DaemonSet controller creates one.".into(),
        CellState::Missing => "Should run here but has no pod: the DaemonSet controller should create one; if it stays missing, check the DaemonSet's events.".into(),
        CellState::Excluded if placement.should_continue_running => format!(
            "Should not run here: {}. No new pod is placed here, but an existing one would be kept (only NoSchedule taints fail).",
            why_not()
        ),
        CellState::Excluded => format!("Should not run here: {}.", why_not()),
        CellState::Misscheduled if placement.should_continue_running => format!(
            "A pod runs here but should not ({}): it is kept because no NoExecute taint forbids it, and it counts as misscheduled.",
            why_not()
        ),
        CellState::Misscheduled => format!(
            "A pod runs here but should not ({}): the controller deletes it.",
            why_not()
        ),
        CellState::Surge => "Surge update in progress: an old and a new pod run here; the old one is deleted once the new one is available.".into(),
    }
}

#[cfg(test)]
mod tests;
