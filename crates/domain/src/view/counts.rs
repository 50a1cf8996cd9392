//! Cells per state, as the legend and the DaemonSet page count them.
//!
//! Why a type: a bare `[usize; 8]` indexed by a UI helper let the browser store depend on the
//! components for the order; here the order is the domain's ([`CellState::ALL`]) and callers
//! only name states.

use crate::coverage::CellState;
use serde::{Deserialize, Serialize};

/// How many cells are in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateCounts {
    by_state: [usize; CellState::ALL.len()],
}

impl StateCounts {
    /// The counts of these cells.
    pub fn of<'a>(cells: impl IntoIterator<Item = &'a CellState>) -> Self {
        let mut counts = Self::default();
        for cell in cells {
            counts.add(*cell);
        }
        counts
    }

    /// The count of one state.
    pub fn get(&self, state: CellState) -> usize {
        self.by_state[state.index()]
    }

    /// One more cell in `state`.
    pub fn add(&mut self, state: CellState) {
        self.by_state[state.index()] += 1;
    }

    /// `count` cells in `state` (a count read back from elsewhere, e.g. Prometheus).
    pub fn set(&mut self, state: CellState, count: usize) {
        self.by_state[state.index()] = count;
    }

    /// One cell fewer in `state` (never below zero).
    pub fn remove(&mut self, state: CellState) {
        let slot = &mut self.by_state[state.index()];
        *slot = slot.saturating_sub(1);
    }

    /// A cell moved from one state to another.
    pub fn shift(&mut self, from: CellState, to: CellState) {
        self.remove(from);
        self.add(to);
    }

    /// All cells counted.
    pub fn total(&self) -> usize {
        self.by_state.iter().sum()
    }

    /// Each state with its count, in legend order.
    pub fn iter(&self) -> impl Iterator<Item = (CellState, usize)> + '_ {
        CellState::ALL.into_iter().map(|s| (s, self.get(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_kept_per_state_and_never_go_below_zero() {
        let mut c = StateCounts::of(&[CellState::Ready, CellState::Ready, CellState::Missing]);
        assert_eq!((c.get(CellState::Ready), c.get(CellState::Missing)), (2, 1));
        c.shift(CellState::Ready, CellState::Outdated);
        assert_eq!(c.get(CellState::Outdated), 1);
        c.remove(CellState::Surge);
        assert_eq!(c.get(CellState::Surge), 0);
        assert_eq!(c.total(), 3);
    }

    #[test]
    fn every_state_has_its_own_slot_in_legend_order() {
        for (i, s) in CellState::ALL.iter().enumerate() {
            assert_eq!(s.index(), i);
        }
    }
}
