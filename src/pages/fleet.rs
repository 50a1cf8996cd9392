//! The fleet page (`/fleet`): every cluster's health, nodes, DaemonSets and problem cells,
//! and per DaemonSet (namespace/name across the clusters) where it is missing, unready,
//! pending, misscheduled, outdated in a stalled rollout, refused or stalled, each count a link
//! into that cluster's matrix filtered to those cells.
//!
//! Why it renders from a `FleetView` alone: the summary may come from this process's
//! clusters or from Prometheus, and the page must not care. It is read when the page loads
//! (a navigation, a filter, the refresh link); it does not follow a live feed.

use crate::components::banner::TopBar;
use crate::components::state_look::{state_label, state_name, state_symbol, ALL_STATES};
use crate::domain::coverage::CellState;
use crate::domain::fleet::{ClusterHealth, FleetCluster, FleetDaemonSet, FleetPlacement};
use crate::live_client::use_live_hub;
use crate::server_fns::get_fleet;
use crate::views::fleet::{matrix_query, ClusterLinks, FleetView};
use crate::views::matrix::query::{parse_query, MatrixQuery};
use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// The states a fleet row counts when no state is asked for: the problem states, and
/// `outdated` (a problem only in a stalled rollout, which the row then says).
const PROBLEM_STATES: [CellState; 5] = [
    CellState::Missing,
    CellState::Unready,
    CellState::Pending,
    CellState::Misscheduled,
    CellState::Outdated,
];

/// The query string the server reads for `query` (only `ds=` and `state=` matter here).
fn query_string(query: &MatrixQuery) -> String {
    let mut parts = Vec::new();
    if !query.columns.is_empty() {
        parts.push(format!("ds={}", crate::links::encode(&query.columns)));
    }
    if let Some(state) = query.state {
        parts.push(format!("state={}", state.as_str()));
    }
    parts.join("&")
}

/// The fleet page.
#[component]
pub fn FleetPage() -> impl IntoView {
    let hub = use_live_hub();
    let query_map = use_query_map();
    let parsed = Memo::new(move |_| query_map.with(|m| parse_query(|k| m.get(k))));
    let fleet = Resource::new(
        move || query_string(&parsed.get().query),
        |q| async move { get_fleet(q).await },
    );
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the fleet…"</p> }>
            {move || {
                let conn = hub.conn;
                Suspend::new(async move {
                    let notes = parsed.get_untracked().notes;
                    match fleet.await {
                        Ok(view) => Either::Left(view! { <FleetBody view=view notes=notes conn=conn/> }),
                        Err(e) => Either::Right(view! {
                            <TopBar cluster="fleet" conn=conn/>
                            <div class="banner" role="alert" data-testid="load-error">
                                "Cannot load the fleet: "{e.to_string()}
                            </div>
                        }),
                    }
                })
            }}
        </Transition>
    }
}

#[component]
fn FleetBody(
    view: FleetView,
    notes: Vec<String>,
    #[prop(into)] conn: Signal<crate::live_client::ConnState>,
) -> impl IntoView {
    let links = ClusterLinks::of(&view);
    let FleetView {
        summary,
        query,
        notes: server_notes,
        total_daemonsets,
        remote: _,
    } = view;
    let mut notes = notes;
    let fresh: Vec<String> = server_notes
        .into_iter()
        .filter(|n| !notes.contains(n))
        .collect();
    notes.extend(fresh);
    let title = match summary.clusters.len() {
        1 => "Fleet: 1 cluster".to_string(),
        n => format!("Fleet: {n} clusters"),
    };
    let clusters = summary.clusters.clone();
    let shown = summary.daemonsets.len();
    let state = query.state;
    let rows = summary
        .daemonsets
        .into_iter()
        .map(|d| daemonset_rows(d, state, &links))
        .collect_view();
    view! {
        <leptos_meta::Title text=format!("{title} · daemonscope")/>
        <TopBar cluster=title.clone() conn=conn/>
        <section class="fleet" data-testid="fleet">
            <h1>{title}</h1>
            <FleetFilter query=query.clone()/>
            {(!notes.is_empty()).then(|| view! {
                <ul class="notes" data-testid="notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            })}
            <table class="ds-table fleet-clusters" data-testid="fleet-clusters">
                <caption>"Clusters"</caption>
                <thead><tr><th scope="col">"Cluster"</th><th scope="col">"Health"</th><th scope="col">"Nodes"</th><th scope="col">"DaemonSets"</th><th scope="col">"Problem cells"</th></tr></thead>
                <tbody>{clusters.into_iter().map(|c| cluster_row(c, &links)).collect_view()}</tbody>
            </table>
            <table class="ds-table fleet-daemonsets" data-testid="fleet-daemonsets">
                <caption>{match state {
                    Some(s) => format!("DaemonSets with {} cells ({shown} of {total_daemonsets})", state_name(s)),
                    None => format!("DaemonSets with problems ({shown} of {total_daemonsets})"),
                }}</caption>
                <thead><tr><th scope="col">"DaemonSet"</th><th scope="col">"Cluster"</th><th scope="col">"Cells"</th><th scope="col">"Refused"</th><th scope="col">"Rollout"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            {(shown == 0).then(|| view! { <p class="empty" data-testid="fleet-empty">"No DaemonSet in any cluster matches."</p> })}
            <p><a href=crate::links::fleet(&query_string(&query)) rel="external">"Refresh"</a></p>
        </section>
    }
}

/// The filter form: the matrix's `ds=` and `state=`, in the URL.
#[component]
fn FleetFilter(query: MatrixQuery) -> impl IntoView {
    let current = query.state;
    view! {
        <form class="fleet-filter" method="get" action="/fleet">
            <label>"DaemonSet (namespace/name contains) "
                <input type="search" name="ds" value=query.columns.clone()/>
            </label>
            <label>" State "
                <select name="state">
                    <option value="" selected=current.is_none()>"any problem"</option>
                    {ALL_STATES.into_iter().map(|s| view! {
                        <option value=state_name(s) selected=current == Some(s)>{state_name(s)}</option>
                    }).collect_view()}
                </select>
            </label>
            " "<button type="submit">"Filter"</button>
        </form>
    }
}

fn health_view(health: &ClusterHealth) -> impl IntoView + use<> {
    let (kind, text) = match health {
        ClusterHealth::Live => ("live", "live".to_string()),
        ClusterHealth::Stale { reason } => ("stale", format!("stale: {reason}")),
        ClusterHealth::Unavailable { reason } => ("unavailable", format!("unavailable: {reason}")),
    };
    view! { <span class="health" data-health=kind>{text}</span> }
}

/// `text` as a link to `href`, or plain when there is nowhere to go (a cluster read from
/// Prometheus without a link template).
fn maybe_link(href: Option<String>, text: String) -> impl IntoView {
    match href {
        Some(href) => Either::Left(view! { <a href=href rel="external">{text}</a> }),
        None => Either::Right(text),
    }
}

fn cluster_row(c: FleetCluster, links: &ClusterLinks) -> impl IntoView {
    let matrix = links.matrix(&c.name, "");
    let problems = links.matrix(&c.name, "problems=1");
    view! {
        <tr data-cluster=c.name.clone()>
            <th scope="row">{maybe_link(matrix, c.name.clone())}</th>
            <td>{health_view(&c.health)}</td>
            <td data-figure="nodes">{c.nodes}</td>
            <td data-figure="daemonsets">{c.daemonsets}</td>
            <td data-figure="problem-cells">{maybe_link(problems, c.problem_cells.to_string())}</td>
        </tr>
    }
}

/// One row per cluster where the DaemonSet is listed.
fn daemonset_rows(
    d: FleetDaemonSet,
    state: Option<CellState>,
    links: &ClusterLinks,
) -> impl IntoView {
    let key = format!("{}/{}", d.namespace, d.name);
    let span = d.placements.len();
    d.placements
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let head = (i == 0).then(|| view! { <th scope="rowgroup" rowspan=span>{key.clone()}</th> });
            let cells = placement_cells(&d.namespace, &d.name, &p, state, links);
            let cluster = p.cluster.clone();
            view! {
                <tr data-daemonset=key.clone() data-cluster=cluster.clone() data-problem-cells=p.problem_cells>
                    {head}
                    <td>{maybe_link(links.matrix(&cluster, ""), cluster.clone())}</td>
                    <td><div class="fleet-cells">{cells}</div></td>
                    <td data-figure="refused">{(p.refused > 0).then(|| match p.refused {
                        1 => "1 node".to_string(),
                        n => format!("{n} nodes"),
                    })}</td>
                    <td data-figure="stalled">{p.stalled.clone().map(|cause| format!("stalled: {cause}"))}</td>
                </tr>
            }
        })
        .collect_view()
}

/// Each state's count as a link into the cluster's matrix filtered to this DaemonSet's cells
/// in that state; `outdated` counts only in a stalled rollout, unless asked for.
fn placement_cells(
    namespace: &str,
    name: &str,
    p: &FleetPlacement,
    state: Option<CellState>,
    links: &ClusterLinks,
) -> impl IntoView + use<> {
    let states: Vec<CellState> = match state {
        Some(s) => vec![s],
        None => PROBLEM_STATES
            .into_iter()
            .filter(|s| *s != CellState::Outdated || p.stalled.is_some())
            .collect(),
    };
    states
        .into_iter()
        .filter(|s| p.counts.get(*s) > 0)
        .map(|s| {
            let href = links.matrix(&p.cluster, &matrix_query(namespace, name, Some(state_name(s))));
            let count = p.counts.get(s);
            let words = view! {
                <span aria-hidden="true">{state_symbol(s)}" "</span>{format!("{count} {}", state_name(s))}
            };
            match href {
                Some(href) => Either::Left(view! {
                    <a class="fleet-count" href=href rel="external" data-state=state_name(s) data-count=count title=state_label(s)>
                        {words}
                    </a>
                    " "
                }),
                None => Either::Right(view! {
                    <span class="fleet-count" data-state=state_name(s) data-count=count title=state_label(s)>
                        {words}
                    </span>
                    " "
                }),
            }
        })
        .collect_view()
}
