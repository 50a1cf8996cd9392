//! The server's copy of the whole matrix, and the windows it cuts from it for browsers.
//!
//! Why a copy: building a `MatrixSnapshot` from the cluster state takes the state's lock and
//! 150,000 lookups at 5,000 nodes; cutting every browser's window from a fresh one on every
//! change would stall the watchers. One task applies the feed's deltas to one `LiveState`
//! (the same code a browser would run) and every view reads it under a read lock. A browser
//! then receives only its window (`/api/view`, [`super::get_matrix_window`]), never the matrix.

use crate::cluster::feed::FeedItem;
use crate::cluster::live::Start;
use crate::cluster::Live;
use crate::domain::labels::LabelSelector;
use crate::domain::view::{LiveMessage, MatrixSnapshot};
use crate::views::live_state::LiveState;
use crate::views::matrix::query::{parse_query, MatrixQuery, ParsedQuery};
use crate::views::matrix::window::{cut_window_with, MatrixWindow};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock, RwLockReadGuard, Weak};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;

/// The whole matrix at the feed's latest version, and a signal when it moves.
#[derive(Debug)]
pub struct MatrixCache {
    state: RwLock<LiveState>,
    changed: watch::Sender<u64>,
}

impl MatrixCache {
    /// A cache of `live`'s matrix, kept current by a task that ends with `live`'s feed.
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
            tracing::warn!(error = %err, "the matrix cache's first snapshot was not applied");
        }
        let (changed, _) = watch::channel(version);
        let cache = Arc::new(Self {
            state: RwLock::new(state),
            changed,
        });
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(follow(cache.clone(), Arc::downgrade(live), rx));
        }
        cache
    }

    /// Wakes when the matrix moved to a newer version (many moves wake a slow reader once).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn read(&self) -> RwLockReadGuard<'_, LiveState> {
        self.state
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` on the latest matrix (`None` before the first snapshot).
    pub fn with_snapshot<T>(&self, f: impl FnOnce(&MatrixSnapshot) -> T) -> Option<T> {
        self.read().snapshot().map(f)
    }

    /// The window `query` asks for, cut from the latest matrix. The label selector is matched
    /// against `live`'s full node labels (a matrix row carries only a few).
    pub fn window(&self, live: &Live, query: &MatrixQuery) -> MatrixWindow {
        let selected: Option<HashSet<String>> = (!query.selector.is_empty()).then(|| {
            // `parse_query` keeps only selectors that parse; one that does not matches nothing.
            LabelSelector::parse(&query.selector)
                .map(|selector| live.nodes_matching(&selector).into_iter().collect())
                .unwrap_or_default()
        });
        let state = self.read();
        match state.snapshot() {
            Some(snapshot) => cut_window_with(snapshot, query, selected.as_ref()),
            None => cut_window_with(&empty(), query, selected.as_ref()),
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

/// Applies the feed to the cache until the feed closes; a relist or a lag takes a snapshot.
async fn follow(
    cache: Arc<MatrixCache>,
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
            let mut state = cache
                .state
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Err(err) = state.apply(message) {
                tracing::warn!(error = %err, "a feed message did not fit the matrix cache; resnapshotting");
                if let Some(live) = live.upgrade() {
                    let _ = state.apply(LiveMessage::Snapshot(live.snapshot()));
                }
            }
            state.version()
        };
        cache.changed.send_replace(version);
    }
}

/// Parses a matrix query string (`q=…&selector=…&page=2`, without the `?`) as the page's
/// router would, so the server cuts the window the page describes.
pub fn parse_query_string(raw: &str) -> ParsedQuery {
    let pairs: HashMap<String, String> = form_urlencoded::parse(raw.as_bytes())
        .into_owned()
        .collect();
    parse_query(|key| pairs.get(key).cloned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::projection::Projection;
    use crate::cluster::state::{ClusterState, Scope};

    #[tokio::test]
    async fn the_cache_follows_the_feed_and_wakes_its_readers() {
        let live = Live::new(ClusterState::new("c"), &[]);
        let cache = MatrixCache::start(&live);
        let mut changes = cache.changes();
        let parsed = parse_query_string("problems=0");
        assert_eq!(cache.window(&live, &parsed.query).total_nodes, 0);
        let node = crate::domain::testing::node("n1");
        live.apply(&Scope::Nodes, Projection::Node(node));
        live.flush().await;
        tokio::time::timeout(std::time::Duration::from_secs(5), changes.changed())
            .await
            .expect("the cache woke")
            .expect("the cache is alive");
        let w = cache.window(&live, &parsed.query);
        assert_eq!(w.total_nodes, 1);
        assert_eq!(w.rows[0].name, "n1");
    }

    #[test]
    fn garbage_in_the_query_string_becomes_notes_not_errors() {
        let parsed = parse_query_string("page=%ZZ&state=nonsense&selector=a%20in%20(");
        assert_eq!(parsed.query.page, 1);
        assert!(parsed.query.selector.is_empty());
        assert!(parsed.notes.len() >= 2, "{:?}", parsed.notes);
    }
}
