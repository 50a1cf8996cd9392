//! How each cell state looks: the `data-state` name, a symbol and a sentence.
//!
//! Why one table: the matrix, the legend, the DaemonSet page and the explanation panel must
//! agree on names and symbols, and colour alone is not enough for colour-blind users, so every
//! state has a distinct symbol as well as a colour (the colour lives in `style/main.css`,
//! keyed on `data-state`).

use crate::domain::coverage::CellState;

/// Every state in legend order: healthy first, then in-flight, then problems, then "not here".
/// The order is the domain's ([`CellState::ALL`]), which per-state counts also follow.
pub const ALL_STATES: [CellState; 9] = CellState::ALL;

/// The serde lowercase name, used in `data-state`, CSS and query strings (a public contract).
pub fn state_name(state: CellState) -> &'static str {
    state.as_str()
}

/// Parses a `data-state` name back (case-insensitive), for the `?state=` filter.
pub fn parse_state(name: &str) -> Option<CellState> {
    ALL_STATES
        .into_iter()
        .find(|s| state_name(*s).eq_ignore_ascii_case(name.trim()))
}

/// A symbol that tells the states apart without colour.
pub fn state_symbol(state: CellState) -> &'static str {
    match state {
        CellState::Ready => "✓",
        CellState::Outdated => "↻",
        CellState::Surge => "⇅",
        CellState::Unready => "!",
        CellState::Pending => "…",
        CellState::Starting => "◌",
        CellState::Missing => "✗",
        CellState::Misscheduled => "⚠",
        CellState::Excluded => "·",
    }
}

/// A short phrase for legends, tooltips and accessible labels.
pub fn state_phrase(state: CellState) -> &'static str {
    match state {
        CellState::Ready => "ready on the current revision",
        CellState::Outdated => "running an old revision (a problem only when the rollout stalls)",
        CellState::Surge => "old and new pod during a surge update",
        CellState::Unready => "pod not ready",
        CellState::Pending => "pod pending",
        CellState::Starting => "new node, pod not created yet",
        CellState::Missing => "should run, no pod",
        CellState::Misscheduled => "a pod where it should not run",
        CellState::Excluded => "should not run here",
    }
}

/// How an `outdated` cell of an OnDelete DaemonSet reads (§d.5): the old pod stays until
/// someone deletes it; not a problem ([`crate::domain::coverage::is_problem`]).
pub const WAITING_FOR_DELETION: &str = "old revision, waiting for deletion (OnDelete)";

/// "name: phrase", for accessible labels and tooltips.
pub fn state_label(state: CellState) -> String {
    format!("{}: {}", state_name(state), state_phrase(state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_the_serde_lowercase_names_of_cell_state() {
        for s in ALL_STATES {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", state_name(s)));
        }
    }

    #[test]
    fn names_round_trip_through_parse_state_in_any_case() {
        for s in ALL_STATES {
            assert_eq!(parse_state(state_name(s)), Some(s));
            assert_eq!(parse_state(&state_name(s).to_uppercase()), Some(s));
        }
        assert_eq!(parse_state("bogus"), None);
        assert_eq!(parse_state(""), None);
    }

    #[test]
    fn every_state_has_its_own_symbol_and_index() {
        let symbols: std::collections::HashSet<_> =
            ALL_STATES.iter().map(|s| state_symbol(*s)).collect();
        assert_eq!(symbols.len(), ALL_STATES.len());
        for (i, s) in ALL_STATES.iter().enumerate() {
            assert_eq!(s.index(), i);
        }
    }
}
