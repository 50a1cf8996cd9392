//! The "what would change it" part of the explanation panel: per blocking rule, the exact
//! `kubectl` command or DaemonSet YAML to paste, each with a Copy button.
//!
//! Why a component of its own: the text is computed and proven in the domain
//! (`scheduling::blockers`); this file only lays it out. The dashboard is read-only, so every
//! command is shown as text the user runs themselves, never run for them.

use crate::domain::scheduling::{Blocker, Fix, FixAction, PatchEdit};
use crate::domain::view::FixPlan;
use leptos::prelude::*;

/// Where a YAML snippet goes, as a person reads it.
fn where_line(path: &str, edit: PatchEdit) -> String {
    match edit {
        PatchEdit::Append => format!("Add to the DaemonSet under {path}:"),
        PatchEdit::Remove => format!("Delete from the DaemonSet under {path}:"),
    }
}

/// Copies `text` to the clipboard and says "Copied" for two seconds ("Copy failed" when the
/// browser refuses, e.g. outside a secure context).
#[component]
fn CopyButton(text: String) -> impl IntoView {
    let (label, set_label) = signal("Copy");
    let on_click = move |_| copy_text(text.clone(), set_label);
    view! {
        <button type="button" class="copy" data-testid="copy" on:click=on_click aria-live="polite">
            {label}
        </button>
    }
}

/// Writes to `navigator.clipboard` and reports the outcome on the button.
#[cfg(feature = "hydrate")]
fn copy_text(text: String, set_label: WriteSignal<&'static str>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let promise = window.navigator().clipboard().write_text(&text);
    leptos::task::spawn_local(async move {
        let done = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        set_label.set(if done { "Copied" } else { "Copy failed" });
        set_timeout(
            move || set_label.set("Copy"),
            std::time::Duration::from_secs(2),
        );
    });
}

/// On the server there is no clipboard; the button works once hydrated.
#[cfg(not(feature = "hydrate"))]
fn copy_text(_text: String, _set_label: WriteSignal<&'static str>) {}

/// One fix: its description, where it goes, the text and a Copy button.
pub fn fix_item(fix: Fix) -> impl IntoView {
    let text = fix.text().to_string();
    let (kind, place) = match &fix.action {
        FixAction::Command { .. } => ("command", None),
        FixAction::DaemonSetPatch { path, edit, .. } => ("yaml", Some(where_line(path, *edit))),
    };
    view! {
        <li class="fix" data-testid="fix" data-kind=kind>
            <p class="fix-description">{fix.description}</p>
            {place.map(|p| view! { <p class="fix-where">{p}</p> })}
            <div class="fix-text">
                <pre><code data-testid="fix-text">{text.clone()}</code></pre>
                <CopyButton text=text />
            </div>
        </li>
    }
}

fn blocker_item(b: Blocker) -> impl IntoView {
    let options = b.options.into_iter().map(fix_item).collect_view();
    view! {
        <li class="blocker" data-testid="blocker" data-rule=format!("{:?}", b.rule)>
            <p class="blocker-problem">{b.problem}</p>
            <ul class="fix-options">{options}</ul>
        </li>
    }
}

/// The plan for one cell; renders nothing when there is nothing to do.
#[component]
pub fn FixPlanView(plan: FixPlan) -> impl IntoView {
    let empty = plan.headline.is_empty() && plan.blockers.is_empty() && plan.reconcile.is_empty();
    (!empty).then(|| {
        let blockers = plan.blockers.into_iter().map(blocker_item).collect_view();
        let reconcile = (!plan.reconcile.is_empty()).then(|| {
            let items = plan.reconcile.into_iter().map(fix_item).collect_view();
            view! { <ul class="fix-options reconcile" data-testid="reconcile">{items}</ul> }
        });
        view! {
            <section class="fixes" aria-label="What would change it" data-testid="fixes">
                <h3>"What would change it"</h3>
                <p class="fix-headline" data-testid="fix-headline">{plan.headline}</p>
                <p class="muted fix-note">"daemonscope is read-only: copy and run these yourself."</p>
                <ol class="blockers">{blockers}</ol>
                {reconcile}
            </section>
        }
    })
}
