//! kube-rs watchers on Nodes, DaemonSets, Pods and ControllerRevisions feeding the live state
//! (Events have their own, optional watcher: `cluster::events::watch`).
//!
//! Why this shape: each watcher turns objects into projections at the edge and hands them to
//! `Live`, which updates only the cells they touch. A (re)list is buffered and applied at
//! `InitDone` as one replacement, so a 410 relist never leaves stale cells behind. Any other
//! failure marks the resource's health (what the page shows), is logged, and the watcher is
//! rebuilt after a backoff: the rebuild relists, and that relist is what clears the banner.
//! A session from which nothing arrived for the quiet bound (`watch/quiet.rs`) is dropped and
//! rebuilt the same way, shown stale meanwhile. Only list and watch requests are sent
//! (docs/architecture.md#read-only).

use crate::cluster::live::Live;
use crate::cluster::projection::Projection;
use crate::cluster::state::Scope;
use futures::StreamExt;
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::runtime::watcher::{self, watcher, Event};
use kube::{Api, Client};
use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

mod failure;
pub mod quiet;
use crate::cluster::activity::Activity;
pub use failure::is_transport;
use failure::{describe, forbidden_user, is_expired, is_forbidden, is_streaming_rejection};
pub use quiet::Freshness;

/// First retry delay after a failure; doubles up to `MAX_BACKOFF`.
const MIN_BACKOFF: Duration = Duration::from_millis(500);
/// Longest delay between retries.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// An object type the dashboard watches, with its projection.
pub trait Watched:
    kube::Resource<DynamicType = ()>
    + Clone
    + Debug
    + serde::de::DeserializeOwned
    + Send
    + Sync
    + 'static
{
    /// The projection of this object; `None` when it is not the dashboard's business.
    fn project(&self) -> Option<Projection>;

    /// What identifies this object for removal when `project` refuses it (a DaemonSet that
    /// no longer converts must leave the page rather than stay shown as it was).
    fn forget(&self) -> Option<Projection> {
        self.project()
    }
}

impl Watched for Node {
    fn project(&self) -> Option<Projection> {
        Some(Projection::Node(crate::edge::convert::node_facts(self)))
    }
}

impl Watched for DaemonSet {
    fn project(&self) -> Option<Projection> {
        match crate::edge::convert::daemonset_facts(self) {
            Ok(facts) => Some(Projection::DaemonSet(facts)),
            Err(err) => {
                // Not shown rather than shown wrong; the log names the object and the problem.
                tracing::warn!(
                    daemonset = %format!("{}/{}", self.metadata.namespace.as_deref().unwrap_or(""), self.metadata.name.as_deref().unwrap_or("")),
                    error = %err,
                    "cannot use this DaemonSet"
                );
                None
            }
        }
    }

    fn forget(&self) -> Option<Projection> {
        self.project().or_else(|| {
            Some(Projection::DaemonSet(
                crate::edge::convert::daemonset_identity(self),
            ))
        })
    }
}

impl Watched for Pod {
    fn project(&self) -> Option<Projection> {
        // A pod without a DaemonSet owner is kept as its load on its node (§j.3); a pod that
        // loses its owner leaves its cell when its load arrives.
        if crate::edge::convert::daemonset_owner(self).is_none() {
            return Some(Projection::Load(crate::edge::convert::resources::pod_load(
                self,
            )));
        }
        Some(Projection::Pod(crate::edge::convert::pod_facts(self)))
    }
}

impl Watched for ControllerRevision {
    fn project(&self) -> Option<Projection> {
        crate::edge::convert::revision_facts(self).map(Projection::Revision)
    }
}

/// How a watch session ended.
enum Ended {
    /// The server or the connection failed; rebuild after a backoff.
    Failed,
    /// The server rejected the streaming list (no support): fall back to paginated lists.
    StreamingUnsupported,
    /// Nothing arrived for the quiet bound: rebuild at once (the quiet bound was the wait).
    Quiet,
}

/// What a session needs besides its API: where bytes are seen arriving, and the bound.
#[derive(Debug, Clone)]
pub struct Watchdog {
    /// Arrivals per request path, from the client's layer.
    pub activity: Activity,
    /// The freshness settings.
    pub freshness: Freshness,
}

/// Retry delays: exponential with a cap, reset once a list completes.
#[derive(Debug)]
struct Backoff {
    next: Duration,
}

impl Backoff {
    fn new() -> Self {
        Self { next: MIN_BACKOFF }
    }

    fn reset(&mut self) {
        self.next = MIN_BACKOFF;
    }

    fn step(&mut self) -> Duration {
        let now = self.next;
        self.next = (self.next * 2).min(MAX_BACKOFF);
        now
    }
}

/// Runs one watch session until it fails.
async fn session<K: Watched>(
    api: &Api<K>,
    scope: &Scope,
    live: &Live,
    user: &str,
    streaming: bool,
    backoff: &mut Backoff,
    dog: &Watchdog,
) -> Ended {
    let bound = dog.freshness.quiet_after;
    let config = watcher::Config::default().timeout(quiet::watch_timeout(bound));
    let config = if streaming {
        config.streaming_lists()
    } else {
        config
    };
    let mut stream = watcher(api.clone(), config).boxed();
    let mut buffer: Option<Vec<Projection>> = None;
    let label = scope.label();
    let path = quiet::scope_path(scope);
    let started = tokio::time::Instant::now();
    let mut check = tokio::time::interval(quiet::check_every(bound));
    check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let event = tokio::select! {
            event = stream.next() => match event {
                Some(event) => event,
                None => break,
            },
            _ = check.tick() => {
                // Arrivals of an earlier session do not count for this one.
                let last = dog.activity.last(&path).map_or(started, |at| at.max(started));
                if last.elapsed() >= bound {
                    let message = quiet::quiet_message(scope, bound);
                    tracing::warn!(resource = %label, "{message}");
                    live.watch_silent(scope, message);
                    return Ended::Quiet;
                }
                continue;
            }
        };
        match event {
            Ok(Event::Init) => buffer = Some(Vec::new()),
            Ok(Event::InitApply(object)) => {
                if let Some(projection) = object.project() {
                    buffer.get_or_insert_with(Vec::new).push(projection);
                }
            }
            Ok(Event::InitDone) => {
                let objects = buffer.take().unwrap_or_default();
                tracing::info!(resource = %label, objects = objects.len(), "watcher synced");
                live.replace(scope, objects);
                backoff.reset();
            }
            Ok(Event::Apply(object)) => match object.project() {
                Some(projection) => {
                    live.apply(scope, projection);
                }
                None => {
                    if let Some(projection) = object.forget() {
                        live.delete(scope, &projection);
                    }
                }
            },
            Ok(Event::Delete(object)) => {
                if let Some(projection) = object.forget() {
                    live.delete(scope, &projection);
                }
            }
            Err(err) if is_expired(&err) => {
                // kube-rs relists by itself after a 410; the relist replaces this scope.
                tracing::info!(resource = %label, error = %err, "watch expired (410), relisting");
            }
            Err(err) => {
                if streaming && is_streaming_rejection(&err) {
                    tracing::warn!(resource = %label, error = %err, "streaming list rejected, falling back to paginated lists");
                    return Ended::StreamingUnsupported;
                }
                let user = forbidden_user(&err, user);
                let (message, lost) = describe(scope, &user, &err);
                if is_transport(&err) {
                    // Every retry during an outage fails alike: the readiness poll logs the
                    // outage once when it starts and once when it ends (`live/freshness.rs`).
                    tracing::debug!(resource = %label, error = %err, lost, "{message}");
                } else {
                    tracing::warn!(resource = %label, error = %err, lost, "{message}");
                }
                if is_forbidden(&err) {
                    live.watch_denied(scope, message);
                } else {
                    live.watch_failed(scope, message, lost);
                }
                return Ended::Failed;
            }
        }
    }
    tracing::warn!(resource = %label, "watch stream ended");
    Ended::Failed
}

/// Watches one scope for ever: sessions, backoff, fallback from streaming to paginated lists.
pub async fn run<K: Watched>(
    api: Api<K>,
    scope: Scope,
    live: Arc<Live>,
    user: String,
    streaming: bool,
    dog: Watchdog,
) {
    let mut streaming = streaming;
    let mut backoff = Backoff::new();
    loop {
        match session(&api, &scope, &live, &user, streaming, &mut backoff, &dog).await {
            Ended::StreamingUnsupported => streaming = false,
            Ended::Failed => tokio::time::sleep(backoff.step()).await,
            Ended::Quiet => tokio::time::sleep(MIN_BACKOFF).await,
        }
    }
}

/// The scopes watched for a namespace filter (empty: cluster-wide).
pub fn scopes(namespaces: &[String]) -> Vec<Scope> {
    let mut scopes = vec![Scope::Nodes];
    if namespaces.is_empty() {
        scopes.extend([
            Scope::DaemonSets(None),
            Scope::Pods(None),
            Scope::Revisions(None),
        ]);
    } else {
        for ns in namespaces {
            scopes.push(Scope::DaemonSets(Some(ns.clone())));
            scopes.push(Scope::Pods(Some(ns.clone())));
            scopes.push(Scope::Revisions(Some(ns.clone())));
        }
    }
    scopes
}

fn api_for<K>(client: &Client, namespace: &Option<String>) -> Api<K>
where
    K: kube::Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>,
{
    match namespace {
        Some(ns) => Api::namespaced(client.clone(), ns),
        None => Api::all(client.clone()),
    }
}

/// Spawns one watcher task per scope, plus the Events watchers. `user` names the configured identity for 403 messages;
/// `streaming` starts with streaming lists (servers that reject them fall back to pages).
pub fn spawn_all(
    client: &Client,
    scopes: &[Scope],
    live: &Arc<Live>,
    user: &str,
    streaming: bool,
    dog: &Watchdog,
) -> Vec<JoinHandle<()>> {
    // Events for the namespaces the DaemonSets are watched in (optional data, see events).
    let namespaces: Vec<String> = scopes
        .iter()
        .filter_map(|s| match s {
            Scope::DaemonSets(Some(ns)) => Some(ns.clone()),
            _ => None,
        })
        .collect();
    let mut tasks = crate::cluster::events::watch::spawn(client, &namespaces, live);
    tasks.extend(scopes.iter().map(|scope| {
        let live_for_task = live.clone();
        let user = user.to_string();
        let scope = scope.clone();
        let client = client.clone();
        let dog = dog.clone();
        // After a panic the watcher starts again with a fresh list, as after a 410.
        live.tasks().spawn(scope.label(), move || {
            let (live, user, scope) = (live_for_task.clone(), user.clone(), scope.clone());
            let client = client.clone();
            let dog = dog.clone();
            async move {
                match &scope {
                    Scope::Nodes => {
                        run(Api::<Node>::all(client), scope, live, user, streaming, dog).await
                    }
                    Scope::DaemonSets(ns) => {
                        let api = api_for::<DaemonSet>(&client, ns);
                        run(api, scope, live, user, streaming, dog).await
                    }
                    Scope::Pods(ns) => {
                        let api = api_for::<Pod>(&client, ns);
                        run(api, scope, live, user, streaming, dog).await
                    }
                    Scope::Revisions(ns) => {
                        let api = api_for::<ControllerRevision>(&client, ns);
                        run(api, scope, live, user, streaming, dog).await
                    }
                }
            }
        })
    }));
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_its_cap_and_resets_after_a_sync() {
        let mut backoff = Backoff::new();
        let steps: Vec<Duration> = (0..10).map(|_| backoff.step()).collect();
        assert_eq!(steps[0], MIN_BACKOFF);
        assert_eq!(steps[1], MIN_BACKOFF * 2);
        assert_eq!(*steps.last().unwrap_or(&Duration::ZERO), MAX_BACKOFF);
        backoff.reset();
        assert_eq!(backoff.step(), MIN_BACKOFF);
    }

    #[test]
    fn a_namespace_filter_limits_daemonsets_pods_and_revisions_but_not_nodes() {
        let scopes = scopes(&["a".to_string()]);
        assert_eq!(
            scopes,
            vec![
                Scope::Nodes,
                Scope::DaemonSets(Some("a".into())),
                Scope::Pods(Some("a".into())),
                Scope::Revisions(Some("a".into()))
            ]
        );
    }
}
