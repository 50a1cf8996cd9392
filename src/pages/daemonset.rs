//! The DaemonSet page (`/ds/:namespace/:name`): its rollout node by node, the budget gauge
//! and the verdict `kubectl rollout status` would print, kept live.
//!
//! Data: `get_daemonset_window` (column summary, revision, and per node worth a row the state,
//! shouldRun and pods), cut on the server and server-rendered; then `/api/view/ds/…` patches
//! it (the server cuts it again on every change and sends the rows that changed), and the
//! recent events and revision history are re-read when it moved.

mod room;
mod rows;
mod view;

use super::failed::DaemonSetFailed;
use super::whatif::{use_whatif, WhatIfTarget};
use crate::live_client::use_live_hub;
use crate::server_fns::get_daemonset_window;
use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use view::DaemonSetView;

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
    let detail = Resource::new(move || key.get(), get_daemonset_window);
    let whatif = use_whatif(Signal::derive(move || WhatIfTarget::DaemonSet(key.get())));
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the DaemonSet…"</p> }>
            {move || {
                let hub = hub.clone();
                Suspend::new(async move {
                    let k = key.get_untracked();
                    match detail.await {
                        Ok(w) => Either::Left(view! { <DaemonSetView window=w key=k hub=hub whatif=whatif/> }),
                        Err(e) => Either::Right(view! { <DaemonSetFailed key=k error=e hub=hub/> }),
                    }
                })
            }}
        </Transition>
    }
}
