//! "Revision history" on the DaemonSet page: every ControllerRevision kubectl lists, newest
//! first, what changed in each template, and the nodes still running it.
//!
//! Why: "which nodes still run revision 2, and what changed in 3?" is the question behind a
//! stalled rollout; kubectl answers it only with a `rollout history --revision` per number
//! and a pod listing by label. Presentational: the page's resource comes as a prop; every
//! string from the cluster is rendered as text.

use crate::domain::view::{RevisionHistory, RevisionRow};
use crate::links;
use crate::server_fns::DashboardError;
use crate::text::format_age;
use leptos::either::EitherOf3;
use leptos::prelude::*;

/// The section, from the page's `get_revision_history` resource.
#[component]
pub fn RevisionHistorySection(
    history: Resource<Result<RevisionHistory, DashboardError>>,
) -> impl IntoView {
    view! {
        <section class="revision-history" aria-label="Revision history" data-testid="revision-history">
            <h2>"Revision history"</h2>
            <p class="section-note">
                "Numbered as " <code>"kubectl rollout history"</code>
                " numbers them, newest first; each revision says what changed from the one before it and which nodes still run it."
            </p>
            <Transition fallback=|| view! { <p class="section-note">"Loading the revision history…"</p> }>
                {move || Suspend::new(async move {
                    match history.await {
                        Ok(h) if h.revisions.is_empty() => EitherOf3::A(view! {
                            <p class="section-note" data-testid="no-revisions">"No rollout history found."</p>
                        }),
                        Ok(h) => EitherOf3::B(view! { <RevisionTable rows=h.revisions/> }),
                        Err(e) => EitherOf3::C(view! {
                            <p class="section-note" data-testid="revisions-error">
                                "The revision history is not available: " {e.to_string()}
                            </p>
                        }),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn RevisionTable(rows: Vec<RevisionRow>) -> impl IntoView {
    view! {
        <table class="ds-table revision-table">
            <thead>
                <tr>
                    <th>"revision"</th>
                    <th>"age"</th>
                    <th>"changes from the revision before"</th>
                    <th>"nodes still running it"</th>
                </tr>
            </thead>
            <tbody>
                {rows.into_iter().map(|r| view! { <RevisionLine row=r/> }).collect_view()}
            </tbody>
        </table>
    }
}

#[component]
fn RevisionLine(row: RevisionRow) -> impl IntoView {
    let more = row.node_count.saturating_sub(row.nodes.len());
    let pods = if row.pod_count == 1 {
        "1 pod".to_string()
    } else {
        format!("{} pods", row.pod_count)
    };
    let count = match row.node_count {
        0 => "no node".to_string(),
        1 => format!("1 node ({pods})"),
        n => format!("{n} nodes ({pods})"),
    };
    view! {
        <tr
            data-testid="revision"
            data-revision=row.revision.to_string()
            data-current=row.current.to_string()
            class:revision-current=row.current
        >
            <td class="revision-number">
                <strong>{row.revision}</strong>
                {row.current.then(|| view! { <span class="badge current" data-testid="current-revision">"current"</span> })}
                <div class="muted revision-hash"><code>{row.hash}</code></div>
                {row.change_cause.map(|c| view! { <div class="revision-cause">{c}</div> })}
            </td>
            <td>{format_age(row.age_seconds)}</td>
            <td>
                <ul class="revision-changes">
                    {row.changes.into_iter().map(|c| view! { <li data-testid="revision-change">{c}</li> }).collect_view()}
                </ul>
            </td>
            <td>
                <div data-testid="revision-node-count">{count}</div>
                <ul class="revision-nodes">
                    {row
                        .nodes
                        .into_iter()
                        .map(|n| {
                            view! {
                                <li>
                                    <a class="node-name" href=links::node(&n) data-node=n.clone()>{n.clone()}</a>
                                </li>
                            }
                        })
                        .collect_view()}
                    {(more > 0).then(|| view! { <li class="muted" data-testid="more-nodes">{format!("and {more} more")}</li> })}
                </ul>
            </td>
        </tr>
    }
}
