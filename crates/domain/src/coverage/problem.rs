//! What counts as a problem: the one definition the matrix header, the problems-only filter,
//! the per-row and per-group counts and `/metrics` all call.
//!
//! Why one function: "with problems" used to be a property of the cell state alone, so every
//! `outdated` cell counted, and while the demo's node-exporter rolled, every node was "with
//! problems" (above 200 nodes the default problems-only view then listed them all). An old
//! revision is the rolling update doing its job until the rollout stalls; under OnDelete it is
//! the pod waiting for someone to delete it (§d.5). Both depend on the DaemonSet, not only on
//! the cell, so the answer takes the column's [`RolloutStand`] beside the state
//! (docs/architecture.md#what-counts-as-a-problem).

use super::CellState;
use crate::view::{DaemonSetColumn, StrategyKind};

/// How a DaemonSet's rollout stands, as far as "does an outdated cell need attention" goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RolloutStand {
    /// RollingUpdate and no stall known: an old revision is replaced as the rollout reaches
    /// the node (§d.3); not a problem.
    Moving,
    /// RollingUpdate whose progress stopped for the stall threshold
    /// ([`crate::rollout::Pace::stalled_since`]), or a strategy the controller does not
    /// update by (rejected by the API server, §d.1): an old revision stays; a problem.
    Stalled,
    /// OnDelete (§d.5): the old pod is replaced only when someone deletes it; the cell is
    /// waiting for deletion, not a problem.
    OnDelete,
}

impl RolloutStand {
    /// The stand of a column as the live store summarised it: its strategy and, for
    /// RollingUpdate, whether its pace says stalled. A column without a pace (an offline
    /// snapshot) is [`RolloutStand::Moving`]: no stall is known, and unknown is not stalled.
    pub fn of(column: &DaemonSetColumn) -> Self {
        match column.strategy {
            StrategyKind::RollingUpdate
                if column
                    .pace
                    .as_ref()
                    .is_some_and(|p| p.stalled_since.is_some()) =>
            {
                RolloutStand::Stalled
            }
            StrategyKind::RollingUpdate => RolloutStand::Moving,
            StrategyKind::OnDelete => RolloutStand::OnDelete,
            StrategyKind::Other(_) => RolloutStand::Stalled,
        }
    }
}

/// Whether a cell asks for attention: a pod missing, misscheduled, not ready or not started
/// are problems whatever the rollout; an old revision (`outdated`) is one only when the
/// rollout has stalled ([`RolloutStand::Stalled`]). `ready` and `excluded` are settled,
/// `surge` is a rollout step in progress and `starting` a new node's first pods.
pub fn is_problem(state: CellState, stand: RolloutStand) -> bool {
    match state {
        CellState::Missing | CellState::Misscheduled | CellState::Unready | CellState::Pending => {
            true
        }
        CellState::Outdated => stand == RolloutStand::Stalled,
        CellState::Ready | CellState::Surge | CellState::Starting | CellState::Excluded => false,
    }
}

/// The problem cells of one row, `cells[i]` under the column of `stands[i]` (a missing stand
/// reads as [`RolloutStand::Moving`]).
pub fn problem_cells(cells: &[CellState], stands: &[RolloutStand]) -> usize {
    cells
        .iter()
        .enumerate()
        .filter(|(i, c)| is_problem(**c, stands.get(*i).copied().unwrap_or(RolloutStand::Moving)))
        .count()
}

/// The stand of each column, in column order (what [`problem_cells`] reads).
pub fn stands_of(columns: &[DaemonSetColumn]) -> Vec<RolloutStand> {
    columns.iter().map(RolloutStand::of).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::RolloutPace;

    fn column(strategy: StrategyKind, stalled_since: Option<i64>) -> DaemonSetColumn {
        DaemonSetColumn {
            key: "ns/ds".into(),
            namespace: "ns".into(),
            name: "ds".into(),
            desired: 3,
            ready: 3,
            updated: 1,
            available: 3,
            misscheduled: 0,
            missing: 0,
            starting: 0,
            problem_nodes: 0,
            cells: Default::default(),
            refused: None,
            missing_causes: None,
            requests: Default::default(),
            unschedulable: Vec::new(),
            strategy,
            max_unavailable: Some(1),
            max_surge: Some(0),
            surge_mode: false,
            budget_error: None,
            budget_in_use: 1,
            rollout_message: String::new(),
            rollout_done: false,
            rollout_error: None,
            pace: Some(RolloutPace {
                done: 1,
                desired: 3,
                complete: false,
                per_minute_tenths: Some(10),
                eta_seconds: Some(120),
                stalled_since,
                stall_after_seconds: 300,
                window_seconds: 600,
                causes: Vec::new(),
                in_flight: Vec::new(),
                in_flight_total: 0,
            }),
        }
    }

    #[test]
    fn an_outdated_cell_of_a_moving_rolling_update_is_not_a_problem_d3() {
        let stand = RolloutStand::of(&column(StrategyKind::RollingUpdate, None));
        assert_eq!(stand, RolloutStand::Moving);
        assert!(
            !is_problem(CellState::Outdated, stand),
            "§d.3 the rollout reaches it"
        );
    }

    #[test]
    fn an_outdated_cell_becomes_a_problem_when_the_rollout_stalls() {
        let stand = RolloutStand::of(&column(StrategyKind::RollingUpdate, Some(1_000)));
        assert_eq!(stand, RolloutStand::Stalled);
        assert!(
            is_problem(CellState::Outdated, stand),
            "stall rule: no progress for the threshold"
        );
    }

    #[test]
    fn an_on_delete_outdated_cell_waits_for_deletion_and_is_not_a_problem_d5() {
        // A stalled pace never applies to OnDelete: there is no rolling update (§d.5).
        let stand = RolloutStand::of(&column(StrategyKind::OnDelete, Some(1_000)));
        assert_eq!(stand, RolloutStand::OnDelete);
        assert!(
            !is_problem(CellState::Outdated, stand),
            "§d.5 replaced only when deleted"
        );
    }

    #[test]
    fn an_unknown_strategy_updates_nothing_so_outdated_is_a_problem_d1() {
        let stand = RolloutStand::of(&column(StrategyKind::Other("Canary".into()), None));
        assert!(
            is_problem(CellState::Outdated, stand),
            "§d.1 not a strategy the controller runs"
        );
    }

    #[test]
    fn a_column_without_pace_is_not_called_stalled() {
        let mut c = column(StrategyKind::RollingUpdate, None);
        c.pace = None;
        assert_eq!(RolloutStand::of(&c), RolloutStand::Moving);
    }

    #[test]
    fn faults_are_problems_in_every_stand_and_settled_states_in_none() {
        for stand in [
            RolloutStand::Moving,
            RolloutStand::Stalled,
            RolloutStand::OnDelete,
        ] {
            for s in [
                CellState::Missing,
                CellState::Misscheduled,
                CellState::Unready,
                CellState::Pending,
            ] {
                assert!(is_problem(s, stand), "{s:?} under {stand:?}");
            }
            for s in [
                CellState::Ready,
                CellState::Surge,
                CellState::Starting,
                CellState::Excluded,
            ] {
                assert!(!is_problem(s, stand), "{s:?} under {stand:?}");
            }
        }
    }

    #[test]
    fn a_row_counts_its_cells_under_their_own_columns() {
        use CellState::*;
        let stands = [
            RolloutStand::Moving,
            RolloutStand::Stalled,
            RolloutStand::OnDelete,
        ];
        assert_eq!(problem_cells(&[Outdated, Outdated, Outdated], &stands), 1);
        assert_eq!(problem_cells(&[Missing, Ready, Outdated], &stands), 1);
        assert_eq!(
            problem_cells(&[Outdated, Missing], &[]),
            1,
            "no stand: moving"
        );
    }
}
