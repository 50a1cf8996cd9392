//! The coverage matrix page (`/`): node × DaemonSet, one page of rows at a time, live.
//!
//! Data: `get_matrix` through a Resource (server-rendered, then hydrated), cut to the window
//! the query asks for; afterwards the live hub's copy (same cut) keeps it current. A click on
//! a cell asks `explain_cell` and shows the answer in a side panel without leaving the page.

pub mod model;
pub mod query;
pub mod window;

use super::explainer::Explainer;
use crate::components::banner::{StaleBanner, TopBar};
use crate::components::cell::MatrixCell;
use crate::components::explanation::ExplanationPanel;
use crate::components::legend::Legend;
use crate::components::node_badges::NodeBadges;
use crate::components::rollout_gauge::{verdict_text, RolloutGauge};
use crate::components::state_look::{state_name, ALL_STATES};
use crate::live_client::{use_live_hub, LiveHub};
use crate::server_fns::{get_matrix, DashboardError};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use model::{ColumnModel, MatrixModel, RowModel};
use query::{parse_query, MatrixQuery};
use std::sync::Arc;
use window::{cut_window, MatrixWindow};

/// Loads the window for `query`: from the live copy when the feed has delivered one (no
/// round trip, and no 150,000-cell download on every page change), else from the server.
async fn load_window(hub: LiveHub, query: MatrixQuery) -> Result<MatrixWindow, DashboardError> {
    if let Some(w) = hub
        .with_state(|s| s.snapshot().map(|snap| cut_window(snap, &query)))
        .flatten()
    {
        return Ok(w);
    }
    get_matrix().await.map(|m| cut_window(&m, &query))
}

/// The coverage matrix, node × DaemonSet.
#[component]
pub fn MatrixPage() -> impl IntoView {
    let hub = use_live_hub();
    let query_map = use_query_map();
    let parsed = Memo::new(move |_| query_map.with(|m| parse_query(|k| m.get(k))));
    let query = Memo::new(move |_| parsed.get().query);
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
                        Ok(w) => view! { <MatrixView window=w query=q notes=notes hub=hub/> }.into_any(),
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
    query: MatrixQuery,
    notes: Vec<String>,
    hub: LiveHub,
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

    // Live updates: project the hub's changes onto this window's signals.
    let sub_query = query.clone();
    let sub_id = hub.subscribe(Arc::new(move |state, changes| {
        let q = sub_query.clone();
        model.apply_changes(state, changes, move |s| {
            s.snapshot().map(|snap| cut_window(snap, &q))
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
        <TopBar cluster=cluster conn=hub.conn/>
        <StaleBanner health=health conn=hub.conn/>
        <div class="content">
            <Notes notes=all_notes/>
            <Toolbar query=query.clone() model=model/>
            <Legend counts=counts/>
            <MatrixTable model=model selector=selector on_select=on_select/>
            <Pager query=query model=model/>
            <RolloutTable model=model/>
        </div>
        <ExplanationPanel state=explainer.panel on_close=on_close/>
    }
}

/// Corrections made to the query, shown so garbage in the address bar is visible.
#[component]
fn Notes(notes: Vec<String>) -> impl IntoView {
    (!notes.is_empty()).then(|| {
        let items = notes
            .into_iter()
            .map(|n| view! { <li>{n}</li> })
            .collect_view();
        view! {
            <div class="notes" role="note" data-testid="query-notes">
                <ul>{items}</ul>
            </div>
        }
    })
}

/// Filter form and the "showing N of M" line.
#[component]
fn Toolbar(query: MatrixQuery, model: MatrixModel) -> impl IntoView {
    let current = query.state.map(state_name).unwrap_or("");
    let options = ALL_STATES
        .iter()
        .map(|s| {
            let name = state_name(*s);
            view! { <option value=name selected=name == current>{name}</option> }
        })
        .collect_view();
    let showing = move || {
        let i = model.info.get();
        if i.matched_nodes == 0 {
            format!("No node matches (of {} nodes).", i.total_nodes)
        } else {
            let filtered = if i.matched_nodes == i.total_nodes {
                String::new()
            } else {
                format!(" matching, of {} in the cluster", i.total_nodes)
            };
            format!(
                "Nodes {}–{} of {}{} · page {} of {}",
                i.first_row + 1,
                i.first_row + i.shown,
                i.matched_nodes,
                filtered,
                i.page,
                i.pages
            )
        }
    };
    view! {
        <div class="toolbar">
            <form method="get" action="/" class="filter" role="search">
                <label>
                    "Node "
                    <input type="search" name="q" value=query.q.clone() placeholder="name contains…" maxlength="253"/>
                </label>
                <label>
                    "State "
                    <select name="state">
                        <option value="" selected=current.is_empty()>"any"</option>
                        {options}
                    </select>
                </label>
                <button type="submit">"Filter"</button>
                {(!query.q.is_empty() || query.state.is_some()).then(|| view! { <a href="/" class="clear">"clear"</a> })}
            </form>
            <p class="showing" data-testid="showing">{showing}</p>
        </div>
    }
}

/// Previous / next page links.
#[component]
fn Pager(query: MatrixQuery, model: MatrixModel) -> impl IntoView {
    let q2 = query.clone();
    view! {
        <Show when=move || model.info.with(|i| i.pages > 1)>
            <nav class="pager" aria-label="Pages">
                {
                    let query = query.clone();
                    move || {
                        let i = model.info.get();
                        (i.page > 1).then(|| view! { <a rel="prev" href=query.href_for_page(i.page - 1)>"← previous"</a> })
                    }
                }
                <span>{move || format!("page {} of {}", model.info.get().page, model.info.get().pages)}</span>
                {
                    let query = q2.clone();
                    move || {
                        let i = model.info.get();
                        (i.page < i.pages).then(|| view! { <a rel="next" href=query.href_for_page(i.page + 1)>"next →"</a> })
                    }
                }
            </nav>
        </Show>
    }
}

/// The matrix itself: sticky column headers (DaemonSets) and row headers (nodes).
#[component]
fn MatrixTable(
    model: MatrixModel,
    selector: Selector<Option<(String, String)>>,
    on_select: Callback<(String, String)>,
) -> impl IntoView {
    let header = move || {
        model
            .columns
            .get()
            .into_iter()
            .map(|c: ColumnModel| {
                let col = c.col;
                view! {
                    <th scope="col" class="ds-col" data-daemonset=c.key.clone()>
                        <a class="ds-name" href=format!("/ds/{}", c.key) title=move || {
                            let d = col.get();
                            format!("{} · {}", d.key, verdict_text(&d))
                        }>
                            <span>{move || col.get().name}</span>
                        </a>
                        <span class="ds-counts" title="ready / desired">
                            {move || {
                                let d = col.get();
                                view! {
                                    <span>{d.ready}</span>
                                    <span>{format!("/{}", d.desired)}</span>
                                }
                            }}
                        </span>
                        <RolloutGauge column=col compact=true/>
                    </th>
                }
            })
            .collect_view()
    };
    let sel = selector.clone();
    // The grid's one tab stop: the cell last focused while it is still on the page, else the
    // first cell of the first row.
    let active: RwSignal<Option<(String, String)>> = RwSignal::new(None);
    let tab_stop = Memo::new(move |_| {
        model.rows.with(|rows| {
            let on_page = |(n, d): &(String, String)| {
                rows.iter()
                    .any(|r| &r.name == n && r.cells.iter().any(|(k, _)| k == d))
            };
            active.get().filter(on_page).or_else(|| {
                let first = rows.first()?;
                let (key, _) = first.cells.first()?;
                Some((first.name.clone(), key.clone()))
            })
        })
    });
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        #[cfg(feature = "hydrate")]
        if let Some(id) = crate::components::grid_keys::on_grid_keydown(&ev) {
            active.set(Some(id));
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = ev;
    };
    let on_focusin = move |ev: leptos::ev::FocusEvent| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            let id = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|e| {
                    Some((
                        e.get_attribute("data-node")?,
                        e.get_attribute("data-daemonset")?,
                    ))
                });
            if id.is_some() && id != active.get_untracked() {
                active.set(id);
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = ev;
    };
    view! {
        <div class="matrix-scroll">
            <table
                class="matrix"
                data-testid="matrix"
                role="grid"
                aria-label="Coverage: nodes by DaemonSet. Arrow keys move between cells, Enter explains one."
                on:keydown=on_keydown
                on:focusin=on_focusin
            >
                <thead>
                    <tr>
                        <th scope="col" class="corner">"node"</th>
                        {header}
                    </tr>
                </thead>
                <tbody>
                    <For
                        each=move || model.rows.get()
                        key=|r: &RowModel| (r.name.clone(), r.epoch)
                        children=move |r: RowModel| {
                            let sel = sel.clone();
                            let cells = r
                                .cells
                                .iter()
                                .map(|(key, state)| {
                                    let sel = sel.clone();
                                    let me = Some((r.name.clone(), key.clone()));
                                    let stop_me = me.clone();
                                    let tab_index = Signal::derive(move || {
                                        if tab_stop.with(|s| *s == stop_me) { 0 } else { -1 }
                                    });
                                    view! {
                                        <td>
                                            <MatrixCell
                                                tab_index=tab_index
                                                node=r.name.clone()
                                                daemonset=key.clone()
                                                state=*state
                                                selected=Signal::derive(move || sel.selected(&me))
                                                on_select=on_select
                                            />
                                        </td>
                                    }
                                })
                                .collect_view();
                            view! {
                                <tr data-row=r.name.clone()>
                                    <th scope="row" class="node-head">
                                        <a class="node-name" href=format!("/node/{}", r.name)>{r.name.clone()}</a>
                                        <NodeBadges row=r.info/>
                                    </th>
                                    {cells}
                                </tr>
                            }
                        }
                    />
                </tbody>
            </table>
            <Show when=move || model.rows.with(|r| r.is_empty())>
                <p class="empty" data-testid="empty-matrix">
                    {move || {
                        if model.info.with(|i| i.total_nodes == 0) {
                            "The cluster has no nodes yet."
                        } else {
                            "No node matches this filter."
                        }
                    }}
                </p>
            </Show>
        </div>
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
                                        <td class={move || if col.get().missing > 0 { "num bad" } else { "num" }}>{n(|d| d.missing)}</td>
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
