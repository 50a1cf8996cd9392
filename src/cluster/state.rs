//! The compact cluster store and the coverage cells computed from it, updated per event.
//!
//! Why incremental: at 5,000 nodes × 30 DaemonSets a full recompute is 150,000 placement
//! decisions. A node event recomputes its row, a DaemonSet event its column, a pod event one
//! cell, and each returns the `view::Delta`s the browser needs (the feed versions them). Every
//! Kubernetes rule is the domain's (`domain::scheduling`, `domain::coverage`); this file only
//! decides *which* cells to recompute. No I/O, no async: tests drive it with plain facts.
//!
//! This file holds the store itself (what is kept, how events and relists enter it); by idea:
//! `index` (pods by cell), `cells` (the bridge to the domain rules), `recompute` (which cells
//! an event recomputes), `summaries` (column summaries, deferred to a flush), `revisions`
//! (the current revision hash), `views` (snapshot, explanation, detail: what the pages read).

mod cells;
mod index;
mod loads;
pub use loads::NodeLoad;
mod recompute;
mod revisions;
pub use revisions::RevisionPods;
mod room;
mod summaries;
mod views;

use crate::cluster::projection::{Projection, RevisionFacts};
use crate::domain::coverage::{CellState, NewNodeGrace};
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
    /// What the pods bound to each node request, workload pods included (§j.3).
    loads: loads::NodeLoads,
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
    /// How long a new node's missing daemon pods show as `starting` (issue 14 item 5).
    grace: NewNodeGrace,
    /// The clock reading up to which grace ends have been applied (`expire_grace`): every
    /// cell was computed at or after it, so a grace ending later is still to come.
    grace_checked_at: i64,
    /// Each RollingUpdate DaemonSet's progress samples (bounded), by key.
    progress: HashMap<String, crate::domain::rollout::ProgressLog>,
    /// Recent FailedCreate events by DaemonSet key (a stall's cause).
    failed_creates: HashMap<String, Vec<crate::domain::rollout::FailedCreate>>,
    /// The pace window and the stall threshold (`serve --stall-after`).
    pace_settings: crate::domain::rollout::PaceSettings,
}

/// A source of "now" in unix seconds (availability, ages and the new-node grace depend on
/// it). Why replaceable: the clock must be the one the cluster's timestamps come from, wall
/// time for a real cluster, the simulated clock for the embedded demo (which may run fast),
/// and a fixed reading in tests.
#[derive(Clone)]
pub struct Clock(std::sync::Arc<dyn Fn() -> i64 + Send + Sync>);

impl Clock {
    /// A clock that reads `now`.
    pub fn new(now: impl Fn() -> i64 + Send + Sync + 'static) -> Self {
        Clock(std::sync::Arc::new(now))
    }

    /// Unix seconds now.
    pub fn now(&self) -> i64 {
        (self.0)()
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Clock").field(&self.now()).finish()
    }
}

impl Default for Clock {
    /// Wall time, as a real cluster's timestamps are.
    fn default() -> Self {
        Clock::new(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        })
    }
}

impl ClusterState {
    /// An empty state for the named cluster, on wall time, with the default new-node grace.
    pub fn new(cluster: impl Into<String>) -> Self {
        Self::with_clock(cluster, Clock::default())
    }

    /// The same, with another clock (the simulated cluster's, or a fixed one in tests).
    pub fn with_clock(cluster: impl Into<String>, clock: Clock) -> Self {
        let grace_checked_at = clock.now();
        Self {
            cluster: cluster.into(),
            clock,
            grace: NewNodeGrace::default(),
            grace_checked_at,
            ..Self::default()
        }
    }

    /// The same state with another new-node grace (`--new-node-grace`); set before the first
    /// object arrives, since cells are computed with it.
    pub fn with_grace(mut self, grace: NewNodeGrace) -> Self {
        self.grace = grace;
        self
    }

    /// The new-node grace the cells are computed with.
    pub fn grace(&self) -> NewNodeGrace {
        self.grace
    }

    /// Unix seconds now, on the clock the cells are computed with: the pages' ages and the
    /// explanation's "turns missing in" read the same clock as the cells.
    pub fn now(&self) -> i64 {
        self.clock.now()
    }

    /// The same, with the stall threshold set (`serve --stall-after`, seconds).
    pub fn with_stall_after(mut self, seconds: i64) -> Self {
        self.pace_settings.stall_after_seconds = seconds.max(1);
        self
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

    /// The facts of the DaemonSet with this uid (a pod's controller reference, §f), if known.
    pub fn daemonset_by_uid(&self, uid: &str) -> Option<&DaemonSetFacts> {
        self.daemonsets.get(self.ds_key_by_uid.get(uid)?)
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

    /// Applies one added or modified object and returns the deltas it causes.
    pub fn apply(&mut self, object: Projection) -> Vec<Delta> {
        match object {
            Projection::Node(node) => self.apply_node(node),
            Projection::DaemonSet(ds) => self.apply_daemonset(ds),
            Projection::Pod(pod) => {
                self.loads.remove_workload(&pod.uid);
                if let Some(old) = self.pods.get(&pod.uid) {
                    self.loads.add_daemon(old, -1);
                }
                if pod.owner_uid.is_some() {
                    // The index keeps only owned pods; an ownerless one arrives as a Load.
                    self.loads.add_daemon(&pod, 1);
                }
                let touched = self.pods.upsert(pod);
                self.refresh_pod_cells(touched)
            }
            Projection::Load(load) => {
                let touched = self.forget_daemon_pod(&load.uid);
                self.loads.upsert_workload(load);
                self.refresh_pod_cells(touched)
            }
            Projection::Revision(rev) => self.apply_revision(rev),
        }
    }

    /// Removes a daemon pod by uid, its requests with it; returns the cells it left.
    fn forget_daemon_pod(&mut self, uid: &str) -> Vec<index::CellKey> {
        if let Some(old) = self.pods.get(uid) {
            self.loads.add_daemon(old, -1);
        }
        self.pods.remove(uid)
    }

    /// What the pods bound to a node request, workload pods included (§j.3).
    pub fn node_load(&self, node: &str) -> NodeLoad {
        self.loads.of(node)
    }

    /// Number of workload pods (no DaemonSet owner) counted in the node sums.
    pub fn workload_pods(&self) -> usize {
        self.loads.workload_len()
    }

    /// Removes one deleted object (identified by its last projection) and returns the deltas.
    pub fn delete(&mut self, object: &Projection) -> Vec<Delta> {
        match object {
            Projection::Node(node) => self.delete_node(&node.name),
            Projection::DaemonSet(ds) => self.delete_daemonset(&ds.key()),
            Projection::Pod(pod) => {
                self.loads.remove_workload(&pod.uid);
                let touched = self.forget_daemon_pod(&pod.uid);
                self.refresh_pod_cells(touched)
            }
            Projection::Load(load) => {
                self.loads.remove_workload(&load.uid);
                let touched = self.forget_daemon_pod(&load.uid);
                self.refresh_pod_cells(touched)
            }
            Projection::Revision(rev) => self.delete_revision(rev),
        }
    }

    /// Replaces everything in `scope` with `objects` (a watcher's relist after a restart or a
    /// 410): objects not listed are gone, so no stale cell survives. Recomputes the whole
    /// matrix once instead of per object; the caller sends a fresh snapshot afterwards.
    pub fn replace(&mut self, scope: &Scope, objects: Vec<Projection>) {
        // What was counted before a (re)list may have missed objects (pods listed after their
        // DaemonSets read as nodes finishing at once): the observation of every rollout
        // starts again from the listed state.
        self.progress.clear();
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
            Scope::Pods(ns) => {
                self.pods
                    .retain(|p| !Scope::namespace_matches(ns, &p.namespace));
                self.loads.clear_workload(ns.as_deref());
            }
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
                    self.loads.remove_workload(&pod.uid);
                    self.pods.upsert(pod);
                }
                Projection::Load(load) => {
                    self.pods.remove(&load.uid);
                    self.loads.upsert_workload(load);
                }
                Projection::Revision(rev) => {
                    self.insert_revision(rev);
                }
            }
        }
        if matches!(scope, Scope::Pods(_)) {
            self.loads.rebuild_daemon(self.pods.iter());
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
}

#[cfg(test)]
mod tests;
