//! The simulated cluster's controllers: the DaemonSet controller, the kubelet stand-in (with
//! scheduler bind and pod GC), the taint-eviction controller, and the scenario's scheduled
//! template updates.
//!
//! Why a work queue fed by the store's change stream: like the real controller, each DaemonSet
//! is synced when something that concerns it changes (the DaemonSet, one of its pods, any
//! node), repeated changes collapse into one sync, and a sync can ask to be looked at again
//! later (backoff, minReadySeconds). The decisions themselves are the domain's (§a.7, §c, §d).

mod cache;
mod claims;
mod pods;
pub mod revisions;
mod sync;

/// The event source of the DaemonSet controller.
pub const COMPONENT: &str = "daemonset-controller";

use super::clock::SimClock;
use super::scenario::settings::{ScheduledUpdate, SimulationSettings};
use super::store::{Store, StoreError, StoreEvent};
use crate::domain::names;
use cache::{Cache, Touched};
use claims::Claims;
use daemonscope_supervise::Supervisor;
use k8s_openapi::api::apps::v1::DaemonSet;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use sync::Syncer;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The running controllers; dropping it does not stop them, `shutdown` does.
pub struct Controllers {
    /// The clock they run on (share it with the store for timestamps).
    pub clock: SimClock,
    shutdown: watch::Sender<bool>,
    handles: Vec<JoinHandle<()>>,
    /// Restarts a task that panics and says so on the simulated API server's `/readyz`.
    supervisor: Supervisor,
}

impl Controllers {
    /// The health of every controller task, for `/readyz`.
    pub fn supervisor(&self) -> Supervisor {
        self.supervisor.clone()
    }

    /// Tells every controller task to stop, without waiting (for `Drop` paths).
    pub fn stop(&self) {
        let _ = self.shutdown.send(true);
    }

    /// Stops every controller task and waits for them.
    pub async fn shutdown(self) {
        let _ = self.shutdown.send(true);
        for h in self.handles {
            let _ = h.await;
        }
    }
}

/// Starts the DaemonSet controller, the kubelet stand-in, the taint-eviction and node lifecycle
/// controllers and the scheduled updates over
/// `store`, on `clock` (create the store with `clock.now_fn()` so timestamps agree).
pub fn spawn(store: Store, settings: SimulationSettings, clock: SimClock) -> Controllers {
    let settings = Arc::new(settings);
    super::node_lifecycle::resync(&store, &clock);
    let (tx, rx) = watch::channel(false);
    let supervisor = Supervisor::new();
    // Each task is built again from the store after a panic (the real controllers rebuild
    // their caches from informers the same way); scheduled updates continue after the last
    // one applied instead of repeating it.
    let applied_updates = Arc::new(AtomicUsize::new(0));
    let handles = vec![
        supervisor.spawn(COMPONENT, {
            let (store, settings, rx) = (store.clone(), settings.clone(), rx.clone());
            move || run_daemonset_controller(store.clone(), clock, settings.clone(), rx.clone())
        }),
        super::kubelet::spawn(
            &supervisor,
            store.clone(),
            clock,
            settings.clone(),
            rx.clone(),
        ),
        super::taint_eviction::spawn(&supervisor, store.clone(), clock, rx.clone()),
        super::node_lifecycle::spawn(&supervisor, store.clone(), clock, rx.clone()),
        supervisor.spawn("scheduled-updates", move || {
            run_updates(
                store.clone(),
                clock,
                settings.updates.clone(),
                applied_updates.clone(),
                rx.clone(),
            )
        }),
    ];
    Controllers {
        clock,
        shutdown: tx,
        handles,
        supervisor,
    }
}

type Key = (String, String);

struct Queue {
    dirty: BTreeSet<Key>,
    later: BinaryHeap<Reverse<(Duration, Key)>>,
}

impl Queue {
    fn all(&mut self, store: &Store) {
        for ds in store.list::<DaemonSet>(None) {
            if let (Some(ns), Some(name)) = (ds.metadata.namespace, ds.metadata.name) {
                self.dirty.insert((ns, name));
            }
        }
    }
}

async fn run_daemonset_controller(
    store: Store,
    clock: SimClock,
    settings: Arc<SimulationSettings>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut events = store.subscribe();
    let mut cache = Cache::load(&store);
    let mut claims = Claims::load(&store);
    let mut syncer = Syncer::new(store.clone(), clock, settings, 1);
    let mut queue = Queue {
        dirty: BTreeSet::new(),
        later: BinaryHeap::new(),
    };
    // uid -> key, to route pod events to their owner
    let mut owners: std::collections::HashMap<String, Key> = std::collections::HashMap::new();
    let refresh_owners = |owners: &mut std::collections::HashMap<String, Key>| {
        owners.clear();
        for ds in store.list::<DaemonSet>(None) {
            if let (Some(uid), Some(ns), Some(name)) =
                (ds.metadata.uid, ds.metadata.namespace, ds.metadata.name)
            {
                owners.insert(uid, (ns, name));
            }
        }
    };
    refresh_owners(&mut owners);
    queue.all(&store);
    loop {
        // Drain every change that is already there, then sync each touched DaemonSet once.
        let mut lagged = false;
        loop {
            match events.try_recv() {
                Ok(event) => route(
                    &mut cache,
                    &mut claims,
                    &mut queue,
                    &mut owners,
                    &store,
                    &event,
                ),
                Err(TryRecvError::Lagged(_)) => lagged = true,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Closed) => return,
            }
        }
        if lagged {
            tracing::info!("DaemonSet controller fell behind the change stream; relisting");
            cache = Cache::load(&store);
            claims = Claims::load(&store);
            refresh_owners(&mut owners);
            queue.all(&store);
        }
        let elapsed = clock.elapsed();
        while let Some(Reverse((due, _))) = queue.later.peek() {
            if *due > elapsed {
                break;
            }
            if let Some(Reverse((_, key))) = queue.later.pop() {
                queue.dirty.insert(key);
            }
        }
        if !queue.dirty.is_empty() {
            let keys = std::mem::take(&mut queue.dirty);
            for (ns, name) in keys {
                if let Some(after) = syncer.sync(&mut cache, &ns, &name).0 {
                    if after.is_zero() {
                        queue.dirty.insert((ns, name));
                    } else {
                        queue.later.push(Reverse((clock.after(after), (ns, name))));
                    }
                }
            }
            tokio::task::yield_now().await;
            continue;
        }
        let next = queue.later.peek().map(|Reverse((due, _))| *due);
        let sleep = async {
            match next {
                Some(due) => tokio::time::sleep_until(clock.instant_at(due).into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = shutdown.changed() => return,
            event = events.recv() => match event {
                Ok(event) => route(&mut cache, &mut claims, &mut queue, &mut owners, &store, &event),
                Err(RecvError::Lagged(_)) => {
                    cache = Cache::load(&store);
                    claims = Claims::load(&store);
                    refresh_owners(&mut owners);
                    queue.all(&store);
                }
                Err(RecvError::Closed) => return,
            },
            _ = sleep => {}
        }
        if *shutdown.borrow() {
            return;
        }
    }
}

fn route(
    cache: &mut Cache,
    claims: &mut Claims,
    queue: &mut Queue,
    owners: &mut std::collections::HashMap<String, Key>,
    store: &Store,
    event: &StoreEvent,
) {
    match event.kind() {
        super::store::Kind::Pod => claims.on_pod(store, event),
        super::store::Kind::DaemonSet => claims.on_daemonset(store, event),
        _ => {}
    }
    match cache.apply(event) {
        Touched::Nothing => {}
        Touched::Node(node) => {
            for (uid, key) in owners.iter() {
                if node_change_syncs_daemonset(cache, store, uid, key, &node) {
                    queue.dirty.insert(key.clone());
                }
            }
        }
        Touched::Owner(uid) => {
            if let Some(key) = owners.get(&uid) {
                queue.dirty.insert(key.clone());
            }
        }
        Touched::DaemonSet { namespace, name } => {
            let uid = event.uid().to_string();
            if event.event_type == super::store::EventType::Deleted {
                owners.remove(&uid);
                cache.pods.forget_owner(&uid);
            } else {
                owners.insert(uid, (namespace.clone(), name.clone()));
                queue.dirty.insert((namespace, name));
            }
        }
    }
}

/// DC `syncNodeUpdate`: whether a node's addition or label/taint change makes the controller
/// sync this DaemonSet (§a.2 step 3, §c). A DaemonSet that cannot be read is synced.
fn node_change_syncs_daemonset(
    cache: &Cache,
    store: &Store,
    uid: &str,
    (namespace, name): &Key,
    node: &str,
) -> bool {
    let Some(facts) = cache.nodes.get(node) else {
        return false;
    };
    let Some(ds) = store.get::<DaemonSet>(Some(namespace), name) else {
        return true;
    };
    let Ok(ds_facts) = crate::edge::convert::daemonset_facts(&ds) else {
        return true;
    };
    let verdict = crate::domain::scheduling::DaemonPod::new(&ds_facts.template).verdict(facts);
    let scheduled = cache.pods.has_bound_pod_on(uid, node);
    let misscheduled = ds
        .status
        .as_ref()
        .map_or(0, |s| i64::from(s.number_misscheduled));
    crate::domain::controller::node_change_syncs(verdict, scheduled, misscheduled)
}

/// Applies the scenario's scheduled `kubectl set image`s at their simulated times.
async fn run_updates(
    store: Store,
    clock: SimClock,
    mut updates: Vec<ScheduledUpdate>,
    applied: Arc<AtomicUsize>,
    mut shutdown: watch::Receiver<bool>,
) {
    updates.sort_by_key(|u| u.after);
    for update in updates.into_iter().skip(applied.load(Ordering::SeqCst)) {
        let wait = update.after.saturating_sub(clock.elapsed());
        tokio::select! {
            _ = shutdown.changed() => return,
            _ = clock.sleep(wait) => {}
        }
        if let Err(e) = set_image(&store, &update) {
            tracing::warn!(daemonset = %update.daemon_set, error = %e, "scheduled update failed");
        }
        applied.fetch_add(1, Ordering::SeqCst);
    }
}

/// `kubectl set image ds/NAME CONTAINER=IMAGE` on the store.
pub fn set_image(store: &Store, update: &ScheduledUpdate) -> Result<(), SetImageError> {
    // The controller writes the DaemonSet's status concurrently, so a read-modify-write can
    // meet a newer resourceVersion: retry like client-go's RetryOnConflict.
    const ATTEMPTS: usize = 5;
    for _ in 0..ATTEMPTS {
        match try_set_image(store, update) {
            Err(SetImageError::Conflict { .. }) => continue,
            other => return other,
        }
    }
    Err(SetImageError::KeptConflicting {
        daemon_set: update.daemon_set.clone(),
        attempts: ATTEMPTS,
    })
}

/// Why a scheduled image update of a DaemonSet failed (a conflict alone is retried).
#[derive(Debug, thiserror::Error)]
pub enum SetImageError {
    /// The DaemonSet changed between read and write.
    #[error("DaemonSet {daemon_set} changed while its image was being set")]
    Conflict {
        /// `namespace/name`.
        daemon_set: String,
    },
    /// Every attempt met a conflict.
    #[error("DaemonSet {daemon_set} kept changing: {attempts} update attempts conflicted")]
    KeptConflicting {
        /// `namespace/name`.
        daemon_set: String,
        /// How many times the write was tried.
        attempts: usize,
    },
    /// The reference is not `namespace/name`.
    #[error("{0:?} is not namespace/name")]
    NotNamespacedName(String),
    /// No such DaemonSet in the store.
    #[error("DaemonSet {0} not found")]
    NotFound(String),
    /// The DaemonSet has no `spec.template.spec`.
    #[error("DaemonSet {0} has no pod template spec")]
    NoPodSpec(String),
    /// The named container (or, unnamed, any container) is missing.
    #[error("DaemonSet {daemon_set} has no container {container:?}")]
    NoContainer {
        /// `namespace/name`.
        daemon_set: String,
        /// The container the update names, if any.
        container: Option<String>,
    },
    /// The store refused the write.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn try_set_image(store: &Store, update: &ScheduledUpdate) -> Result<(), SetImageError> {
    let (ns, name) = update
        .daemon_set
        .split_once('/')
        .ok_or_else(|| SetImageError::NotNamespacedName(update.daemon_set.clone()))?;
    let mut ds: DaemonSet = store
        .get(Some(ns), name)
        .ok_or_else(|| SetImageError::NotFound(format!("{ns}/{name}")))?;
    let spec = ds
        .spec
        .template
        .spec
        .as_mut()
        .ok_or_else(|| SetImageError::NoPodSpec(format!("{ns}/{name}")))?;
    let container = match &update.container {
        Some(c) => spec.containers.iter_mut().find(|x| x.name == *c),
        None => spec.containers.first_mut(),
    }
    .ok_or_else(|| SetImageError::NoContainer {
        daemon_set: format!("{ns}/{name}"),
        container: update.container.clone(),
    })?;
    container.image = Some(update.image.clone());
    // The API server keeps this annotation equal to the generation a template change produces.
    let next_generation = ds.metadata.generation.unwrap_or(1) + 1;
    ds.metadata
        .annotations
        .get_or_insert_with(Default::default)
        .insert(
            names::TEMPLATE_GENERATION_ANNOTATION.into(),
            next_generation.to_string(),
        );
    match store.update(ds) {
        Ok(_) => Ok(()),
        Err(StoreError::Conflict { .. }) => Err(SetImageError::Conflict {
            daemon_set: format!("{ns}/{name}"),
        }),
        Err(e) => Err(SetImageError::Store(e)),
    }
}
