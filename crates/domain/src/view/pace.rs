//! A rollout's pace as the browser receives it, inside its column summary: how fast it moves,
//! when it should finish, whether it stalled and why, and the pods it waits on.
//!
//! Why in the column: the matrix header badge and the DaemonSet page both follow the column
//! through the live feed, so the pace updates live with no request of its own. Why rounded:
//! the store re-evaluates a rolling column every second, and a value that changes only when
//! a person would see it change keeps the feed quiet.

use crate::facts::{DaemonSetFacts, NodeFacts};
use crate::rollout::{
    classify_stall, in_flight, nodes_done, pace, Budget, FailedCreate, InFlightPod, NodeSlot,
    PaceSettings, ProgressLog, StallCause, StallFacts,
};
use serde::{Deserialize, Serialize};

/// The pace of one RollingUpdate DaemonSet's rollout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutPace {
    /// Desired nodes with an updated, available pod (§d.4, §c).
    pub done: i64,
    pub desired: i64,
    /// `kubectl rollout status` says done (§e).
    pub complete: bool,
    /// Nodes per minute over the window, in tenths (12 = 1.2/min); None: not known yet.
    pub per_minute_tenths: Option<i64>,
    /// Seconds left at that rate, rounded up to 10 s; None when complete, unknown or zero.
    pub eta_seconds: Option<i64>,
    /// No progress since this time (unix seconds), for at least `stall_after_seconds`.
    pub stalled_since: Option<i64>,
    pub stall_after_seconds: i64,
    pub window_seconds: i64,
    /// Why it stalled, most specific first; empty when not stalled.
    pub causes: Vec<StallCause>,
    /// The pods the rollout waits on, by node (at most [`crate::rollout::IN_FLIGHT_SHOWN`]).
    pub in_flight: Vec<InFlightPod>,
    /// How many pods are in flight in all.
    pub in_flight_total: usize,
}

impl RolloutPace {
    /// The badge text for the matrix header: "stalled", "~4 min left", "no progress" (none
    /// over the window, not yet for the stall threshold), "rolling" (no rate known yet), or
    /// None when complete. Why here: the page and the matrix must say the same.
    pub fn badge(&self) -> Option<String> {
        if self.complete {
            return None;
        }
        if self.stalled_since.is_some() {
            return Some("stalled".into());
        }
        Some(match (self.eta_seconds, self.per_minute_tenths) {
            (Some(s), _) if s < 60 => "<1 min left".into(),
            (Some(s), _) => format!("~{} min left", (s + 59) / 60),
            (None, Some(0)) => "no progress".into(),
            (None, _) => "rolling".into(),
        })
    }

    /// The rate as a person reads it: "1.5 nodes/min", or None when unknown.
    pub fn rate_text(&self) -> Option<String> {
        self.per_minute_tenths
            .map(|t| format!("{}.{} nodes/min", t / 10, t % 10))
    }
}

/// Everything the pace of one column is computed from.
#[derive(Clone, Copy)]
pub struct PaceInput<'a> {
    pub ds: &'a DaemonSetFacts,
    pub slots: &'a [NodeSlot<'a>],
    /// The cluster's nodes by name (for readiness).
    pub node: &'a dyn Fn(&str) -> Option<&'a NodeFacts>,
    pub budget: Option<Budget>,
    pub in_use: i64,
    pub desired: i64,
    pub complete: bool,
    pub failed_creates: &'a [FailedCreate],
    pub settings: PaceSettings,
    pub now: i64,
}

/// Records this instant's count in `log` and returns the pace, with the causes when stalled.
pub fn rollout_pace(input: &PaceInput<'_>, log: &mut ProgressLog) -> RolloutPace {
    let PaceInput { ds, slots, now, .. } = *input;
    let done = nodes_done(ds, slots, now);
    log.record(&ds.current_revision_hash, now, done);
    let samples = log.samples();
    let p = pace(
        &samples,
        input.desired,
        input.complete,
        now,
        &input.settings,
    );
    let causes = match p.stalled_since {
        Some(since) => {
            let not_ready: Vec<&str> = slots
                .iter()
                .filter(|s| (input.node)(s.node).is_some_and(|n| n.ready != Some(true)))
                .map(|s| s.node)
                .collect();
            classify_stall(&StallFacts {
                ds,
                slots,
                budget: input.budget,
                in_use: input.in_use,
                not_ready: &not_ready,
                failed_creates: input.failed_creates,
                since,
                now,
            })
        }
        None => Vec::new(),
    };
    let (pods, total) = if input.complete {
        (Vec::new(), 0)
    } else {
        in_flight(ds, slots, now)
    };
    RolloutPace {
        done,
        desired: input.desired,
        complete: input.complete,
        per_minute_tenths: p.per_minute.map(|r| (r * 10.0).round() as i64),
        eta_seconds: p.eta_seconds.map(|s| (s + 9) / 10 * 10),
        stalled_since: p.stalled_since,
        stall_after_seconds: input.settings.stall_after_seconds,
        window_seconds: input.settings.window_seconds,
        causes,
        in_flight: pods,
        in_flight_total: total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::PodFacts;
    use crate::testing::{ds, node, pod, PodExt};

    fn pace_at(
        log: &mut ProgressLog,
        pods: &[PodFacts],
        nodes: &[NodeFacts],
        now: i64,
    ) -> RolloutPace {
        let refs: Vec<Vec<&PodFacts>> = nodes
            .iter()
            .map(|n| {
                pods.iter()
                    .filter(|p| p.node_name.as_deref() == Some(&n.name))
                    .collect()
            })
            .collect();
        let slots: Vec<NodeSlot<'_>> = nodes
            .iter()
            .zip(&refs)
            .map(|(n, ps)| NodeSlot {
                node: &n.name,
                should_run: true,
                gone: false,
                pods: ps,
            })
            .collect();
        let lookup = |name: &str| nodes.iter().find(|n| n.name == name);
        let d = ds();
        let budget = Budget {
            max_unavailable: 1,
            max_surge: 0,
        };
        let done = nodes_done(&d, &slots, now);
        rollout_pace(
            &PaceInput {
                ds: &d,
                slots: &slots,
                node: &lookup,
                budget: Some(budget),
                in_use: crate::controller::budget_in_use(&d, &slots, &budget, now),
                desired: nodes.len() as i64,
                complete: done == nodes.len() as i64,
                failed_creates: &[],
                settings: PaceSettings {
                    window_seconds: 600,
                    stall_after_seconds: 300,
                },
                now,
            },
            log,
        )
    }

    #[test]
    fn a_progressing_rollout_has_a_rate_an_eta_and_a_badge_then_completes() {
        let nodes = [node("n1"), node("n2"), node("n3")];
        let mut log = ProgressLog::default();
        let start = [
            pod("a").old().on("n1"),
            pod("b").old().on("n2"),
            pod("c").old().on("n3"),
        ];
        let first = pace_at(&mut log, &start, &nodes, 0);
        assert_eq!(first.per_minute_tenths, None, "no time has passed: no rate");
        assert_eq!(first.badge().as_deref(), Some("rolling"));
        let one = [
            pod("a").on("n1"),
            pod("b").old().on("n2"),
            pod("c").old().on("n3"),
        ];
        let later = pace_at(&mut log, &one, &nodes, 60);
        assert_eq!(later.rate_text().as_deref(), Some("1.0 nodes/min"));
        assert_eq!(later.eta_seconds, Some(120));
        assert_eq!(later.badge().as_deref(), Some("~2 min left"));
        let all = [pod("a").on("n1"), pod("b").on("n2"), pod("c").on("n3")];
        let done = pace_at(&mut log, &all, &nodes, 180);
        assert!(done.complete);
        assert_eq!(done.badge(), None, "§e complete: no badge");
        assert!(done.in_flight.is_empty());
    }

    #[test]
    fn a_stalled_rollout_names_its_cause_after_the_threshold() {
        let mut not_ready = node("n2");
        not_ready.ready = Some(false);
        let nodes = [node("n1"), not_ready];
        let pods = [
            pod("a").old().on("n1"),
            pod("b").old().on("n2").unready().terminating(),
        ];
        let mut log = ProgressLog::default();
        assert!(pace_at(&mut log, &pods, &nodes, 0).causes.is_empty());
        let waiting = pace_at(&mut log, &pods, &nodes, 100);
        assert_eq!(
            waiting.badge().as_deref(),
            Some("no progress"),
            "a zero rate before the threshold"
        );
        assert!(
            waiting.causes.is_empty(),
            "not stalled yet: no cause claimed"
        );
        let stalled = pace_at(&mut log, &pods, &nodes, 300);
        assert_eq!(stalled.badge().as_deref(), Some("stalled"));
        assert_eq!(stalled.stalled_since, Some(0));
        assert_eq!(
            stalled.causes,
            [StallCause::NotReadyNodesHoldBudget {
                nodes: vec!["n2".into()],
                in_use: 1,
                limit: 1,
                surge: false
            }],
            "§d.3 the NotReady node's terminating pod holds maxUnavailable 1"
        );
        assert_eq!(stalled.in_flight_total, 1);
    }
}
