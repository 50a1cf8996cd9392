//! The kube-rs watcher on core/v1 Events (cluster-wide, or one per `--namespace`; node
//! events live in `default`, so a namespace filter shows only its DaemonSets' events).
//!
//! Why apart from the matrix watchers: events are optional. A failure here (a 403 is common:
//! many read-only roles omit events) is logged and retried slowly, never put in the health
//! banner or readiness, and never blocks the matrix. Only list and watch are sent.
use super::{event_facts, pages_for};
use crate::cluster::live::Live;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Event;
use kube::runtime::watcher::{self, watcher};
use kube::{Api, Client};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// Retry delay after a failure: events can wait, the matrix comes first.
const RETRY: Duration = Duration::from_secs(10);
/// Longest wait for the matrix's first lists before events are listed anyway.
const WAIT_FOR_MATRIX: Duration = Duration::from_secs(60);

/// Waits until the matrix watchers have listed (or `WAIT_FOR_MATRIX` has passed). A pod's
/// events are filed under its DaemonSet through the pod list: events listed before the pods
/// would be dropped as "not about anything shown", and the pod list of a large cluster takes
/// seconds longer than the events list.
async fn wait_for_matrix(live: &Live) {
    let started = std::time::Instant::now();
    while !live.is_ready() && started.elapsed() < WAIT_FOR_MATRIX {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Files one event on its pages, or drops it when no shown object is involved.
fn file(
    live: &Live,
    event: &Event,
) -> Option<(Vec<super::Page>, String, crate::domain::view::EventRow)> {
    let facts = event_facts(event);
    let (pages, object) = pages_for(&facts.involved, |uid| live.read(|s| s.home_of_pod(uid)))?;
    let mut row = facts.row;
    row.object = object;
    Some((pages, facts.uid, row))
}

/// Watches Events through `api` for ever, feeding `live`'s recent events.
/// A namespaced watcher (`whole` false) adds its relist to what is held instead of replacing
/// it, since other namespaces' watchers share the store.
pub async fn run(api: Api<Event>, live: Arc<Live>, label: String, whole: bool) {
    wait_for_matrix(&live).await;
    loop {
        let mut stream = watcher(api.clone(), watcher::Config::default()).boxed();
        let mut buffer = Vec::new();
        while let Some(event) = stream.next().await {
            match event {
                Ok(watcher::Event::Init) => buffer.clear(),
                Ok(watcher::Event::InitApply(e)) => buffer.extend(file(&live, &e)),
                Ok(watcher::Event::InitDone) => {
                    tracing::info!(resource = %label, kept = buffer.len(), "events watcher synced");
                    let events = std::mem::take(&mut buffer);
                    if whole {
                        live.events_replace(events);
                    } else {
                        for (pages, uid, row) in events {
                            live.events_apply(&pages, uid, row);
                        }
                    }
                }
                Ok(watcher::Event::Apply(e)) => match file(&live, &e) {
                    Some((pages, uid, row)) => live.events_apply(&pages, uid, row),
                    None => live.events_remove(e.metadata.uid.as_deref().unwrap_or("")),
                },
                Ok(watcher::Event::Delete(e)) => {
                    live.events_remove(e.metadata.uid.as_deref().unwrap_or(""))
                }
                Err(watcher::Error::WatchError(s)) if s.code == 410 => {
                    tracing::info!(resource = %label, "events watch expired (410), relisting");
                }
                Err(err) if crate::cluster::watch::is_transport(&err) => {
                    // No answer at all: the outage is logged once by the readiness poll.
                    tracing::debug!(resource = %label, error = %err, "events are not available (optional: the pages show none); retrying");
                    break;
                }
                Err(err) => {
                    tracing::warn!(resource = %label, error = %err, "events are not available (optional: the pages show none); retrying");
                    break;
                }
            }
        }
        tokio::time::sleep(RETRY).await;
    }
}

/// Spawns the events watchers: one cluster-wide, or one per namespace of the filter.
pub fn spawn(client: &Client, namespaces: &[String], live: &Arc<Live>) -> Vec<JoinHandle<()>> {
    let watch_in = |namespace: Option<String>| {
        let (client, live_for_task) = (client.clone(), live.clone());
        let label = match &namespace {
            Some(ns) => format!("events in {ns}"),
            None => "events".to_string(),
        };
        live.tasks().spawn(label.clone(), move || {
            let (live, label) = (live_for_task.clone(), label.clone());
            match &namespace {
                Some(ns) => run(Api::namespaced(client.clone(), ns), live, label, false),
                None => run(Api::all(client.clone()), live, label, true),
            }
        })
    };
    if namespaces.is_empty() {
        vec![watch_in(None)]
    } else {
        namespaces
            .iter()
            .map(|ns| watch_in(Some(ns.clone())))
            .collect()
    }
}
