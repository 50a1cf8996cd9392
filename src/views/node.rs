//! One node's row of the matrix, as the node page shows it.

use crate::domain::view::{MatrixSnapshot, NodeRow, ResourceHealth};
use serde::{Deserialize, Serialize};

/// One node's row of the matrix with the DaemonSet keys its cells belong to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeDetail {
    /// Cluster and context (header).
    pub cluster: String,
    /// The node's row.
    pub row: NodeRow,
    /// `namespace/name` of each cell's DaemonSet, aligned with `row.cells`.
    pub daemonsets: Vec<String>,
    /// Resource health (banner).
    pub health: Vec<ResourceHealth>,
}

/// Cuts one node's detail out of a snapshot; `None` if the node is not there.
pub fn node_detail(snapshot: &MatrixSnapshot, name: &str) -> Option<NodeDetail> {
    let row = snapshot.nodes.iter().find(|r| r.name == name)?;
    Some(NodeDetail {
        cluster: snapshot.cluster.clone(),
        row: row.clone(),
        daemonsets: snapshot.daemonsets.iter().map(|d| d.key.clone()).collect(),
        health: snapshot.health.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detail_is_the_row_of_that_node_with_its_column_keys() {
        let snap = MatrixSnapshot {
            version: 1,
            cluster: "demo".into(),
            daemonsets: vec![],
            nodes: vec![NodeRow {
                name: "n1".into(),
                ready: None,
                unschedulable: true,
                taints: vec![],
                labels: vec![],
                cells: vec![],
            }],
            health: vec![],
        };
        let d = node_detail(&snap, "n1").unwrap();
        assert!(d.row.unschedulable);
        assert!(node_detail(&snap, "nope").is_none());
    }
}
