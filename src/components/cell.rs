//! One matrix cell: a button carrying the cell's identity and state.
//!
//! Why a button: it is focusable and clickable by keyboard, and `data-node`,
//! `data-daemonset` and `data-state` let tests and scripts read the matrix from the HTML
//! (a public contract, issue 3). The state is a signal of its own, so a live change
//! re-renders this cell only.

use super::state_look::{state_label, state_name, state_symbol, WAITING_FOR_DELETION};
use crate::domain::coverage::{is_problem, CellState, RolloutStand};
use leptos::prelude::*;

/// A cell of the coverage matrix.
#[component]
pub fn MatrixCell(
    /// Node name.
    node: String,
    /// DaemonSet key, `namespace/name`.
    daemonset: String,
    /// The live state of the cell.
    #[prop(into)]
    state: Signal<CellState>,
    /// Whether the explanation panel shows this cell.
    #[prop(into)]
    selected: Signal<bool>,
    /// Called with (node, daemonset) when clicked.
    on_select: Callback<(String, String)>,
    /// Inside the matrix grid: 0 for the grid's one tab stop, -1 for every other cell
    /// (roving tabindex). Elsewhere unset: a plain button in the tab order.
    #[prop(optional, into)]
    tab_index: Option<Signal<i32>>,
    /// The column's rollout stand, where the cell sits in the matrix: sets `data-problem`
    /// by the one definition ([`is_problem`]) and words an OnDelete outdated cell as waiting
    /// for deletion (§d.5). Unset elsewhere.
    #[prop(optional, into)]
    stand: Option<Signal<RolloutStand>>,
) -> impl IntoView {
    let label = {
        let (node, daemonset) = (node.clone(), daemonset.clone());
        move || {
            let s = state.get();
            let text = match stand.map(|st| st.get()) {
                Some(RolloutStand::OnDelete) if s == CellState::Outdated => {
                    format!("{}: {WAITING_FOR_DELETION}", state_name(s))
                }
                _ => state_label(s),
            };
            format!("{daemonset} on {node}: {text}")
        }
    };
    let problem = move || stand.map(|st| is_problem(state.get(), st.get()).to_string());
    let click = {
        let (node, daemonset) = (node.clone(), daemonset.clone());
        move |_| on_select.run((node.clone(), daemonset.clone()))
    };
    view! {
        <button
            type="button"
            class="cell"
            data-node=node
            data-daemonset=daemonset
            data-state=move || state_name(state.get())
            data-problem=problem
            aria-label=label.clone()
            title=label
            aria-pressed=move || selected.get().to_string()
            tabindex=move || tab_index.map(|t| t.get())
            on:click=click
        >
            {move || state_symbol(state.get())}
        </button>
    }
}
