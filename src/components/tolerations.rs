//! "Tolerations of its pods" on the DaemonSet page: the template's tolerations and the ones
//! the DaemonSet controller adds by itself (§b), the latter marked.
//!
//! Why: whether an agent survives a NotReady node or a cordon is decided by tolerations nobody
//! wrote in the manifest; listing them beside the user's ends the guessing. Presentational:
//! the list comes as a prop; each entry is pasteable YAML, rendered as text.

use crate::domain::view::EffectiveToleration;
use leptos::prelude::*;

/// The list, with a note when the template itself has none.
#[component]
pub fn TolerationList(tolerations: Signal<Vec<EffectiveToleration>>) -> impl IntoView {
    view! {
        <section class="tolerations" aria-label="Tolerations of its pods" data-testid="tolerations">
            <h2>"Tolerations of its pods"</h2>
            <p class="section-note">
                "What every daemon pod carries: the template's, then those the DaemonSet controller adds by itself (marked "
                <em>"automatic"</em>
                ")."
            </p>
            {move || {
                let list = tolerations.get();
                let written = list.iter().filter(|t| !t.automatic).count();
                (written == 0)
                    .then(|| view! { <p class="muted" data-testid="no-template-tolerations">"The template sets no tolerations."</p> })
            }}
            <ul class="toleration-list">
                {move || {
                    tolerations
                        .get()
                        .into_iter()
                        .map(|t| {
                            let source = if t.automatic { "automatic" } else { "template" };
                            view! {
                                <li data-source=source>
                                    <code>{t.yaml}</code>
                                    {t.automatic.then(|| view! { <span class="badge auto">"automatic"</span> })}
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
        </section>
    }
}
