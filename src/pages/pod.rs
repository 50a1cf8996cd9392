//! The pod page (`/pod/:namespace/:name`): one daemon pod in full (phase, conditions, each
//! container's state, restarts and last termination, node, revision) and its recent events.
//!
//! Data: `get_pod` reads the pod from the API server on demand (the live store keeps only a
//! compact projection), server-rendered, then re-read every `POLL`: a restart count or a
//! back-off changes no cell of the matrix, so no live delta would bring it.

use super::failed::PodFailed;
use super::poll::poll_tick;
use crate::components::banner::{StaleBanner, TopBar};
use crate::components::events::RecentEvents;
use crate::components::pod::{ContainerTable, PodConditions, PodFacts};
use crate::domain::view::{EventScope, PodDetail};
use crate::live_client::{use_live_hub, Feed, LiveHub};
use crate::server_fns::get_pod;
use crate::views::node::NodeDetail;
use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

/// The pod page.
#[component]
pub fn PodPage() -> impl IntoView {
    let hub = use_live_hub();
    let params = use_params_map();
    let key = Memo::new(move |_| {
        params.with(|p| {
            (
                p.get("namespace").unwrap_or_default(),
                p.get("name").unwrap_or_default(),
            )
        })
    });
    let poll = poll_tick(super::POLL);
    let detail = Resource::new(
        move || (key.get(), poll.get()),
        |((namespace, name), _)| get_pod(namespace, name),
    );
    view! {
        <Transition fallback=|| view! { <p class="loading">"Loading the pod…"</p> }>
            {move || {
                let hub = hub.clone();
                Suspend::new(async move {
                    let (namespace, name) = key.get_untracked();
                    let k = format!("{namespace}/{name}");
                    match detail.await {
                        Ok(d) => Either::Left(view! { <PodView pod=d key=k hub=hub/> }),
                        Err(e) => Either::Right(view! { <PodFailed key=k error=e hub=hub/> }),
                    }
                })
            }}
        </Transition>
    }
}

#[component]
fn PodView(pod: PodDetail, key: String, hub: LiveHub) -> impl IntoView {
    // The header's cluster name, health and live mark come from the view of the pod's node
    // (a few hundred bytes): its whole first message, then patches of that one row.
    if let Some(node) = &pod.node {
        hub.follow_view::<NodeDetail>(Feed::node(node), None, |_, _| {}, |_| {});
    }
    let cluster = Signal::derive({
        let hub = hub.clone();
        move || hub.cluster.get().unwrap_or_else(|| "cluster".to_string())
    });
    // The node's view carries the cluster's health: stale data says so here too.
    let health = Signal::derive({
        let hub = hub.clone();
        move || hub.health.get().unwrap_or_default()
    });
    // Re-read on its own timer (events_resource polls every POLL too).
    let events = super::events_resource(EventScope::Pod, key.clone(), Signal::stored(0));
    let read_at = pod.read_at;
    let crumbs = pod.owner.clone().map(|o| {
        view! { " · " <a href=crate::links::daemonset(&o)>{format!("DaemonSet {o}")}</a> }
    });
    let init = (!pod.init_containers.is_empty()).then(|| {
        view! {
            <ContainerTable title="Init containers" containers=pod.init_containers.clone() read_at=read_at/>
        }
    });
    view! {
        <TopBar cluster=cluster conn=hub.conn health=health/>
        <StaleBanner health=health conn=hub.conn/>
        <div class="content" data-testid="pod-page" data-pod=key.clone()>
            <p class="crumbs"><a href=crate::links::matrix()>"← matrix"</a>{crumbs}</p>
            <div class="detail-head">
                <div>
                    <h1><code>{pod.name.clone()}</code></h1>
                    <p class="muted">"namespace " <code>{pod.namespace.clone()}</code></p>
                </div>
                <PodFacts pod=pod.clone()/>
            </div>
            <ContainerTable title="Containers" containers=pod.containers.clone() read_at=read_at/>
            {init}
            <PodConditions conditions=pod.conditions.clone() read_at=read_at/>
            <RecentEvents events=events/>
            <p class="section-note pod-note">
                "Events shown are the ones kept for the pod's DaemonSet page (its newest). "
                "Logs, environment values, command lines and volumes are never shown."
            </p>
        </div>
    }
}
