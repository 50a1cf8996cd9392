//! The server's copy of the whole matrix, the read model every window is cut from.
//!
//! Why a copy: building a `MatrixSnapshot` from the cluster state takes the watchers' lock and
//! 150,000 lookups at 5,000 nodes; cutting every browser's window from a fresh one on every
//! change would stall the watchers. One task applies the feed's deltas to one `LiveState` (the
//! same code that applies them anywhere) and every cut reads it under a read lock.

use super::replica::{Change, LiveState};
use crate::cluster::feed::FeedItem;
use crate::cluster::live::Start;
use crate::cluster::Live;
use crate::domain::view::{LiveMessage, MatrixSnapshot};
use std::sync::{Arc, RwLock, RwLockReadGuard, Weak};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;

/// The whole matrix at the feed's latest version, and a signal when it moves.
#[derive(Debug)]
pub struct ReadModel {
    state: RwLock<Replica>,
    changed: watch::Sender<u64>,
}

/// The matrix and the version at which a column's summary last changed.
#[derive(Debug, Default)]
struct Replica {
    state: LiveState,
    columns_at: u64,
}

impl ReadModel {
    /// A read model of `live`'s matrix, kept current by a task that ends with `live`'s feed.
    /// Outside a tokio runtime (a test rendering without a server) it stays at the snapshot
    /// it started with.
    pub fn start(live: &Arc<Live>) -> Arc<Self> {
        let (start, version, rx) = live.subscribe(None);
        let mut state = LiveState::default();
        let first = match start {
            Start::Snapshot(snapshot) => LiveMessage::Snapshot(*snapshot),
            Start::Resume(_) => LiveMessage::Snapshot(live.snapshot()),
        };
        if let Err(err) = state.apply(first) {
            tracing::warn!(error = %err, "the read model's first snapshot was not applied");
        }
        let (changed, _) = watch::channel(version);
        let columns_at = state.version();
        let model = Arc::new(Self {
            state: RwLock::new(Replica { state, columns_at }),
            changed,
        });
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(follow(model.clone(), Arc::downgrade(live), rx));
        }
        model
    }

    /// Wakes when the matrix moved to a newer version (many moves wake a slow reader once).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// The version the matrix is at (0 before the first snapshot).
    pub fn version(&self) -> u64 {
        self.read().state.version()
    }

    /// The version at which a DaemonSet's summary (counts, budget, template) last changed.
    pub fn columns_at(&self) -> u64 {
        self.read().columns_at
    }

    fn read(&self) -> RwLockReadGuard<'_, Replica> {
        self.state
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` on the latest matrix (an empty one before the first snapshot).
    pub fn with_snapshot<T>(&self, f: impl FnOnce(&MatrixSnapshot) -> T) -> T {
        match self.read().state.snapshot() {
            Some(snapshot) => f(snapshot),
            None => f(&empty()),
        }
    }
}

fn empty() -> MatrixSnapshot {
    MatrixSnapshot {
        version: 0,
        cluster: String::new(),
        daemonsets: Vec::new(),
        nodes: Vec::new(),
        health: Vec::new(),
    }
}

/// Applies the feed to the read model until the feed closes; a relist or a lag takes a
/// snapshot.
async fn follow(
    model: Arc<ReadModel>,
    live: Weak<Live>,
    mut rx: tokio::sync::broadcast::Receiver<FeedItem>,
) {
    loop {
        let message = match rx.recv().await {
            Ok(FeedItem::Deltas { version, deltas }) => LiveMessage::Deltas {
                version,
                deltas: deltas.as_ref().clone(),
            },
            Ok(FeedItem::Reset { .. }) | Err(RecvError::Lagged(_)) => match live.upgrade() {
                Some(live) => LiveMessage::Snapshot(live.snapshot()),
                None => break,
            },
            Err(RecvError::Closed) => break,
        };
        let version = {
            let mut replica = model
                .state
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let columns_moved = match replica.state.apply(message) {
                Ok(changes) => changes.iter().any(|c| {
                    matches!(c, Change::Reset | Change::Structure | Change::Column { .. })
                }),
                Err(err) => {
                    tracing::warn!(error = %err, "a feed message did not fit the read model; resnapshotting");
                    if let Some(live) = live.upgrade() {
                        let _ = replica.state.apply(LiveMessage::Snapshot(live.snapshot()));
                    }
                    true
                }
            };
            let version = replica.state.version();
            if columns_moved {
                replica.columns_at = version;
            }
            version
        };
        model.changed.send_replace(version);
    }
}
