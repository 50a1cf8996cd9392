//! One matrix cell: a button carrying the cell's identity and state.
//!
//! Why a button: it is focusable and clickable by keyboard, and `data-node`,
//! `data-daemonset` and `data-state` let tests and scripts read the matrix from the HTML
//! (a public contract, issue 3). The state is a signal of its own, so a live change
//! re-renders this cell only.

use super::state_look::{state_label, state_name, state_symbol};
use crate::domain::coverage::CellState;
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
) -> impl IntoView {
    let label = {
        let (node, daemonset) = (node.clone(), daemonset.clone());
        move || format!("{daemonset} on {node}: {}", state_label(state.get()))
    };
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
