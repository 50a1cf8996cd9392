//! The legend: every cell state with its symbol, meaning and count; each entry filters the
//! matrix to rows with that state.

use super::state_look::{state_label, state_name, state_symbol, ALL_STATES};
use crate::domain::view::StateCounts;
use leptos::prelude::*;

/// The state legend with live counts.
#[component]
pub fn Legend(
    /// Cells per state.
    #[prop(into)]
    counts: Signal<StateCounts>,
) -> impl IntoView {
    let items = ALL_STATES
        .into_iter()
        .map(|s| {
            let name = state_name(s);
            view! {
                <li>
                    <a class="legend-item" href=format!("?state={name}") data-legend=name title=state_label(s)>
                        <span class="cell legend-swatch" data-state=name aria-hidden="true">
                            {state_symbol(s)}
                        </span>
                        <span class="legend-name">{name}</span>
                        <span class="legend-count">{move || counts.get().get(s)}</span>
                    </a>
                </li>
            }
        })
        .collect_view();
    view! {
        <nav class="legend" aria-label="Cell states">
            <ul>{items}</ul>
        </nav>
    }
}
