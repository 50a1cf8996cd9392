//! The alerting series as Prometheus reads them: one test per cause and per signal, on the
//! text the `/metrics` route serves.
use super::super::Metrics;
use crate::domain::alerts::MissingCauses;
use crate::domain::rollout::StallCause;
use crate::domain::testing::view_column;
use crate::domain::view::{DaemonSetColumn, RolloutPace};

fn text(columns: &[DaemonSetColumn]) -> String {
    let m = Metrics::new();
    for c in columns {
        m.set_column(c);
    }
    m.encode().expect("encodes")
}

/// The sample lines of one metric (without `# HELP`/`# TYPE`), sorted.
fn samples(text: &str, name: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) || l.starts_with(&format!("{name} ")))
        .map(str::to_string)
        .collect();
    out.sort();
    out
}

fn pace(complete: bool, stalled_since: Option<i64>, causes: Vec<StallCause>) -> RolloutPace {
    RolloutPace {
        done: 1,
        desired: 3,
        complete,
        per_minute_tenths: Some(0),
        eta_seconds: None,
        stalled_since,
        stall_after_seconds: 300,
        window_seconds: 600,
        causes,
        in_flight: Vec::new(),
        // An incomplete rollout moves: a pod in flight.
        in_flight_total: usize::from(!complete),
    }
}

#[test]
fn the_budget_is_the_resolved_pod_count_and_absent_when_unresolved_d2() {
    let mut ok = view_column("ns/agent");
    ok.max_unavailable = Some(3);
    ok.max_surge = Some(0);
    let mut bad = view_column("ns/broken");
    bad.max_unavailable = None;
    bad.max_surge = None;
    let t = text(&[ok, bad]);
    assert_eq!(
        samples(&t, "daemonscope_daemonset_max_unavailable"),
        ["daemonscope_daemonset_max_unavailable{daemonset=\"ns/agent\"} 3"]
    );
    assert_eq!(
        samples(&t, "daemonscope_daemonset_max_surge"),
        ["daemonscope_daemonset_max_surge{daemonset=\"ns/agent\"} 0"]
    );
}

#[test]
fn a_stalled_rollout_sets_its_cause_to_one_and_every_other_cause_to_zero() {
    let mut c = view_column("ns/agent");
    c.pace = Some(pace(
        false,
        Some(100),
        vec![StallCause::NewPodsFailing { pods: vec![] }],
    ));
    let t = text(&[c]);
    let stalled = samples(&t, "daemonscope_daemonset_rollout_stalled");
    assert_eq!(
        stalled.len(),
        5,
        "one series per documented cause: {stalled:?}"
    );
    let on: Vec<&String> = stalled.iter().filter(|l| l.ends_with(" 1")).collect();
    assert_eq!(
        on,
        ["daemonscope_daemonset_rollout_stalled{daemonset=\"ns/agent\",cause=\"new_pods_failing\"} 1"]
    );
    assert_eq!(
        samples(&t, "daemonscope_daemonset_rollout_progressing"),
        ["daemonscope_daemonset_rollout_progressing{daemonset=\"ns/agent\"} 0"],
        "a stalled rollout is not progressing"
    );
}

#[test]
fn a_progressing_rollout_is_progressing_with_no_stall_cause() {
    let mut c = view_column("ns/agent");
    c.pace = Some(pace(false, None, vec![]));
    let t = text(&[c]);
    assert_eq!(
        samples(&t, "daemonscope_daemonset_rollout_progressing"),
        ["daemonscope_daemonset_rollout_progressing{daemonset=\"ns/agent\"} 1"]
    );
    assert!(samples(&t, "daemonscope_daemonset_rollout_stalled")
        .iter()
        .all(|l| l.ends_with(" 0")));
    let mut done = view_column("ns/done");
    done.pace = Some(pace(true, None, vec![]));
    assert_eq!(
        samples(&text(&[done]), "daemonscope_daemonset_rollout_progressing"),
        ["daemonscope_daemonset_rollout_progressing{daemonset=\"ns/done\"} 0"],
        "§e complete: not progressing"
    );
    let mut gap = view_column("ns/gap");
    let mut still = pace(false, None, vec![]);
    still.in_flight_total = 0;
    gap.pace = Some(still);
    assert_eq!(
        samples(&text(&[gap]), "daemonscope_daemonset_rollout_progressing"),
        ["daemonscope_daemonset_rollout_progressing{daemonset=\"ns/gap\"} 0"],
        "incomplete with nothing moving (the demo's refused falco): not progressing"
    );
}

#[test]
fn missing_past_the_grace_has_one_series_per_cause_with_its_count() {
    let mut c = view_column("ns/agent");
    c.missing_causes = Some(MissingCauses {
        refused: 2,
        node_not_ready: 1,
        unschedulable: 3,
        unexplained: 0,
        recheck_at: None,
    });
    let t = text(&[c]);
    assert_eq!(
        samples(&t, "daemonscope_daemonset_missing_past_grace"),
        [
            "daemonscope_daemonset_missing_past_grace{daemonset=\"ns/agent\",cause=\"node_not_ready\"} 1",
            "daemonscope_daemonset_missing_past_grace{daemonset=\"ns/agent\",cause=\"refused\"} 2",
            "daemonscope_daemonset_missing_past_grace{daemonset=\"ns/agent\",cause=\"unexplained\"} 0",
            "daemonscope_daemonset_missing_past_grace{daemonset=\"ns/agent\",cause=\"unschedulable\"} 3",
        ]
    );
    assert!(
        samples(
            &text(&[view_column("ns/offline")]),
            "daemonscope_daemonset_missing_past_grace"
        )
        .is_empty(),
        "unknown causes (an offline column) are not reported as zero"
    );
}

#[test]
fn a_removed_daemonset_leaves_no_alerting_series() {
    let m = Metrics::new();
    let mut c = view_column("ns/agent");
    c.pace = Some(pace(false, None, vec![]));
    c.missing_causes = Some(MissingCauses::default());
    m.set_column(&c);
    m.remove_column("ns/agent");
    let t = m.encode().expect("encodes");
    assert!(!t.contains("ns/agent"), "{t}");
}

#[test]
fn label_values_are_escaped_per_the_text_exposition_format() {
    let mut c = view_column("ns/a\"b\\c\nd");
    c.pace = Some(pace(false, None, vec![]));
    let t = text(&[c]);
    assert!(
        t.contains("daemonscope_daemonset_rollout_progressing{daemonset=\"ns/a\\\"b\\\\c\\nd\"} 1"),
        "{t}"
    );
    assert!(
        t.lines().all(|l| !l.starts_with("d\"")),
        "a newline in a value never starts a line of its own"
    );
}
