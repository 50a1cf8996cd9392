//! The compact cluster store and the coverage cells computed from it, updated per event.
//!
//! Why incremental: at 5,000 nodes × 30 DaemonSets a full recompute is 150,000 placement
//! decisions. A node event recomputes its row, a DaemonSet event its column, a pod event one
//! cell, and each returns the `view::Delta`s the browser needs (the feed versions them). Every
//! Kubernetes rule is the domain's (`domain::scheduling`, `domain::coverage`); this file only
//! decides *which* cells to recompute. No I/O, no async: tests drive it with plain facts.

mod cells;
mod index;

use crate::cluster::projection::{Projection, RevisionFacts};
use crate::domain::coverage::CellState;
use crate::domain::scheduling::DaemonPod;
use crate::domain::view::{
    CellExplanation, DaemonSetColumn, DaemonSetDetail, Delta, MatrixSnapshot, NodeProgress,
    ResourceHealth,
};
use crate::domain::{DaemonSetFacts, NodeFacts};
use cells::Cell;
use index::PodIndex;
use std::collections::{BTreeMap, HashMap};

/// Which objects a watcher is responsible for: a relist replaces exactly these.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// All nodes (nodes are always cluster-wide).
    Nodes,
    /// DaemonSets, in one namespace or (None) all.
    DaemonSets(Option<String>),
    /// Daemon pods, in one namespace or (None) all.
    Pods(Option<String>),
    /// ControllerRevisions, in one namespace or (None) all.
    Revisions(Option<String>),
}

impl Scope {
    /// The resource name a person reads ("pods"), as in `ResourceHealth::resource`.
    pub fn resource(&self) -> &'static str {
        match self {
            Scope::Nodes => "nodes",
            Scope::DaemonSets(_) => "daemonsets",
            Scope::Pods(_) => "pods",
            Scope::Revisions(_) => "controllerrevisions",
        }
    }

    /// The label of this watcher in health and metrics: the resource, plus the namespace
    /// when the watch is limited to one.
    pub fn label(&self) -> String {
        match self {
            Scope::Nodes => "nodes".into(),
            Scope::DaemonSets(ns) | Scope::Pods(ns) | Scope::Revisions(ns) => match ns {
                Some(ns) => format!("{} in {ns}", self.resource()),
                None => self.resource().into(),
            },
        }
    }

    fn namespace_matches(ns: &Option<String>, namespace: &str) -> bool {
        ns.as_deref().is_none_or(|n| n == namespace)
    }
}

/// The projections of every watched object and the cells derived from them.
#[derive(Debug, Default)]
pub struct ClusterState {
    /// Which cluster and context this is (page header).
    cluster: String,
    nodes: BTreeMap<String, NodeFacts>,
    /// DaemonSets by `namespace/name`, with `current_revision_hash` filled from revisions.
    daemonsets: BTreeMap<String, DaemonSetFacts>,
    ds_key_by_uid: HashMap<String, String>,
    pods: PodIndex,
    /// Revisions by owner uid, then by `namespace/name`.
    revisions: HashMap<String, BTreeMap<String, RevisionFacts>>,
    /// Cells by node name, then DaemonSet key.
    cells: HashMap<String, HashMap<String, Cell>>,
    /// Column summaries by DaemonSet key.
    columns: BTreeMap<String, DaemonSetColumn>,
    health: BTreeMap<String, ResourceHealth>,
    /// Columns whose summary waits for the next `flush_columns`.
    dirty: std::collections::BTreeSet<String>,
    /// Unix seconds now; replaceable so tests are deterministic.
    clock: Clock,
}

/// A source of "now" in unix seconds (availability and ages depend on it, §c).
#[derive(Debug, Clone, Copy)]
pub struct Clock(pub fn() -> i64);

impl Default for Clock {
    fn default() -> Self {
        Clock(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        })
    }
}

impl ClusterState {
    /// An empty state for the named cluster.
    pub fn new(cluster: impl Into<String>) -> Self {
        Self {
            cluster: cluster.into(),
            ..Self::default()
        }
    }

    /// The same, with a fixed clock (tests).
    pub fn with_clock(cluster: impl Into<String>, clock: Clock) -> Self {
        Self {
            cluster: cluster.into(),
            clock,
            ..Self::default()
        }
    }

    fn now(&self) -> i64 {
        (self.clock.0)()
    }

    /// The cluster name shown in the page header.
    pub fn cluster(&self) -> &str {
        &self.cluster
    }

    /// Number of (nodes, daemonsets, daemon pods) held; for logs and metrics.
    pub fn counts(&self) -> (usize, usize, usize) {
        (self.nodes.len(), self.daemonsets.len(), self.pods.len())
    }

    /// The summary column of one DaemonSet, if known.
    pub fn column(&self, key: &str) -> Option<&DaemonSetColumn> {
        self.columns.get(key)
    }

    /// Every column, in key order.
    pub fn columns(&self) -> impl Iterator<Item = &DaemonSetColumn> {
        self.columns.values()
    }

    /// The facts of one DaemonSet (with its current revision hash), if known.
    pub fn daemonset(&self, key: &str) -> Option<&DaemonSetFacts> {
        self.daemonsets.get(key)
    }

    /// The facts of one node, if known.
    pub fn node(&self, name: &str) -> Option<&NodeFacts> {
        self.nodes.get(name)
    }

    /// Every node, in name order.
    pub fn nodes(&self) -> impl Iterator<Item = &NodeFacts> {
        self.nodes.values()
    }

    /// The state of one cell, if both the node and the DaemonSet are known.
    pub fn cell(&self, node: &str, ds_key: &str) -> Option<CellState> {
        self.cells.get(node)?.get(ds_key).map(|c| c.state)
    }

    /// The DaemonSet (`namespace/name`) and node of a known daemon pod (by uid), so that the
    /// pod's events can be filed on both pages.
    pub fn home_of_pod(&self, pod_uid: &str) -> Option<crate::cluster::events::PodHome> {
        let pod = self.pods.get(pod_uid)?;
        let owner = pod.owner_uid.as_deref()?;
        Some(crate::cluster::events::PodHome {
            daemonset: self.ds_key_by_uid.get(owner)?.clone(),
            node: pod.node_name.clone(),
        })
    }

    /// The daemon pods of one DaemonSet (by uid) aimed at one node.
    pub fn pods_in_cell(&self, ds_uid: &str, node: &str) -> Vec<&crate::domain::PodFacts> {
        self.pods.in_cell(ds_uid, node)
    }

    /// Applies one added or modified object and returns the deltas it causes.
    pub fn apply(&mut self, object: Projection) -> Vec<Delta> {
        match object {
            Projection::Node(node) => self.apply_node(node),
            Projection::DaemonSet(ds) => self.apply_daemonset(ds),
            Projection::Pod(pod) => {
                let touched = self.pods.upsert(pod);
                self.refresh_pod_cells(touched)
            }
            Projection::Revision(rev) => self.apply_revision(rev),
        }
    }

    /// Removes one deleted object (identified by its last projection) and returns the deltas.
    pub fn delete(&mut self, object: &Projection) -> Vec<Delta> {
        match object {
            Projection::Node(node) => self.delete_node(&node.name),
            Projection::DaemonSet(ds) => self.delete_daemonset(&ds.key()),
            Projection::Pod(pod) => {
                let touched = self.pods.remove(&pod.uid);
                self.refresh_pod_cells(touched)
            }
            Projection::Revision(rev) => self.delete_revision(rev),
        }
    }

    /// Replaces everything in `scope` with `objects` (a watcher's relist after a restart or a
    /// 410): objects not listed are gone, so no stale cell survives. Recomputes the whole
    /// matrix once instead of per object; the caller sends a fresh snapshot afterwards.
    pub fn replace(&mut self, scope: &Scope, objects: Vec<Projection>) {
        match scope {
            Scope::Nodes => self.nodes.clear(),
            Scope::DaemonSets(ns) => {
                self.daemonsets
                    .retain(|_, ds| !Scope::namespace_matches(ns, &ds.namespace));
                self.ds_key_by_uid = self
                    .daemonsets
                    .iter()
                    .map(|(k, ds)| (ds.uid.clone(), k.clone()))
                    .collect();
            }
            Scope::Pods(ns) => self
                .pods
                .retain(|p| !Scope::namespace_matches(ns, &p.namespace)),
            Scope::Revisions(ns) => {
                for revs in self.revisions.values_mut() {
                    revs.retain(|_, r| !Scope::namespace_matches(ns, &r.namespace));
                }
                self.revisions.retain(|_, revs| !revs.is_empty());
            }
        }
        for object in objects {
            match object {
                Projection::Node(node) => {
                    self.nodes.insert(node.name.clone(), node);
                }
                Projection::DaemonSet(ds) => {
                    self.insert_daemonset_facts(ds);
                }
                Projection::Pod(pod) => {
                    self.pods.upsert(pod);
                }
                Projection::Revision(rev) => {
                    self.insert_revision(rev);
                }
            }
        }
        let keys: Vec<String> = self.daemonsets.keys().cloned().collect();
        for key in keys {
            self.sync_revision_hash(&key);
        }
        self.recompute_all();
    }

    /// Records the health of one watcher; a delta when it changed.
    pub fn set_health(&mut self, health: ResourceHealth) -> Option<Delta> {
        if self.health.get(&health.resource) == Some(&health) {
            return None;
        }
        self.health.insert(health.resource.clone(), health.clone());
        Some(Delta::Health(health))
    }

    /// The health of every watcher, in resource order.
    pub fn health(&self) -> Vec<ResourceHealth> {
        self.health.values().cloned().collect()
    }

    /// The whole matrix, labelled with `version` (the feed's version at this state).
    pub fn snapshot(&self, version: u64) -> MatrixSnapshot {
        let keys: Vec<&String> = self.columns.keys().collect();
        let nodes = self
            .nodes
            .values()
            .map(|node| {
                let row = self.cells.get(&node.name);
                let states = keys
                    .iter()
                    .map(|k| {
                        row.and_then(|r| r.get(*k))
                            .map_or(CellState::Excluded, |c| c.state)
                    })
                    .collect();
                cells::node_row(node, states)
            })
            .collect();
        MatrixSnapshot {
            version,
            cluster: self.cluster.clone(),
            daemonsets: self.columns.values().cloned().collect(),
            nodes,
            health: self.health(),
        }
    }

    /// Why one cell is what it is; `now` in unix seconds (pod ages, availability).
    pub fn explain(
        &self,
        node: &str,
        ds_key: &str,
        now: i64,
    ) -> Result<CellExplanation, crate::cluster::LookupError> {
        let node_facts = self
            .nodes
            .get(node)
            .ok_or_else(|| crate::cluster::LookupError::NodeNotFound(node.to_string()))?;
        let ds = self
            .daemonsets
            .get(ds_key)
            .ok_or_else(|| crate::cluster::LookupError::DaemonSetNotFound(ds_key.to_string()))?;
        let pods = self.pods.in_cell(&ds.uid, node);
        Ok(cells::explain(node_facts, ds, &pods, now))
    }

    /// A DaemonSet's rollout page: its column and every node's cell with its pods.
    pub fn detail(
        &self,
        ds_key: &str,
        version: u64,
        now: i64,
    ) -> Result<DaemonSetDetail, crate::cluster::LookupError> {
        let not_found = || crate::cluster::LookupError::DaemonSetNotFound(ds_key.to_string());
        let ds = self.daemonsets.get(ds_key).ok_or_else(not_found)?;
        let column = self.columns.get(ds_key).cloned().ok_or_else(not_found)?;
        let nodes = self
            .nodes
            .keys()
            .filter_map(|name| {
                let cell = self.cells.get(name)?.get(ds_key)?;
                Some(NodeProgress {
                    node: name.clone(),
                    state: cell.state,
                    should_run: cell.should_run,
                    pods: self
                        .pods
                        .in_cell(&ds.uid, name)
                        .into_iter()
                        .map(|p| cells::pod_summary(ds, p, now))
                        .collect(),
                })
            })
            .collect();
        Ok(DaemonSetDetail {
            version,
            column,
            current_revision: ds.current_revision_hash.clone(),
            generation: ds.generation,
            observed_generation: ds.status.as_ref().map(|s| s.observed_generation),
            nodes,
        })
    }

    // ---- nodes -------------------------------------------------------------------------

    fn apply_node(&mut self, node: NodeFacts) -> Vec<Delta> {
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

    fn delete_node(&mut self, name: &str) -> Vec<Delta> {
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

    fn row_of(&self, name: &str) -> crate::domain::view::NodeRow {
        let row = self.cells.get(name);
        let states = self
            .columns
            .keys()
            .map(|k| {
                row.and_then(|r| r.get(k))
                    .map_or(CellState::Excluded, |c| c.state)
            })
            .collect();
        match self.nodes.get(name) {
            Some(node) => cells::node_row(node, states),
            None => cells::node_row(
                &NodeFacts {
                    name: name.to_string(),
                    ..NodeFacts::default()
                },
                states,
            ),
        }
    }

    /// Recomputes every cell of one node; returns the cells whose state changed.
    fn recompute_row(&mut self, name: &str) -> Vec<(String, CellState)> {
        let Some(node) = self.nodes.get(name) else {
            return Vec::new();
        };
        let now = self.now();
        let fresh: Vec<(String, Cell)> = self
            .daemonsets
            .iter()
            .map(|(key, ds)| {
                let compiled = DaemonPod::new(&ds.template);
                (
                    key.clone(),
                    cells::cell(&compiled, node, ds, &self.pods.in_cell(&ds.uid, name), now),
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

    // ---- daemonsets --------------------------------------------------------------------

    fn insert_daemonset_facts(&mut self, mut ds: DaemonSetFacts) -> Option<DaemonSetFacts> {
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

    fn apply_daemonset(&mut self, ds: DaemonSetFacts) -> Vec<Delta> {
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
    fn column_deltas(&mut self, key: &str, is_new: bool) -> Vec<Delta> {
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

    fn delete_daemonset(&mut self, key: &str) -> Vec<Delta> {
        let Some(ds) = self.daemonsets.remove(key) else {
            return Vec::new();
        };
        self.ds_key_by_uid.remove(&ds.uid);
        self.columns.remove(key);
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
        let now = self.now();
        let compiled = DaemonPod::new(&ds.template);
        let mut changed = Vec::new();
        for (name, node) in &self.nodes {
            let cell = cells::cell(&compiled, node, ds, &self.pods.in_cell(&ds.uid, name), now);
            let row = self.cells.entry(name.clone()).or_default();
            if row.insert(key.to_string(), cell).map(|c| c.state) != Some(cell.state) {
                changed.push((name.clone(), cell.state));
            }
        }
        changed
    }

    /// The column summary from the column's cells and pods (the domain's rules).
    fn summarise(&self, key: &str) -> Option<DaemonSetColumn> {
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
        Some(cells::column(ds, &slots, self.now()))
    }

    /// Marks a column's summary for the next `flush_columns`.
    fn mark_dirty(&mut self, key: &str) {
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
    /// became ready, §c) without any event: refreshes the summaries of the DaemonSets that
    /// set `minReadySeconds`, returning the columns that changed.
    pub fn tick(&mut self) -> Vec<Delta> {
        self.mark_time_dependent();
        self.flush_columns()
    }

    /// Marks the summaries that time alone can change (DaemonSets with `minReadySeconds`)
    /// for the next flush, so the live layer can recompute them one column per lock.
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

    // ---- pods --------------------------------------------------------------------------

    /// Recomputes the cells a pod change touched (its old and new place) and their columns.
    fn refresh_pod_cells(&mut self, touched: Vec<(String, String)>) -> Vec<Delta> {
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

    // ---- revisions ---------------------------------------------------------------------

    fn insert_revision(&mut self, rev: RevisionFacts) {
        let id = format!("{}/{}", rev.namespace, rev.name);
        self.revisions
            .entry(rev.owner_uid.clone())
            .or_default()
            .insert(id, rev);
    }

    /// The hash of the owned revision with the highest `revision` number (§d.4).
    fn current_hash(&self, ds_uid: &str) -> Option<String> {
        self.revisions
            .get(ds_uid)?
            .values()
            .max_by_key(|r| (r.revision, r.name.clone()))
            .map(|r| r.hash.clone())
    }

    /// Copies the current revision hash into the DaemonSet; true when it changed.
    fn sync_revision_hash(&mut self, key: &str) -> bool {
        let Some(uid) = self.daemonsets.get(key).map(|ds| ds.uid.clone()) else {
            return false;
        };
        let Some(hash) = self.current_hash(&uid) else {
            return false;
        };
        match self.daemonsets.get_mut(key) {
            Some(ds) if ds.current_revision_hash != hash => {
                ds.current_revision_hash = hash;
                true
            }
            _ => false,
        }
    }

    fn apply_revision(&mut self, rev: RevisionFacts) -> Vec<Delta> {
        let owner = rev.owner_uid.clone();
        self.insert_revision(rev);
        self.after_revision_change(&owner)
    }

    fn delete_revision(&mut self, rev: &RevisionFacts) -> Vec<Delta> {
        if let Some(revs) = self.revisions.get_mut(&rev.owner_uid) {
            revs.remove(&format!("{}/{}", rev.namespace, rev.name));
            if revs.is_empty() {
                self.revisions.remove(&rev.owner_uid);
            }
        }
        self.after_revision_change(&rev.owner_uid)
    }

    fn after_revision_change(&mut self, owner_uid: &str) -> Vec<Delta> {
        let Some(key) = self.ds_key_by_uid.get(owner_uid).cloned() else {
            return Vec::new();
        };
        if self.sync_revision_hash(&key) {
            self.column_deltas(&key, false)
        } else {
            Vec::new()
        }
    }

    // ---- bulk --------------------------------------------------------------------------

    fn recompute_all(&mut self) {
        self.cells.retain(|name, _| self.nodes.contains_key(name));
        let keys: Vec<String> = self.daemonsets.keys().cloned().collect();
        for row in self.cells.values_mut() {
            row.retain(|k, _| self.daemonsets.contains_key(k));
        }
        self.columns.retain(|k, _| self.daemonsets.contains_key(k));
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

#[cfg(test)]
mod tests;
