//! The coverage matrix page (`/`): node × DaemonSet, one page of rows at a time, live.
//!
//! Data: `get_matrix` through a Resource (server-rendered, then hydrated), cut to the window
//! the query asks for; afterwards the live hub's copy (same cut) keeps it current. A click on
//! a cell asks `explain_cell` and shows the answer in a side panel without leaving the page.

pub mod model;
pub mod table;
pub mod toolbar;

/// The view cutting shared with the server (`crate::views::matrix`), under its old path.
pub use crate::views::matrix::{patch, query, window};

use super::explainer::Explainer;
use super::whatif::{use_whatif, WhatIf, WhatIfMarks, WhatIfSection, WhatIfTarget};
use crate::components::banner::{StaleBanner, TopBar};
use crate::components::explanation::ExplanationPanel;
use crate::components::legend::Legend;
use crate::components::rollout_gauge::RolloutGauge;
use crate::live_client::{use_live_hub, LiveHub};
use crate::server_fns::{get_matrix, select_nodes, DashboardError};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use model::MatrixModel;
use query::{parse_query, MatrixQuery, RowSort};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::Arc;
use table::MatrixTable;
use toolbar::{Glance, Notes, Pager, Toolbar};
use window::{cut_window_with, MatrixWindow};

/// A loaded view: the window, and the nodes the label selector matched (None: no selector),
/// kept so live updates cut the same view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedView {
    window: MatrixWindow,
    selected: Option<Vec<String>>,
}

/// Loads the window for `query`: from the live copy when the feed has delivered one (no
/// round trip, and no 150,000-cell download on every page change), else from the server.
/// A label selector is matched on the server, which alone keeps every label.
async fn load_window(hub: LiveHub, query: MatrixQuery) -> Result<LoadedView, DashboardError> {
    let selected = if query.selector.is_empty() {
        None
    } else {
        Some(select_nodes(query.selector.clone()).await?)
    };
    let set: Option<HashSet<String>> = selected.as_ref().map(|v| v.iter().cloned().collect());
    if let Some(window) = hub
        .with_state(|s| {
            s.snapshot()
                .map(|snap| cut_window_with(snap, &query, set.as_ref()))
        })
        .flatten()
    {
        return Ok(LoadedView { window, selected });
    }
    let window = get_matrix()
        .await
        .map(|m| cut_window_with(&m, &query, set.as_ref()))?;
    Ok(LoadedView { window, selected })
}

/// The coverage matrix, node × DaemonSet.
#[component]
pub fn MatrixPage() -> impl IntoView {
    let hub = use_live_hub();
    let query_map = use_query_map();
    let parsed = Memo::new(move |_| query_map.with(|m| parse_query(|k| m.get(k))));
    let query = Memo::new(move |_| parsed.get().query);
    let whatif = use_whatif(Signal::derive(move || {
        WhatIfTarget::Matrix(query.with(|q| q.selector.clone()))
    }));
    let hub_for_load = hub.clone();
    let matrix = Resource::new(
        move || query.get(),
        move |q| load_window(hub_for_load.clone(), q),
    );

    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the coverage matrix…"</p> }>
            {move || {
                let hub = hub.clone();
                Suspend::new(async move {
                    let notes = parsed.get_untracked().notes;
                    let q = query.get_untracked();
                    match matrix.await {
                        Ok(v) => view! { <MatrixView window=v.window matched=v.selected query=q notes=notes hub=hub whatif=whatif/> }.into_any(),
                        Err(e) => {
                            view! {
                                <TopBar cluster="unknown cluster" conn=hub.conn/>
                                <div class="banner" role="alert" data-testid="load-error">
                                    "Cannot load the coverage matrix: "{e.to_string()}
                                </div>
                            }
                                .into_any()
                        }
                    }
                })
            }}
        </Transition>
    }
}

/// The matrix for one window, kept live.
#[component]
fn MatrixView(
    window: MatrixWindow,
    matched: Option<Vec<String>>,
    query: MatrixQuery,
    notes: Vec<String>,
    hub: LiveHub,
    whatif: WhatIf,
) -> impl IntoView {
    let model = MatrixModel::new(&window);
    let cluster = window.cluster.clone();
    let initial_health = window.health.clone();
    let initial_counts = window.state_counts;
    let mut all_notes = notes;
    all_notes.extend(window.notes.iter().cloned());

    let explainer = Explainer::new();
    let selected = explainer.selected;
    let on_select = explainer.on_select();
    let on_close = explainer.on_close();

    // Live updates: project the hub's changes onto this window's signals. A view that
    // filters, sorts or groups by cell states is cut again on every change of a cell.
    let sub_query = query.clone();
    let by_cells = query.state.is_some()
        || !query.columns.is_empty()
        || window.problems_only
        || query.sort == RowSort::Problems
        || window.group_by.is_some();
    let matched: Option<Arc<HashSet<String>>> =
        matched.map(|names| Arc::new(names.into_iter().collect()));
    let group_keys = window.group_keys.clone();
    let group_by = window.group_by.clone();
    let sub_id = hub.subscribe(Arc::new(move |state, changes| {
        let q = sub_query.clone();
        let matched = matched.clone();
        model.apply_changes(state, changes, by_cells, move |s| {
            s.snapshot()
                .map(|snap| cut_window_with(snap, &q, matched.as_deref()))
        });
        // Keep an open explanation current when its cell changes.
        explainer.refresh_if_touched(state, changes);
    }));
    let hub_cleanup = hub.clone();
    on_cleanup(move || hub_cleanup.unsubscribe(sub_id));

    let health = Signal::derive({
        let hub = hub.clone();
        move || hub.health.get().unwrap_or_else(|| initial_health.clone())
    });
    let counts = Signal::derive({
        let hub = hub.clone();
        move || hub.counts.get().unwrap_or(initial_counts)
    });
    let selector = Selector::new(move || selected.get());
    // What-if (`?taint=…` with the selector filter): the preview and the outlined cells.
    let whatif_target = WhatIfTarget::Matrix(query.selector.clone());
    provide_context(WhatIfMarks(whatif.marks()));

    // Escape closes the explanation and gives the focus back to the cell it explained.
    #[cfg(feature = "hydrate")]
    {
        let escape = window_event_listener(leptos::ev::keydown, move |ev| {
            if ev.key() != "Escape" || selected.get_untracked().is_none() {
                return;
            }
            let cell = document()
                .query_selector("table.matrix button.cell[aria-pressed=\"true\"]")
                .ok()
                .flatten();
            on_close.run(());
            if let Some(cell) = cell {
                use wasm_bindgen::JsCast;
                if let Some(cell) = cell.dyn_ref::<web_sys::HtmlElement>() {
                    let _ = cell.focus();
                }
            }
        });
        on_cleanup(move || escape.remove());
    }

    view! {
        <TopBar cluster=cluster conn=hub.conn>
            <Glance model=model/>
        </TopBar>
        <StaleBanner health=health conn=hub.conn/>
        <div class="content">
            <Notes notes=all_notes/>
            <Toolbar query=query.clone() model=model group_keys=group_keys group_by=group_by/>
            <Legend counts=counts/>
            <WhatIfSection target=whatif_target whatif=whatif collapsible=true/>
            <MatrixTable model=model query=query.clone() selector=selector on_select=on_select/>
            <Pager query=query model=model/>
            <RolloutTable model=model/>
        </div>
        <ExplanationPanel state=explainer.panel on_close=on_close/>
    }
}

/// Every DaemonSet's counts, budget gauge and kubectl verdict, readable in full.
#[component]
fn RolloutTable(model: MatrixModel) -> impl IntoView {
    view! {
        <section class="rollouts" aria-label="DaemonSets">
            <h2>"DaemonSets"</h2>
            <table class="ds-table">
                <thead>
                    <tr>
                        <th>"DaemonSet"</th>
                        <th class="num">"desired"</th>
                        <th class="num">"ready"</th>
                        <th class="num">"updated"</th>
                        <th class="num">"available"</th>
                        <th class="num" title="new nodes whose pod is not created yet">"starting"</th>
                        <th class="num">"missing"</th>
                        <th class="num">"misscheduled"</th>
                        <th>"strategy"</th>
                        <th>"rollout budget and kubectl verdict"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        model
                            .columns
                            .get()
                            .into_iter()
                            .map(|c| {
                                let col = c.col;
                                let n = move |f: fn(&crate::domain::view::DaemonSetColumn) -> i64| move || f(&col.get());
                                view! {
                                    <tr data-ds-summary=c.key.clone()>
                                        <th scope="row"><a href=format!("/ds/{}", c.key)>{c.key.clone()}</a></th>
                                        <td class="num">{n(|d| d.desired)}</td>
                                        <td class="num">{n(|d| d.ready)}</td>
                                        <td class="num">{n(|d| d.updated)}</td>
                                        <td class="num">{n(|d| d.available)}</td>
                                        <td class="num" data-count="starting">{n(|d| d.starting)}</td>
                                        <td class={move || if col.get().missing > 0 { "num bad" } else { "num" }} data-count="missing">{n(|d| d.missing)}</td>
                                        <td class={move || if col.get().misscheduled > 0 { "num bad" } else { "num" }}>{n(|d| d.misscheduled)}</td>
                                        <td>{move || col.get().strategy.to_string()}</td>
                                        <td><RolloutGauge column=col/></td>
                                    </tr>
                                }
                            })
                            .collect_view()
                    }}
                </tbody>
            </table>
        </section>
    }
}
