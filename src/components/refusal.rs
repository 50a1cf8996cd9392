//! A refused pod creation (§l): who refuses (kind, name, binding, Pod Security level and
//! violated checks, the quota and what is exceeded), their words, and the nodes left without
//! a pod. Shown in a missing cell's explanation and on the DaemonSet page.
//!
//! Why one component: both places answer "why has this DaemonSet no pod on those nodes?" and
//! must say it the same way. Every field is cluster text: rendered as text (Leptos escapes
//! it), never as HTML (docs/architecture.md#untrusted-input-is-escaped-and-bounded).

use crate::domain::admission::Refusal;
use crate::links;
use leptos::either::Either;
use leptos::prelude::*;

/// The refusal with the nodes it keeps bare (`nodes` shown, `nodes_total` in all).
#[component]
pub fn RefusalView(
    /// The classified refusal.
    refusal: Refusal,
    /// Nodes missing the pod, by name (bounded by the caller).
    nodes: Vec<String>,
    /// How many nodes miss it in all.
    nodes_total: usize,
) -> impl IntoView {
    let kind = refusal.kind;
    let fact = |label: &'static str, field: &'static str, value: Option<String>| {
        value.map(|v| {
            view! {
                <dt>{label}</dt>
                <dd data-field=field>{v}</dd>
            }
        })
    };
    let violations = (!refusal.violations.is_empty()).then(|| {
        let items = refusal
            .violations
            .iter()
            .map(|v| {
                let detail = (!v.detail.is_empty()).then(|| format!(" ({})", v.detail));
                view! { <li data-check=v.check.clone()><code>{v.check.clone()}</code>{detail}</li> }
            })
            .collect_view();
        view! { <ul class="refusal-violations" aria-label="Violated checks">{items}</ul> }
    });
    let exceeded = refusal.exceeded.clone().map(|e| {
        view! {
            <dl class="facts refusal-exceeded" aria-label="What the quota exceeds">
                <dt>"requested"</dt><dd data-field="requested"><code>{e.requested}</code></dd>
                <dt>"used"</dt><dd data-field="used"><code>{e.used}</code></dd>
                <dt>"limited"</dt><dd data-field="limited"><code>{e.limited}</code></dd>
            </dl>
        }
    });
    let reason = (!refusal.reason.is_empty()).then(
        || view! { <p class="refusal-reason" data-field="reason">{refusal.reason.clone()}</p> },
    );
    let where_ = if nodes_total == 0 {
        Either::Left(
            view! { <p class="muted" data-field="nodes">"No node misses the pod now."</p> },
        )
    } else {
        let more = nodes_total.saturating_sub(nodes.len());
        let links = nodes
            .into_iter()
            .map(|n| view! { <li><a class="node-name" href=links::node(&n)>{n.clone()}</a></li> })
            .collect_view();
        Either::Right(view! {
            <div data-field="nodes">
                <p>
                    {format!(
                        "Keeps the pod off {nodes_total} node{}:",
                        if nodes_total == 1 { "" } else { "s" }
                    )}
                </p>
                <ul class="refusal-nodes">{links}</ul>
                {(more > 0).then(|| view! { <p class="muted">{format!("and {more} more")}</p> })}
            </div>
        })
    };
    view! {
        <section class="refusal" data-testid="refusal" data-refusal=kind.as_str() aria-label="Refused creation">
            <h3>"Creation refused by " {refusal.headline()}</h3>
            <dl class="facts">
                <dt>"refused by"</dt>
                <dd data-field="kind">{kind.title()}</dd>
                {fact("name", "name", refusal.name.clone())}
                {fact("binding", "binding", refusal.binding.clone())}
                {fact("Pod Security level", "level", refusal.level.clone())}
            </dl>
            {violations}
            {exceeded}
            {reason}
            <details class="refusal-message">
                <summary>"The API server's message"</summary>
                <p><code data-field="message">{refusal.message.clone()}</code></p>
            </details>
            {where_}
        </section>
    }
}
