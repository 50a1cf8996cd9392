//! The DaemonSet page (`/ds/:namespace/:name`): its rollout node by node, the budget gauge
//! and the verdict `kubectl rollout status` would print, kept live.
//!
//! Data: the matrix column of this DaemonSet (one state per node), cut on the server so the
//! page ships one column, not the matrix; then the live hub's copy.

use super::explainer::Explainer;
use crate::components::banner::{StaleBanner, TopBar};
use crate::components::cell::MatrixCell;
use crate::components::explanation::ExplanationPanel;
use crate::components::rollout_gauge::RolloutGauge;
use crate::components::state_look::{state_index, state_name, state_symbol, ALL_STATES};
use crate::domain::coverage::CellState;
use crate::domain::view::{DaemonSetColumn, MatrixSnapshot, ResourceHealth};
use crate::live_client::state::Change;
use crate::live_client::{use_live_hub, LiveHub};
use crate::server_fns::get_matrix;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One DaemonSet's column of the matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DaemonSetDetail {
    /// Cluster and context (header).
    pub cluster: String,
    /// Counts, budget, verdict.
    pub column: DaemonSetColumn,
    /// (node, state) for every node, in node-name order.
    pub nodes: Vec<(String, CellState)>,
    /// Resource health (banner).
    pub health: Vec<ResourceHealth>,
}

/// Cuts the detail of `key` (`namespace/name`) out of a snapshot; `None` if it is not there.
pub fn daemonset_detail(snapshot: &MatrixSnapshot, key: &str) -> Option<DaemonSetDetail> {
    let c = snapshot.daemonsets.iter().position(|d| d.key == key)?;
    let mut nodes: Vec<(String, CellState)> = snapshot
        .nodes
        .iter()
        .filter_map(|r| r.cells.get(c).map(|s| (r.name.clone(), *s)))
        .collect();
    nodes.sort_by(|a, b| a.0.cmp(&b.0));
    Some(DaemonSetDetail {
        cluster: snapshot.cluster.clone(),
        column: snapshot.daemonsets[c].clone(),
        nodes,
        health: snapshot.health.clone(),
    })
}

async fn load_detail(hub: LiveHub, key: String) -> Result<Option<DaemonSetDetail>, ServerFnError> {
    if let Some(found) = hub
        .with_state(|s| s.snapshot().map(|snap| daemonset_detail(snap, &key)))
        .flatten()
    {
        return Ok(found);
    }
    get_matrix().await.map(|m| daemonset_detail(&m, &key))
}

/// The DaemonSet page.
#[component]
pub fn DaemonSetPage() -> impl IntoView {
    let hub = use_live_hub();
    let params = use_params_map();
    let key = Memo::new(move |_| {
        params.with(|p| {
            format!(
                "{}/{}",
                p.get("namespace").unwrap_or_default(),
                p.get("name").unwrap_or_default()
            )
        })
    });
    let hub_for_load = hub.clone();
    let detail = Resource::new(
        move || key.get(),
        move |k| load_detail(hub_for_load.clone(), k),
    );
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the DaemonSet…"</p> }>
            {move || {
                let hub = hub.clone();
                Suspend::new(async move {
                    let k = key.get_untracked();
                    match detail.await {
                        Ok(Some(d)) => view! { <DaemonSetView detail=d hub=hub/> }.into_any(),
                        Ok(None) => {
                            view! {
                                <TopBar cluster="" conn=hub.conn/>
                                <div class="content">
                                    <p class="not-found" data-testid="ds-not-found">
                                        "No DaemonSet "<code>{k}</code>" in this cluster. "
                                        <a href="/">"Back to the matrix"</a>
                                    </p>
                                </div>
                            }
                                .into_any()
                        }
                        Err(e) => {
                            view! {
                                <TopBar cluster="unknown cluster" conn=hub.conn/>
                                <div class="banner" role="alert">"Cannot load the DaemonSet: "{e.to_string()}</div>
                            }
                                .into_any()
                        }
                    }
                })
            }}
        </Transition>
    }
}

#[derive(Clone)]
struct NodeChip {
    name: String,
    state: RwSignal<CellState>,
}

#[component]
fn DaemonSetView(detail: DaemonSetDetail, hub: LiveHub) -> impl IntoView {
    let key = detail.column.key.clone();
    let column = RwSignal::new(detail.column.clone());
    let make_chips = |nodes: &[(String, CellState)]| {
        nodes
            .iter()
            .map(|(n, s)| NodeChip {
                name: n.clone(),
                state: RwSignal::new(*s),
            })
            .collect::<Vec<_>>()
    };
    let chips = RwSignal::new(make_chips(&detail.nodes));
    let explainer = Explainer::new();

    let sub_key = key.clone();
    let sub_id = hub.subscribe(Arc::new(move |state, changes| {
        let Some(snap) = state.snapshot() else {
            return;
        };
        if changes
            .iter()
            .any(|c| matches!(c, Change::Reset | Change::Structure))
        {
            if let Some(d) = daemonset_detail(snap, &sub_key) {
                column.set(d.column);
                let same = chips.with_untracked(|cs| {
                    cs.len() == d.nodes.len() && cs.iter().zip(&d.nodes).all(|(c, n)| c.name == n.0)
                });
                if same {
                    chips.with_untracked(|cs| {
                        for (c, (_, s)) in cs.iter().zip(&d.nodes) {
                            if c.state.get_untracked() != *s {
                                c.state.set(*s);
                            }
                        }
                    });
                } else {
                    chips.set(make_chips(&d.nodes));
                }
            }
        } else {
            let col = state.column_of(&sub_key);
            for c in changes {
                match c {
                    Change::Cell {
                        node,
                        column: i,
                        state: s,
                    } if Some(*i) == col => chips.with_untracked(|cs| {
                        if let Some(chip) = cs.iter().find(|chip| &chip.name == node) {
                            chip.state.set(*s);
                        }
                    }),
                    Change::Row { node } => {
                        if let (Some(i), Some(row)) = (col, state.row(node)) {
                            if let Some(s) = row.cells.get(i) {
                                chips.with_untracked(|cs| {
                                    if let Some(chip) = cs.iter().find(|chip| &chip.name == node) {
                                        chip.state.set(*s);
                                    }
                                });
                            }
                        }
                    }
                    Change::Column { index } if Some(*index) == col => {
                        if let Some(d) = snap.daemonsets.get(*index) {
                            column.set(d.clone());
                        }
                    }
                    _ => {}
                }
            }
        }
        explainer.refresh_if_touched(state, changes);
    }));
    let hub_cleanup = hub.clone();
    on_cleanup(move || hub_cleanup.unsubscribe(sub_id));

    let initial_health = detail.health.clone();
    let health = Signal::derive({
        let hub = hub.clone();
        move || hub.health.get().unwrap_or_else(|| initial_health.clone())
    });
    let counts = Memo::new(move |_| {
        let mut counts = [0usize; 8];
        chips.with(|cs| {
            for c in cs {
                counts[state_index(c.state.get())] += 1;
            }
        });
        counts
    });
    let on_select = explainer.on_select();
    let selected = explainer.selected;
    let ds_key = key.clone();
    let progress = move || {
        let c = column.get();
        let pct = if c.desired > 0 {
            (c.updated * 100 / c.desired).clamp(0, 100)
        } else {
            100
        };
        (c.updated, c.desired, pct)
    };

    view! {
        <TopBar cluster=detail.cluster.clone() conn=hub.conn/>
        <StaleBanner health=health conn=hub.conn/>
        <div class="content" data-testid="ds-page" data-daemonset=key.clone()>
            <p class="crumbs"><a href="/">"← matrix"</a></p>
            <div class="detail-head">
                <div>
                    <h1>{move || column.get().name}</h1>
                    <p class="muted">"namespace "<code>{move || column.get().namespace}</code>" · strategy "{move || column.get().strategy}</p>
                </div>
                <dl class="facts" data-testid="ds-counts">
                    <dt>"desired"</dt><dd>{move || column.get().desired}</dd>
                    <dt>"ready"</dt><dd>{move || column.get().ready}</dd>
                    <dt>"updated"</dt><dd>{move || column.get().updated}</dd>
                    <dt>"available"</dt><dd>{move || column.get().available}</dd>
                    <dt>"missing"</dt><dd>{move || column.get().missing}</dd>
                    <dt>"misscheduled"</dt><dd>{move || column.get().misscheduled}</dd>
                </dl>
                <div>
                    <h3>"Rollout budget"</h3>
                    <RolloutGauge column=column/>
                </div>
            </div>
            <section aria-label="Rollout progress">
                <h2>
                    "Rollout progress: "
                    <span data-testid="updated-count">{move || { let (u, d, _) = progress(); format!("{u} of {d} nodes updated") }}</span>
                </h2>
                <div class="gauge" style="max-width: 40rem">
                    <div class="gauge-bar" role="progressbar" aria-valuemin="0" aria-valuemax=move || progress().1.to_string() aria-valuenow=move || progress().0.to_string()>
                        <div class="gauge-fill" style:width=move || format!("{}%", progress().2)></div>
                    </div>
                </div>
                <ul class="legend-inline">
                    {ALL_STATES
                        .iter()
                        .enumerate()
                        .map(|(i, s)| view! {
                            <li data-count-state=state_name(*s)>
                                <span class="cell legend-swatch" data-state=state_name(*s) aria-hidden="true">{state_symbol(*s)}</span>
                                {state_name(*s)}" "<strong>{move || counts.get()[i]}</strong>
                            </li>
                        })
                        .collect_view()}
                </ul>
                <ul class="progress-list">
                    <For
                        each=move || chips.get()
                        key=|c: &NodeChip| c.name.clone()
                        children=move |c: NodeChip| {
                            let me = Some((c.name.clone(), ds_key.clone()));
                            view! {
                                <li>
                                    <MatrixCell
                                        node=c.name.clone()
                                        daemonset=ds_key.clone()
                                        state=c.state
                                        selected=Signal::derive(move || selected.get() == me)
                                        on_select=on_select
                                    />
                                    <a class="node-name" href=format!("/node/{}", c.name)>{c.name.clone()}</a>
                                </li>
                            }
                        }
                    />
                </ul>
            </section>
        </div>
        <ExplanationPanel state=explainer.panel on_close=explainer.on_close()/>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::view::NodeRow;

    fn column(key: &str) -> DaemonSetColumn {
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        DaemonSetColumn {
            key: key.into(),
            namespace: ns.into(),
            name: name.into(),
            desired: 2,
            ready: 1,
            updated: 1,
            available: 1,
            misscheduled: 0,
            missing: 0,
            strategy: "RollingUpdate".into(),
            max_unavailable: Some(1),
            max_surge: Some(0),
            budget_error: None,
            budget_in_use: 1,
            rollout_message: String::new(),
            rollout_done: false,
            rollout_error: None,
        }
    }

    fn row(name: &str, cells: &[CellState]) -> NodeRow {
        NodeRow {
            name: name.into(),
            ready: Some(true),
            unschedulable: false,
            taints: vec![],
            labels: vec![],
            cells: cells.to_vec(),
        }
    }

    #[test]
    fn the_detail_is_the_column_of_that_daemonset_in_node_order() {
        let snap = MatrixSnapshot {
            version: 1,
            cluster: "demo".into(),
            daemonsets: vec![column("a/x"), column("b/y")],
            nodes: vec![
                row("n2", &[CellState::Ready, CellState::Outdated]),
                row("n1", &[CellState::Missing, CellState::Ready]),
            ],
            health: vec![],
        };
        let d = daemonset_detail(&snap, "b/y").unwrap();
        assert_eq!(d.column.key, "b/y");
        assert_eq!(
            d.nodes,
            vec![
                ("n1".to_string(), CellState::Ready),
                ("n2".to_string(), CellState::Outdated)
            ]
        );
        assert!(daemonset_detail(&snap, "c/z").is_none());
    }
}
