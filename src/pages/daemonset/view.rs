//! The DaemonSet page's body once its detail is loaded: counts, budget gauge, the rollout
//! table node by node, tolerations, revision history and events, kept live.

use super::rows::{progress_rows, reconcile, ProgressRow};
use crate::components::banner::{StaleBanner, TopBar};
use crate::components::cell::MatrixCell;
use crate::components::events::RecentEvents;
use crate::components::explanation::ExplanationPanel;
use crate::components::refusal::RefusalView;
use crate::components::revision_history::RevisionHistorySection;
use crate::components::rollout_gauge::RolloutGauge;
use crate::components::rollout_pace::PacePanel;
use crate::components::state_look::{state_name, state_symbol, ALL_STATES};
use crate::components::tolerations::TolerationList;
use crate::domain::coverage::{CellState, REFUSED_NODES_SHOWN};
use crate::domain::view::{EventScope, StateCounts};
use crate::links;
use crate::live_client::{Feed, HeldView, LiveHub};
use crate::pages::explainer::Explainer;
use crate::pages::whatif::{WhatIf, WhatIfSection, WhatIfTarget};
use crate::server_fns::{get_daemonset_room, get_daemonset_window, get_revision_history};
use crate::text::format_age;
use crate::views::daemonset::{DaemonSetMessage, DaemonSetPatchError, DaemonSetWindow};
use leptos::prelude::*;

/// The loaded page; `key` is `namespace/name`.
#[component]
pub(super) fn DaemonSetView(
    window: DaemonSetWindow,
    key: String,
    hub: LiveHub,
    whatif: WhatIf,
) -> impl IntoView {
    let column = RwSignal::new(window.column.clone());
    let rows = RwSignal::new(progress_rows(&window.nodes));
    let hidden = RwSignal::new(window.hidden);
    let meta = RwSignal::new(window.revision.clone());
    let tolerations = RwSignal::new(window.tolerations.clone());
    let explainer = Explainer::new();
    let events_tick = RwSignal::new(0u64);
    // The pace panel's ages and "stalled for" advance with the clock between deltas.
    let age_tick = crate::pages::poll::poll_tick(std::time::Duration::from_secs(1));

    // Live updates: the server cuts this view again when the cluster changes and sends the
    // rows and figures that changed (`/api/view/ds/…`); only signals whose value changed are
    // set. A patch that does not fit reads the view again.
    let reload: StoredValue<Option<HeldView<DaemonSetWindow>>> = StoredValue::new(None);
    let show = move |w: &DaemonSetWindow| {
        if column.with_untracked(|c| *c != w.column) {
            column.set(w.column.clone());
        }
        if meta.with_untracked(|m| *m != w.revision) {
            meta.set(w.revision.clone());
        }
        if tolerations.with_untracked(|t| *t != w.tolerations) {
            tolerations.set(w.tolerations.clone());
        }
        if hidden.get_untracked() != w.hidden {
            hidden.set(w.hidden);
        }
        reconcile(rows, &w.nodes);
        // Whatever changed the DaemonSet may have left events and moved revisions.
        events_tick.update(|t| *t += 1);
    };
    let reload_key = key.clone();
    let held = hub.follow_view(
        Feed::daemonset(&key).since(window.version),
        Some(window.clone()),
        move |w: &DaemonSetWindow, message: &DaemonSetMessage| {
            show(w);
            explainer.refresh_if(|node, _| match message {
                DaemonSetMessage::Window(_) => true,
                DaemonSetMessage::Patch(p) => {
                    p.order.is_some() || p.nodes.iter().any(|n| n.node == node)
                }
            });
        },
        move |err: &DaemonSetPatchError| {
            leptos::logging::warn!("DaemonSet view: {err}; reloading the view");
            let k = reload_key.clone();
            leptos::task::spawn_local(async move {
                if let Ok(w) = get_daemonset_window(k).await {
                    if rows.try_get_untracked().is_none() {
                        return; // the page is gone
                    }
                    if let Some(held) = reload.try_get_value().flatten() {
                        held.replace(w.clone());
                    }
                    show(&w);
                }
            });
        },
    );
    reload.set_value(Some(held));

    let initial_health = window.health.clone();
    let health = Signal::derive({
        let hub = hub.clone();
        move || hub.health.get().unwrap_or_else(|| initial_health.clone())
    });
    let initial_cluster = window.cluster.clone();
    let cluster = Signal::derive({
        let hub = hub.clone();
        move || hub.cluster.get().unwrap_or_else(|| initial_cluster.clone())
    });
    let counts = Memo::new(move |_| {
        let mut counts = StateCounts::default();
        rows.with(|rs| {
            for r in rs {
                counts.add(r.state.get());
            }
        });
        counts
    });
    let on_select = explainer.on_select();
    let selected = explainer.selected;
    let ds_key = key.clone();
    let events =
        crate::pages::events_resource(EventScope::DaemonSet, key.clone(), events_tick.into());
    // Re-read with the events: whatever changed the DaemonSet may have moved pods or revisions.
    let history_key = key.clone();
    let history = Resource::new(
        move || (history_key.clone(), events_tick.get()),
        |(k, _)| get_revision_history(k),
    );
    let room_key = key.clone();
    let room = Resource::new(
        move || (room_key.clone(), events_tick.get()),
        |(k, _)| get_daemonset_room(k),
    );
    let progress = move || {
        let c = column.get();
        let pct = if c.desired > 0 {
            (c.updated * 100 / c.desired).clamp(0, 100)
        } else {
            100
        };
        (c.updated, c.desired, pct)
    };
    let legend = ALL_STATES
        .into_iter()
        .map(|s| {
            view! {
                <li data-count-state=state_name(s)>
                    <span class="cell legend-swatch" data-state=state_name(s) aria-hidden="true">
                        {state_symbol(s)}
                    </span>
                    {state_name(s)}
                    " "
                    <strong>{move || counts.get().get(s)}</strong>
                </li>
            }
        })
        .collect_view();

    view! {
        <TopBar cluster=cluster conn=hub.conn health=health/>
        <StaleBanner health=health conn=hub.conn/>
        <div class="content" data-testid="ds-page" data-daemonset=key.clone()>
            <p class="crumbs">
                <a href=crate::links::matrix()>"← matrix"</a>
            </p>
            <div class="detail-head">
                <div>
                    <h1>{move || column.get().name}</h1>
                    <p class="muted">
                        "namespace " <code>{move || column.get().namespace}</code> " · strategy "
                        {move || column.get().strategy.to_string()}
                    </p>
                    <dl class="facts">
                        <dt>"current revision"</dt>
                        <dd><code>{move || { let r = meta.get().current; if r.is_empty() { "—".to_string() } else { r } }}</code></dd>
                        <dt>"generation"</dt>
                        <dd>
                            {move || {
                                let r = meta.get();
                                let g = r.generation;
                                match r.observed {
                                    Some(o) => format!("{g} (observed {o})"),
                                    None => format!("{g} (no status yet)"),
                                }
                            }}
                        </dd>
                    </dl>
                </div>
                <dl class="facts" data-testid="ds-counts">
                    <dt>"desired"</dt>
                    <dd>{move || column.get().desired}</dd>
                    <dt>"ready"</dt>
                    <dd>{move || column.get().ready}</dd>
                    <dt>"updated"</dt>
                    <dd>{move || column.get().updated}</dd>
                    <dt>"available"</dt>
                    <dd>{move || column.get().available}</dd>
                    <dt title="new nodes whose pod is not created yet">"starting"</dt>
                    <dd data-count="starting">{move || column.get().starting}</dd>
                    <dt>"missing"</dt>
                    <dd data-count="missing">{move || column.get().missing}</dd>
                    <dt>"misscheduled"</dt>
                    <dd>{move || column.get().misscheduled}</dd>
                </dl>
                <div>
                    <h3>"Rollout budget and verdict"</h3>
                    <RolloutGauge column=column/>
                </div>
            </div>
            {move || {
                column.get().refused.map(|r| {
                    // The nodes this view lists as missing (every missing node is worth a row).
                    let nodes: Vec<String> = rows.with(|rs| {
                        rs.iter()
                            .filter(|row| row.state.get() == CellState::Missing)
                            .take(REFUSED_NODES_SHOWN)
                            .map(|row| row.node.clone())
                            .collect()
                    });
                    let total = usize::try_from(column.with(|c| c.missing)).unwrap_or(0).max(nodes.len());
                    view! { <RefusalView refusal=r.refusal nodes=nodes nodes_total=total/> }
                })
            }}
            <PacePanel column=column tick=age_tick/>
            <section aria-label="Rollout progress">
                <h2>
                    "Rollout progress: "
                    <span data-testid="updated-count">
                        {move || {
                            let (u, d, _) = progress();
                            format!("{u} of {d} nodes updated")
                        }}
                    </span>
                </h2>
                <div class="gauge wide">
                    <div
                        class="gauge-bar"
                        role="progressbar"
                        aria-label="Nodes updated"
                        aria-valuemin="0"
                        aria-valuemax=move || progress().1.to_string()
                        aria-valuenow=move || progress().0.to_string()
                    >
                        // SVG: no inline style for the page's CSP (web::headers).
                        <svg class="gauge-svg" aria-hidden="true" focusable="false">
                            <rect class="gauge-fill" width=move || format!("{}%", progress().2) height="100%"></rect>
                        </svg>
                    </div>
                </div>
                <ul class="legend-inline">{legend}</ul>
                <table class="ds-table progress-table">
                    <thead>
                        <tr>
                            <th>"state"</th>
                            <th>"node"</th>
                            <th>"shouldRun"</th>
                            <th>"pods (revision, ready, restarts, age)"</th>
                        </tr>
                    </thead>
                    <tbody>
                        <For
                            each=move || rows.get()
                            key=|r: &ProgressRow| r.node.clone()
                            children=move |r: ProgressRow| {
                                let me = Some((r.node.clone(), ds_key.clone()));
                                let pods = r.pods;
                                let pod_ds = ds_key.clone();
                                view! {
                                    <tr data-progress-node=r.node.clone()>
                                        <td>
                                            <MatrixCell
                                                node=r.node.clone()
                                                daemonset=ds_key.clone()
                                                state=r.state
                                                selected=Signal::derive(move || selected.get() == me)
                                                on_select=on_select
                                            />
                                        </td>
                                        <td>
                                            <a class="node-name" href=links::node(&r.node)>
                                                {r.node.clone()}
                                            </a>
                                        </td>
                                        <td>{move || r.should_run.get().to_string()}</td>
                                        <td>
                                            {move || {
                                                pods.get()
                                                    .into_iter()
                                                    .map(|p| {
                                                        let rev = if p.updated { "current" } else { "old" };
                                                        let status = if p.terminating {
                                                            "Terminating".to_string()
                                                        } else {
                                                            p.waiting_reason.clone().unwrap_or_else(|| p.phase.to_string())
                                                        };
                                                        view! {
                                                            <div class="pod-line" data-pod=p.name.clone()>
                                                                <a class="pod-link" href=links::daemon_pod(&pod_ds, &p.name)><code>{p.name.clone()}</code></a>
                                                                {format!(
                                                                    " · {rev} {} · {status} · ready {} · {} restarts · {}",
                                                                    p.revision_hash,
                                                                    if p.ready { "yes" } else { "no" },
                                                                    p.restart_count,
                                                                    format_age(p.age_seconds),
                                                                )}
                                                            </div>
                                                        }
                                                    })
                                                    .collect_view()
                                            }}
                                        </td>
                                    </tr>
                                }
                            }
                        />
                    </tbody>
                </table>
                {move || {
                    let n = hidden.get();
                    (n > 0)
                        .then(|| {
                            let text = if n == 1 {
                                "1 node where it should not run (and has no pod) is not listed.".to_string()
                            } else {
                                format!("{n} nodes where it should not run (and has no pod) are not listed.")
                            };
                            view! { <p class="muted" data-testid="hidden-nodes">{text}</p> }
                        })
                }}
            </section>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    room.await.ok().map(|r| view! { <super::room::DaemonSetRoomView room=r/> })
                })}
            </Transition>
            <TolerationList tolerations=tolerations.into()/>
            <WhatIfSection target=WhatIfTarget::DaemonSet(key.clone()) whatif=whatif/>
            <RevisionHistorySection history=history/>
            <RecentEvents events=events/>
        </div>
        <ExplanationPanel state=explainer.panel on_close=explainer.on_close()/>
    }
}
