//! The coverage matrix page (`/`): node × DaemonSet, one page of rows at a time, live.
//!
//! Data: `get_matrix_window` through a Resource (server-rendered, then hydrated): the server
//! cuts the window the query asks for; afterwards `/api/view` patches it (the server cuts it
//! again on every change and sends the difference), so the browser never holds the matrix. A click on
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
use crate::live_client::{use_live_hub, Feed, HeldView, LiveHub};
use crate::server_fns::{get_matrix_window, DashboardError};
use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use model::MatrixModel;
use patch::ViewMessage;
use query::{parse_query, MatrixQuery};
use table::MatrixTable;
use toolbar::{Glance, Notes, Pager, Toolbar};
use window::MatrixWindow;

/// Loads the window for `query`, cut on the server (which alone keeps every node and every
/// label): a browser never downloads the whole matrix, only the rows its page shows.
async fn load_window(query: MatrixQuery) -> Result<MatrixWindow, DashboardError> {
    get_matrix_window(query_string(&query)).await
}

/// The query string (without `?`) that names `query`'s window to the server.
fn query_string(query: &MatrixQuery) -> String {
    query
        .href_for_page(query.page)
        .trim_start_matches('?')
        .to_string()
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
    let matrix = Resource::new(move || query.get(), load_window);

    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the coverage matrix…"</p> }>
            {move || {
                let hub = hub.clone();
                Suspend::new(async move {
                    let notes = parsed.get_untracked().notes;
                    let q = query.get_untracked();
                    match matrix.await {
                        Ok(window) => Either::Left(view! { <MatrixView window=window query=q notes=notes hub=hub whatif=whatif/> }),
                        Err(e) => Either::Right(view! {
                            <TopBar cluster="unknown cluster" conn=hub.conn/>
                            <div class="banner" role="alert" data-testid="load-error">
                                "Cannot load the coverage matrix: "{e.to_string()}
                            </div>
                        }),
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

    // Live updates: the server cuts this window again when the matrix changes and sends what
    // changed in it (`/api/view`); the model sets only the signals whose value changed.
    let group_keys = window.group_keys.clone();
    let group_by = window.group_by.clone();
    let wanted = query_string(&query);
    let reload: StoredValue<Option<HeldView<MatrixWindow>>> = StoredValue::new(None);
    let shown_hub = hub.clone();
    let held = hub.follow_view(
        Feed::view(&wanted).since(window.version),
        Some(window.clone()),
        move |w: &MatrixWindow, message: &ViewMessage| {
            explainer.refresh_if_in_view(message);
            shown_hub.counts.set(Some(w.state_counts));
            model.reconcile(w);
        },
        move |err: &patch::PatchError| {
            // The window no longer lines up with the server's: ask for it whole.
            leptos::logging::warn!("matrix view: {err}; reloading the window");
            let q = wanted.clone();
            leptos::task::spawn_local(async move {
                if let Ok(w) = get_matrix_window(q).await {
                    if let Some(held) = reload.try_get_value().flatten() {
                        held.replace(w.clone());
                    }
                    model.reconcile(&w);
                }
            });
        },
    );
    reload.set_value(Some(held));

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
        <SkipToGrid/>
        <TopBar cluster=cluster conn=hub.conn health=health>
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

/// The page's first tab stop: "Skip to the matrix", shown only while focused, puts the focus
/// on the grid's one tab stop (the cell the roving tabindex holds).
///
/// Why: the toolbar, the what-if summary and the column and group headers come before the
/// grid, 31 Tab presses on the demo; a keyboard user wants the cells in one. Without the WASM
/// the link still scrolls to the grid.
#[component]
fn SkipToGrid() -> impl IntoView {
    let on_click = move |ev: leptos::ev::MouseEvent| {
        #[cfg(feature = "hydrate")]
        if crate::components::grid_keys::focus_grid_stop() {
            ev.prevent_default();
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = ev;
    };
    view! {
        <a class="skip-link" href=format!("#{}", crate::pages::matrix::table::GRID_ID) on:click=on_click>
            "Skip to the matrix"
        </a>
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
                                        <th scope="row"><a href=crate::links::daemonset(&c.key)>{c.key.clone()}</a></th>
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
