//! The coverage matrix: one cell per node × DaemonSet, saying whether the pod that should be
//! there is there and healthy, and why not.
//!
//! Why its own module: the page, the live feed and the explanation panel all need the same
//! states from the same facts; the rules underneath (placement §a, status §c, updated §d.4)
//! are called, never restated.

mod explain;
mod grace;
pub mod pending;
mod problem;
mod refused;
mod snapshot;

pub use explain::{explain_cell, explain_cell_in_grace, explain_cell_with, pod_summary};
pub use grace::{human_seconds, NewNodeGrace};
pub use problem::{is_problem, problem_cells, stands_of, RolloutStand};
pub use refused::{attribute_refusal, refused_creation, REFUSED_NODES_SHOWN};
pub(crate) use snapshot::bounded_to;
pub use snapshot::{
    build_snapshot, column_summary, column_summary_in_grace, node_row, strategy_kind,
};

use super::facts::{DaemonSetFacts, PodFacts, PodPhase};
use super::rollout::{is_counted, is_pod_updated, pod_order};
use super::scheduling::{Placement, Rule};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Which rule of `docs/kubernetes-rules.md` each public function of this module mirrors.
pub const RULES: &[(&str, &str)] = &[
    (
        "cell_state",
        "§a (shouldRun), §c (counted pods, misscheduled), §d.4 (updated), §a.7 (terminating)",
    ),
    (
        "exclusion_kind",
        "§a.2 (the failing step: nodeName, nodeSelector, affinity, taint)",
    ),
    (
        "group_pods",
        "§f (controller ownerReference uid, target node)",
    ),
    (
        "column_summary",
        "§c (status), §d.2 (budget), §d.3 (budget in use), §e (verdict)",
    ),
    ("build_snapshot", "§a, §c, §d, §e, §f"),
    ("explain_cell", "§a (reasons and fixes), §c, §d.4"),
    ("pod_summary", "§d.4 (updated)"),
    (
        "is_problem",
        "§d.3 (outdated while a rollout moves), §d.5 (OnDelete waits for deletion), the stall rule (docs/architecture.md#what-counts-as-a-problem)",
    ),
    (
        "refused_creation",
        "§f (FailedCreate), §l (the API server's refusal, classified)",
    ),
    (
        "NewNodeGrace",
        "issue 14 item 5 (a daemonscope policy on top of §a.7's missing pod; never changes §a, §c or §e)",
    ),
];

/// The state names are a public contract (`data-state` in the HTML): keep them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellState {
    /// Should run; the examined pod is on the current revision and Ready.
    Ready,
    /// Should run; the examined pod is on an old revision (§d.4).
    Outdated,
    /// Should run; the pod is on the current revision but not Ready (or failed).
    Unready,
    /// Should run; the pod is not bound or not started, or only a terminating pod is left
    /// and its replacement comes once it is gone (§a.7).
    Pending,
    /// Should run and no pod is there yet, on a node that joined less than the new-node
    /// grace ago ([`NewNodeGrace`]): the controller's create is expected, not late. Not a
    /// problem; it turns `missing` by itself when the grace ends.
    Starting,
    /// Should run (§a shouldRun) and no pod is there.
    Missing,
    /// Should not run and no pod is there; [`exclusion_kind`] says which rule excludes it.
    Excluded,
    /// A pod is there but shouldRun is false, even when shouldContinueRunning keeps it (§c,
    /// §g.3).
    Misscheduled,
    /// An old and a new pod on the node at once (surge update, §a.7, §d.3).
    Surge,
}

impl CellState {
    /// Every state in legend order: healthy first, then in-flight, then problems, then "not
    /// here". Why here: per-state counts ([`crate::view::StateCounts`]), the legend and the
    /// `?state=` filter must agree on one order.
    pub const ALL: [CellState; 9] = [
        CellState::Ready,
        CellState::Outdated,
        CellState::Surge,
        CellState::Unready,
        CellState::Pending,
        CellState::Starting,
        CellState::Missing,
        CellState::Misscheduled,
        CellState::Excluded,
    ];

    /// Where the state sits in [`CellState::ALL`] (a counter's slot).
    pub fn index(self) -> usize {
        match self {
            CellState::Ready => 0,
            CellState::Outdated => 1,
            CellState::Surge => 2,
            CellState::Unready => 3,
            CellState::Pending => 4,
            CellState::Starting => 5,
            CellState::Missing => 6,
            CellState::Misscheduled => 7,
            CellState::Excluded => 8,
        }
    }

    /// Whether a daemon pod is on the node in this state (every state but `missing` and
    /// `excluded`). Why: a what-if preview asks whether a pod is there to stop or evict.
    pub fn has_pod(self) -> bool {
        !matches!(self, CellState::Missing | CellState::Excluded)
    }

    /// The state named `name` ([`CellState::as_str`]'s words), if any: read back from a
    /// metric label or a URL.
    pub fn parse(name: &str) -> Option<CellState> {
        CellState::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether §a shouldRun is true in this state (every state but `excluded` and
    /// `misscheduled`). Why: the DaemonSet tax of a pool (§j.5) sums the DaemonSets that should
    /// run on each node by the placement rules, and the matrix's states already carry that
    /// answer.
    pub fn should_run(self) -> bool {
        !matches!(self, CellState::Excluded | CellState::Misscheduled)
    }

    /// The `data-state` name (the serde name), for HTML attributes, scripts and the `state`
    /// metric label.
    pub fn as_str(self) -> &'static str {
        match self {
            CellState::Ready => "ready",
            CellState::Outdated => "outdated",
            CellState::Unready => "unready",
            CellState::Pending => "pending",
            CellState::Starting => "starting",
            CellState::Missing => "missing",
            CellState::Excluded => "excluded",
            CellState::Misscheduled => "misscheduled",
            CellState::Surge => "surge",
        }
    }
}

/// Which §a.2 step keeps a DaemonSet off a node, for excluded (and misscheduled) cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ExclusionKind {
    /// §a.2 step 1: the template's `spec.nodeName` names another node.
    NodeName,
    /// §a.2 step 2: a nodeSelector pair the node lacks.
    NodeSelector,
    /// §a.2 step 2: the required node affinity does not match.
    NodeAffinity,
    /// §a.2 step 3: an untolerated NoSchedule/NoExecute taint.
    Taint,
}

/// The kind of the first failing placement reason (§a.2 order), None when nothing fails.
pub fn exclusion_kind(placement: &Placement) -> Option<ExclusionKind> {
    placement
        .reasons
        .iter()
        .filter(|r| !r.passed)
        .find_map(|r| match r.rule {
            Rule::NodeName => Some(ExclusionKind::NodeName),
            Rule::NodeSelector => Some(ExclusionKind::NodeSelector),
            Rule::NodeAffinity => Some(ExclusionKind::NodeAffinity),
            Rule::Taint => Some(ExclusionKind::Taint),
            _ => None,
        })
}

/// The state of one cell. `pods_on_node` are this DaemonSet's pods for this node (matched by
/// owner uid and target node by the caller, [`group_pods`]), in any order.
///
/// - shouldRun false: misscheduled with any counted pod (§c: terminating non-terminal pods
///   count), else excluded;
/// - shouldRun true: missing without a counted pod; pending when only terminating pods are
///   left (§a.7: the replacement waits until they are gone); surge with an old and a new live
///   pod; otherwise the first live pod in scheduled-first, oldest, name order (§c) decides:
///   outdated on an old revision (§d.4), pending when unbound or in phase Pending, ready when
///   Running and Ready, else unready.
///
/// `now` is accepted for symmetry with the other rules; the state reads readiness, not
/// availability (minReadySeconds shows in the column's available count).
pub fn cell_state(
    placement: &Placement,
    ds: &DaemonSetFacts,
    pods_on_node: &[&PodFacts],
    now: i64,
) -> CellState {
    cell_state_from(placement.should_run, ds, pods_on_node, now)
}

/// [`cell_state`] from the shouldRun boolean alone, so the matrix can use the cheap
/// `DaemonPod::verdict` for 150,000 cells and build reasons only when a cell is explained.
pub fn cell_state_from(
    should_run: bool,
    ds: &DaemonSetFacts,
    pods_on_node: &[&PodFacts],
    _now: i64,
) -> CellState {
    let has_counted = pods_on_node.iter().any(|p| is_counted(p));
    if !should_run {
        return if has_counted {
            CellState::Misscheduled
        } else {
            CellState::Excluded
        };
    }
    if !has_counted {
        return CellState::Missing;
    }
    let mut first: Option<&PodFacts> = None;
    let (mut any_new, mut any_old) = (false, false);
    for pod in pods_on_node
        .iter()
        .copied()
        .filter(|p| is_counted(p) && !p.terminating)
    {
        if is_pod_updated(ds, pod) {
            any_new = true;
        } else {
            any_old = true;
        }
        if first.is_none_or(|f| pod_order(pod, f).is_lt()) {
            first = Some(pod);
        }
    }
    let Some(pod) = first else {
        return CellState::Pending;
    };
    if any_new && any_old {
        CellState::Surge
    } else if any_old {
        CellState::Outdated
    } else if !pod.bound || pod.phase == PodPhase::Pending {
        CellState::Pending
    } else if pod.ready && pod.phase == PodPhase::Running {
        CellState::Ready
    } else {
        CellState::Unready
    }
}

/// Pods grouped once by controller owner uid, then by target node (§f). Why: the matrix looks
/// up 150,000 cells; grouping once makes each lookup O(1) instead of a scan of every pod.
#[derive(Debug, Default)]
pub struct PodGroups<'a> {
    by_owner: HashMap<&'a str, HashMap<&'a str, Vec<&'a PodFacts>>>,
}

impl<'a> PodGroups<'a> {
    /// The pods of the DaemonSet with `owner_uid` aimed at `node`, scheduled-first, oldest,
    /// by name; empty when there are none.
    pub fn pods(&self, owner_uid: &str, node: &str) -> &[&'a PodFacts] {
        self.by_owner
            .get(owner_uid)
            .and_then(|nodes| nodes.get(node))
            .map_or(&[], Vec::as_slice)
    }

    /// Every node that has pods of `owner_uid`, with those pods.
    pub fn nodes_of(&self, owner_uid: &str) -> impl Iterator<Item = (&'a str, &[&'a PodFacts])> {
        self.by_owner
            .get(owner_uid)
            .into_iter()
            .flat_map(|nodes| nodes.iter().map(|(n, p)| (*n, p.as_slice())))
    }
}

/// Group pods by (controller owner uid, target node) (§f). Pods without a controller owner or
/// without a target node are counted nowhere, as in the controller. Each group is sorted in
/// scheduled-first, oldest, name order (§c).
pub fn group_pods(pods: &[PodFacts]) -> PodGroups<'_> {
    let mut groups = PodGroups::default();
    for pod in pods {
        let (Some(owner), Some(node)) = (pod.owner_uid.as_deref(), pod.node_name.as_deref()) else {
            continue;
        };
        groups
            .by_owner
            .entry(owner)
            .or_default()
            .entry(node)
            .or_default()
            .push(pod);
    }
    for nodes in groups.by_owner.values_mut() {
        for list in nodes.values_mut() {
            list.sort_by(|a, b| pod_order(a, b));
        }
    }
    groups
}

#[cfg(test)]
mod tests;
