//! The taint-eviction controller stand-in: deletes pods from nodes with `NoExecute` taints they
//! do not tolerate, or tolerate only for `tolerationSeconds` (§a.5).
//!
//! Why it matters here: the DaemonSet controller ignores `tolerationSeconds`, so a daemon pod
//! that tolerates a `NoExecute` taint for a limited time is created, evicted when the time is
//! up and created again (§g.8); without this controller the simulated cluster would show it
//! running for ever. The decision is the domain's `taint_eviction`; this task only keeps the
//! clock. It tracks just the pods on tainted nodes, found through the store's `spec.nodeName`
//! field without decoding the other pods, so it costs nothing on a cluster without such taints.

use super::clock::SimClock;
use super::recorder::{Note, Recorder};
use super::store::{DeleteOptions, EventType, Kind, Store, StoreEvent, StoredObject};
use crate::domain::facts::{Taint, TaintEffect};
use crate::domain::scheduling::{taint_eviction, Eviction};
use crate::edge::convert::{node_facts, pod_spec_facts};
use daemonscope_supervise::Supervisor;
use k8s_openapi::api::core::v1::{Node, ObjectReference, Pod};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::Duration;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::watch;

/// The event source, as the real controller names itself.
pub const COMPONENT: &str = "taint-eviction-controller";

/// `(namespace, name)` of a pod.
type PodKey = (String, String);

/// A pod's pending eviction: its uid, when the countdown started and when it ends (simulated
/// time since the clock started).
#[derive(Debug, Clone, PartialEq)]
struct Scheduled {
    uid: String,
    started: Duration,
    due: Duration,
}

/// Starts the controller; it stops when `shutdown` turns true.
/// Supervised: after a panic it starts again from a full resync of the store.
pub fn spawn(
    supervisor: &Supervisor,
    store: Store,
    clock: SimClock,
    shutdown: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    supervisor.spawn(COMPONENT, move || {
        let mut evictor = Evictor {
            store: store.clone(),
            clock,
            tainted: HashMap::new(),
            scheduled: HashMap::new(),
            queue: BinaryHeap::new(),
            recorder: Recorder::new(COMPONENT),
        };
        let shutdown = shutdown.clone();
        async move { evictor.run(shutdown).await }
    })
}

struct Evictor {
    store: Store,
    clock: SimClock,
    /// Nodes with at least one `NoExecute` taint, with those taints.
    tainted: HashMap<String, Vec<Taint>>,
    scheduled: HashMap<PodKey, Scheduled>,
    queue: BinaryHeap<Reverse<(Duration, PodKey)>>,
    recorder: Recorder,
}

impl Evictor {
    async fn run(&mut self, mut shutdown: watch::Receiver<bool>) {
        let mut events = self.store.subscribe();
        self.resync();
        loop {
            loop {
                match events.try_recv() {
                    Ok(event) => self.on_event(&event),
                    Err(TryRecvError::Lagged(_)) => self.resync(),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Closed) => return,
                }
            }
            self.run_due();
            let next = self.queue.peek().map(|Reverse((due, _))| *due);
            let sleep = async {
                match next {
                    Some(due) => tokio::time::sleep_until(self.clock.instant_at(due).into()).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = shutdown.changed() => return,
                event = events.recv() => match event {
                    Ok(event) => self.on_event(&event),
                    Err(RecvError::Lagged(_)) => self.resync(),
                    Err(RecvError::Closed) => return,
                },
                _ = sleep => {}
            }
        }
    }

    /// Rebuilds the tainted nodes and their pods from a full list (start, missed changes).
    fn resync(&mut self) {
        self.tainted.clear();
        for node in self.store.list::<Node>(None) {
            if let Some(name) = node.metadata.name.clone() {
                self.set_taints(name, &node);
            }
        }
        let nodes: Vec<String> = self.tainted.keys().cloned().collect();
        for node in nodes {
            self.evaluate_node(&node);
        }
    }

    /// Records a node's `NoExecute` taints; true when they changed.
    fn set_taints(&mut self, name: String, node: &Node) -> bool {
        let taints: Vec<Taint> = node_facts(node)
            .taints
            .into_iter()
            .filter(|t| t.effect == TaintEffect::NoExecute)
            .collect();
        let before = if taints.is_empty() {
            self.tainted.remove(&name)
        } else {
            self.tainted.insert(name, taints.clone())
        };
        before.unwrap_or_default() != taints
    }

    fn on_event(&mut self, event: &StoreEvent) {
        match event.kind() {
            Kind::Node => {
                let name = event.name().to_string();
                let changed = if event.event_type == EventType::Deleted {
                    self.tainted.remove(&name).is_some()
                } else {
                    match event.decode::<Node>() {
                        Ok(node) => self.set_taints(name.clone(), &node),
                        Err(_) => false,
                    }
                };
                if changed {
                    self.evaluate_node(&name);
                }
            }
            Kind::Pod => {
                let key = (
                    event.namespace().unwrap_or_default().to_string(),
                    event.name().to_string(),
                );
                if event.event_type == EventType::Deleted {
                    self.scheduled.remove(&key);
                    return;
                }
                let on_tainted =
                    bound_node(&event.object).is_some_and(|n| self.tainted.contains_key(n));
                if on_tainted {
                    if let Ok(pod) = event.decode::<Pod>() {
                        self.evaluate(&pod);
                    }
                } else {
                    self.scheduled.remove(&key);
                }
            }
            _ => {}
        }
    }

    /// Re-decides every pod bound to `node`.
    fn evaluate_node(&mut self, node: &str) {
        let page = self.store.list_page(Kind::Pod, None, None, None, &|o| {
            bound_node(o) == Some(node)
        });
        let mut seen = Vec::new();
        for object in &page.items {
            if let Ok(pod) = serde_json::from_slice::<Pod>(&object.raw) {
                self.evaluate(&pod);
                seen.push((
                    object.facts.namespace.clone().unwrap_or_default(),
                    object.facts.name.clone(),
                ));
            }
        }
        if !self.tainted.contains_key(node) {
            for key in seen {
                self.scheduled.remove(&key);
            }
        }
    }

    /// Decides one pod: cancel, evict now, or (re)arm its countdown.
    fn evaluate(&mut self, pod: &Pod) {
        let key = (
            pod.metadata.namespace.clone().unwrap_or_default(),
            pod.metadata.name.clone().unwrap_or_default(),
        );
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
        let taints = node.as_ref().and_then(|n| self.tainted.get(n));
        let (Some(taints), Some(spec), None) =
            (taints, pod.spec.as_ref(), &pod.metadata.deletion_timestamp)
        else {
            self.scheduled.remove(&key);
            return;
        };
        let tolerations = pod_spec_facts(spec).tolerations;
        match taint_eviction(&tolerations, taints) {
            Eviction::Never => {
                self.scheduled.remove(&key);
            }
            Eviction::Now => {
                self.scheduled.remove(&key);
                self.evict(&key, &uid);
            }
            Eviction::After(seconds) => {
                let now = self.clock.elapsed();
                let started = match self.scheduled.get(&key) {
                    Some(s) if s.uid == uid => s.started,
                    _ => now,
                };
                let due = started.saturating_add(Duration::from_secs(seconds));
                let entry = Scheduled { uid, started, due };
                if self.scheduled.get(&key) != Some(&entry) {
                    self.scheduled.insert(key.clone(), entry);
                    self.queue.push(Reverse((due, key)));
                }
            }
        }
    }

    fn run_due(&mut self) {
        let now = self.clock.elapsed();
        while let Some(Reverse((due, _))) = self.queue.peek() {
            if *due > now {
                return;
            }
            let Some(Reverse((due, key))) = self.queue.pop() else {
                return;
            };
            let Some(entry) = self.scheduled.get(&key).filter(|s| s.due == due).cloned() else {
                continue; // cancelled or re-armed since
            };
            self.scheduled.remove(&key);
            // Decide again on the pod as it is now (tolerations and taints may have changed).
            match self.store.get::<Pod>(Some(&key.0), &key.1) {
                Some(pod) if pod.metadata.uid.as_deref() == Some(entry.uid.as_str()) => {
                    let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
                    let tolerations = pod
                        .spec
                        .as_ref()
                        .map(pod_spec_facts)
                        .unwrap_or_default()
                        .tolerations;
                    let decision = node
                        .and_then(|n| self.tainted.get(&n))
                        .map(|taints| taint_eviction(&tolerations, taints));
                    if matches!(decision, Some(Eviction::Now | Eviction::After(_)))
                        && pod.metadata.deletion_timestamp.is_none()
                    {
                        self.evict(&key, &entry.uid);
                    }
                }
                _ => {}
            }
        }
    }

    /// Deletes the pod gracefully, as the controller does, and records the event it emits.
    fn evict(&mut self, key: &PodKey, uid: &str) {
        let options = DeleteOptions {
            precondition_uid: Some(uid.to_string()),
            ..DeleteOptions::default()
        };
        if let Err(e) = self
            .store
            .delete_object(Kind::Pod, Some(&key.0), &key.1, &options)
        {
            tracing::debug!(pod = %key.1, error = %e, "taint eviction could not delete pod");
            return;
        }
        let involved = ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Pod".into()),
            name: Some(key.1.clone()),
            namespace: Some(key.0.clone()),
            uid: Some(uid.to_string()),
            ..Default::default()
        };
        let note = Note::normal(
            "TaintManagerEviction",
            format!("Marking for deletion Pod {}/{}", key.0, key.1),
        );
        let now = self.clock.now();
        self.recorder
            .record(&self.store, &involved, None, note, now);
    }
}

/// `spec.nodeName` of a stored pod, from its indexed fields (no decoding).
fn bound_node(object: &StoredObject) -> Option<&str> {
    object
        .facts
        .fields
        .iter()
        .find(|(field, _)| *field == "spec.nodeName")
        .map(|(_, value)| value.as_str())
        .filter(|v| !v.is_empty())
}
