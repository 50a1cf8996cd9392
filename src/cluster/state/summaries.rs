//! Column summaries: computed from a column's cells and pods, deferred to a flush so a pod
//! event does not cost O(nodes).

use super::*;

impl ClusterState {
    /// The column summary from the column's cells and pods (the domain's rules).
    pub(super) fn summarise(&self, key: &str) -> Option<DaemonSetColumn> {
        let ds = self.daemonsets.get(key)?;
        let by_node = self.pods.cells_of(&ds.uid);
        // One flat list of pod references in node order, sliced per node: one allocation for
        // the column instead of one per node.
        let mut refs: Vec<&crate::domain::PodFacts> = Vec::with_capacity(self.nodes.len());
        // (node, should_run, gone, start, end)
        let mut spans: Vec<(&str, bool, bool, usize, usize)> = Vec::with_capacity(self.nodes.len());
        for name in self.nodes.keys() {
            let Some(cell) = self.cells.get(name).and_then(|r| r.get(key)) else {
                continue;
            };
            let start = refs.len();
            if let Some(uids) = by_node.and_then(|m| m.get(name)) {
                refs.extend(uids.iter().filter_map(|u| self.pods.get(u)));
            }
            spans.push((name, cell.should_run, false, start, refs.len()));
        }
        // Pods still aimed at a deleted node hold rollout budget until the pod GC removes them.
        for (name, uids) in by_node.into_iter().flatten() {
            if self.nodes.contains_key(name) {
                continue;
            }
            let start = refs.len();
            refs.extend(uids.iter().filter_map(|u| self.pods.get(u)));
            if refs.len() > start {
                spans.push((name, false, true, start, refs.len()));
            }
        }
        let slots: Vec<crate::domain::rollout::NodeSlot<'_>> = spans
            .iter()
            .map(
                |&(node, should_run, gone, start, end)| crate::domain::rollout::NodeSlot {
                    node,
                    should_run,
                    gone,
                    pods: refs.get(start..end).unwrap_or_default(),
                },
            )
            .collect();
        let row_of = |node: &str| self.cells.get(node).and_then(|r| r.get(key));
        let starting = |node: &str| row_of(node).is_some_and(|c| c.state == CellState::Starting);
        Some(cells::column(ds, &slots, self.now(), &starting))
    }

    /// Marks a column's summary for the next `flush_columns`.
    pub(super) fn mark_dirty(&mut self, key: &str) {
        if !self.dirty.contains(key) {
            self.dirty.insert(key.to_string());
        }
    }

    /// Recomputes the summaries of the columns marked since the last flush; a
    /// `Delta::Column` for each that changed. Why deferred: a summary reads every node of its
    /// column, so recomputing it per pod event would cost O(nodes) per event; cells go out at
    /// once and summaries follow at the next flush (the live layer flushes twice a second and
    /// before every snapshot).
    pub fn flush_columns(&mut self) -> Vec<Delta> {
        let mut deltas = Vec::new();
        while let Some(more) = self.flush_next() {
            deltas.extend(more);
        }
        deltas
    }

    /// Whether some column summary waits for a flush.
    pub fn has_pending_columns(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Recomputes one marked column (the first in key order); `None` when none is marked.
    /// Lets the live layer release its lock between columns.
    pub fn flush_next(&mut self) -> Option<Vec<Delta>> {
        let key = self.dirty.pop_first()?;
        Some(self.refresh_column_summary(&key).into_iter().collect())
    }

    /// Refreshes one column summary; a `Delta::Column` when it changed.
    fn refresh_column_summary(&mut self, key: &str) -> Option<Delta> {
        let column = self.summarise(key)?;
        if self.columns.get(key) == Some(&column) {
            return None;
        }
        self.columns.insert(key.to_string(), column.clone());
        Some(Delta::Column(column))
    }

    /// Time passing changes availability (a pod is available `minReadySeconds` after it
    /// became ready, §c) without any event: marks the summaries that time alone can change
    /// (DaemonSets with `minReadySeconds`) for the next flush, so the live layer can
    /// recompute them one column per lock.
    pub fn mark_time_dependent(&mut self) {
        let keys: Vec<String> = self
            .daemonsets
            .iter()
            .filter(|(_, ds)| ds.min_ready_seconds > 0)
            .map(|(k, _)| k.clone())
            .collect();
        for key in &keys {
            self.mark_dirty(key);
        }
    }
}
