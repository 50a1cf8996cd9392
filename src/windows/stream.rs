//! One browser's view over time: the view whole once, then one message whenever what it
//! shows changed.
//!
//! Why here and generic: the matrix window, the node page and the DaemonSet page follow the
//! read model the same way; only their cut and diff differ ([`PageView`]). Changes are
//! coalesced ([`COALESCE`]) so a rollout's burst of versions costs one cut per browser, not one
//! per version, while a change after a quiet period, or after one lone change, is cut at once
//! ([`CutPace`]). The whole view is sent once: a browser that already holds a view
//! (rendered by the server, or followed before a reconnect) names its version, and the feed
//! starts with the difference from that cut while the server still keeps it
//! ([`super::memo::CutHistory`]).

use super::Windows;
use crate::views::page::PageView;
use futures::Stream;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The time between two cuts of one view in a burst, so a burst of versions is a few patches a
/// second rather than one per version. Short enough that a burst still moves within a blink.
pub const COALESCE: Duration = Duration::from_millis(200);

/// How many cuts may follow each other at once before [`COALESCE`] spaces them.
pub const BURST: u32 = 2;

/// When a view may be cut again: a bucket of [`BURST`] cuts, one cut's worth refilled every
/// [`COALESCE`]. Why a bucket and not one window after every cut: a lone change elsewhere
/// (the demo's rollout pace re-estimated once a second, a DaemonSet's status) would otherwise
/// make the next change wait up to a whole window, and a `kubectl taint` that came 50 ms after
/// such a change was repainted 150 ms late (issue 27 item 6: the 216 ms outlier). With two
/// cuts in the bucket a single change is cut at once however recently another was, while a
/// rollout's steady burst still costs one cut per `COALESCE` after the first two.
#[derive(Debug, Clone, Copy)]
pub struct CutPace {
    /// When the bucket is full again if no cut comes before.
    full_at: Instant,
}

impl CutPace {
    /// A full bucket at `now`.
    pub fn new(now: Instant) -> Self {
        Self { full_at: now }
    }

    /// How long to wait, from `now`, before the next cut: nothing while a cut is left in the
    /// bucket, else until one is back.
    pub fn wait(&self, now: Instant) -> Duration {
        let spare = COALESCE * (BURST - 1);
        self.full_at
            .checked_sub(spare)
            .map_or(Duration::ZERO, |may_cut_at| {
                may_cut_at.saturating_duration_since(now)
            })
    }

    /// Takes one cut made at `now` out of the bucket.
    pub fn cut(&mut self, now: Instant) {
        self.full_at = self.full_at.max(now) + COALESCE;
    }
}

/// The messages of one view: `cut` at once and after every change of the read model, each
/// cut sent as the difference from the last one sent. The first is the difference from `base`
/// when the browser already holds that view (its page's server render, or its last message
/// before a reconnect), else the whole view. A cut of `None` (the page's object is gone for
/// now) sends nothing; the view resumes from the last one sent when it is back.
pub fn follow<V, C>(
    windows: Arc<Windows>,
    base: Option<Arc<V>>,
    cut: C,
) -> impl Stream<Item = V::Message>
where
    V: PageView + Send + Sync + 'static,
    C: Fn(&Windows) -> Option<V> + Send + 'static,
{
    async_stream::stream! {
        let mut changes = windows.changes();
        changes.mark_unchanged();
        let mut shown: Option<V> = cut(&windows);
        let mut pace = CutPace::new(Instant::now());
        pace.cut(Instant::now());
        if let Some(first) = &shown {
            yield match &base {
                Some(held) => held.diff(first).unwrap_or_else(|| first.unchanged()),
                None => first.clone().whole(),
            };
        }
        while changes.changed().await.is_ok() {
            let wait = pace.wait(Instant::now());
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
            changes.mark_unchanged();
            pace.cut(Instant::now());
            let Some(next) = cut(&windows) else {
                continue;
            };
            let message = match &shown {
                Some(old) => old.diff(&next),
                None => Some(next.clone().whole()),
            };
            if let Some(message) = message {
                yield message;
            }
            shown = Some(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// Cuts `changes` (offsets from the start, in order) as [`follow`] does: each waits for the
    /// pace, then is cut; returns when each cut was made.
    fn cut_times(changes: &[u64]) -> Vec<u64> {
        let start = Instant::now();
        let mut pace = CutPace::new(start);
        pace.cut(start); // the first view
        let mut now = start;
        changes
            .iter()
            .map(|&at| {
                now = now.max(start + MS * at as u32);
                now += pace.wait(now);
                pace.cut(now);
                (now - start).as_millis() as u64
            })
            .collect()
    }

    #[test]
    fn a_change_after_a_quiet_period_is_cut_at_once() {
        assert_eq!(cut_times(&[1_000]), [1_000]);
        assert_eq!(cut_times(&[1_000, 2_000, 3_000]), [1_000, 2_000, 3_000]);
    }

    #[test]
    fn a_change_soon_after_one_lone_change_is_cut_at_once_too() {
        // The demo: the rollout pace re-estimated at 1,000 ms, a taint 50 ms later.
        assert_eq!(cut_times(&[1_000, 1_050]), [1_000, 1_050]);
        // Right after the first view.
        assert_eq!(cut_times(&[10]), [10]);
    }

    #[test]
    fn a_steady_burst_is_cut_once_per_window_after_the_first_two() {
        // A change every 10 ms for a second, after a quiet period.
        let changes: Vec<u64> = (0..100).map(|i| 1_000 + i * 10).collect();
        let cuts = cut_times(&changes);
        assert_eq!(cuts[..2], [1_000, 1_010]);
        for pair in cuts[2..].windows(2) {
            assert!(
                pair[1] - pair[0] >= 200,
                "cuts {pair:?} closer than COALESCE"
            );
        }
        // Over the burst's second and its tail: at most BURST + 1 s / COALESCE cuts' worth.
        let within_a_second = cuts.iter().filter(|&&t| t < 2_000).count();
        assert!(
            within_a_second <= 2 + 5,
            "{within_a_second} cuts in one second: {cuts:?}"
        );
        assert!(within_a_second >= 5, "the burst still moves: {cuts:?}");
    }

    #[test]
    fn the_bucket_refills_one_cut_per_window() {
        // Two at once empty it; 100 ms later the third waits for the window; after a quiet
        // 400 ms both cuts are back.
        assert_eq!(cut_times(&[1_000, 1_000, 1_100]), [1_000, 1_000, 1_200]);
        assert_eq!(
            cut_times(&[1_000, 1_000, 1_600, 1_600]),
            [1_000, 1_000, 1_600, 1_600]
        );
    }
}
