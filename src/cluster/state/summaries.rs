//! Column summaries: computed from a column's cells and pods, deferred to a flush so a pod
//! event does not cost O(nodes).

use super::*;

/// FailedCreate messages kept per DaemonSet: the newest is the one a stall names.
const FAILED_CREATES_KEPT: usize = 5;

impl ClusterState {
    /// The column summary from the column's cells and pods (the domain's rules), with the
    /// rollout's pace: this records the column's progress sample (the store's clock), so every
    /// recomputation of a summary is an observation of the rollout.
    pub(super) fn summarise(&mut self, key: &str) -> Option<DaemonSetColumn> {
        let now = self.now();
        let mut log = self.progress.remove(key).unwrap_or_default();
        let column = self.summarise_with(key, now, &mut log);
        if column.is_some() {
            self.progress.insert(key.to_string(), log);
        }
        column
    }

    fn summarise_with(
        &self,
        key: &str,
        now: i64,
        log: &mut crate::domain::rollout::ProgressLog,
    ) -> Option<DaemonSetColumn> {
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
        let mut column = cells::column(ds, &slots, now, &starting);
        let young = |name: &str| {
            self.nodes
                .get(name)
                .is_some_and(|n| self.grace.covers(n.created, now))
        };
        let node_ready = |name: &str| self.nodes.get(name).map(|n| n.ready == Some(true));
        column.unschedulable = crate::domain::alerts::unschedulable_by_reason(&slots);
        column.missing_causes = Some(crate::domain::alerts::missing_causes(
            &crate::domain::alerts::MissingFacts {
                slots: &slots,
                young: &young,
                node_ready: &node_ready,
                failed_creates: self.failed_creates.get(key).map_or(&[], Vec::as_slice),
                grace: self.grace,
                now,
            },
        ));
        if matches!(
            ds.strategy,
            crate::domain::UpdateStrategy::RollingUpdate { .. }
        ) {
            let budget = match (column.max_unavailable, column.max_surge) {
                (Some(max_unavailable), Some(max_surge)) => Some(crate::domain::rollout::Budget {
                    max_unavailable,
                    max_surge,
                }),
                _ => None,
            };
            let node = |name: &str| self.nodes.get(name);
            let input = crate::domain::view::PaceInput {
                ds,
                slots: &slots,
                node: &node,
                budget,
                in_use: column.budget_in_use,
                desired: column.desired,
                complete: column.rollout_done,
                failed_creates: self.failed_creates.get(key).map_or(&[], Vec::as_slice),
                settings: self.pace_settings,
                now,
            };
            column.pace = Some(crate::domain::view::rollout_pace(&input, log));
        }
        // §l: who refuses the creations, while nodes miss the pod (the events are kept here).
        column.refused = crate::domain::coverage::refused_creation(
            self.failed_creates.get(key).map_or(&[], Vec::as_slice),
            column.missing,
        );
        // A stall (known only here, from the pace) makes outdated cells problems: recount
        // from the cells the matrix shows, with the one definition.
        let stand = crate::domain::coverage::RolloutStand::of(&column);
        if stand == crate::domain::coverage::RolloutStand::Stalled {
            column.problem_nodes = spans
                .iter()
                .filter(|(_, _, gone, _, _)| !gone)
                .filter(|(node, ..)| {
                    row_of(node)
                        .is_some_and(|c| crate::domain::coverage::is_problem(c.state, stand))
                })
                .count() as i64;
        }
        Some(column)
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

    /// A FailedCreate event about DaemonSet `key` (a stall's cause, §a.7): the newest few
    /// are kept, one per message, and the column is re-evaluated at the next flush.
    pub fn note_failed_create(&mut self, key: &str, message: String, last_seen: i64) {
        if !self.daemonsets.contains_key(key) {
            return;
        }
        let list = self.failed_creates.entry(key.to_string()).or_default();
        list.retain(|e| e.message != message);
        list.push(crate::domain::rollout::FailedCreate { message, last_seen });
        list.sort_by_key(|e| std::cmp::Reverse(e.last_seen));
        list.truncate(FAILED_CREATES_KEPT);
        self.mark_dirty(key);
    }

    /// Time passing changes availability (a pod is available `minReadySeconds` after it
    /// became ready, §c) without any event: marks the summaries that time alone can change
    /// (DaemonSets with `minReadySeconds`) for the next flush, so the live layer can
    /// recompute them one column per lock.
    /// Rollouts in progress are marked too: their rate's window slides and a stall begins with
    /// no event at all; so are columns whose missing causes are due to age. Not
    /// while a watcher is down: no event then means no data, not no progress, so the pace
    /// stays as it was last seen (docs/architecture.md#degrade-never-lie).
    pub fn mark_time_dependent(&mut self) {
        let watching = self.health.values().all(|h| h.synced && h.error.is_none());
        let rolling = |k: &String| {
            watching
                && self
                    .columns
                    .get(k)
                    .and_then(|c| c.pace.as_ref())
                    .is_some_and(|p| !p.complete)
        };
        // An unbound pod outgrowing the grace, or a refusal ageing out, changes the missing
        // causes (`alerts::missing_causes`) by the clock alone, at the time they name.
        let now = self.now();
        let due = |k: &String| {
            watching
                && self
                    .columns
                    .get(k)
                    .and_then(|c| c.missing_causes)
                    .and_then(|m| m.recheck_at)
                    .is_some_and(|at| at <= now)
        };
        let keys: Vec<String> = self
            .daemonsets
            .iter()
            .filter(|(k, ds)| ds.min_ready_seconds > 0 || rolling(k) || due(k))
            .map(|(k, _)| k.clone())
            .collect();
        for key in &keys {
            self.mark_dirty(key);
        }
    }
}
