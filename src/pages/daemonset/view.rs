//! The DaemonSet page's body once its detail is loaded: counts, budget gauge, the rollout
//! table node by node, tolerations, revision history and events, kept live.

use super::rows::{progress_rows, reconcile, relevant, ProgressRow};
use crate::components::banner::{StaleBanner, TopBar};
use crate::components::cell::MatrixCell;
use crate::components::events::RecentEvents;
use crate::components::explanation::{format_age, ExplanationPanel};
use crate::components::pod::pod_href;
use crate::components::revision_history::RevisionHistorySection;
use crate::components::rollout_gauge::RolloutGauge;
use crate::components::rollout_pace::PacePanel;
use crate::components::state_look::{state_name, state_symbol, ALL_STATES};
use crate::components::tolerations::TolerationList;
use crate::domain::view::{DaemonSetDetail, EventScope, StateCounts};
use crate::live_client::state::Change;
use crate::live_client::{Feed, LiveHub};
use crate::pages::explainer::Explainer;
use crate::pages::whatif::{WhatIf, WhatIfSection, WhatIfTarget};
use crate::server_fns::{get_daemonset, get_revision_history};
use leptos::prelude::*;
use std::sync::Arc;

/// The loaded page; `key` is `namespace/name`.
#[component]
pub(super) fn DaemonSetView(
    detail: DaemonSetDetail,
    key: String,
    hub: LiveHub,
    whatif: WhatIf,
) -> impl IntoView {
    let column = RwSignal::new(detail.column.clone());
    let rows = RwSignal::new(progress_rows(&detail.nodes));
    let hidden = RwSignal::new(detail.nodes.len() - relevant(&detail.nodes).len());
    let meta = RwSignal::new((
        detail.current_revision.clone(),
        detail.generation,
        detail.observed_generation,
    ));
    let tolerations = RwSignal::new(detail.tolerations.clone());
    let explainer = Explainer::new();
    let events_tick = RwSignal::new(0u64);
    // The pace panel's ages and "stalled for" advance with the clock between deltas.
    let age_tick = crate::pages::poll::poll_tick(std::time::Duration::from_secs(1));

    // Background re-read of the pods, at most one in flight, one more queued.
    let in_flight = StoredValue::new(false);
    let queued = StoredValue::new(false);
    let refresh_key = key.clone();
    let refresh: Arc<dyn Fn() + Send + Sync> = Arc::new(move || {
        if in_flight.get_value() {
            queued.set_value(true);
            return;
        }
        in_flight.set_value(true);
        let k = refresh_key.clone();
        leptos::task::spawn_local(async move {
            loop {
                if let Ok(d) = get_daemonset(k.clone()).await {
                    if rows.try_get_untracked().is_none() {
                        return; // the page is gone
                    }
                    column.set(d.column);
                    meta.set((d.current_revision, d.generation, d.observed_generation));
                    if tolerations.get_untracked() != d.tolerations {
                        tolerations.set(d.tolerations);
                    }
                    hidden.set(d.nodes.len() - relevant(&d.nodes).len());
                    reconcile(rows, &d.nodes);
                    // Whatever changed the DaemonSet may have left events: re-read them too.
                    events_tick.update(|t| *t += 1);
                }
                if queued.try_get_value() == Some(true) {
                    queued.set_value(false);
                    continue;
                }
                in_flight.try_set_value(false);
                return;
            }
        });
    });

    hub.follow(Feed::daemonset(&key));
    let sub_key = key.clone();
    let sub_id = hub.subscribe(Arc::new(move |state, changes| {
        let Some(snap) = state.snapshot() else {
            return;
        };
        let col = state.column_of(&sub_key);
        let mut touched = false;
        for c in changes {
            match c {
                Change::Reset | Change::Structure => touched = true,
                Change::Cell {
                    node,
                    column: i,
                    state: s,
                } if Some(*i) == col => {
                    touched = true;
                    rows.with_untracked(|rs| {
                        if let Some(r) = rs.iter().find(|r| &r.node == node) {
                            r.state.set(*s);
                        }
                    });
                }
                Change::Row { .. } => touched = true,
                Change::Column { index } if Some(*index) == col => {
                    touched = true;
                    if let Some(d) = snap.daemonsets.get(*index) {
                        column.set(d.clone());
                    }
                }
                _ => {}
            }
        }
        if touched {
            refresh();
        }
        explainer.refresh_if_touched(state, changes);
    }));
    let hub_cleanup = hub.clone();
    on_cleanup(move || hub_cleanup.unsubscribe(sub_id));

    let health = Signal::derive({
        let hub = hub.clone();
        move || hub.health.get().unwrap_or_default()
    });
    let cluster = Signal::derive({
        let hub = hub.clone();
        move || hub.cluster.get().unwrap_or_else(|| "cluster".to_string())
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
                <a href="/">"← matrix"</a>
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
                        <dd><code>{move || { let r = meta.get().0; if r.is_empty() { "—".to_string() } else { r } }}</code></dd>
                        <dt>"generation"</dt>
                        <dd>
                            {move || {
                                let (_, g, o) = meta.get();
                                match o {
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
                                            <a class="node-name" href=format!("/node/{}", r.node)>
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
                                                                <a class="pod-link" href=pod_href(&pod_ds, &p.name)><code>{p.name.clone()}</code></a>
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
            <TolerationList tolerations=tolerations.into()/>
            <WhatIfSection target=WhatIfTarget::DaemonSet(key.clone()) whatif=whatif/>
            <RevisionHistorySection history=history/>
            <RecentEvents events=events/>
        </div>
        <ExplanationPanel state=explainer.panel on_close=explainer.on_close()/>
    }
}
