//! One browser's view over time: the view whole once, then one message whenever what it
//! shows changed.
//!
//! Why here and generic: the matrix window, the node page and the DaemonSet page follow the
//! read model the same way; only their cut and diff differ ([`PageView`]). Changes are
//! coalesced ([`COALESCE`]) so a rollout's burst of versions costs one cut per browser, not one
//! per version, while the first change after a quiet period is cut at once
//! ([`wait_before_cut`]). The whole view is sent once: a browser that already holds a view
//! (rendered by the server, or followed before a reconnect) names its version, and the feed
//! starts with the difference from that cut while the server still keeps it
//! ([`super::memo::CutHistory`]).

use super::Windows;
use crate::views::page::PageView;
use futures::Stream;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The shortest time between two cuts of one view, so a burst of versions is a few patches a
/// second rather than one per version. Short enough that a burst still moves within a blink.
pub const COALESCE: Duration = Duration::from_millis(200);

/// How long to wait before cutting a view again after a change, given when it was last cut:
/// nothing after a quiet period (the leading edge: a single `kubectl taint` repaints in the
/// time the cut takes), else until [`COALESCE`] has passed since the last cut (the trailing
/// edge: the rest of a burst is one patch at most every `COALESCE`).
pub fn wait_before_cut(last_cut: Instant, now: Instant) -> Duration {
    (last_cut + COALESCE).saturating_duration_since(now)
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
        let mut last_cut = Instant::now();
        if let Some(first) = &shown {
            yield match &base {
                Some(held) => held.diff(first).unwrap_or_else(|| first.unchanged()),
                None => first.clone().whole(),
            };
        }
        while changes.changed().await.is_ok() {
            let wait = wait_before_cut(last_cut, Instant::now());
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
            changes.mark_unchanged();
            last_cut = Instant::now();
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

    #[test]
    fn the_first_change_after_a_quiet_period_is_cut_at_once() {
        let now = Instant::now();
        let long_ago = now - COALESCE - Duration::from_millis(1);
        assert_eq!(wait_before_cut(long_ago, now), Duration::ZERO);
        assert_eq!(wait_before_cut(now - COALESCE, now), Duration::ZERO);
    }

    #[test]
    fn a_change_within_the_window_waits_until_the_window_has_passed_since_the_last_cut() {
        let now = Instant::now();
        let cut = now - Duration::from_millis(50);
        assert_eq!(
            wait_before_cut(cut, now),
            COALESCE - Duration::from_millis(50)
        );
        assert_eq!(wait_before_cut(now, now), COALESCE);
    }
}
