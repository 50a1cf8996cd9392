//! What the pages read about a node's room (§j): a pending daemon pod's explanation (§j.4) and
//! the DaemonSet tax (§j.5). The arithmetic is the domain's; this file gathers its inputs.

use super::*;
use crate::cluster::LookupError;
use crate::domain::coverage::pending::{
    explain_pending, DaemonSetRoom, NodeRoom, PendingExplanation, Room,
};
use crate::domain::resources::fit::Amounts;
use crate::domain::resources::tax::{daemonset_tax, NodeTax};
use crate::domain::whatif::requests::NodeRoomFacts;

impl ClusterState {
    /// The room on one node: its allocatable, the bound pods' sums and count (§j.3).
    fn room_of<'a>(&self, node: &'a NodeFacts, load: &'a NodeLoad) -> Room<'a> {
        Room {
            allocatable: &node.allocatable,
            requested: &load.requested,
            pods: load.pods,
        }
    }

    /// For each unbound pod of `ds` aimed at `node`, why it waits for the scheduler (§j.4),
    /// with the nodes of the same pool (where the DaemonSet should run) that have room.
    pub(crate) fn pending_explanations(
        &self,
        node: &NodeFacts,
        ds: &DaemonSetFacts,
    ) -> Vec<PendingExplanation> {
        let pods = self.pods.in_cell(&ds.uid, &node.name);
        if pods.iter().all(|p| p.bound) {
            return Vec::new();
        }
        let load = self.loads.of(&node.name);
        let pool = crate::domain::names::POOL_LABELS
            .iter()
            .find_map(|k| node.labels.get(*k).map(|v| (*k, v)));
        let key = ds.key();
        let peer_loads: Vec<(&NodeFacts, NodeLoad)> = match pool {
            Some((label, value)) => self
                .nodes
                .values()
                .filter(|n| n.name != node.name && n.labels.get(label) == Some(value))
                .filter(|n| {
                    self.cells
                        .get(&n.name)
                        .and_then(|row| row.get(&key))
                        .is_some_and(|c| c.should_run)
                })
                .map(|n| (n, self.loads.of(&n.name)))
                .collect(),
            None => Vec::new(),
        };
        let peers: Vec<(&str, Room<'_>)> = peer_loads
            .iter()
            .map(|(n, l)| (n.name.as_str(), self.room_of(n, l)))
            .collect();
        pods.iter()
            .filter_map(|p| explain_pending(node, self.room_of(node, &load), ds, p, &peers))
            .collect()
    }

    /// What the DaemonSets that should run on `node` cost it (§j.5), by the cells' shouldRun
    /// (the placement rules, not the pods that happen to run).
    pub fn node_tax(&self, node: &str) -> Option<NodeTax> {
        let facts = self.nodes.get(node)?;
        let row = self.cells.get(node);
        let templates = self.daemonsets.iter().filter_map(|(key, ds)| {
            row.and_then(|r| r.get(key))
                .filter(|c| c.should_run)
                .map(|_| (key.as_str(), &ds.template.requests))
        });
        Some(daemonset_tax(&facts.allocatable, templates))
    }

    /// Each node's room for a what-if that changes `ds_key`'s requests (§j.4): the bound pods'
    /// sums and, apart, what this DaemonSet's own counted pods there request (the preview
    /// replaces them with the asked pod). Sorted by node, as the preview looks them up.
    pub fn whatif_rooms(&self, ds_key: &str) -> Result<Vec<NodeRoomFacts>, LookupError> {
        let ds = self
            .daemonsets
            .get(ds_key)
            .ok_or_else(|| LookupError::DaemonSetNotFound(ds_key.to_string()))?;
        let mut rooms: Vec<NodeRoomFacts> = self
            .nodes
            .keys()
            .map(|name| {
                let load = self.loads.of(name);
                let mut own = Amounts::new();
                let mut own_pods = 0i64;
                for pod in self.pods.in_cell(&ds.uid, name) {
                    if super::loads::counts_on_node(pod) {
                        own.add_signed(&pod.requests.to_amounts(), 1);
                        own_pods += 1;
                    }
                }
                NodeRoomFacts {
                    node: name.clone(),
                    requested: load.requested,
                    pods: load.pods,
                    own,
                    own_pods,
                }
            })
            .collect();
        rooms.sort_by(|a, b| a.node.cmp(&b.node));
        Ok(rooms)
    }

    /// The node page's room: sums, tax, and each pending daemon pod explained.
    pub fn node_room(&self, node: &str) -> Result<NodeRoom, LookupError> {
        let facts = self
            .nodes
            .get(node)
            .ok_or_else(|| LookupError::NodeNotFound(node.to_string()))?;
        let load = self.loads.of(node);
        let pending = self
            .daemonsets
            .iter()
            .filter(|(key, _)| self.cell(node, key) == Some(CellState::Pending))
            .flat_map(|(key, ds)| {
                self.pending_explanations(facts, ds)
                    .into_iter()
                    .map(move |p| (key.clone(), p))
            })
            .collect();
        Ok(NodeRoom {
            requested: load.requested,
            pods: load.pods,
            tax: self.node_tax(node).unwrap_or_default(),
            pending,
        })
    }

    /// One DaemonSet's cost over every node where it should run (§j.5), and each of its
    /// pending pods explained.
    pub fn daemonset_room(&self, ds_key: &str) -> Result<DaemonSetRoom, LookupError> {
        let ds = self
            .daemonsets
            .get(ds_key)
            .ok_or_else(|| LookupError::DaemonSetNotFound(ds_key.to_string()))?;
        let mut nodes = 0usize;
        let mut pending = Vec::new();
        for (name, row) in &self.cells {
            let Some(cell) = row.get(ds_key) else {
                continue;
            };
            nodes += usize::from(cell.should_run);
            if cell.state == CellState::Pending {
                if let Some(facts) = self.nodes.get(name) {
                    pending.extend(
                        self.pending_explanations(facts, ds)
                            .into_iter()
                            .map(|p| (name.clone(), p)),
                    );
                }
            }
        }
        pending.sort_by(|a, b| a.0.cmp(&b.0));
        let mut total = Amounts::new();
        let count = i64::try_from(nodes).unwrap_or(i64::MAX);
        for (name, amount) in ds.template.requests.iter() {
            total.set(name, amount.saturating_mul(count));
        }
        Ok(DaemonSetRoom {
            per_pod: ds.template.requests.clone(),
            nodes,
            total,
            pending,
        })
    }
}
