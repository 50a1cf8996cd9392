//! The data the browser receives: the matrix snapshot and the live deltas that follow it.
//!
//! Why here: the server produces these and the hydrated page consumes them, so the one
//! definition must compile to WASM. They are compact on purpose (5,000 nodes × 30 DaemonSets
//! is 150,000 cells): a cell is one state per row/column slot, not an object.

mod counts;
mod history;
mod kinds;
mod pace;
mod pod;

pub use counts::StateCounts;
pub use history::{RevisionHistory, RevisionRow};
pub use kinds::{EventScope, EventType, StrategyKind};
pub use pace::{rollout_pace, PaceInput, RolloutPace};
pub use pod::{ContainerDetail, ContainerState, PodCondition, PodDetail, Termination};

use super::coverage::CellState;
use super::facts::PodPhase;
use super::resources::fit::Amounts;
use serde::{Deserialize, Serialize};

/// One DaemonSet column with its rollout summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DaemonSetColumn {
    /// `namespace/name`
    pub key: String,
    pub namespace: String,
    pub name: String,
    pub desired: i64,
    pub ready: i64,
    pub updated: i64,
    pub available: i64,
    pub misscheduled: i64,
    /// Cells in state `missing` (should run, no pod, the node past its new-node grace).
    pub missing: i64,
    /// Cells in state `starting` (should run, no pod yet, on a node within its new-node
    /// grace): counted apart so a scale-up is not reported as missing agents.
    pub starting: i64,
    /// Nodes whose cell of this column is a problem
    /// ([`crate::coverage::is_problem`] under the column's rollout stand): what
    /// `/metrics` exports as `daemonscope_daemonset_problem_nodes`.
    #[serde(default)]
    pub problem_nodes: i64,
    /// Cells per state, as the matrix shows them (a young node's pod-less cell `starting`):
    /// what `/metrics` exports as `daemonscope_daemonset_cells{state}`, so a fleet read from
    /// Prometheus counts the same cells as the cluster's own matrix.
    #[serde(default)]
    pub cells: StateCounts,
    /// `spec.updateStrategy.type`.
    pub strategy: StrategyKind,
    /// Resolved budget, None when it cannot be resolved (then `budget_error` says why).
    pub max_unavailable: Option<i64>,
    pub max_surge: Option<i64>,
    /// The resolved budget's [`crate::rollout::Budget::surge_mode`]: the gauge shows maxSurge
    /// when true, maxUnavailable otherwise. Carried so the page never decides it again.
    pub surge_mode: bool,
    pub budget_error: Option<String>,
    /// How much of the budget is in use now (unavailable nodes, or surge pods in flight).
    pub budget_in_use: i64,
    /// The line `kubectl rollout status` would print, or its error.
    pub rollout_message: String,
    pub rollout_done: bool,
    pub rollout_error: Option<String>,
    /// The rollout's pace, stall and causes (RollingUpdate only); filled by the live store,
    /// which keeps the samples. None in offline snapshots.
    #[serde(default)]
    pub pace: Option<RolloutPace>,
    /// The API server refuses this DaemonSet's pod creations while nodes miss its pod (§l):
    /// the newest FailedCreate, classified. Filled by the live store, which keeps the events.
    #[serde(default)]
    pub refused: Option<RefusedCreation>,
    /// Nodes without a running pod past the new-node grace, by cause (what the alert metrics
    /// carry, [`crate::alerts::missing_causes`]); filled by the live store, which holds the
    /// nodes' readiness and the FailedCreate events. None in offline snapshots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_causes: Option<crate::alerts::MissingCauses>,
    /// The template's requests in scheduler units (§j.2): what one pod costs each node where
    /// the DaemonSet should run, summed per pool for the group headers' DaemonSet tax (§j.5).
    /// The matrix page does not need it per column and the window cut leaves it out.
    #[serde(default, skip_serializing_if = "Amounts::is_empty")]
    pub requests: Amounts,
    /// This DaemonSet's pods the scheduler will not bind, per `PodScheduled` reason (§k,
    /// [`crate::alerts::unschedulable_by_reason`]); filled by the live store, for `/metrics`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unschedulable: Vec<(String, i64)>,
}

/// A DaemonSet's pod creations refused by the API server (§l): who refused, from the newest
/// FailedCreate event's message (`crate::admission::classify_refusal`), and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedCreation {
    pub refusal: crate::admission::Refusal,
    /// When the event last happened, unix seconds.
    pub last_seen: i64,
}

/// A missing cell's refusal, with the nodes it keeps without a pod (the DaemonSet's
/// `missing` cells, by name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellRefusal {
    pub refused: RefusedCreation,
    /// The nodes missing the pod, at most [`crate::coverage::REFUSED_NODES_SHOWN`].
    pub nodes: Vec<String>,
    /// How many nodes miss it in all.
    pub nodes_total: usize,
}

/// One node row; `cells[i]` is the state for `MatrixSnapshot::daemonsets[i]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeRow {
    pub name: String,
    pub ready: Option<bool>,
    pub unschedulable: bool,
    /// Taints rendered `key=value:Effect`, bounded in length.
    pub taints: Vec<String>,
    /// A few identifying labels (role, zone, pool), bounded in length.
    pub labels: Vec<(String, String)>,
    pub cells: Vec<CellState>,
    /// The node's allocatable in scheduler units (§j.4): the base of its pool's DaemonSet tax
    /// (§j.5) in the group headers. The window cut leaves it out of the rows it sends.
    #[serde(default, skip_serializing_if = "Amounts::is_empty")]
    pub allocatable: Amounts,
}

/// Health of one watched resource, so the page can say what is stale or denied (
/// docs/architecture.md#degrade-never-lie).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceHealth {
    /// "nodes", "daemonsets", "pods", "controllerrevisions", "events"
    pub resource: String,
    pub synced: bool,
    /// e.g. "cannot list pods: forbidden for user X"; None when healthy.
    pub error: Option<String>,
    /// Unix seconds since when the data is stale; None when live.
    pub stale_since: Option<i64>,
}

/// The whole matrix at one version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixSnapshot {
    pub version: u64,
    /// Which cluster and context this shows (page header).
    pub cluster: String,
    pub daemonsets: Vec<DaemonSetColumn>,
    pub nodes: Vec<NodeRow>,
    pub health: Vec<ResourceHealth>,
}

/// One change to the matrix. Applied in order of `LiveMessage::version`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Delta {
    /// One cell changed state.
    Cell {
        node: String,
        daemonset: String,
        state: CellState,
    },
    /// A node appeared or changed (its whole row).
    NodeUpsert(NodeRow),
    NodeRemoved {
        name: String,
    },
    /// A DaemonSet appeared or changed: the column and its state in every row, in the
    /// order of the current node list.
    DaemonSetUpsert {
        column: DaemonSetColumn,
        states: Vec<(String, CellState)>,
    },
    DaemonSetRemoved {
        key: String,
    },
    /// A DaemonSet's summary (counts, budget, verdict) changed but none of its cells did:
    /// the column without 5,000 cell states (a status update, a pod event's counts).
    Column(DaemonSetColumn),
    Health(ResourceHealth),
}

/// What `/api/live` sends as one SSE message (`id:` is `version`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LiveMessage {
    Snapshot(MatrixSnapshot),
    Deltas { version: u64, deltas: Vec<Delta> },
}

/// A pod as the explanation panel shows it (never env, command lines or volumes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PodSummary {
    pub name: String,
    pub phase: PodPhase,
    pub ready: bool,
    pub updated: bool,
    pub revision_hash: String,
    pub restart_count: i32,
    pub waiting_reason: Option<String>,
    pub terminating: bool,
    /// Age in seconds at the time of the answer.
    pub age_seconds: i64,
}

/// Why one cell is what it is: the answer to clicking a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellExplanation {
    pub node: String,
    pub daemonset: String,
    pub state: CellState,
    /// One sentence a person reads first ("Should run here and does: ready on the current revision").
    pub summary: String,
    pub placement: super::scheduling::Placement,
    pub pods: Vec<PodSummary>,
    /// What to paste to change this cell: commands and YAML, never run by the dashboard.
    pub fixes: FixPlan,
    /// A missing cell whose creations the API server refuses: who refuses and where (§l).
    #[serde(default)]
    pub refusal: Option<CellRefusal>,
    /// For a pod waiting for the scheduler: its words and the node's arithmetic (§j.4).
    #[serde(default)]
    pub pending: Option<super::coverage::pending::PendingExplanation>,
}

/// What a person can do about a cell that is not what they want: the fixes per blocking rule
/// and, for a pod that is there, what reconciles it. Why one value: the panel and the CLI
/// show the same plan, and its headline says whether one fix or one per rule is needed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FixPlan {
    /// One sentence over the plan; empty when there is nothing to fix.
    pub headline: String,
    /// Each rule that keeps the pod off the node, with alternatives: one of each is needed.
    pub blockers: Vec<super::scheduling::Blocker>,
    /// Steps about the pod itself (delete a misscheduled pod the controller keeps, read the
    /// events of a missing one): commands the user runs themselves.
    pub reconcile: Vec<super::scheduling::Fix>,
}

/// One node of a DaemonSet's rollout page: where it stands and the pods behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeProgress {
    pub node: String,
    pub state: CellState,
    /// §a shouldRun for this node.
    pub should_run: bool,
    /// This DaemonSet's pods aimed at the node, oldest first.
    pub pods: Vec<PodSummary>,
}

/// A DaemonSet's rollout page: the column summary (counts, budget, verdict) and its progress
/// node by node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DaemonSetDetail {
    /// The feed version this detail was read at.
    pub version: u64,
    pub column: DaemonSetColumn,
    /// Hash of the current ControllerRevision (empty when none is known).
    pub current_revision: String,
    pub generation: i64,
    /// `status.observedGeneration`, None when the status block is absent.
    pub observed_generation: Option<i64>,
    /// Every node of the cluster, by name.
    pub nodes: Vec<NodeProgress>,
    /// The tolerations its pods carry: the template's with the DaemonSet controller's own
    /// merged in (§b), in the order a created pod lists them.
    #[serde(default)]
    pub tolerations: Vec<EffectiveToleration>,
}

/// One toleration of a daemon pod, as YAML a user can paste, and whether the DaemonSet
/// controller added it (§b) rather than the template.
///
/// Why: "does it tolerate not-ready?" is answered by the automatic tolerations nobody wrote;
/// the DaemonSet page lists them beside the user's, marked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EffectiveToleration {
    /// The flow mapping (`{key: k, operator: Exists, effect: NoSchedule}`).
    pub yaml: String,
    /// Added or put in place by the DaemonSet controller (§b).
    pub automatic: bool,
}

/// §b: the daemon pod's tolerations as the DaemonSet page lists them, each rendered as
/// pasteable YAML and marked when the DaemonSet controller added it.
/// Why here: it is the page's view of the rule; the rule (`scheduling`) never reads the view.
pub fn effective_tolerations(template: &crate::facts::TemplateFacts) -> Vec<EffectiveToleration> {
    crate::scheduling::merged_tolerations(template)
        .into_iter()
        .map(|t| EffectiveToleration {
            yaml: crate::scheduling::render_toleration(&t.toleration),
            automatic: t.automatic,
        })
        .collect()
}

/// One Kubernetes Event about a DaemonSet, one of its pods, or a node, as the DaemonSet and
/// node pages list it ("Recent events"). The message is cluster text: shown as text only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRow {
    /// What the event is about, relative to the page: `DaemonSet`, `Node`, or
    /// `Pod namespace/name` for a daemon pod on the DaemonSet page.
    pub object: String,
    /// `Normal` or `Warning`.
    pub event_type: EventType,
    pub reason: String,
    /// Bounded in length.
    pub message: String,
    /// How many times it happened (`count`, or `series.count`), at least 1.
    pub count: i32,
    /// When it last happened, unix seconds (0 when the event carries no time).
    pub last_seen: i64,
}
