//! Tests of `pace`, each case naming the rule or the boundary it checks.
use super::*;
use crate::facts::PodFacts;
use crate::testing::{ds, pod, PodExt};

fn s(at: i64, done: i64) -> ProgressSample {
    ProgressSample { at, done }
}

const SETTINGS: PaceSettings = PaceSettings {
    window_seconds: 600,
    stall_after_seconds: 300,
};

#[test]
fn no_samples_means_no_rate_not_zero() {
    let p = pace(&[], 10, false, 1_000, &SETTINGS);
    assert_eq!(p.per_minute, None, "unknown is not zero");
    assert_eq!(p.eta_seconds, None);
    assert_eq!(p.stalled_since, None, "nothing observed: no stall claimed");
}

#[test]
fn one_sample_at_now_has_no_elapsed_time_so_no_rate() {
    let p = pace(&[s(1_000, 3)], 10, false, 1_000, &SETTINGS);
    assert_eq!(p.per_minute, None);
}

#[test]
fn rate_is_the_rise_over_the_window_per_minute_and_eta_the_rest_at_that_rate() {
    // 2 → 6 between t=0 and t=120, now t=120: 4 nodes in 2 minutes.
    let samples = [s(0, 2), s(30, 3), s(60, 4), s(90, 5), s(120, 6)];
    let p = pace(&samples, 10, false, 120, &SETTINGS);
    assert_eq!(p.per_minute, Some(2.0));
    assert_eq!(p.eta_seconds, Some(120), "4 left at 2/min");
    assert_eq!(p.stalled_since, None);
}

#[test]
fn the_window_slides_the_count_before_it_is_the_baseline() {
    // The count is a step function: 4 from t=100 until t=800, then 6. Window 600 at now=1000
    // starts at 400, where the count was 4: 2 nodes in 10 minutes.
    let samples = [s(0, 0), s(100, 4), s(800, 6)];
    let p = pace(&samples, 10, false, 1_000, &SETTINGS);
    assert_eq!(p.per_minute, Some(0.2));
    assert_eq!(p.eta_seconds, Some(1_200), "4 left at 0.2/min");
}

#[test]
fn a_fall_counts_as_no_rise_and_a_zero_rate_has_no_eta() {
    let samples = [s(0, 5), s(60, 4)];
    let p = pace(&samples, 10, false, 120, &SETTINGS);
    assert_eq!(p.per_minute, Some(0.0));
    assert_eq!(p.eta_seconds, None, "never, at this rate: no number");
}

#[test]
fn stalled_exactly_at_the_threshold_and_not_a_second_before() {
    // Last rise at t=100; threshold 300.
    let samples = [s(0, 1), s(100, 2)];
    let before = pace(&samples, 5, false, 399, &SETTINGS);
    assert_eq!(
        before.stalled_since, None,
        "299 s without progress: not yet"
    );
    let at = pace(&samples, 5, false, 400, &SETTINGS);
    assert_eq!(
        at.stalled_since,
        Some(100),
        "300 s: stalled since the last rise"
    );
}

#[test]
fn a_count_that_never_rose_is_stalled_since_it_was_first_seen() {
    let p = pace(&[s(50, 2)], 5, false, 350, &SETTINGS);
    assert_eq!(p.stalled_since, Some(50));
}

#[test]
fn a_fall_is_not_progress_for_the_stall_clock() {
    let samples = [s(0, 1), s(100, 3), s(200, 2)];
    let p = pace(&samples, 5, false, 400, &SETTINGS);
    assert_eq!(p.stalled_since, Some(100), "the last rise was at 100");
}

#[test]
fn a_complete_rollout_is_never_stalled_and_has_no_eta() {
    // §e: kubectl rollout status says done.
    let p = pace(&[s(0, 5)], 5, true, 10_000, &SETTINGS);
    assert_eq!(p.stalled_since, None);
    assert_eq!(p.eta_seconds, None);
}

#[test]
fn the_log_starts_over_on_a_new_revision_and_keeps_only_changes() {
    let mut log = ProgressLog::default();
    log.record("a", 0, 1);
    log.record("a", 10, 1);
    log.record("a", 20, 2);
    assert_eq!(
        log.samples(),
        [s(0, 1), s(20, 2)],
        "an unchanged count is not a sample"
    );
    log.record("b", 30, 0);
    assert_eq!(
        log.samples(),
        [s(30, 0)],
        "§d.4 a new revision is a new rollout"
    );
}

#[test]
fn the_log_is_bounded() {
    let mut log = ProgressLog::default();
    for i in 0..(SAMPLES_KEPT as i64 + 10) {
        log.record("a", i, i);
    }
    let kept = log.samples();
    assert_eq!(kept.len(), SAMPLES_KEPT);
    assert_eq!(
        kept.first().map(|x| x.done),
        Some(10),
        "the oldest go first"
    );
}

#[test]
fn a_node_is_done_when_an_updated_pod_is_available_on_it() {
    let mut slow = ds();
    slow.min_ready_seconds = 30;
    let a = [pod("a").on("n1")];
    let b = [pod("b").old().on("n2")];
    let c = [pod("c").on("n3").unready()];
    let d = [pod("d").on("n4").terminating()];
    let e = [pod("e").old().on("n5"), pod("e2").on("n5")];
    let f = [pod("f").on("n6").ready_at(90)];
    let refs: Vec<Vec<&PodFacts>> = [&a[..], &b, &c, &d, &e, &f]
        .iter()
        .map(|ps| ps.iter().collect())
        .collect();
    let names = ["n1", "n2", "n3", "n4", "n5", "n6"];
    let slots: Vec<NodeSlot<'_>> = names
        .iter()
        .zip(&refs)
        .map(|(node, pods)| NodeSlot {
            node,
            should_run: true,
            gone: false,
            pods,
        })
        .collect();
    // n1 (§d.4 updated, §c available), n5 (surge: the new pod is available beside the old).
    // Not: n2 old, n3 not ready, n4 terminating, n6 within minReadySeconds (§c ≤ boundary).
    assert_eq!(
        nodes_done(&slow, &slots, 100),
        2,
        "§c n6 ready at 90, 30 s min: not yet"
    );
    assert_eq!(
        nodes_done(&slow, &slots, 120),
        3,
        "§c 90 + 30 ≤ 120: available"
    );
    let mut not_desired = slots.clone();
    not_desired[0].should_run = false;
    assert_eq!(
        nodes_done(&slow, &not_desired, 120),
        2,
        "§a a node without shouldRun is not part of the rollout"
    );
}
