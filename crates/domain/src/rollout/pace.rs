//! Rollout pace and stall: how fast a rollout moves (nodes per minute over a sliding window),
//! when it should finish, and whether it stopped moving.
//!
//! Why here: the live store records the samples and the pages show the result, but "what has
//! moved" is a rule (a node is done when an updated pod, §d.4, is available on it, §c), and a
//! stall's threshold and window must be computed the same way for the badge in the matrix and
//! the DaemonSet page. Pure: the caller hands in the samples and "now" (the store's clock, so a
//! simulated cluster's time and a real one's are treated alike).
//!
//! Why the cause lives in [`super::stall`]: what the samples say (stalled or not) and why the
//! data says it stalled are two questions; this file answers the first.

use super::pods::{is_counted, is_pod_available, is_pod_updated};
use super::NodeSlot;
use crate::facts::DaemonSetFacts;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The sliding window the rate is measured over when nothing else is said: ten minutes, long
/// enough to smooth a node's few seconds of pod start, short enough to follow a slowdown.
pub const DEFAULT_WINDOW_SECONDS: i64 = 600;
/// How long without progress makes a rollout "stalled" by default (the `serve --stall-after`
/// flag's default): five minutes, well past any healthy pod start.
pub const DEFAULT_STALL_AFTER_SECONDS: i64 = 300;
/// Samples kept per DaemonSet: bounded memory whatever the cluster size. A sample is recorded
/// only when the count changes, so this covers the last 128 changes of a rollout.
pub const SAMPLES_KEPT: usize = 128;

/// One observation of a rollout: at `at` (unix seconds, the store's clock), `done` nodes had
/// an updated and available pod ([`nodes_done`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressSample {
    /// When the count was observed, unix seconds.
    pub at: i64,
    /// Nodes with an updated, available pod at that time.
    pub done: i64,
}

/// The window and the stall threshold, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaceSettings {
    /// The rate is measured over the last `window_seconds`.
    pub window_seconds: i64,
    /// No progress for this long (or longer) on an incomplete rollout is a stall.
    pub stall_after_seconds: i64,
}

impl Default for PaceSettings {
    fn default() -> Self {
        Self {
            window_seconds: DEFAULT_WINDOW_SECONDS,
            stall_after_seconds: DEFAULT_STALL_AFTER_SECONDS,
        }
    }
}

/// A rollout's pace at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pace {
    /// Nodes per minute over the window; `None` when nothing is known yet (no samples, or no
    /// time has passed since the first): unknown is not zero.
    pub per_minute: Option<f64>,
    /// Seconds until every desired node is done at the current rate; `None` when complete or
    /// when the rate is unknown or zero.
    pub eta_seconds: Option<i64>,
    /// When the count last rose (or was first seen), if that is `stall_after_seconds` or more
    /// ago and the rollout is incomplete; `None` otherwise.
    pub stalled_since: Option<i64>,
}

/// §d.4 + §c: the nodes a rollout has finished: desired nodes (§a shouldRun) where a live
/// (counted, not terminating) pod is updated and available. Why not `updatedNumberScheduled`:
/// that counts an updated pod that crash-loops; progress is a pod that serves.
pub fn nodes_done(ds: &DaemonSetFacts, slots: &[NodeSlot<'_>], now: i64) -> i64 {
    let done = slots
        .iter()
        .filter(|s| s.should_run && !s.gone)
        .filter(|s| {
            s.pods.iter().any(|p| {
                is_counted(p)
                    && !p.terminating
                    && is_pod_updated(ds, p)
                    && is_pod_available(p, ds.min_ready_seconds, now)
            })
        })
        .count();
    i64::try_from(done).unwrap_or(i64::MAX)
}

/// The samples of one DaemonSet's current rollout, oldest first, at most [`SAMPLES_KEPT`].
///
/// Why tied to a revision: a new template starts a new rollout whose count starts again from
/// zero; mixing its samples with the last rollout's would read as going backwards.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressLog {
    revision: String,
    samples: VecDeque<ProgressSample>,
}

impl ProgressLog {
    /// Records `done` at `at` for rollout `revision`: a new revision starts a new log; a
    /// sample is kept only when the count changed (the count is a step function between
    /// samples, which is what [`pace`] assumes); the oldest is dropped past [`SAMPLES_KEPT`].
    pub fn record(&mut self, revision: &str, at: i64, done: i64) {
        if self.revision != revision {
            self.revision = revision.to_string();
            self.samples.clear();
        }
        if self.samples.back().is_some_and(|last| last.done == done) {
            return;
        }
        self.samples.push_back(ProgressSample { at, done });
        while self.samples.len() > SAMPLES_KEPT {
            self.samples.pop_front();
        }
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> Vec<ProgressSample> {
        self.samples.iter().copied().collect()
    }
}

/// The pace of a rollout from its samples (oldest first, each a change of the count) at `now`.
///
/// - rate: the count's rise over the window `[now − window, now]`, per minute. The count at the
///   window's start is the last sample at or before it (the count is a step function); when
///   every sample is inside the window, the measure starts at the first one. A fall (a new pod
///   that stopped being available) counts as no rise. No samples, or no time since the start of
///   the measure: `None`;
/// - ETA: the nodes left (`desired − done`) at that rate, rounded up to a second;
/// - stall: incomplete, and the last rise (or the first sample, when the count never rose) is
///   `stall_after_seconds` or more before `now` (exactly at the threshold counts). A complete
///   rollout (§e: `kubectl rollout status` done) is never stalled and has no ETA.
pub fn pace(
    samples: &[ProgressSample],
    desired: i64,
    complete: bool,
    now: i64,
    settings: &PaceSettings,
) -> Pace {
    let Some(last) = samples.last() else {
        return Pace {
            per_minute: None,
            eta_seconds: None,
            stalled_since: None,
        };
    };
    let window_start = now.saturating_sub(settings.window_seconds);
    let baseline = samples
        .iter()
        .rev()
        .find(|s| s.at <= window_start)
        .or(samples.first())
        .copied()
        .unwrap_or(*last);
    let measured_from = baseline.at.max(window_start);
    let elapsed = now.saturating_sub(measured_from);
    let per_minute = (elapsed > 0).then(|| {
        let rise = last.done.saturating_sub(baseline.done).max(0);
        rise as f64 * 60.0 / elapsed as f64
    });
    let remaining = desired.saturating_sub(last.done).max(0);
    let eta_seconds = match per_minute {
        Some(rate) if !complete && rate > 0.0 => {
            Some((remaining as f64 * 60.0 / rate).ceil() as i64)
        }
        _ => None,
    };
    let last_rise = samples
        .windows(2)
        .rev()
        .find(|w| w[1].done > w[0].done)
        .map(|w| w[1].at)
        .unwrap_or_else(|| samples.first().map_or(last.at, |s| s.at));
    let stalled_since = (!complete
        && now.saturating_sub(last_rise) >= settings.stall_after_seconds)
        .then_some(last_rise);
    Pace {
        per_minute,
        eta_seconds,
        stalled_since,
    }
}

#[cfg(test)]
mod tests;
