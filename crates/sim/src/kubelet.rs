//! The kubelet stand-in (with the scheduler's bind and the pod garbage collector): moves every
//! pod through Pending → ContainerCreating → Running → Ready after the configured delays,
//! keeps failing images from ever becoming ready, finishes terminating pods, and removes the
//! pods of deleted nodes.
//!
//! Why one task with a timer queue instead of a task per pod: at 150,000 pods a task each is
//! wasteful, and the next step of a pod is a pure function of the pod (`pod::next_step`), so a
//! single queue keyed by pod, fed by the store's change stream, is enough and survives missed
//! events by relisting.

mod node;
mod node_loss;
mod notes;
mod pod;
mod scheduler;

use node::synthetic_ip;
pub use node::{is_node_ready, node_info, ready_condition, set_node_ready, NodeHealthError};
pub use pod::{next_step, target_node, NodeState, Step};

use super::clock::SimClock;
use super::recorder::{reference, Recorder};
use super::scenario::settings::SimulationSettings;
use super::store::{EventType, Kind, Store, StoreEvent};
use daemonscope_supervise::Supervisor;
use k8s_openapi::api::core::v1::{Node, Pod};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::watch;

/// `(namespace, name)` of a pod.
type PodKey = (String, String);

/// How many due steps run before the loop yields: each is a store write, so a few hundred keep
/// one turn in the low milliseconds while thousands of pods start at once.
const STEPS_PER_TURN: usize = 256;

/// Starts the kubelet stand-in; it stops when `shutdown` turns true.
/// Supervised: after a panic it starts again from what the store holds.
pub fn spawn(
    supervisor: &Supervisor,
    store: Store,
    clock: SimClock,
    settings: Arc<SimulationSettings>,
    shutdown: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    supervisor.spawn("kubelet", move || {
        let mut kubelet = Kubelet::new(store.clone(), clock, settings.clone());
        let shutdown = shutdown.clone();
        async move { kubelet.run(shutdown).await }
    })
}

struct Kubelet {
    store: Store,
    clock: SimClock,
    settings: Arc<SimulationSettings>,
    /// Node name -> ready (absent: no such node).
    nodes: HashMap<String, bool>,
    /// Node name -> InternalIP, for hostIP.
    node_ips: HashMap<String, String>,
    /// Pods per target node, for node readiness changes and deletions.
    pods_by_node: HashMap<String, HashSet<PodKey>>,
    /// The node each known pod is for.
    pod_node: HashMap<PodKey, String>,
    /// The newest resourceVersion seen of each pod: older change events are skipped.
    seen_rv: HashMap<PodKey, u64>,
    /// The pending step of each pod with the sequence number of its queue entry.
    pending: HashMap<PodKey, (Step, u64)>,
    queue: BinaryHeap<Reverse<(Duration, u64, PodKey)>>,
    seq: u64,
    /// The kubelet's events (container failures).
    kubelet_events: Recorder,
    /// The node lifecycle controller's events (readiness changes).
    node_events: Recorder,
    /// The scheduler's view of each node's room, and its events (FailedScheduling).
    rooms: scheduler::Rooms,
    scheduler_events: Recorder,
}

impl Kubelet {
    fn new(store: Store, clock: SimClock, settings: Arc<SimulationSettings>) -> Self {
        Kubelet {
            store,
            clock,
            settings,
            nodes: HashMap::new(),
            node_ips: HashMap::new(),
            pods_by_node: HashMap::new(),
            pod_node: HashMap::new(),
            pending: HashMap::new(),
            seen_rv: HashMap::new(),
            queue: BinaryHeap::new(),
            seq: 0,
            kubelet_events: Recorder::new("kubelet"),
            node_events: Recorder::new("node-controller"),
            rooms: scheduler::Rooms::default(),
            scheduler_events: Recorder::new("default-scheduler"),
        }
    }

    async fn run(&mut self, mut shutdown: watch::Receiver<bool>) {
        let mut events = self.store.subscribe();
        self.resync();
        loop {
            // Take in every change already there before acting, so the pods' steps are decided
            // on current state and the change stream never overflows while steps run.
            loop {
                match events.try_recv() {
                    Ok(event) => self.on_event(&event),
                    Err(TryRecvError::Lagged(missed)) => {
                        tracing::info!(
                            missed,
                            "kubelet stand-in fell behind the change stream; relisting"
                        );
                        self.resync();
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Closed) => return,
                }
            }
            if self.run_due(STEPS_PER_TURN) {
                // More steps are due: let the other tasks (and our change stream) run first.
                tokio::task::yield_now().await;
                if *shutdown.borrow() {
                    return;
                }
                continue;
            }
            let next_due = self.queue.peek().map(|Reverse((due, _, _))| *due);
            let sleep = async {
                match next_due {
                    Some(due) => tokio::time::sleep_until(self.clock.instant_at(due).into()).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = shutdown.changed() => return,
                event = events.recv() => match event {
                    Ok(event) => self.on_event(&event),
                    Err(RecvError::Lagged(missed)) => {
                        tracing::info!(missed, "kubelet stand-in fell behind the change stream; relisting");
                        self.resync();
                    }
                    Err(RecvError::Closed) => return,
                },
                _ = sleep => {}
            }
        }
    }

    /// Rebuilds everything from a full list (start, and after missed events).
    fn resync(&mut self) {
        self.nodes.clear();
        self.node_ips.clear();
        self.rooms = scheduler::Rooms::default();
        for node in self.store.list::<Node>(None) {
            self.remember_node(&node);
        }
        self.pods_by_node.clear();
        self.pod_node.clear();
        let pods = self.store.list::<Pod>(None);
        let known: HashSet<PodKey> = pods.iter().filter_map(key_of).collect();
        self.pending.retain(|k, _| known.contains(k));
        for pod in &pods {
            self.on_pod(pod);
        }
        self.collect_orphans();
    }

    fn on_event(&mut self, event: &StoreEvent) {
        match event.kind() {
            Kind::Pod => {
                let key = (
                    event.namespace().unwrap_or_default().to_string(),
                    event.name().to_string(),
                );
                if event.event_type == EventType::Deleted {
                    self.forget_pod(&key);
                    return;
                }
                // Our own writes (and anything older) are already known: skip without decoding.
                if self
                    .seen_rv
                    .get(&key)
                    .is_some_and(|rv| *rv >= event.resource_version())
                {
                    return;
                }
                match event.decode::<Pod>() {
                    Ok(pod) => self.on_pod(&pod),
                    Err(e) => {
                        tracing::warn!(pod = %event.name(), error = %e, "kubelet stand-in cannot read pod")
                    }
                }
            }
            Kind::Node => {
                let name = event.name().to_string();
                if event.event_type == EventType::Deleted {
                    self.nodes.remove(&name);
                    self.rooms.remove_node(&name);
                    self.collect_node_pods(&name);
                    return;
                }
                let Ok(node) = event.decode::<Node>() else {
                    return;
                };
                let was = self.nodes.get(&name).copied();
                self.remember_node(&node);
                let now = self.nodes.get(&name).copied();
                // A new node is not a change of readiness (the controller says RegisteredNode).
                if was.is_some() && was != now {
                    self.node_readiness_changed(&name, now == Some(true));
                }
            }
            _ => {}
        }
    }

    fn on_pod(&mut self, pod: &Pod) {
        let Some(key) = key_of(pod) else { return };
        if let Some(rv) = pod
            .metadata
            .resource_version
            .as_deref()
            .and_then(|v| v.parse().ok())
        {
            self.seen_rv.insert(key.clone(), rv);
        }
        self.rooms.pod(&key, pod);
        let target = target_node(pod);
        if let Some(old) = self.pod_node.get(&key).cloned() {
            if Some(&old) != target.as_ref() {
                if let Some(set) = self.pods_by_node.get_mut(&old) {
                    set.remove(&key);
                }
                self.pod_node.remove(&key);
            }
        }
        if let Some(t) = &target {
            self.pods_by_node
                .entry(t.clone())
                .or_default()
                .insert(key.clone());
            self.pod_node.insert(key.clone(), t.clone());
        }
        let state = self.node_state(target.as_deref());
        match next_step(pod, state, &self.settings) {
            Some((step, delay)) => self.schedule(key, step, delay),
            None => {
                self.pending.remove(&key);
            }
        }
    }

    fn forget_pod(&mut self, key: &PodKey) {
        self.rooms.forget(key);
        self.pending.remove(key);
        self.seen_rv.remove(key);
        if let Some(node) = self.pod_node.remove(key) {
            if let Some(set) = self.pods_by_node.get_mut(&node) {
                set.remove(key);
            }
        }
    }

    /// Queues a step unless the same step is already queued (a later status write by someone
    /// else must not postpone it).
    fn schedule(&mut self, key: PodKey, step: Step, delay: Duration) {
        if self.pending.get(&key).is_some_and(|(s, _)| *s == step) {
            return;
        }
        self.seq += 1;
        let due = self.clock.after(delay);
        self.pending.insert(key.clone(), (step, self.seq));
        self.queue.push(Reverse((due, self.seq, key)));
    }

    /// Runs at most `budget` due steps; true when more are due.
    fn run_due(&mut self, budget: usize) -> bool {
        let now = self.clock.elapsed();
        let mut done = 0;
        while let Some(Reverse((due, seq, _))) = self.queue.peek() {
            if *due > now {
                return false;
            }
            if done == budget {
                return true;
            }
            let seq = *seq;
            let Some(Reverse((_, _, key))) = self.queue.pop() else {
                break;
            };
            match self.pending.get(&key) {
                Some((step, s)) if *s == seq => {
                    let step = *step;
                    self.pending.remove(&key);
                    self.perform(&key, step);
                    done += 1;
                }
                _ => {}
            }
        }
        false
    }

    fn perform(&mut self, key: &PodKey, step: Step) {
        let Some(pod) = self.store.get::<Pod>(Some(&key.0), &key.1) else {
            return;
        };
        let target = target_node(&pod);
        let state = self.node_state(target.as_deref());
        // The pod may have changed since the step was queued: act on what it is now.
        match next_step(&pod, state, &self.settings) {
            Some((s, _)) if s == step => {}
            Some((s, delay)) => return self.schedule(key.clone(), s, delay),
            None => return,
        }
        let now = self.clock.now();
        let result = match step {
            Step::Remove => self.store.remove::<Pod>(Some(&key.0), &key.1).map(|_| None),
            Step::Bind => {
                let Some(node) = target else { return };
                match self.rooms.verdict(&pod, &node) {
                    scheduler::Verdict::Fits => {}
                    other => return self.unschedulable(key, &pod, other, now),
                }
                let host_ip = self.node_ips.get(&node).cloned().unwrap_or_default();
                let mut bound = pod.clone();
                if let Some(spec) = bound.spec.as_mut() {
                    spec.node_name = Some(node);
                }
                self.store.update(bound).and_then(|mut bound| {
                    bound.status = Some(pod::bound_status(&bound, &host_ip, now));
                    self.store.update_status(bound).map(Some)
                })
            }
            Step::Start | Step::BecomeReady | Step::Restart => {
                let host_network = pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.host_network)
                    .unwrap_or(false);
                let ip = match (&target, host_network) {
                    (Some(n), true) => self.node_ips.get(n).cloned().unwrap_or_default(),
                    _ => synthetic_ip("10.244", &format!("{}/{}", key.0, key.1)),
                };
                let mut next = pod.clone();
                next.status = Some(pod::advance(&pod, step, &self.settings, &ip, now));
                let written = self.store.update_status(next);
                if written.is_ok() {
                    let involved = reference(&pod);
                    for note in notes::step_notes(&pod, step, &self.settings) {
                        self.kubelet_events.record(
                            &self.store,
                            &involved,
                            target.as_deref(),
                            note,
                            now,
                        );
                    }
                }
                written.map(Some)
            }
        };
        match result {
            // Our own write: continue from the object the store returned (its change event is
            // then skipped by resourceVersion instead of being decoded again).
            Ok(Some(written)) => self.on_pod(&written),
            Ok(None) => self.forget_pod(key),
            Err(e) => {
                // A conflicting write (the controller deleting the pod, say): the change event that
                // caused it reschedules the pod; retry soon in case there is none.
                tracing::debug!(pod = %key.1, ?step, error = %e, "kubelet step failed; retrying");
                self.schedule(key.clone(), step, Duration::from_millis(200));
            }
        }
    }
}

fn key_of(pod: &Pod) -> Option<PodKey> {
    Some((
        pod.metadata.namespace.clone().unwrap_or_default(),
        pod.metadata.name.clone()?,
    ))
}
