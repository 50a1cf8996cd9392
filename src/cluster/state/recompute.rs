//! Which cells an event recomputes: a node event its row, a DaemonSet event its column, a
//! pod event its old and new cell, a relist everything. The rules themselves are `cells`'.

use super::*;

impl ClusterState {
    pub(super) fn apply_node(&mut self, node: NodeFacts) -> Vec<Delta> {
        if self.nodes.get(&node.name) == Some(&node) {
            // A heartbeat or a field the rules do not read: nothing to recompute.
            return Vec::new();
        }
        let name = node.name.clone();
        let fresh_row = cells::node_row(&node, Vec::new());
        let old = self.nodes.insert(name.clone(), node);
        let new_row = old.is_none();
        let row_changed = old.is_some_and(|o| cells::node_row(&o, Vec::new()) != fresh_row);
        let changed = self.recompute_row(&name);
        let mut deltas = Vec::new();
        if new_row || row_changed {
            deltas.push(Delta::NodeUpsert(self.row_of(&name)));
        } else {
            deltas.extend(changed.iter().map(|(ds, state)| Delta::Cell {
                node: name.clone(),
                daemonset: ds.clone(),
                state: *state,
            }));
        }
        // Every column counts this node (desired, missing ...): its summary follows.
        let keys: Vec<String> = self.daemonsets.keys().cloned().collect();
        for key in &keys {
            self.mark_dirty(key);
        }
        deltas
    }

    pub(super) fn delete_node(&mut self, name: &str) -> Vec<Delta> {
        if self.nodes.remove(name).is_none() {
            return Vec::new();
        }
        self.cells.remove(name);
        let keys: Vec<String> = self.daemonsets.keys().cloned().collect();
        for key in &keys {
            self.mark_dirty(key);
        }
        vec![Delta::NodeRemoved {
            name: name.to_string(),
        }]
    }

    /// Recomputes every cell of one node; returns the cells whose state changed.
    fn recompute_row(&mut self, name: &str) -> Vec<(String, CellState)> {
        let Some(node) = self.nodes.get(name) else {
            return Vec::new();
        };
        let (now, grace) = (self.now(), self.grace);
        let fresh: Vec<(String, Cell)> = self
            .daemonsets
            .iter()
            .map(|(key, ds)| {
                let compiled = DaemonPod::new(&ds.template);
                (
                    key.clone(),
                    cells::cell(
                        &compiled,
                        node,
                        ds,
                        &self.pods.in_cell(&ds.uid, name),
                        now,
                        grace,
                    ),
                )
            })
            .collect();
        let row = self.cells.entry(name.to_string()).or_default();
        fresh
            .into_iter()
            .filter(|(key, cell)| {
                row.insert(key.clone(), *cell).map(|c| c.state) != Some(cell.state)
            })
            .map(|(key, cell)| (key, cell.state))
            .collect()
    }

    pub(super) fn insert_daemonset_facts(
        &mut self,
        mut ds: DaemonSetFacts,
    ) -> Option<DaemonSetFacts> {
        let key = ds.key();
        if let Some(hash) = self.current_hash(&ds.uid) {
            ds.current_revision_hash = hash;
        }
        if let Some(old) = self.daemonsets.get(&key) {
            if old.uid != ds.uid {
                self.ds_key_by_uid.remove(&old.uid);
            }
        }
        self.ds_key_by_uid.insert(ds.uid.clone(), key.clone());
        self.daemonsets.insert(key, ds)
    }

    pub(super) fn apply_daemonset(&mut self, ds: DaemonSetFacts) -> Vec<Delta> {
        let key = ds.key();
        let Some(old) = self.insert_daemonset_facts(ds) else {
            return self.column_deltas(&key, true);
        };
        let cells_may_change = self.daemonsets.get(&key).is_none_or(|new| {
            // Cells read the template (placement §a) and what makes a pod "updated" (§d.4);
            // a status, generation or strategy change only moves the column's summary.
            new.uid != old.uid
                || new.template != old.template
                || new.current_revision_hash != old.current_revision_hash
                || new.template_generation != old.template_generation
        });
        if cells_may_change {
            self.column_deltas(&key, false)
        } else {
            self.mark_dirty(&key);
            Vec::new()
        }
    }

    /// Recomputes a whole column; a new column is sent whole, a known one as changed cells.
    pub(super) fn column_deltas(&mut self, key: &str, is_new: bool) -> Vec<Delta> {
        let changed = self.recompute_column(key);
        let Some(column) = self.summarise(key) else {
            return Vec::new();
        };
        self.columns.insert(key.to_string(), column.clone());
        if is_new {
            let states = self
                .nodes
                .keys()
                .map(|n| (n.clone(), self.cell(n, key).unwrap_or(CellState::Excluded)))
                .collect();
            return vec![Delta::DaemonSetUpsert { column, states }];
        }
        let mut deltas: Vec<Delta> = changed
            .into_iter()
            .map(|(node, state)| Delta::Cell {
                node,
                daemonset: key.to_string(),
                state,
            })
            .collect();
        deltas.push(Delta::Column(column));
        deltas
    }

    pub(super) fn delete_daemonset(&mut self, key: &str) -> Vec<Delta> {
        let Some(ds) = self.daemonsets.remove(key) else {
            return Vec::new();
        };
        self.ds_key_by_uid.remove(&ds.uid);
        self.columns.remove(key);
        self.progress.remove(key);
        self.failed_creates.remove(key);
        for row in self.cells.values_mut() {
            row.remove(key);
        }
        vec![Delta::DaemonSetRemoved {
            key: key.to_string(),
        }]
    }

    /// Recomputes every cell of one DaemonSet; returns the cells whose state changed.
    fn recompute_column(&mut self, key: &str) -> Vec<(String, CellState)> {
        let Some(ds) = self.daemonsets.get(key) else {
            return Vec::new();
        };
        let (now, grace) = (self.now(), self.grace);
        let compiled = DaemonPod::new(&ds.template);
        let mut changed = Vec::new();
        for (name, node) in &self.nodes {
            let pods = self.pods.in_cell(&ds.uid, name);
            let cell = cells::cell(&compiled, node, ds, &pods, now, grace);
            let row = self.cells.entry(name.clone()).or_default();
            if row.insert(key.to_string(), cell).map(|c| c.state) != Some(cell.state) {
                changed.push((name.clone(), cell.state));
            }
        }
        changed
    }

    /// Recomputes the cells a pod change touched (its old and new place) and their columns.
    pub(super) fn refresh_pod_cells(&mut self, touched: Vec<(String, String)>) -> Vec<Delta> {
        let mut deltas = Vec::new();
        let mut columns = Vec::new();
        for (ds_uid, node_name) in touched {
            let Some(key) = self.ds_key_by_uid.get(&ds_uid).cloned() else {
                continue;
            };
            if !columns.contains(&key) {
                columns.push(key.clone());
            }
            let (Some(node), Some(ds)) = (self.nodes.get(&node_name), self.daemonsets.get(&key))
            else {
                continue;
            };
            let compiled = DaemonPod::new(&ds.template);
            let cell = cells::cell(
                &compiled,
                node,
                ds,
                &self.pods.in_cell(&ds_uid, &node_name),
                self.now(),
                self.grace,
            );
            let row = self.cells.entry(node_name.clone()).or_default();
            if row.insert(key.clone(), cell).map(|c| c.state) != Some(cell.state) {
                deltas.push(Delta::Cell {
                    node: node_name,
                    daemonset: key,
                    state: cell.state,
                });
            }
        }
        for key in &columns {
            self.mark_dirty(key);
        }
        deltas
    }

    /// Time alone ends a new node's grace: re-derives the rows of the nodes whose grace ended
    /// since the last call, so their `starting` cells turn `missing` without any watch event,
    /// and returns a `Delta::Cell` per changed cell (their columns follow at the next flush).
    /// Cheap enough to call every second: one comparison per node, rows only for the nodes
    /// whose grace just ended.
    pub fn expire_grace(&mut self) -> Vec<Delta> {
        let now = self.now();
        let since = std::mem::replace(&mut self.grace_checked_at, now);
        let ended: Vec<String> = self
            .nodes
            .values()
            .filter(|n| {
                self.grace
                    .ends_at(n.created)
                    .is_some_and(|end| end > since && end <= now)
            })
            .map(|n| n.name.clone())
            .collect();
        let mut deltas = Vec::new();
        for name in ended {
            let changed = self.recompute_row(&name);
            deltas.extend(changed.into_iter().map(|(ds, state)| Delta::Cell {
                node: name.clone(),
                daemonset: ds,
                state,
            }));
        }
        if !deltas.is_empty() {
            let keys: Vec<String> = self.daemonsets.keys().cloned().collect();
            for key in &keys {
                self.mark_dirty(key);
            }
        }
        deltas
    }

    /// Recomputes every cell and column after a relist (`replace`).
    pub(super) fn recompute_all(&mut self) {
        self.cells.retain(|name, _| self.nodes.contains_key(name));
        let keys: Vec<String> = self.daemonsets.keys().cloned().collect();
        for row in self.cells.values_mut() {
            row.retain(|k, _| self.daemonsets.contains_key(k));
        }
        self.columns.retain(|k, _| self.daemonsets.contains_key(k));
        self.progress.retain(|k, _| self.daemonsets.contains_key(k));
        self.failed_creates
            .retain(|k, _| self.daemonsets.contains_key(k));
        for key in &keys {
            self.recompute_column(key);
        }
        for key in &keys {
            if let Some(column) = self.summarise(key) {
                self.columns.insert(key.clone(), column);
            }
        }
        self.dirty.clear();
    }
}
