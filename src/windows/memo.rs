//! Answers kept for one version of the read model.
//!
//! Why: some parts of a cut are read from the watched cluster itself, under the watchers'
//! lock (which nodes a label selector matches: a matrix row carries only a few labels). A
//! hundred browsers with the same selector must not take that lock a hundred times per change:
//! the first cut at a version computes the answer, the others at that version reuse it.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// Most keys kept: past it the oldest answers go (a browser's next cut computes its own again).
pub const MAX_KEYS: usize = 256;

/// Most DaemonSet details kept (each lists every node: at 5,000 nodes, a megabyte or so).
pub const MAX_DETAILS: usize = 32;

/// Per key, the answer computed at one version.
#[derive(Debug)]
pub struct VersionMemo<K, V> {
    entries: Mutex<HashMap<K, (u64, Arc<V>)>>,
    capacity: usize,
}

impl<K: Eq + Hash + Clone, V> VersionMemo<K, V> {
    /// An empty memo keeping at most `capacity` keys.
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
        }
    }

    /// The answer for `key` at `version`: the kept one if it was computed at that version,
    /// else `compute()`'s (kept for the next caller). `compute` runs without the memo's lock,
    /// so a slow one never holds up the answers for other keys.
    pub fn get_or(&self, key: &K, version: u64, compute: impl FnOnce() -> V) -> Arc<V> {
        if let Some(hit) = self
            .lock()
            .get(key)
            .filter(|(at, _)| *at == version)
            .map(|(_, v)| v.clone())
        {
            return hit;
        }
        let fresh = Arc::new(compute());
        let mut entries = self.lock();
        if entries.len() >= self.capacity && !entries.contains_key(key) {
            // Answers of older versions go first; they are stale for every caller anyway.
            let oldest = entries
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                entries.remove(&oldest);
            }
        }
        entries.insert(key.clone(), (version, fresh.clone()));
        fresh
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, (u64, Arc<V>)>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Versions of one view kept per key: a page connects to its feed a moment after the server
/// rendered it, a few versions later at most in a busy cluster.
pub const CUTS_PER_KEY: usize = 8;

/// One view's last cuts, by version, oldest first.
type Cuts<V> = Vec<(u64, Arc<V>)>;

/// The last cuts of each view, by key and version, so that a feed can start from the view a
/// browser already holds (the page's server render, or the last message before a reconnect)
/// and send only the difference: the first window is sent once.
#[derive(Debug)]
pub struct CutHistory<V> {
    entries: Mutex<HashMap<String, Cuts<V>>>,
    capacity: usize,
}

impl<V: Clone> CutHistory<V> {
    /// An empty history of at most `capacity` keys.
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
        }
    }

    /// Keeps `view`, cut for `key` at `version` (once per key and version).
    pub fn remember(&self, key: &str, version: u64, view: &V) {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !entries.contains_key(key) && entries.len() >= self.capacity {
            // The key whose newest cut is oldest goes: nobody has looked at it for longest.
            let stalest = entries
                .iter()
                .min_by_key(|(_, cuts)| cuts.last().map_or(0, |(v, _)| *v))
                .map(|(k, _)| k.clone());
            if let Some(stalest) = stalest {
                entries.remove(&stalest);
            }
        }
        let cuts = entries.entry(key.to_string()).or_default();
        if cuts.iter().any(|(v, _)| *v == version) {
            return;
        }
        cuts.push((version, Arc::new(view.clone())));
        cuts.sort_by_key(|(v, _)| *v);
        if cuts.len() > CUTS_PER_KEY {
            cuts.remove(0);
        }
    }

    /// The cut of `key` at `version`, if it is still kept.
    pub fn at(&self, key: &str, version: u64) -> Option<Arc<V>> {
        let entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        entries
            .get(key)?
            .iter()
            .find(|(v, _)| *v == version)
            .map(|(_, view)| view.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn an_answer_is_computed_once_per_key_and_version() {
        let memo: VersionMemo<String, usize> = VersionMemo::new(8);
        let calls = Cell::new(0);
        let compute = || {
            calls.set(calls.get() + 1);
            calls.get()
        };
        let key = "pool=gpu".to_string();
        assert_eq!(*memo.get_or(&key, 1, compute), 1);
        assert_eq!(*memo.get_or(&key, 1, compute), 1, "same version: kept");
        assert_eq!(
            *memo.get_or(&key, 2, compute),
            2,
            "a new version: computed again"
        );
        assert_eq!(calls.get(), 2);
    }

    #[test]
    fn past_its_capacity_the_memo_forgets_the_oldest_version_first() {
        let memo: VersionMemo<u32, u32> = VersionMemo::new(2);
        memo.get_or(&1, 10, || 1);
        memo.get_or(&2, 20, || 2);
        memo.get_or(&3, 30, || 3);
        let calls = Cell::new(0);
        memo.get_or(&2, 20, || {
            calls.set(calls.get() + 1);
            0
        });
        assert_eq!(calls.get(), 0, "key 2 at version 20 was kept");
        memo.get_or(&1, 10, || {
            calls.set(calls.get() + 1);
            0
        });
        assert_eq!(calls.get(), 1, "key 1 (the oldest) was forgotten");
    }

    #[test]
    fn a_cut_is_found_by_key_and_version_while_it_is_among_the_last_few() {
        let history: CutHistory<String> = CutHistory::new(4);
        for v in 1..=(CUTS_PER_KEY as u64 + 1) {
            history.remember("q", v, &format!("cut {v}"));
        }
        assert_eq!(history.at("q", 1), None, "the oldest went");
        assert_eq!(
            history.at("q", 2).as_deref().map(String::as_str),
            Some("cut 2")
        );
        assert_eq!(history.at("other", 2), None);
    }

    #[test]
    fn past_its_capacity_the_history_forgets_the_view_seen_least_recently() {
        let history: CutHistory<u8> = CutHistory::new(2);
        history.remember("a", 1, &1);
        history.remember("b", 5, &2);
        history.remember("c", 6, &3);
        assert_eq!(history.at("a", 1), None);
        assert!(history.at("b", 5).is_some() && history.at("c", 6).is_some());
    }
}
