//! Daemon pods indexed by the cell they belong to: (controller owner uid, target node).
//!
//! Why: a pod event must recompute one cell without scanning 150,000 pods, and a pod that
//! moves (bound, re-owned) must leave its old cell. Pods are matched to their DaemonSet by
//! the controller owner uid and to their node by the target node name (§f), never by labels.

use crate::domain::PodFacts;
use std::collections::HashMap;

/// (DaemonSet uid, node name): the cell a pod is counted in.
pub(crate) type CellKey = (String, String);

/// Daemon pods by uid, plus the per-cell and per-DaemonSet indexes.
#[derive(Debug, Default)]
pub(crate) struct PodIndex {
    by_uid: HashMap<String, PodFacts>,
    /// DaemonSet uid -> node name -> pod uids: a cell lookup borrows, never allocates.
    by_cell: HashMap<String, HashMap<String, Vec<String>>>,
    /// DaemonSet uid -> pod uids (pods without a target node included).
    by_owner: HashMap<String, Vec<String>>,
}

/// The cell a pod counts in, if it has both a controller owner and a target node (§f).
fn cell_of(pod: &PodFacts) -> Option<CellKey> {
    Some((pod.owner_uid.clone()?, pod.node_name.clone()?))
}

fn remove_from(list: &mut Vec<String>, uid: &str) {
    if let Some(i) = list.iter().position(|u| u == uid) {
        list.swap_remove(i);
    }
}

impl PodIndex {
    /// Number of daemon pods held.
    pub(crate) fn len(&self) -> usize {
        self.by_uid.len()
    }

    /// Inserts or replaces a pod; returns the cells touched (old and new place).
    pub(crate) fn upsert(&mut self, pod: PodFacts) -> Vec<CellKey> {
        let mut touched = self.remove(&pod.uid);
        if pod.owner_uid.is_none() {
            // Not a daemon pod: the edge sends it as a Load (its node's sums), never kept here
            // (docs/architecture.md#scale).
            return touched;
        }
        if let Some(owner) = &pod.owner_uid {
            self.by_owner
                .entry(owner.clone())
                .or_default()
                .push(pod.uid.clone());
        }
        if let Some(cell) = cell_of(&pod) {
            self.by_cell
                .entry(cell.0.clone())
                .or_default()
                .entry(cell.1.clone())
                .or_default()
                .push(pod.uid.clone());
            if !touched.contains(&cell) {
                touched.push(cell);
            }
        }
        self.by_uid.insert(pod.uid.clone(), pod);
        touched
    }

    /// Removes a pod by uid; returns the cell it was counted in, if any.
    pub(crate) fn remove(&mut self, uid: &str) -> Vec<CellKey> {
        let Some(old) = self.by_uid.remove(uid) else {
            return Vec::new();
        };
        if let Some(owner) = &old.owner_uid {
            if let Some(list) = self.by_owner.get_mut(owner) {
                remove_from(list, uid);
                if list.is_empty() {
                    self.by_owner.remove(owner);
                }
            }
        }
        let Some(cell) = cell_of(&old) else {
            return Vec::new();
        };
        if let Some(nodes) = self.by_cell.get_mut(&cell.0) {
            if let Some(list) = nodes.get_mut(&cell.1) {
                remove_from(list, uid);
                if list.is_empty() {
                    nodes.remove(&cell.1);
                }
            }
            if nodes.is_empty() {
                self.by_cell.remove(&cell.0);
            }
        }
        vec![cell]
    }

    /// Keeps only the pods for which `keep` is true (a relist of one namespace).
    pub(crate) fn retain(&mut self, keep: impl Fn(&PodFacts) -> bool) {
        let gone: Vec<String> = self
            .by_uid
            .values()
            .filter(|p| !keep(p))
            .map(|p| p.uid.clone())
            .collect();
        for uid in gone {
            self.remove(&uid);
        }
    }

    /// The pods of one DaemonSet (by uid) aimed at one node, oldest first (§c ordering).
    pub(crate) fn in_cell(&self, ds_uid: &str, node: &str) -> Vec<&PodFacts> {
        let mut pods: Vec<&PodFacts> = self
            .by_cell
            .get(ds_uid)
            .and_then(|nodes| nodes.get(node))
            .map(|uids| uids.iter().filter_map(|u| self.by_uid.get(u)).collect())
            .unwrap_or_default();
        pods.sort_by(|a, b| (a.created, &a.name).cmp(&(b.created, &b.name)));
        pods
    }

    /// The pod uids of one DaemonSet (by uid) grouped by target node.
    pub(crate) fn cells_of(&self, ds_uid: &str) -> Option<&HashMap<String, Vec<String>>> {
        self.by_cell.get(ds_uid)
    }

    /// Every daemon pod, in no particular order (the node sums' rebuild after a relist).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &PodFacts> {
        self.by_uid.values()
    }

    /// One pod by uid.
    pub(crate) fn get(&self, uid: &str) -> Option<&PodFacts> {
        self.by_uid.get(uid)
    }

    /// Every pod of one DaemonSet (by uid), in no particular order (the revision history
    /// groups them by hash; tests compare relists).
    pub(crate) fn of_daemonset(&self, ds_uid: &str) -> Vec<&PodFacts> {
        self.by_owner
            .get(ds_uid)
            .map(|uids| uids.iter().filter_map(|u| self.by_uid.get(u)).collect())
            .unwrap_or_default()
    }
}
