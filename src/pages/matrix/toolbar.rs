//! The matrix page's controls: the filter form (node name, label selector, state, only
//! problems, sort, grouping), the notes on what the address bar asked for, the pager and the
//! header's figures at a glance.
//!
//! Why a form with `method="get"`: every choice lands in the URL, so a view can be shared and
//! works before the WASM has loaded; once hydrated, the router turns the submit into a client
//! navigation.

use super::model::MatrixModel;
use super::query::{GroupChoice, MatrixQuery, RowSort};
use crate::components::state_look::{state_name, ALL_STATES};
use crate::domain::whatif::EditScope;
use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// Corrections made to the query, shown so garbage in the address bar is visible.
#[component]
pub fn Notes(notes: Vec<String>) -> impl IntoView {
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

/// "1,234": figures in the header read at a glance.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 node`, `5,000 nodes`: a count and its noun, for the header's figures.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(n))
    }
}

/// The header's figures: nodes, DaemonSets, and how many nodes have a problem (a link to
/// exactly those).
#[component]
pub fn Glance(model: MatrixModel) -> impl IntoView {
    let problem_href = MatrixQuery {
        problems: Some(true),
        sort: RowSort::Problems,
        ..Default::default()
    }
    .href_for_page(1);
    view! {
        <span data-testid="glance-nodes">{move || plural(model.info.get().total_nodes, "node")}</span>
        " · "
        <span data-testid="glance-daemonsets">{move || plural(model.info.get().daemonsets, "DaemonSet")}</span>
        " · "
        {move || {
            let n = model.info.get().problem_nodes;
            if n == 0 {
                Either::Left(view! { <span class="glance-ok" data-testid="glance-problems">"no problems"</span> })
            } else {
                let text = format!("{} with problems", plural(n, "node"));
                Either::Right(view! { <a class="glance-bad" data-testid="glance-problems" href=problem_href.clone()>{text}</a> })
            }
        }}
        {move || {
            // §l: DaemonSets whose pod creations the API server refuses; the missing cells
            // explain who refuses.
            let n = model.info.get().refused_daemonsets;
            (n > 0).then(|| {
                let text = format!("{} with refused creations", plural(n, "DaemonSet"));
                view! {
                    " · "
                    <a class="glance-bad" data-testid="glance-refused" href="?state=missing" title="The API server refuses their pod creations: open a missing cell for who refuses and why">{text}</a>
                }
            })
        }}
    }
}

/// Filter form and the "showing N of M" line.
#[component]
pub fn Toolbar(
    query: MatrixQuery,
    model: MatrixModel,
    group_keys: Vec<String>,
    group_by: Option<String>,
) -> impl IntoView {
    let current = query.state.map(state_name).unwrap_or("");
    let options = ALL_STATES
        .iter()
        .map(|s| {
            let name = state_name(*s);
            view! { <option value=name selected=name == current>{name}</option> }
        })
        .collect_view();
    let problems_only = model.info.get_untracked().problems_only;
    let chosen_key = group_by.clone().unwrap_or_default();
    let group_options = group_keys
        .into_iter()
        .map(|key| {
            let selected = key == chosen_key;
            view! { <option value=key.clone() selected=selected>{key.clone()}</option> }
        })
        .collect_view();
    let not_grouped = group_by.is_none();
    let showing = move || {
        let i = model.info.get();
        let which = if i.problems_only {
            " with problems"
        } else {
            ""
        };
        if i.matched_nodes == 0 {
            format!(
                "No node{which} matches (of {} nodes).",
                thousands(i.total_nodes)
            )
        } else {
            let filtered = if i.matched_nodes == i.total_nodes {
                String::new()
            } else {
                format!(" matching, of {} in the cluster", thousands(i.total_nodes))
            };
            format!(
                "{} node{}{which}{} · page {} of {}",
                thousands(i.matched_nodes),
                if i.matched_nodes == 1 { "" } else { "s" },
                filtered,
                i.page,
                i.pages
            )
        }
    };
    let filtered = !query.q.is_empty()
        || !query.selector.is_empty()
        || !query.columns.is_empty()
        || query.state.is_some()
        || query.problems.is_some()
        || query.sort != RowSort::Name
        || query.group != GroupChoice::Default
        || !query.collapsed.is_empty();
    // A what-if preview in the URL rides along when the filters change (it still covers the
    // nodes the label selector picks), as hidden fields so the form works without WASM too.
    // The raw values are carried, not the parsed edits, so a bad edit keeps its error note.
    let query_map = use_query_map();
    let whatif_fields = move || {
        query_map.with(|q| {
            EditScope::Node
                .params()
                .iter()
                .flat_map(|name| {
                    q.get_all(name)
                        .unwrap_or_default()
                        .into_iter()
                        .map(move |value| view! { <input type="hidden" name=*name value=value/> })
                })
                .collect_view()
        })
    };
    view! {
        <div class="toolbar">
            <form method="get" action="/" class="filter" role="search" aria-label="Filter the matrix">
                {whatif_fields}
                <label>
                    "Node "
                    <input type="search" name="q" value=query.q.clone() placeholder="name contains…" title="Nodes whose name contains this text" maxlength="253"/>
                </label>
                <label>
                    "Labels "
                    <input
                        type="search"
                        name="selector"
                        class="selector"
                        data-testid="selector"
                        value=query.selector.clone()
                        placeholder="pool=gpu,!spot"
                        title="A Kubernetes label selector: key=value, key!=value, key in (a,b), key notin (a,b), key, !key"
                        maxlength="1024"
                        spellcheck="false"
                        autocomplete="off"
                    />
                </label>
                <label>
                    "DaemonSets "
                    <input type="search" name="ds" class="columns" data-testid="columns" value=query.columns.clone() placeholder="ns/name contains…" title="DaemonSet columns whose namespace/name contains this text" maxlength="253"/>
                </label>
                <label>
                    "State "
                    <select name="state">
                        <option value="" selected=current.is_empty()>"any"</option>
                        {options}
                    </select>
                </label>
                <label>
                    "Rows "
                    <select name="problems" data-testid="problems">
                        <option value="1" selected=problems_only>"only problems"</option>
                        <option value="0" selected=!problems_only>"all rows"</option>
                    </select>
                </label>
                <label>
                    "Sort "
                    <select name="sort" data-testid="sort">
                        <option value="name" selected=query.sort == RowSort::Name>"by name"</option>
                        <option value="problems" selected=query.sort == RowSort::Problems>"most problems first"</option>
                    </select>
                </label>
                <label>
                    "Group "
                    <select name="group" data-testid="group">
                        <option value="none" selected=not_grouped>"none"</option>
                        {group_options}
                    </select>
                </label>
                <button type="submit">"Apply"</button>
                {filtered.then(|| view! { <a href=crate::links::matrix() class="clear">"clear"</a> })}
            </form>
            <p class="showing" data-testid="showing">{showing}</p>
        </div>
    }
}

/// Previous / next page links.
#[component]
pub fn Pager(query: MatrixQuery, model: MatrixModel) -> impl IntoView {
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

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn header_figures_group_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(5000), "5,000");
        assert_eq!(thousands(150000), "150,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
