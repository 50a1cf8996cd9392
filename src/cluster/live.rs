//! The live state shared by the watchers (writers) and the web layer (readers).
//!
//! Why one lock around state and feed: a snapshot and its version must agree, and a delta must
//! be published in the same order it was applied. The lock is a plain mutex held for the
//! duration of one event's update (never across an await), and the metrics are updated on
//! write so `/metrics` reads without recomputing anything. The pages' lookups live in
//! `live/lookups.rs`, their recent Events in `live/page_events.rs`.

mod freshness;
mod lookups;
mod page_events;

pub use freshness::{Cause, API_SERVER};

use crate::cluster::events::RecentEvents;
use crate::cluster::feed::{Feed, FeedItem};
use crate::cluster::metrics::Metrics;
use crate::cluster::projection::Projection;
use crate::cluster::state::{ClusterState, Scope};
use crate::domain::view::{DaemonSetColumn, Delta, MatrixSnapshot, ResourceHealth};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::broadcast;

struct Inner {
    state: ClusterState,
    feed: Feed,
    /// Scope labels that completed their first list.
    synced_once: BTreeSet<String>,
    /// Scope labels the API server refused (403) since their last list: settled for
    /// readiness, because waiting will not change the answer.
    denied: BTreeSet<String>,
}

/// Which nodes a what-if preview covers ([`Live::whatif_facts`]).
#[derive(Debug, Clone, Copy)]
pub enum WhatIfNodes<'a> {
    /// One node by name (the node page).
    One(&'a str),
    /// The nodes a label selector matches (the matrix's selector filter).
    Matching(&'a crate::domain::labels::LabelSelector),
    /// Every node (the DaemonSet page).
    All,
}

/// How a live client starts: the versions it missed, or a whole snapshot.
#[derive(Debug)]
pub enum Start {
    /// Resume: the items after the client's `Last-Event-ID`, in order.
    Resume(Vec<FeedItem>),
    /// A fresh snapshot (first connection, or too far behind).
    Snapshot(Box<MatrixSnapshot>),
}

/// The shared live state: `Arc<Live>` is handed to watchers and to the web layer.
pub struct Live {
    inner: Mutex<Inner>,
    /// Recent events per page: optional data under its own lock, so the events watcher never
    /// waits on (or delays) the matrix.
    events: Mutex<RecentEvents>,
    metrics: Metrics,
    /// The API server's readiness and the quiet watches (`live/freshness.rs`).
    freshness: Mutex<freshness::Freshness>,
    /// Scope labels that must sync before `/readyz` says ready.
    expected: Vec<String>,
    /// The watcher and ticker tasks: restarted after a panic, and `/readyz` fails while one
    /// is down, so a dead watcher never leaves a frozen page that looks live.
    tasks: daemonscope_supervise::Supervisor,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("expected", &self.expected)
            .finish_non_exhaustive()
    }
}

/// The health line of a cluster that could not be connected to ([`Live::unavailable`]).
pub const UNAVAILABLE: &str = "cluster";

/// Unix seconds now.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl Live {
    /// A live state for `cluster` whose readiness waits for every scope in `scopes`.
    pub fn new(state: ClusterState, scopes: &[Scope]) -> Arc<Self> {
        let mut state = state;
        let metrics = Metrics::new();
        for scope in scopes {
            state.set_health(ResourceHealth {
                resource: scope.label(),
                synced: false,
                error: None,
                stale_since: None,
            });
            metrics.set_synced(&scope.label(), false);
        }
        Arc::new(Self {
            inner: Mutex::new(Inner {
                state,
                feed: Feed::new(),
                synced_once: BTreeSet::new(),
                denied: BTreeSet::new(),
            }),
            events: Mutex::new(RecentEvents::new()),
            metrics,
            freshness: Mutex::new(freshness::Freshness::default()),
            expected: scopes.iter().map(Scope::label).collect(),
            tasks: daemonscope_supervise::Supervisor::new(),
        })
    }

    /// Starts and supervises this state's background tasks (watchers, ticker).
    pub fn tasks(&self) -> &daemonscope_supervise::Supervisor {
        &self.tasks
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere while holding the lock must not take the dashboard down with it.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn events(&self) -> MutexGuard<'_, RecentEvents> {
        self.events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The metrics registry.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// True once every watcher has completed its first list, or was refused by the API
    /// server (`/readyz`): a 403 on pods must not keep the nodes and DaemonSets it can show
    /// off the air.
    pub fn is_ready(&self) -> bool {
        let inner = self.lock();
        self.expected
            .iter()
            .all(|s| inner.synced_once.contains(s) || inner.denied.contains(s))
    }

    /// A watcher refused with 403: shown on the page like any failure, and settled for
    /// readiness.
    pub fn watch_denied(&self, scope: &Scope, message: String) -> Option<u64> {
        self.lock().denied.insert(scope.label());
        self.watch_failed(scope, message, false)
    }

    /// A cluster that could not be connected to at all (a context with a bad server URL, a
    /// certificate that does not parse, a missing user): no watcher runs; every page of this
    /// cluster and the fleet page say `reason` under the `cluster` line, and `/readyz` counts
    /// it not ready (its nodes are expected and never listed). Why a state and not an absent
    /// cluster: with several clusters in one process the others keep working, and this one
    /// must still say what is wrong where people look for it.
    pub fn not_connected(label: String, reason: String) -> Arc<Self> {
        let live = Self::new(ClusterState::new(label), &[Scope::Nodes]);
        {
            let mut inner = live.lock();
            if let Some(delta) = inner.state.set_health(ResourceHealth {
                resource: UNAVAILABLE.to_string(),
                synced: false,
                error: Some(reason),
                stale_since: None,
            }) {
                inner.feed.publish(vec![delta]);
            }
        }
        live
    }

    /// Keeps the per-DaemonSet metrics equal to the columns the deltas carry (a node change
    /// that alters counts re-sends the affected columns as `Delta::Column`).
    fn record_columns(&self, deltas: &[Delta]) {
        for delta in deltas {
            match delta {
                Delta::Column(column) | Delta::DaemonSetUpsert { column, .. } => {
                    self.metrics.set_column(column)
                }
                Delta::DaemonSetRemoved { key } => self.metrics.remove_column(key),
                Delta::NodeUpsert(_)
                | Delta::NodeRemoved { .. }
                | Delta::Cell { .. }
                | Delta::Health(_) => {}
            }
        }
    }

    /// An added or modified object from the watcher of `scope`.
    pub fn apply(&self, scope: &Scope, object: Projection) -> Option<u64> {
        self.metrics.event_seen(&scope.label(), unix_now());
        let mut inner = self.lock();
        let deltas = inner.state.apply(object);
        self.record_columns(&deltas);
        inner.feed.publish(deltas)
    }

    /// A deleted object from the watcher of `scope`.
    pub fn delete(&self, scope: &Scope, object: &Projection) -> Option<u64> {
        self.metrics.event_seen(&scope.label(), unix_now());
        let mut inner = self.lock();
        let deltas = inner.state.delete(object);
        self.record_columns(&deltas);
        inner.feed.publish(deltas)
    }

    /// Publishes the column summaries that pending changes moved (see
    /// `ClusterState::flush_columns`).
    fn flush_locked(&self, inner: &mut Inner) -> Option<u64> {
        let deltas = inner.state.flush_columns();
        self.record_columns(&deltas);
        inner.feed.publish(deltas)
    }

    /// Publishes pending column summaries; the watchers' companion task calls it twice a
    /// second.
    ///
    /// Why one column per lock and a pause between them: a summary reads every node of its
    /// column (milliseconds at 5,000 nodes), and a mutex released and at once re-taken by the
    /// same thread is rarely won by the watcher waiting for it (a mere yield is not enough),
    /// so without the pause thirty columns hold cell deltas back for 100–300 ms.
    pub async fn flush(&self) -> Option<u64> {
        let mut last = None;
        loop {
            {
                let mut inner = self.lock();
                let deltas = inner.state.flush_next()?;
                self.record_columns(&deltas);
                last = inner.feed.publish(deltas).or(last);
                if !inner.state.has_pending_columns() {
                    return last;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    }

    /// Re-evaluates what time alone changes: a new node's grace ending (its `starting` cells
    /// turn `missing`, sent at once as cell deltas) and availability after `minReadySeconds`
    /// (column summaries, one column per lock like `flush`).
    pub async fn tick(&self) -> Option<u64> {
        let published = {
            let mut inner = self.lock();
            let deltas = inner.state.expire_grace();
            inner.state.mark_time_dependent();
            inner.feed.publish(deltas)
        };
        self.flush().await.or(published)
    }

    /// A completed (re)list of `scope`: replaces its objects, marks it synced and healthy,
    /// and tells every client to take a fresh snapshot.
    pub fn replace(&self, scope: &Scope, objects: Vec<Projection>) -> u64 {
        self.watch_delivering(scope);
        let label = scope.label();
        self.metrics.event_seen(&label, unix_now());
        self.metrics.relisted(&label);
        self.metrics.set_synced(&label, true);
        let mut inner = self.lock();
        inner.state.replace(scope, objects);
        inner.state.set_health(ResourceHealth {
            resource: label.clone(),
            synced: true,
            error: None,
            stale_since: None,
        });
        inner.denied.remove(&label);
        inner.synced_once.insert(label);
        let columns: Vec<DaemonSetColumn> = inner.state.columns().cloned().collect();
        for column in &columns {
            self.metrics.set_column(column);
        }
        inner.feed.reset()
    }

    /// A watcher error. `lost` says the watcher lost its connection (its data is now stale);
    /// `message` is what the page shows ("cannot list pods: forbidden for user X").
    pub fn watch_failed(&self, scope: &Scope, message: String, lost: bool) -> Option<u64> {
        let label = scope.label();
        self.metrics.errored(&label);
        self.metrics.set_synced(&label, false);
        let mut inner = self.lock();
        let previous = inner
            .state
            .health()
            .into_iter()
            .find(|h| h.resource == label);
        let was_synced_once = inner.synced_once.contains(&label);
        let stale_since = match previous.as_ref().and_then(|h| h.stale_since) {
            Some(since) => Some(since),
            None if lost && was_synced_once => Some(unix_now()),
            None => None,
        };
        let health = ResourceHealth {
            resource: label,
            synced: false,
            error: Some(message),
            stale_since,
        };
        let delta = inner.state.set_health(health)?;
        inner.feed.publish(vec![delta])
    }

    /// The whole matrix at the current version.
    pub fn snapshot(&self) -> MatrixSnapshot {
        let mut inner = self.lock();
        self.flush_locked(&mut inner);
        inner.state.snapshot(inner.feed.version())
    }

    /// Runs `f` on the state (server functions that need more than the snapshot).
    pub fn read<T>(&self, f: impl FnOnce(&ClusterState) -> T) -> T {
        f(&self.lock().state)
    }

    /// Subscribes a live client: from `last_event_id` when the ring still covers it, else
    /// with a snapshot. The receiver only yields items newer than the start.
    pub fn subscribe(
        &self,
        last_event_id: Option<u64>,
    ) -> (Start, u64, broadcast::Receiver<FeedItem>) {
        let mut inner = self.lock();
        let rx = inner.feed.subscribe();
        self.flush_locked(&mut inner);
        let version = inner.feed.version();
        let start = match last_event_id.and_then(|id| inner.feed.since(id)) {
            Some(items) => Start::Resume(items),
            None => {
                if last_event_id.is_some() {
                    self.metrics.resnapshotted("resume");
                }
                Start::Snapshot(Box::new(inner.state.snapshot(version)))
            }
        };
        (start, version, rx)
    }
}
