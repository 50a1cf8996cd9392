//! The node page's view (`/node/:name`) as `/api/view` sends it: one node's row of the
//! matrix with its columns' keys, whole once, then only what changed.
//!
//! Why: the page shows one row. It used to follow a scope of the matrix (`/api/live?node=`)
//! and keep a matrix of one row in the browser; the server now cuts the row from its read
//! model and sends the row again only when it changed. `diff` and `apply` are pure and inverse:
//! `apply(old, diff(old, new)) == new`.

use crate::domain::view::{MatrixSnapshot, NodeRow, ResourceHealth};
use serde::{Deserialize, Serialize};

/// One node's row of the matrix with the DaemonSet keys its cells belong to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeDetail {
    /// The matrix version this was cut at.
    #[serde(default)]
    pub version: u64,
    /// Cluster and context (header).
    pub cluster: String,
    /// The node's row.
    pub row: NodeRow,
    /// `namespace/name` of each cell's DaemonSet, aligned with `row.cells`.
    pub daemonsets: Vec<String>,
    /// Resource health (banner).
    pub health: Vec<ResourceHealth>,
    /// The version at which a DaemonSet's summary last changed: the rules that keep one off
    /// this node may have changed with it (the page then reads them again).
    #[serde(default)]
    pub columns_at: u64,
}

/// Cuts one node's detail out of a snapshot; `None` if the node is not there.
pub fn node_detail(snapshot: &MatrixSnapshot, name: &str) -> Option<NodeDetail> {
    let row = snapshot.nodes.iter().find(|r| r.name == name)?;
    Some(NodeDetail {
        version: snapshot.version,
        cluster: snapshot.cluster.clone(),
        row: row.clone(),
        daemonsets: snapshot.daemonsets.iter().map(|d| d.key.clone()).collect(),
        health: snapshot.health.clone(),
        columns_at: 0,
    })
}

/// One message of the node page's feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum NodeMessage {
    /// The whole view: the first message.
    Window(NodeDetail),
    /// What changed since the previous message.
    Patch(NodePatch),
}

/// What changed between two views of one node; `None` fields did not change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NodePatch {
    pub version: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<NodeRow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daemonsets: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<Vec<ResourceHealth>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
}

/// Why a message did not fit: the row's cells do not line up with the columns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("node {node} has {got} cells but {want} DaemonSets")]
pub struct NodeShapeError {
    pub node: String,
    pub got: usize,
    pub want: usize,
}

/// The message that brings a browser showing `old` to `new`; `None` when nothing changed.
pub fn diff(old: &NodeDetail, new: &NodeDetail) -> Option<NodeMessage> {
    fn changed<T: PartialEq + Clone>(old: &T, new: &T) -> Option<T> {
        (old != new).then(|| new.clone())
    }
    let patch = NodePatch {
        version: new.version,
        row: changed(&old.row, &new.row),
        daemonsets: changed(&old.daemonsets, &new.daemonsets),
        health: changed(&old.health, &new.health),
        columns_at: changed(&old.columns_at, &new.columns_at),
        cluster: changed(&old.cluster, &new.cluster),
    };
    let empty = NodePatch {
        version: new.version,
        ..NodePatch::default()
    };
    (patch != empty).then_some(NodeMessage::Patch(patch))
}

/// Applies one message to the view a browser holds (`None` before the first window).
pub fn apply(held: &mut Option<NodeDetail>, message: NodeMessage) -> Result<(), NodeShapeError> {
    let next = match message {
        NodeMessage::Window(w) => w,
        NodeMessage::Patch(p) => {
            // A patch before any window cannot happen on one stream.
            let Some(old) = held.as_ref() else {
                return Ok(());
            };
            NodeDetail {
                version: p.version,
                cluster: p.cluster.unwrap_or_else(|| old.cluster.clone()),
                row: p.row.unwrap_or_else(|| old.row.clone()),
                daemonsets: p.daemonsets.unwrap_or_else(|| old.daemonsets.clone()),
                health: p.health.unwrap_or_else(|| old.health.clone()),
                columns_at: p.columns_at.unwrap_or(old.columns_at),
            }
        }
    };
    if next.row.cells.len() != next.daemonsets.len() {
        return Err(NodeShapeError {
            node: next.row.name,
            got: next.row.cells.len(),
            want: next.daemonsets.len(),
        });
    }
    *held = Some(next);
    Ok(())
}

crate::views::page::page_view!(
    NodeDetail,
    NodeMessage,
    NodePatch,
    NodeShapeError,
    diff,
    apply
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::coverage::CellState;
    use crate::domain::testing::{view_column, view_row};

    fn snapshot() -> MatrixSnapshot {
        MatrixSnapshot {
            version: 1,
            cluster: "demo".into(),
            daemonsets: vec![view_column("kube-system/log")],
            nodes: vec![
                view_row("n1", &[CellState::Ready]),
                view_row("n2", &[CellState::Missing]),
            ],
            health: vec![],
        }
    }

    #[test]
    fn the_detail_is_the_row_of_that_node_with_its_column_keys() {
        let d = node_detail(&snapshot(), "n1").expect("n1 is there");
        assert_eq!(d.row.name, "n1");
        assert_eq!(d.daemonsets, ["kube-system/log"]);
        assert!(node_detail(&snapshot(), "nope").is_none());
    }

    #[test]
    fn only_a_change_of_the_nodes_own_row_travels() {
        let old = node_detail(&snapshot(), "n1").expect("n1");
        let mut moved = snapshot();
        moved.version = 2;
        moved.nodes[1].cells[0] = CellState::Ready;
        let same = node_detail(&moved, "n1").expect("n1");
        assert_eq!(
            diff(&old, &same),
            None,
            "another node's change is nothing here"
        );
        moved.nodes[0].unschedulable = true;
        let new = node_detail(&moved, "n1").expect("n1");
        let message = diff(&old, &new).expect("the row changed");
        let NodeMessage::Patch(patch) = &message else {
            panic!("a patch")
        };
        assert!(patch.row.as_ref().is_some_and(|r| r.unschedulable));
        assert!(patch.daemonsets.is_none() && patch.health.is_none());
        let mut held = Some(old);
        apply(&mut held, message).expect("fits");
        assert_eq!(held, Some(new));
    }

    #[test]
    fn a_row_that_does_not_line_up_with_the_columns_is_refused() {
        let mut held = node_detail(&snapshot(), "n1");
        let patch = NodePatch {
            version: 2,
            daemonsets: Some(vec![]),
            ..NodePatch::default()
        };
        assert!(apply(&mut held, NodeMessage::Patch(patch)).is_err());
    }
}
