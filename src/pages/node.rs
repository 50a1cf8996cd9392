//! The node page (`/node/:name`): every DaemonSet's cell on this node, with its explanation
//! one click away, kept live.

use super::explainer::Explainer;
use super::failed::NodeFailed;
use super::whatif::{use_whatif, WhatIf, WhatIfSection, WhatIfTarget};
use crate::components::banner::{StaleBanner, TopBar};
use crate::components::cell::MatrixCell;
use crate::components::events::RecentEvents;
use crate::components::explanation::ExplanationPanel;
use crate::components::node_badges::NodeBadges;
use crate::components::node_labels::NodeLabels;
use crate::components::room::{PendingView, TaxView};
use crate::components::state_look::state_label;
use crate::domain::coverage::pending::NodeRoom;
use crate::domain::coverage::CellState;
use crate::domain::view::EventScope;
use crate::live_client::{use_live_hub, Feed, LiveHub};
use crate::server_fns::{
    get_node_detail, get_node_labels, get_node_room, get_node_rules, DashboardError, ObjectKind,
};
use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

pub use crate::views::node::{node_detail, NodeDetail};
use crate::views::node::{NodeMessage, NodeShapeError};

/// The node's row from the server (never the whole matrix); `NotFound` when the matrix has
/// no such node.
async fn load_detail(name: String) -> Result<NodeDetail, DashboardError> {
    if let Some(found) = get_node_detail(name.clone()).await? {
        return Ok(found);
    }
    // Not in the matrix: the server knows whether that proves it absent, or whether the node
    // list was refused or never listed (forbidden / unavailable, not a 404).
    get_node_labels(name.clone()).await?;
    Err(DashboardError::NotFound {
        kind: ObjectKind::Node,
        name,
    })
}

/// A read of the node page (`get_node_labels`, `get_node_rules`), re-made when `refresh`
/// changes and every `POLL`.
fn node_resource<T, Fut>(
    name: String,
    refresh: Signal<u64>,
    fetch: fn(String) -> Fut,
) -> Resource<Result<T, DashboardError>>
where
    T: Clone + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static,
    Fut: std::future::Future<Output = Result<T, DashboardError>> + Send + 'static,
{
    let poll = super::poll::poll_tick(super::POLL);
    Resource::new(
        move || (name.clone(), refresh.get(), poll.get()),
        move |(name, _, _)| fetch(name),
    )
}

/// The node page.
#[component]
pub fn NodePage() -> impl IntoView {
    let hub = use_live_hub();
    let params = use_params_map();
    let name = Memo::new(move |_| params.with(|p| p.get("name").unwrap_or_default()));
    let whatif = use_whatif(Signal::derive(move || WhatIfTarget::Node(name.get())));
    let detail = Resource::new(move || name.get(), load_detail);
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the node…"</p> }>
            {move || {
                let hub = hub.clone();
                Suspend::new(async move {
                    let n = name.get_untracked();
                    match detail.await {
                        Ok(d) => Either::Left(view! { <NodeView detail=d hub=hub whatif=whatif/> }),
                        Err(e) => Either::Right(view! { <NodeFailed name=n error=e hub=hub/> }),
                    }
                })
            }}
        </Transition>
    }
}

#[component]
fn NodeView(detail: NodeDetail, hub: LiveHub, whatif: WhatIf) -> impl IntoView {
    let name = detail.row.name.clone();
    let info = RwSignal::new(detail.row.clone());
    let make = |d: &NodeDetail| {
        d.daemonsets
            .iter()
            .cloned()
            .zip(d.row.cells.iter().map(|s| RwSignal::new(*s)))
            .collect::<Vec<(String, RwSignal<CellState>)>>()
    };
    let cells = RwSignal::new(make(&detail));
    let explainer = Explainer::new();
    let events_tick = RwSignal::new(0u64);
    let rules_tick = RwSignal::new(0u64);

    // Live updates: the server cuts this node's view again when the cluster changes and
    // sends its row again only when it changed (`/api/view/node/…`).
    let sub_name = name.clone();
    hub.follow_view(
        Feed::node(&name).since(detail.version),
        Some(detail.clone()),
        move |d: &NodeDetail, message: &NodeMessage| {
            let (row_moved, columns_moved) = match message {
                NodeMessage::Window(_) => (true, true),
                NodeMessage::Patch(p) => (
                    p.row.is_some() || p.daemonsets.is_some(),
                    p.columns_at.is_some(),
                ),
            };
            if row_moved || columns_moved {
                rules_tick.update(|t| *t += 1);
            }
            if row_moved {
                events_tick.update(|t| *t += 1);
                if info.with_untracked(|r| *r != d.row) {
                    info.set(d.row.clone());
                }
                let same = cells.with_untracked(|cs| {
                    cs.len() == d.daemonsets.len()
                        && cs.iter().zip(&d.daemonsets).all(|(c, k)| &c.0 == k)
                });
                if same {
                    cells.with_untracked(|cs| {
                        for ((_, sig), s) in cs.iter().zip(&d.row.cells) {
                            if sig.get_untracked() != *s {
                                sig.set(*s);
                            }
                        }
                    });
                } else {
                    cells.set(make(d));
                }
                explainer.refresh_if(|node, _| node == sub_name);
            }
        },
        |err: &NodeShapeError| leptos::logging::warn!("node view: {err}"),
    );

    let initial_health = detail.health.clone();
    let health = Signal::derive({
        let hub = hub.clone();
        move || hub.health.get().unwrap_or_else(|| initial_health.clone())
    });
    let on_select = explainer.on_select();
    let selected = explainer.selected;
    let node_name = name.clone();
    let labels = node_resource(name.clone(), events_tick.into(), get_node_labels);
    let rules = node_resource(name.clone(), rules_tick.into(), get_node_rules);
    let room = node_resource(name.clone(), rules_tick.into(), get_node_room);
    let events = super::events_resource(EventScope::Node, name.clone(), events_tick.into());

    view! {
        <TopBar cluster=detail.cluster.clone() conn=hub.conn health=health/>
        <StaleBanner health=health conn=hub.conn/>
        <div class="content" data-testid="node-page" data-node=name.clone()>
            <p class="crumbs"><a href=crate::links::matrix()>"← matrix"</a></p>
            <div class="detail-head">
                <div>
                    <h1><code>{name.clone()}</code></h1>
                    <p><NodeBadges row=info/></p>
                </div>
            </div>
            <section aria-label="DaemonSets on this node">
                <h2>"DaemonSets on this node"</h2>
                <table class="ds-table">
                    <thead><tr><th>"state"</th><th>"DaemonSet"</th><th>"meaning"</th></tr></thead>
                    <tbody>
                        <For
                            each=move || cells.get()
                            key=|c: &(String, RwSignal<CellState>)| c.0.clone()
                            children=move |(key, state): (String, RwSignal<CellState>)| {
                                let me = Some((node_name.clone(), key.clone()));
                                let rule_key = key.clone();
                                view! {
                                    <tr>
                                        <td>
                                            <MatrixCell
                                                node=node_name.clone()
                                                daemonset=key.clone()
                                                state=state
                                                selected=Signal::derive(move || selected.get() == me)
                                                on_select=on_select
                                            />
                                        </td>
                                        <td><a href=crate::links::daemonset(&key)>{key.clone()}</a></td>
                                        <td>
                                            {move || state_label(state.get())}
                                            <Transition fallback=|| ()>
                                                {move || {
                                                    let key = rule_key.clone();
                                                    Suspend::new(async move {
                                                        deciding_rule_of(rules.await, &key).map(|line| {
                                                            view! {
                                                                <span class="deciding-rule" data-testid="deciding-rule">
                                                                    {line}
                                                                </span>
                                                            }
                                                        })
                                                    })
                                                }}
                                            </Transition>
                                        </td>
                                    </tr>
                                }
                            }
                        />
                    </tbody>
                </table>
            </section>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move { room.await.ok().map(|r| view! { <NodeRoomView room=r/> }) })}
            </Transition>
            <WhatIfSection target=WhatIfTarget::Node(name.clone()) cordoned=detail.row.unschedulable whatif=whatif/>
            <NodeLabels labels=labels/>
            <RecentEvents events=events/>
        </div>
        <ExplanationPanel state=explainer.panel on_close=explainer.on_close()/>
    }
}

/// The node's room (§j): its pending daemon pods explained, then the DaemonSet tax.
#[component]
fn NodeRoomView(room: NodeRoom) -> impl IntoView {
    let pending = room
        .pending
        .into_iter()
        .map(|(key, p)| {
            view! {
                <div class="pending-of" data-daemonset=key.clone()>
                    <p><a href=crate::links::daemonset(&key)>{key.clone()}</a></p>
                    <PendingView pending=p/>
                </div>
            }
        })
        .collect_view();
    view! {
        <section aria-label="Pending daemon pods" data-testid="node-pending">{pending}</section>
        <TaxView tax=room.tax/>
        <p class="muted" data-testid="bound-pods">{format!("{} pods bound to this node (all pods, not only daemon pods).", room.pods)}</p>
    }
}

/// The line for one DaemonSet, if the server named a rule that keeps it off this node (none
/// while the rules cannot be read: the state column still says what the cell is).
fn deciding_rule_of(
    rules: Result<Vec<(String, String)>, DashboardError>,
    daemonset: &str,
) -> Option<String> {
    rules
        .ok()?
        .into_iter()
        .find(|(key, _)| key == daemonset)
        .map(|(_, line)| line)
}
