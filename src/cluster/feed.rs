//! Versioned deltas: the ring a reconnecting browser resumes from, and the broadcast that
//! fans changes out to every live client.
//!
//! Why a ring plus a broadcast: `Last-Event-ID` resume needs the recent past, and a slow client
//! must never hold up the watchers or other clients. `tokio::sync::broadcast` is a bounded
//! queue per receiver: a receiver that falls behind gets `Lagged` and is sent a fresh snapshot
//! instead of blocking the sender.

use crate::domain::view::Delta;
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::broadcast;

/// How many versions the resume ring keeps.
pub const RING_CAPACITY: usize = 1024;
/// How many versions one live client may fall behind before it is resnapshotted.
pub const CLIENT_QUEUE: usize = 256;

/// One published version.
#[derive(Debug, Clone, PartialEq)]
pub enum FeedItem {
    /// The deltas that lead from `version - 1` to `version`.
    Deltas {
        /// The new version.
        version: u64,
        /// What changed.
        deltas: Arc<Vec<Delta>>,
    },
    /// Too much changed at once (a relist): clients take a fresh snapshot at `version`.
    Reset {
        /// The new version.
        version: u64,
    },
}

impl FeedItem {
    /// The version this item leads to.
    pub fn version(&self) -> u64 {
        match self {
            FeedItem::Deltas { version, .. } | FeedItem::Reset { version } => *version,
        }
    }
}

/// The version counter, the resume ring and the broadcast sender.
#[derive(Debug)]
pub struct Feed {
    version: u64,
    ring: VecDeque<FeedItem>,
    tx: broadcast::Sender<FeedItem>,
}

impl Default for Feed {
    fn default() -> Self {
        Self::new()
    }
}

impl Feed {
    /// An empty feed at version 0.
    pub fn new() -> Self {
        let (tx, _) = broadcast::channel(CLIENT_QUEUE);
        Self {
            version: 0,
            ring: VecDeque::with_capacity(RING_CAPACITY),
            tx,
        }
    }

    /// The current version.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// A receiver of every item published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<FeedItem> {
        self.tx.subscribe()
    }

    fn push(&mut self, item: FeedItem) {
        if self.ring.len() == RING_CAPACITY {
            self.ring.pop_front();
        }
        self.ring.push_back(item.clone());
        // No receiver is not an error: nobody is watching the page right now.
        let _ = self.tx.send(item);
    }

    /// Publishes a batch of deltas as the next version; nothing when the batch is empty.
    pub fn publish(&mut self, deltas: Vec<Delta>) -> Option<u64> {
        if deltas.is_empty() {
            return None;
        }
        self.version += 1;
        self.push(FeedItem::Deltas {
            version: self.version,
            deltas: Arc::new(deltas),
        });
        Some(self.version)
    }

    /// Publishes a reset: the next version is only reachable by a snapshot.
    pub fn reset(&mut self) -> u64 {
        self.version += 1;
        self.push(FeedItem::Reset {
            version: self.version,
        });
        self.version
    }

    /// The items after `last_seen` up to now, if the ring still has all of them and none is
    /// a reset; `None` means the client needs a snapshot.
    pub fn since(&self, last_seen: u64) -> Option<Vec<FeedItem>> {
        if last_seen > self.version {
            return None;
        }
        if last_seen == self.version {
            return Some(Vec::new());
        }
        let oldest = self.ring.front()?.version();
        if last_seen + 1 < oldest {
            return None;
        }
        let items: Vec<FeedItem> = self
            .ring
            .iter()
            .filter(|i| i.version() > last_seen)
            .cloned()
            .collect();
        if items.iter().any(|i| matches!(i, FeedItem::Reset { .. })) {
            return None;
        }
        Some(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::view::ResourceHealth;

    fn delta(n: u64) -> Vec<Delta> {
        vec![Delta::NodeRemoved {
            name: format!("node-{n}"),
        }]
    }

    #[test]
    fn versions_increase_by_one_per_published_batch_and_empty_batches_are_skipped() {
        let mut feed = Feed::new();
        assert_eq!(feed.publish(delta(1)), Some(1));
        assert_eq!(feed.publish(Vec::new()), None);
        assert_eq!(feed.publish(delta(2)), Some(2));
        assert_eq!(feed.version(), 2);
    }

    #[test]
    fn a_client_resumes_with_exactly_the_versions_it_missed() {
        let mut feed = Feed::new();
        for n in 1..=5 {
            feed.publish(delta(n));
        }
        let missed: Vec<u64> = feed
            .since(2)
            .unwrap_or_default()
            .iter()
            .map(FeedItem::version)
            .collect();
        assert_eq!(missed, vec![3, 4, 5]);
        assert_eq!(feed.since(5), Some(Vec::new()));
    }

    #[test]
    fn a_client_too_far_behind_or_from_the_future_needs_a_snapshot() {
        let mut feed = Feed::new();
        for n in 0..(RING_CAPACITY as u64 + 10) {
            feed.publish(delta(n));
        }
        assert_eq!(feed.since(3), None, "older than the ring");
        assert_eq!(
            feed.since(feed.version() + 1),
            None,
            "a version this server never had (restart)"
        );
        assert!(feed.since(feed.version() - 5).is_some());
    }

    #[test]
    fn a_reset_in_the_missed_range_forces_a_snapshot() {
        let mut feed = Feed::new();
        feed.publish(delta(1));
        feed.reset();
        feed.publish(delta(3));
        assert_eq!(feed.since(1), None);
        assert_eq!(feed.since(2).map(|v| v.len()), Some(1));
    }

    #[test]
    fn a_receiver_that_falls_behind_is_told_it_lagged_instead_of_blocking_the_sender() {
        let mut feed = Feed::new();
        let mut rx = feed.subscribe();
        for n in 0..(CLIENT_QUEUE as u64 + 5) {
            feed.publish(vec![Delta::Health(ResourceHealth {
                resource: format!("r{n}"),
                synced: true,
                error: None,
                stale_since: None,
            })]);
        }
        assert!(matches!(
            rx.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(_))
        ));
    }
}
