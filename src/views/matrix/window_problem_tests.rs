//! The window's problem filter, header figure and group counts follow the one definition of
//! a problem: an outdated cell counts only when its rollout stalled, never under OnDelete.

use super::*;

/// Three columns: a RollingUpdate that moves, one that stalled, and an OnDelete one.
fn rolling_stalled_on_delete() -> Vec<DaemonSetColumn> {
    use crate::domain::view::{RolloutPace, StrategyKind};
    let pace = |stalled_since| RolloutPace {
        done: 1,
        desired: 6,
        complete: false,
        per_minute_tenths: Some(10),
        eta_seconds: Some(300),
        stalled_since,
        stall_after_seconds: 300,
        window_seconds: 600,
        causes: vec![],
        in_flight: vec![],
        in_flight_total: 0,
    };
    let mut moving = crate::domain::testing::view_column("ns/moving");
    moving.pace = Some(pace(None));
    let mut stalled = crate::domain::testing::view_column("ns/stalled");
    stalled.pace = Some(pace(Some(100)));
    let mut on_delete = crate::domain::testing::view_column("ns/ondelete");
    on_delete.strategy = StrategyKind::OnDelete;
    vec![moving, stalled, on_delete]
}

#[test]
fn every_problem_state_counts_and_settled_or_surging_cells_do_not() {
    use CellState::*;
    // §d.3: an outdated cell of a moving rollout is the rollout doing its job; the stall rule
    // makes it a problem; §d.5: under OnDelete it waits for deletion.
    let mut s = snapshot(vec![
        row("fine", &[Ready, Excluded, Surge]),
        row("old-moving", &[Outdated, Ready, Ready]),
        row("old-stalled", &[Ready, Outdated, Ready]),
        row("old-ondelete", &[Ready, Ready, Outdated]),
        row("lost", &[Missing, Ready, Ready]),
        row("wrong", &[Misscheduled, Ready, Ready]),
        row("sick", &[Unready, Ready, Ready]),
        row("slow", &[Pending, Ready, Ready]),
    ]);
    s.daemonsets = rolling_stalled_on_delete();
    let w = cut_window(
        &s,
        &MatrixQuery {
            problems: Some(true),
            ..Default::default()
        },
    );
    assert_eq!(names(&w), ["lost", "old-stalled", "sick", "slow", "wrong"]);
    assert_eq!(
        w.problem_nodes, 5,
        "the header counts by the same definition"
    );
}

#[test]
fn group_counts_follow_the_one_definition_of_a_problem() {
    use CellState::*;
    let mut s = snapshot(vec![
        row("a", &[Outdated, Outdated, Outdated]),
        row("b", &[Outdated, Ready, Outdated]),
    ]);
    for r in &mut s.nodes {
        r.labels = vec![(ZONE_LABEL.to_string(), "z1".to_string())];
    }
    s.daemonsets = rolling_stalled_on_delete();
    let w = cut_window(
        &s,
        &MatrixQuery {
            problems: Some(false),
            ..Default::default()
        },
    );
    let problems: Vec<usize> = w.groups.iter().map(|g| g.problems).collect();
    assert_eq!(
        problems,
        [1],
        "only the stalled column's outdated cell: {:?}",
        w.groups
    );
    assert_eq!(w.problem_nodes, 1);
}
