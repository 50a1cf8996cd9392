//! The matrix table: sticky DaemonSet headers, node rows, and the group headers between
//! them; one grid with one tab stop (roving tabindex, [`crate::components::grid_keys`]).

use super::model::{ColumnModel, MatrixModel, RowModel};
use super::query::MatrixQuery;
use super::window::GroupHeader;
use crate::components::cell::MatrixCell;
use crate::components::node_badges::NodeBadges;
use crate::components::pool_tax::PoolTaxBadge;
use crate::components::rollout_gauge::{verdict_text, RolloutGauge};
use crate::components::rollout_pace::PaceBadge;
use crate::components::state_look::{state_name, ALL_STATES};
use crate::domain::coverage::{is_problem, CellState, RolloutStand};
use crate::domain::view::StateCounts;
use leptos::either::Either;
use leptos::prelude::*;

/// Up to this many DaemonSet columns the table takes the page's width and writes their names
/// across (a dozen fit a 1,400 px window); more columns are narrow, with names written upwards.
const WIDE_UP_TO: usize = 12;

/// The grid's element id: the skip link's target.
pub const GRID_ID: &str = "matrix-grid";

/// One line of the table body: a group header or a node row.
#[derive(Clone)]
enum Line {
    Group(GroupHeader, u64),
    Row(RowModel),
}

impl Line {
    /// Keyed-list key: a header is rebuilt when any of its figures change (they are static
    /// text), a row when its layout epoch does.
    fn key(&self) -> (String, u64) {
        match self {
            Line::Group(g, epoch) => (
                format!(
                    "group\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{:?}\u{0}{:?}",
                    g.token(),
                    g.continued,
                    g.collapsed,
                    g.nodes,
                    g.problems,
                    g.columns,
                    g.tax
                ),
                *epoch,
            ),
            Line::Row(r) => (r.name.clone(), r.epoch),
        }
    }
}

/// The body's lines in order: each group header before the row it stands at.
fn lines(model: MatrixModel) -> Vec<Line> {
    let rows = model.rows.get();
    let groups = model.groups.get();
    let epoch = rows.first().map_or(0, |r| r.epoch);
    let mut out = Vec::with_capacity(rows.len() + groups.len());
    let mut next_group = groups.into_iter().peekable();
    for (i, row) in rows.into_iter().enumerate() {
        while let Some(g) = next_group.next_if(|g| g.at_row <= i) {
            out.push(Line::Group(g, epoch));
        }
        out.push(Line::Row(row));
    }
    out.extend(next_group.map(|g| Line::Group(g, epoch)));
    out
}

/// "ready 10 · missing 2": a group's cells of one DaemonSet, for the tooltip.
fn counts_title(counts: &StateCounts) -> String {
    let parts: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{} {n}", state_name(s)))
        .collect();
    if parts.is_empty() {
        "no nodes".to_string()
    } else {
        parts.join(" · ")
    }
}

/// A group's header row: its value, size and problems, and per DaemonSet the problem cells
/// (the count, coloured by the worst state) or a check when all is well. The name is a link
/// that collapses or expands the group (in the URL, so a collapsed view can be shared).
/// `stands[i]` is column `i`'s rollout stand: its problem figure uses the one definition
/// ([`crate::domain::coverage::is_problem`]). A stall changes the header's `problems`, which
/// is in the line's key, so the header is rebuilt with the new stands.
fn group_row(g: &GroupHeader, query: &MatrixQuery, stands: &[RolloutStand]) -> impl IntoView {
    let value = g
        .value
        .clone()
        .unwrap_or_else(|| "(no such label)".to_string());
    let (arrow, action) = if g.collapsed {
        ("▸", "expand")
    } else {
        ("▾", "collapse")
    };
    let title = format!("{action} this group: {value}");
    let summary = format!(
        "{} node{}{}{}",
        g.nodes,
        if g.nodes == 1 { "" } else { "s" },
        match g.problems {
            0 => String::new(),
            1 => " · 1 problem".to_string(),
            n => format!(" · {n} problems"),
        },
        if g.continued { " · continued" } else { "" }
    );
    let cells = g
        .columns
        .iter()
        .enumerate()
        .map(|(i, counts)| {
            let stand = stands.get(i).copied().unwrap_or(RolloutStand::Moving);
            let worst = ALL_STATES
                .iter()
                .rev()
                .copied()
                .filter(|s| is_problem(*s, stand))
                .find(|s| counts.get(*s) > 0);
            let problems: usize = counts.iter().filter(|(s, _)| is_problem(*s, stand)).map(|(_, n)| n).sum();
            let shown = match worst {
                Some(_) => problems.to_string(),
                None if counts.get(CellState::Ready) + counts.get(CellState::Surge) > 0 => "✓".to_string(),
                None => String::new(),
            };
            view! {
                <td class="group-cell" data-problems=problems data-worst=worst.map(state_name) title=counts_title(counts)>
                    {shown}
                </td>
            }
        })
        .collect_view();
    view! {
        <tr class="group-head" data-group=g.token() data-collapsed=g.collapsed.to_string()>
            <th scope="rowgroup" class="group-name">
                <a
                    href=query.href_toggling_group(&g.token())
                    aria-expanded=(!g.collapsed).to_string()
                    title=title
                >
                    <span aria-hidden="true">{arrow}" "</span>
                    <span class="group-value">{value}</span>
                </a>
                <span class="group-summary">{summary}</span>
                <PoolTaxBadge tax=g.tax.tax.clone() nodes=g.tax.nodes/>
            </th>
            {cells}
        </tr>
    }
}

/// The matrix itself: sticky column headers (DaemonSets) and row headers (nodes).
#[component]
pub fn MatrixTable(
    model: MatrixModel,
    query: MatrixQuery,
    selector: Selector<Option<(String, String)>>,
    on_select: Callback<(String, String)>,
) -> impl IntoView {
    // A what-if preview's outcomes, when the page previews one (`?taint=…`): outlined cells.
    let marks = use_context::<crate::pages::whatif::WhatIfMarks>();
    let header = move || {
        model
            .columns
            .get()
            .into_iter()
            .map(|c: ColumnModel| {
                let col = c.col;
                view! {
                    <th scope="col" class="ds-col" data-daemonset=c.key.clone()>
                        <a class="ds-name" href=crate::links::daemonset(&c.key) title=move || {
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
                        <PaceBadge column=col/>
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
                id=GRID_ID
                class="matrix"
                data-testid="matrix"
                data-density=move || if model.columns.with(|c| c.len() <= WIDE_UP_TO) { "wide" } else { "dense" }
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
                        each=move || lines(model)
                        key=|line: &Line| line.key()
                        children=move |line: Line| match line {
                            Line::Group(g, epoch) => {
                                let _ = epoch;
                                let stands: Vec<RolloutStand> = model
                                    .columns
                                    .with_untracked(|cs| cs.iter().map(|c| c.col.with_untracked(RolloutStand::of)).collect());
                                Either::Left(group_row(&g, &query, &stands))
                            }
                            Line::Row(r) => {
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
                                        let col = model
                                            .columns
                                            .with_untracked(|cs| cs.iter().find(|c| &c.key == key).map(|c| c.col));
                                        let stand = Signal::derive(move || {
                                            col.map_or(RolloutStand::Moving, |c| c.with(RolloutStand::of))
                                        });
                                        let mark_key = (r.name.clone(), key.clone());
                                        let mark = move || {
                                            marks.and_then(|m| m.0.with(|map| map.get(&mark_key).map(|o| o.slug())))
                                        };
                                        view! {
                                            <td data-whatif=mark>
                                                <MatrixCell
                                                    tab_index=tab_index
                                                    node=r.name.clone()
                                                    daemonset=key.clone()
                                                    state=*state
                                                    stand=stand
                                                    selected=Signal::derive(move || sel.selected(&me))
                                                    on_select=on_select
                                                />
                                            </td>
                                        }
                                    })
                                    .collect_view();
                                Either::Right(view! {
                                    <tr data-row=r.name.clone()>
                                        <th scope="row" class="node-head">
                                            <a class="node-name" href=crate::links::node(&r.name) title=r.name.clone()>{r.name.clone()}</a>
                                            <NodeBadges row=r.info/>
                                        </th>
                                        {cells}
                                    </tr>
                                })
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
