//! "Labels" on the node page: every label of the node, key and value in full.
//!
//! Why: nodeSelector and node affinity decide placement on labels (§a.2 step 2), and the
//! matrix row shows only a few of them, shortened. A user checking why a DaemonSet skips a
//! node, or which label a suggested fix would add, needs the whole set. Labels are cluster
//! text and are rendered as text nodes only. The page reads them (`get_node_labels`).

use crate::server_fns::DashboardError;
use leptos::either::EitherOf4;
use leptos::prelude::*;

/// The label table of the page's `labels` resource.
#[component]
pub fn NodeLabels(
    labels: Resource<Result<Vec<(String, String)>, DashboardError>>,
) -> impl IntoView {
    view! {
        <section class="node-labels" data-testid="node-labels">
            <h2>"Labels"</h2>
            <Transition fallback=|| view! { <p class="section-note">"Loading labels…"</p> }>
                {move || Suspend::new(async move {
                    match labels.await {
                        Ok(rows) if rows.is_empty() => {
                            EitherOf4::A(view! { <p class="section-note">"This node has no labels."</p> })
                        }
                        Ok(rows) => EitherOf4::B(view! { <LabelTable rows=rows/> }),
                        Err(DashboardError::NotFound { .. }) => {
                            EitherOf4::C(view! { <p class="section-note">"The node is gone."</p> })
                        }
                        Err(e) => EitherOf4::D(view! {
                            <p class="section-note">"Labels are not available: "{e.to_string()}</p>
                        }),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn LabelTable(rows: Vec<(String, String)>) -> impl IntoView {
    view! {
        <table class="labels-table">
            <thead>
                <tr>
                    <th>"key"</th>
                    <th>"value"</th>
                </tr>
            </thead>
            <tbody>
                {rows
                    .into_iter()
                    .map(|(key, value)| {
                        let attr = key.clone();
                        view! {
                            <tr data-label=attr>
                                <td class="label-key"><code>{key}</code></td>
                                <td class="label-value"><code>{value}</code></td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
}
