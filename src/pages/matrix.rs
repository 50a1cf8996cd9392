//! PLACEHOLDER: the coverage matrix page.
use leptos::prelude::*;

/// The coverage matrix, node × DaemonSet.
#[component]
pub fn MatrixPage() -> impl IntoView {
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! { <h1 data-hydrated=move || hydrated.get().to_string()>"daemonscope"</h1> }
}
