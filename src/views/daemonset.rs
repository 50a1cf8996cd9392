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
use crate::views::page::PageView;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

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
    let before: HashMap<&str, &NodeProgress> =
        old.nodes.iter().map(|n| (n.node.as_str(), n)).collect();
    let nodes: Vec<NodeProgress> = new
        .nodes
        .iter()
        .filter(|n| !before.get(n.node.as_str()).is_some_and(|o| same_row(o, n)))
        .cloned()
        .collect();
    let same_order = old.nodes.len() == new.nodes.len()
        && old
            .nodes
            .iter()
            .zip(&new.nodes)
            .all(|(a, b)| a.node == b.node);
    fn changed<T: PartialEq + Clone>(old: &T, new: &T) -> Option<T> {
        (old != new).then(|| new.clone())
    }
    let patch = DaemonSetPatch {
        version: new.version,
        nodes,
        order: (!same_order).then(|| new.nodes.iter().map(|n| n.node.clone()).collect()),
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
    match patch.order {
        Some(order) => {
            let mut known: HashMap<String, NodeProgress> = std::mem::take(&mut w.nodes)
                .into_iter()
                .map(|n| (n.node.clone(), n))
                .collect();
            known.extend(patch.nodes.into_iter().map(|n| (n.node.clone(), n)));
            let mut nodes = Vec::with_capacity(order.len());
            for node in order {
                match known.remove(&node) {
                    Some(n) => nodes.push(n),
                    None => return Err(DaemonSetPatchError::UnknownRow { version, node }),
                }
            }
            w.nodes = nodes;
        }
        None => {
            for row in patch.nodes {
                match w.nodes.iter_mut().find(|n| n.node == row.node) {
                    Some(slot) => *slot = row,
                    None => {
                        return Err(DaemonSetPatchError::StrayRow {
                            version,
                            node: row.node,
                        })
                    }
                }
            }
        }
    }
    if let Some(column) = patch.column {
        w.column = column;
    }
    if let Some(revision) = patch.revision {
        w.revision = revision;
    }
    if let Some(hidden) = patch.hidden {
        w.hidden = hidden;
    }
    if let Some(tolerations) = patch.tolerations {
        w.tolerations = tolerations;
    }
    if let Some(health) = patch.health {
        w.health = health;
    }
    if let Some(cluster) = patch.cluster {
        w.cluster = cluster;
    }
    w.version = version;
    Ok(())
}

impl PageView for DaemonSetWindow {
    type Message = DaemonSetMessage;
    type Error = DaemonSetPatchError;

    fn version(&self) -> u64 {
        self.version
    }
    fn whole(self) -> DaemonSetMessage {
        DaemonSetMessage::Window(self)
    }
    fn unchanged(&self) -> DaemonSetMessage {
        DaemonSetMessage::Patch(DaemonSetPatch {
            version: self.version,
            ..DaemonSetPatch::default()
        })
    }
    fn diff(&self, next: &Self) -> Option<DaemonSetMessage> {
        diff(self, next)
    }
    fn apply(held: &mut Option<Self>, message: DaemonSetMessage) -> Result<(), Self::Error> {
        apply(held, message)
    }
    fn message_version(message: &DaemonSetMessage) -> u64 {
        match message {
            DaemonSetMessage::Window(w) => w.version,
            DaemonSetMessage::Patch(p) => p.version,
        }
    }
    fn cluster(&self) -> &str {
        &self.cluster
    }
    fn health(&self) -> &[ResourceHealth] {
        &self.health
    }
}

#[cfg(test)]
#[path = "daemonset/tests.rs"]
mod tests;
