//! The DaemonSet page's view (`/ds/:namespace/:name`) as `/api/view` sends it: the rollout
//! node by node, cut on the server, whole once, then only what changed.
//!
//! Why: the page used to follow the DaemonSet's column of the whole matrix (`/api/live?ds=`,
//! a row per node) and re-read its whole detail (every node with its pods) after each change;
//! at 5,000 nodes that is megabytes per rollout step. The server now cuts the rows worth
//! showing ([`relevant`]) and sends the ones that changed. `diff` and `apply` are pure and
//! inverse up to the pods' ages: `apply(old, diff(old, new))` equals `new` except for ages
//! of rows that did not change (an age is "at the time of the answer": one that moves with
//! the clock alone would make every row travel on every change).

use crate::domain::coverage::CellState;
use crate::domain::view::{
    DaemonSetColumn, DaemonSetDetail, EffectiveToleration, NodeProgress, PodSummary, ResourceHealth,
};
use crate::views::rows::{apply_rows, diff_rows, RowMismatch};
use serde::{Deserialize, Serialize};

/// The DaemonSet's revision as the page's header shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Revision {
    /// Hash of the current ControllerRevision (empty when none is known).
    pub current: String,
    pub generation: i64,
    /// `status.observedGeneration`, None when the status block is absent.
    pub observed: Option<i64>,
}

/// What the DaemonSet page shows, at one version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DaemonSetWindow {
    pub version: u64,
    /// Cluster and context (header).
    pub cluster: String,
    /// Resource health (stale banner).
    pub health: Vec<ResourceHealth>,
    /// Counts, budget, verdict and pace.
    pub column: DaemonSetColumn,
    pub revision: Revision,
    /// The nodes worth a row ([`relevant`]), by name.
    pub nodes: Vec<NodeProgress>,
    /// Nodes left out: it should not run there and has no pod there.
    pub hidden: usize,
    /// The tolerations its pods carry.
    pub tolerations: Vec<EffectiveToleration>,
}

/// Nodes worth a row: where it should run, or has a pod, or is not plainly excluded. On a
/// 5,000-node cluster a gpu-only DaemonSet would otherwise list 4,990 empty rows.
pub fn relevant(node: &NodeProgress) -> bool {
    node.should_run || !node.pods.is_empty() || node.state != CellState::Excluded
}

/// Cuts the page's view out of the DaemonSet's detail.
pub fn cut(
    detail: DaemonSetDetail,
    cluster: String,
    health: Vec<ResourceHealth>,
) -> DaemonSetWindow {
    let total = detail.nodes.len();
    let nodes: Vec<NodeProgress> = detail.nodes.into_iter().filter(relevant).collect();
    DaemonSetWindow {
        version: detail.version,
        cluster,
        health,
        column: detail.column,
        revision: Revision {
            current: detail.current_revision,
            generation: detail.generation,
            observed: detail.observed_generation,
        },
        hidden: total - nodes.len(),
        nodes,
        tolerations: detail.tolerations,
    }
}

/// One message of the DaemonSet page's feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DaemonSetMessage {
    /// The whole view: the first message.
    Window(DaemonSetWindow),
    /// What changed since the previous message.
    Patch(DaemonSetPatch),
}

/// What changed between two views of one DaemonSet; each field is empty (or `None`) when its
/// part did not change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DaemonSetPatch {
    pub version: u64,
    /// Rows that entered or changed, whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeProgress>,
    /// Every row's node in order, when rows entered, left or moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<DaemonSetColumn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<Revision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerations: Option<Vec<EffectiveToleration>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<Vec<ResourceHealth>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
}

/// Why a patch did not fit the view a browser holds: it then reads the view again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DaemonSetPatchError {
    /// The patch orders a row the view does not have and the patch does not bring.
    #[error("the patch to version {version} orders node {node}, which the view does not have")]
    UnknownRow { version: u64, node: String },
    /// The patch changes a row the view does not show, without a new order.
    #[error("the patch to version {version} changes node {node}, which the view does not show")]
    StrayRow { version: u64, node: String },
}

/// A pod as the diff compares it: its age moves with the clock alone.
fn same_pod(a: &PodSummary, b: &PodSummary) -> bool {
    PodSummary {
        age_seconds: b.age_seconds,
        ..a.clone()
    } == *b
}

/// A row as the diff compares it (pods' ages aside).
fn same_row(a: &NodeProgress, b: &NodeProgress) -> bool {
    a.node == b.node
        && a.state == b.state
        && a.should_run == b.should_run
        && a.pods.len() == b.pods.len()
        && a.pods.iter().zip(&b.pods).all(|(x, y)| same_pod(x, y))
}

/// The message that brings a browser showing `old` to `new`; `None` when nothing changed.
pub fn diff(old: &DaemonSetWindow, new: &DaemonSetWindow) -> Option<DaemonSetMessage> {
    let (nodes, order) = diff_rows(&old.nodes, &new.nodes, same_row);
    fn changed<T: PartialEq + Clone>(old: &T, new: &T) -> Option<T> {
        (old != new).then(|| new.clone())
    }
    let patch = DaemonSetPatch {
        version: new.version,
        nodes,
        order,
        column: changed(&old.column, &new.column),
        revision: changed(&old.revision, &new.revision),
        hidden: changed(&old.hidden, &new.hidden),
        tolerations: changed(&old.tolerations, &new.tolerations),
        health: changed(&old.health, &new.health),
        cluster: changed(&old.cluster, &new.cluster),
    };
    let empty = DaemonSetPatch {
        version: new.version,
        ..DaemonSetPatch::default()
    };
    (patch != empty).then_some(DaemonSetMessage::Patch(patch))
}

/// A part of the view a patch replaces, when it brings one.
fn set<T>(slot: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *slot = value;
    }
}

/// Applies one message to the view a browser holds (`None` before the first window).
pub fn apply(
    held: &mut Option<DaemonSetWindow>,
    message: DaemonSetMessage,
) -> Result<(), DaemonSetPatchError> {
    let patch = match message {
        DaemonSetMessage::Window(w) => {
            *held = Some(w);
            return Ok(());
        }
        DaemonSetMessage::Patch(p) => p,
    };
    // A patch before any window cannot happen on one stream (the first message is whole).
    let Some(w) = held.as_mut() else {
        return Ok(());
    };
    let version = patch.version;
    apply_rows(&mut w.nodes, patch.nodes, patch.order).map_err(|mismatch| match mismatch {
        RowMismatch::Unknown(node) => DaemonSetPatchError::UnknownRow { version, node },
        RowMismatch::Stray(node) => DaemonSetPatchError::StrayRow { version, node },
    })?;
    set(&mut w.column, patch.column);
    set(&mut w.revision, patch.revision);
    set(&mut w.hidden, patch.hidden);
    set(&mut w.tolerations, patch.tolerations);
    set(&mut w.health, patch.health);
    set(&mut w.cluster, patch.cluster);
    w.version = version;
    Ok(())
}

crate::views::page::page_view!(
    DaemonSetWindow,
    DaemonSetMessage,
    DaemonSetPatch,
    DaemonSetPatchError,
    diff,
    apply
);

#[cfg(test)]
#[path = "daemonset/tests.rs"]
mod tests;
