//! The watch history's window: how long a change stays readable (for watches resuming from a
//! resourceVersion and for `continue` pages of a list), and the hard caps that protect memory.
//!
//! Why a time and not a count: kube-apiserver keeps an older revision readable until etcd
//! compacts it, and it asks etcd to compact every `--etcd-compaction-interval` (5 minutes by
//! default), whatever the number of writes. A busy cluster (5,000 nodes whose 150,000 pods
//! are turning Ready) writes hundreds of thousands of changes in those minutes; a history
//! bounded by a count of changes expired a `kubectl get pods -A -o json` half way through its
//! pages, where kube-apiserver would have served every page (wire §2, paging).
//!
//! The window is measured on the process's monotonic clock, not on the simulated clock: the
//! compaction is the API server's, and a simulation running at speed 100 must not expire a
//! continue token in three real seconds. The caps (entries and JSON bytes) only ever bite
//! when something writes far faster than a 5,000-node cluster does; they are what bounds
//! the sim's memory, the window is what a client sees.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{HistoryEntry, State, StoreError, StoreSettings};

/// A monotonic clock: time elapsed since an arbitrary start. Tests move it by hand.
pub type ElapsedFn = Arc<dyn Fn() -> Duration + Send + Sync>;

/// kube-apiserver's default `--etcd-compaction-interval`.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(5 * 60);

/// The real monotonic clock, counted from its creation.
pub fn monotonic() -> ElapsedFn {
    let start = Instant::now();
    Arc::new(move || start.elapsed())
}

/// What the history holds right now (for benchmarks, the README's figures and tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryStats {
    /// Changes held.
    pub entries: usize,
    /// JSON bytes of the objects those changes carry (an object shared with the current state
    /// is counted too, so this over-estimates what the history alone keeps alive).
    pub bytes: usize,
    /// Age of the oldest change held.
    pub oldest_age: Duration,
}

impl State {
    /// Drop the changes that have left the window or exceed a cap, oldest first; the newest
    /// change always stays.
    pub(crate) fn compact(&mut self, settings: &StoreSettings, now: Duration) {
        let limit = settings.history_limit.max(1);
        while self.history.len() > 1 {
            let Some(front) = self.history.front() else {
                break;
            };
            let over = self.history.len() > limit
                || self.history_bytes > settings.history_max_bytes
                || now.saturating_sub(front.at) > settings.history_window;
            if !over {
                break;
            }
            if let Some(old) = self.history.pop_front() {
                self.history_bytes = self.history_bytes.saturating_sub(old.object.raw.len());
                self.evicted_rv = old.resource_version;
            }
        }
    }

    /// Append a change to the history and account for its bytes.
    pub(crate) fn record(&mut self, entry: HistoryEntry) {
        self.history_bytes = self.history_bytes.saturating_add(entry.object.raw.len());
        self.history.push_back(entry);
    }

    /// Whether the state at resourceVersion `at` can still be read: Gone once a change after
    /// `at` has been dropped, or is older than the window (the sim compacts only when it
    /// writes; a read between writes sees the window as etcd's compaction would have left it).
    pub(crate) fn retained(
        &self,
        at: u64,
        settings: &StoreSettings,
        now: Duration,
    ) -> Result<(), StoreError> {
        let gone = |oldest: u64| StoreError::Gone {
            requested: at,
            oldest,
        };
        if at < self.evicted_rv {
            return Err(gone(self.evicted_rv + 1));
        }
        let first_after = self.history.partition_point(|e| e.resource_version <= at);
        if let Some(next) = self.history.get(first_after) {
            if now.saturating_sub(next.at) > settings.history_window {
                let oldest = self
                    .history
                    .iter()
                    .find(|e| now.saturating_sub(e.at) <= settings.history_window)
                    .map_or(self.rv, |e| e.resource_version);
                return Err(gone(oldest));
            }
        }
        Ok(())
    }

    /// The history's size and age.
    pub(crate) fn history_stats(&self, now: Duration) -> HistoryStats {
        HistoryStats {
            entries: self.history.len(),
            bytes: self.history_bytes,
            oldest_age: self
                .history
                .front()
                .map_or(Duration::ZERO, |e| now.saturating_sub(e.at)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use k8s_openapi::api::core::v1::Node;
    use serde_json::json;

    use super::*;
    use crate::edge::testing;
    use crate::store::{Kind, Store};

    /// A store whose history clock a test moves by hand; `history_limit` as given.
    fn store_with_clock(history_limit: usize) -> (Store, Arc<AtomicU64>) {
        let secs = Arc::new(AtomicU64::new(0));
        let clock = secs.clone();
        let store = Store::new(StoreSettings {
            history_limit,
            history_clock: Arc::new(move || Duration::from_secs(clock.load(Ordering::SeqCst))),
            ..StoreSettings::default()
        });
        (store, secs)
    }

    fn relabel(store: &Store, name: &str, i: usize) {
        let mut n: Node = store.get(None, name).expect("node");
        n.metadata
            .labels
            .get_or_insert_with(Default::default)
            .insert("i".into(), i.to_string());
        store.update(n).expect("relabel");
    }

    /// wire §2 (paging): kube-apiserver serves a continue page until etcd compacts, every 5
    /// minutes by default, however many changes were made meanwhile; a count of 100,000
    /// changes (the sim's old bound) is passed in seconds by a 5,000-node cluster.
    #[test]
    fn a_continue_page_stays_readable_across_more_than_100000_changes_within_the_window() {
        let (store, secs) = store_with_clock(crate::store::HISTORY_LIMIT);
        for name in ["a", "b", "c"] {
            store
                .create(testing::node(name, json!({"pool": "x"})))
                .expect("create");
        }
        let first = store.list_page(Kind::Node, None, None, Some(1), &|_| true);
        let after = first.next_key.expect("more pages");
        for i in 0..100_050 {
            relabel(&store, "b", i);
        }
        secs.store(299, Ordering::SeqCst);
        let rest = store
            .list_page_at(
                Kind::Node,
                None,
                Some(&after),
                None,
                &|_| true,
                first.resource_version,
            )
            .expect("still within the 5-minute window");
        let b = rest.items.first().expect("b");
        assert_eq!(b.facts.name, "b");
        assert!(b.resource_version <= first.resource_version, "b as it was");
        assert!(store.history_stats().entries > 100_000);
    }

    /// Once a change after the token's revision is older than the window, the revision is
    /// compacted: Gone, with or without a write since (etcd compacts on its own timer).
    #[test]
    fn a_revision_expires_once_the_change_after_it_has_left_the_window() {
        let (store, secs) = store_with_clock(crate::store::HISTORY_LIMIT);
        store.create(testing::node("a", json!({}))).expect("create");
        let at = store.resource_version();
        secs.store(10, Ordering::SeqCst);
        relabel(&store, "a", 1);
        secs.store(10 + 300, Ordering::SeqCst);
        assert!(
            store.history_since(Kind::Node, at, 10).is_ok(),
            "at the edge"
        );
        secs.store(10 + 301, Ordering::SeqCst);
        assert!(matches!(
            store.history_since(Kind::Node, at, 10),
            Err(StoreError::Gone { requested, .. }) if requested == at
        ));
        assert!(store
            .list_page_at(Kind::Node, None, None, None, &|_| true, at)
            .is_err());
        // The latest revision stays readable however old: nothing changed after it.
        let latest = store.resource_version();
        assert!(store.history_since(Kind::Node, latest, 10).is_ok());
        // A write compacts what left the window.
        relabel(&store, "a", 2);
        assert_eq!(store.history_stats().entries, 1);
    }

    /// The caps bound memory whatever the window: the oldest changes go first.
    #[test]
    fn the_entry_and_byte_caps_drop_the_oldest_changes() {
        let (store, _) = store_with_clock(4);
        store.create(testing::node("a", json!({}))).expect("create");
        for i in 0..10 {
            relabel(&store, "a", i);
        }
        let stats = store.history_stats();
        assert_eq!(stats.entries, 4);
        let one = stats.bytes / 4;
        let small = Store::new(StoreSettings {
            history_max_bytes: one * 2,
            ..StoreSettings::default()
        });
        small.create(testing::node("a", json!({}))).expect("create");
        for i in 0..10 {
            relabel(&small, "a", i);
        }
        let s = small.history_stats();
        assert!(s.entries <= 3 && s.bytes <= one * 3, "{s:?}");
    }
}
