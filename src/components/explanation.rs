//! The side panel answering "why is this cell what it is": the controller's verdict, each
//! rule with node and pod values, what would change it, and the pods on the node.
//!
//! Why only these pod fields: the dashboard never renders env values, command lines or
//! volume contents (docs/architecture.md#read-only: no secrets), and `PodSummary` carries none.

use super::fixes::FixPlanView;
use super::refusal::RefusalView;
use super::state_look::{state_name, state_phrase, state_symbol};
use crate::domain::scheduling::{Reason, Rule};
use crate::domain::view::{CellExplanation, PodSummary};
use crate::links;
use crate::text::format_age;
use leptos::either::{Either, EitherOf4};
use leptos::prelude::*;

/// What the panel is showing.
#[derive(Debug, Clone, PartialEq)]
pub enum PanelState {
    /// Nothing selected: the panel is hidden.
    Closed,
    /// Waiting for the server's answer for (node, daemonset).
    Loading { node: String, daemonset: String },
    /// The answer.
    Loaded(Box<CellExplanation>),
    /// The server could not answer.
    Failed {
        node: String,
        daemonset: String,
        error: String,
    },
}

/// The field a rule reads, as people know it from the manifest.
pub fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::NodeName => "spec.nodeName",
        Rule::NodeSelector => "nodeSelector",
        Rule::NodeAffinity => "required node affinity",
        Rule::Taint => "taint / toleration",
        Rule::Unschedulable => "cordon (unschedulable)",
        Rule::NodeReady => "node readiness",
        Rule::TolerationOperator => "toleration operator",
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn reason_row(r: Reason) -> impl IntoView {
    let outcome = if r.passed { "pass" } else { "fail" };
    view! {
        <li class="reason" data-passed=r.passed.to_string() data-rule=format!("{:?}", r.rule)>
            <div class="reason-head">
                <span class="reason-mark" aria-label=outcome>{if r.passed { "✓" } else { "✗" }}</span>
                <span class="reason-rule">{rule_name(r.rule)}</span>
            </div>
            <p class="reason-message">{r.message}</p>
            <dl class="reason-values">
                <dt>"node"</dt>
                <dd><code>{if r.node_value.is_empty() { "—".to_string() } else { r.node_value }}</code></dd>
                <dt>"pod"</dt>
                <dd><code>{if r.pod_value.is_empty() { "—".to_string() } else { r.pod_value }}</code></dd>
            </dl>
            {r.fix.map(|f| view! { <p class="reason-fix"><strong>"To change: "</strong>{f}</p> })}
        </li>
    }
}

fn pod_row(daemonset: &str, p: PodSummary) -> impl IntoView {
    let status = match (&p.waiting_reason, p.terminating) {
        (_, true) => "Terminating".to_string(),
        (Some(w), false) => w.clone(),
        (None, false) => p.phase.to_string(),
    };
    let name = p.name.clone();
    let href = links::daemon_pod(daemonset, &p.name);
    view! {
        <tr data-pod=name>
            <td><a class="pod-link" href=href><code>{p.name}</code></a></td>
            <td>{status}</td>
            <td>{yes_no(p.ready)}</td>
            <td>{if p.updated { "current" } else { "old" }}<br/><code class="hash">{p.revision_hash}</code></td>
            <td class="num">{p.restart_count}</td>
            <td class="num">{format_age(p.age_seconds)}</td>
        </tr>
    }
}

fn explanation_body(e: CellExplanation) -> impl IntoView {
    let state = e.state;
    let pending = e
        .pending
        .map(|p| view! { <super::room::PendingView pending=p /> });
    let reasons = e
        .placement
        .reasons
        .into_iter()
        .map(reason_row)
        .collect_view();
    let pods = if e.pods.is_empty() {
        Either::Left(view! { <p class="muted">"No pod of this DaemonSet on this node."</p> })
    } else {
        let rows = e
            .pods
            .into_iter()
            .map(|p| pod_row(&e.daemonset, p))
            .collect_view();
        Either::Right(view! {
            <table class="pods">
                <thead>
                    <tr><th>"pod"</th><th>"status"</th><th>"ready"</th><th>"revision"</th><th>"restarts"</th><th>"age"</th></tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        })
    };
    view! {
        <div class="explanation" data-node=e.node.clone() data-daemonset=e.daemonset.clone()>
            <h2>
                <span class="cell" data-state=state_name(state) aria-hidden="true">{state_symbol(state)}</span>
                " "
                <a href=links::daemonset(&e.daemonset)>{e.daemonset.clone()}</a>
                " on "
                <a href=links::node(&e.node)>{e.node.clone()}</a>
            </h2>
            <p class="state-line">{state_name(state)}": "{state_phrase(state)}</p>
            <p class="summary">{e.summary}</p>
            <dl class="verdict-flags">
                <dt>"shouldRun"</dt>
                <dd data-flag="shouldRun" data-value=e.placement.should_run.to_string()>{e.placement.should_run.to_string()}</dd>
                <dt>"shouldContinueRunning"</dt>
                <dd data-flag="shouldContinueRunning" data-value=e.placement.should_continue_running.to_string()>{e.placement.should_continue_running.to_string()}</dd>
            </dl>
            {e.refusal.map(|r| view! {
                <RefusalView refusal=r.refused.refusal nodes=r.nodes nodes_total=r.nodes_total/>
            })}
            {pending}
            <FixPlanView plan=e.fixes />
            <section aria-label="Reasons">
                <h3>"Reasons"</h3>
                <ul class="reasons">{reasons}</ul>
            </section>
            <section aria-label="Pods on this node">
                <h3>"Pods on this node"</h3>
                {pods}
            </section>
        </div>
    }
}

/// The body from its own lazily loaded WASM module (`#[lazy]`): the panel opens only on a
/// click, so its rendering (with the fix plans') stays off every page's first load; the
/// module comes with the first click, while the answer is on its way. Once in, the future is
/// ready at once, so a live refresh does not flicker. README.md, Performance.
#[leptos::lazy]
fn lazy_explanation_body(e: CellExplanation) -> AnyView {
    #[allow(clippy::disallowed_methods)] // a lazy function returns one type: AnyView
    let body = explanation_body(e).into_any();
    body
}

/// The explanation side panel; hidden when closed.
#[component]
pub fn ExplanationPanel(
    /// What to show.
    #[prop(into)]
    state: Signal<PanelState>,
    /// Closes the panel.
    on_close: Callback<()>,
) -> impl IntoView {
    view! {
        <Show when=move || state.with(|s| *s != PanelState::Closed)>
            <aside class="panel" aria-label="Cell explanation" data-testid="explanation">
                <button type="button" class="panel-close" aria-label="Close explanation" on:click=move |_| on_close.run(())>
                    "×"
                </button>
                {move || match state.get() {
                    PanelState::Closed => EitherOf4::A(()),
                    PanelState::Loading { node, daemonset } => {
                        EitherOf4::B(view! { <p class="muted" data-loading="true">"Explaining "{daemonset}" on "{node}"…"</p> })
                    }
                    PanelState::Failed { node, daemonset, error } => EitherOf4::C(view! {
                        <p class="error" role="alert">
                            "Could not explain "{daemonset}" on "{node}": "{error}
                        </p>
                    }),
                    PanelState::Loaded(e) => {
                        let e = *e;
                        EitherOf4::D(Suspend::new(async move { lazy_explanation_body(e).await }))
                    }
                }}
            </aside>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_manifest_name() {
        let rules = [
            Rule::NodeName,
            Rule::NodeSelector,
            Rule::NodeAffinity,
            Rule::Taint,
            Rule::Unschedulable,
            Rule::NodeReady,
            Rule::TolerationOperator,
        ];
        let names: std::collections::HashSet<_> = rules.iter().map(|r| rule_name(*r)).collect();
        assert_eq!(names.len(), rules.len());
    }
}
