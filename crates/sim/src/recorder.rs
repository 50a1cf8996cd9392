//! The simulated cluster's event recorder, shared by its controllers and its kubelet: each
//! writes core/v1 Events as client-go's `EventRecorder` does, under its own component name.
//!
//! Why aggregated: a real event recorder (client-go's `EventCorrelator`) folds repeats of the
//! same reason and message on the same object into one Event with a growing `count` (a blocked
//! creation retried every few seconds, a container restarted every few seconds, must not
//! produce thousands of objects), and once ten events of one reason differ only in their
//! message within ten minutes ("Created pod: a", "Created pod: b", …) it folds the rest into
//! one Event whose message starts with "(combined from similar events): ". `kubectl describe
//! ds` shows them that way, and a 5,000-node DaemonSet leaves about ten Events, not 5,000.
//! client-go's spam filter (a token bucket per object) is not modelled.

use crate::store::Store;
use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use std::collections::{HashMap, HashSet};

/// client-go `defaultAggregateMaxEvents`: similar events before they are combined.
const AGGREGATE_MAX_EVENTS: usize = 10;
/// client-go `defaultAggregateIntervalInSeconds`.
const AGGREGATE_INTERVAL_SECONDS: i64 = 600;
/// client-go `maxLruCacheEntries`: how many event keys the recorder remembers.
const MAX_REMEMBERED: usize = 4096;
/// client-go `EventAggregatorByReasonMessageFunc`'s prefix (the dashboard reads it too).
pub use crate::domain::admission::COMBINED_PREFIX;

/// Distinct messages seen for one (object, type, reason) within the aggregation interval.
#[derive(Debug)]
struct Similar {
    since: Timestamp,
    messages: HashSet<String>,
}

/// Normal or Warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Normal,
    Warning,
}

/// What happened, as client-go's `Eventf(object, type, reason, message)` takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub severity: Severity,
    /// UpperCamelCase, machine-readable (`SuccessfulCreate`, `BackOff`).
    pub reason: &'static str,
    pub message: String,
}

impl Note {
    /// A Normal event.
    pub fn normal(reason: &'static str, message: String) -> Note {
        Note {
            severity: Severity::Normal,
            reason,
            message,
        }
    }

    /// A Warning event.
    pub fn warning(reason: &'static str, message: String) -> Note {
        Note {
            severity: Severity::Warning,
            reason,
            message,
        }
    }
}

/// Writes events for one component, folding repeats into one object.
#[derive(Debug)]
pub struct Recorder {
    /// `source.component` and `reportingComponent` (`daemonset-controller`, `kubelet`, …).
    component: &'static str,
    /// (namespace, involved uid, reason, message) -> event name
    seen: HashMap<(String, String, String, String), String>,
    /// (namespace, involved uid, type, reason) -> messages seen lately
    similar: HashMap<(String, String, &'static str, String), Similar>,
    counter: u64,
}

/// A reference to `object` for `involvedObject`, as client-go's `GetReference` builds it.
pub fn reference<K>(object: &K) -> ObjectReference
where
    K: k8s_openapi::Resource + k8s_openapi::Metadata<Ty = ObjectMeta>,
{
    let meta = object.metadata();
    ObjectReference {
        api_version: Some(K::API_VERSION.into()),
        kind: Some(K::KIND.into()),
        name: meta.name.clone(),
        namespace: meta.namespace.clone(),
        uid: meta.uid.clone(),
        resource_version: meta.resource_version.clone(),
        ..Default::default()
    }
}

impl Recorder {
    /// A recorder writing as `component`.
    pub fn new(component: &'static str) -> Recorder {
        Recorder {
            component,
            seen: HashMap::new(),
            similar: HashMap::new(),
            counter: 0,
        }
    }

    /// Records `note` on `involved`; `host` is the node of a kubelet's events. Failures are
    /// logged, never fatal: an event is a courtesy. Events on cluster-scoped objects (a Node)
    /// go to `default`, as client-go files them.
    pub fn record(
        &mut self,
        store: &Store,
        involved: &ObjectReference,
        host: Option<&str>,
        note: Note,
        now: Timestamp,
    ) {
        let Note {
            severity,
            reason,
            message,
        } = note;
        let namespace = involved
            .namespace
            .clone()
            .filter(|ns| !ns.is_empty())
            .unwrap_or_else(|| "default".into());
        let name = involved.name.clone().unwrap_or_default();
        let uid = involved.uid.clone().unwrap_or_default();
        let (message, key_message) =
            self.aggregate(&namespace, &uid, severity, reason, message, now);
        let key = (
            namespace.clone(),
            uid.clone(),
            reason.to_string(),
            key_message,
        );
        if let Some(existing) = self.seen.get(&key) {
            if let Some(mut event) = store.get::<Event>(Some(&namespace), existing) {
                event.count = Some(event.count.unwrap_or(1).saturating_add(1));
                event.last_timestamp = Some(Time(now));
                event.message = Some(message.clone());
                match store.update(event) {
                    Ok(_) => return,
                    Err(e) => {
                        tracing::debug!(error = %e, "updating event failed; writing a new one")
                    }
                }
            }
        }
        self.counter += 1;
        let event_name = format!("{name}.{:x}{:08x}", now.as_millisecond(), self.counter);
        let event = Event {
            metadata: ObjectMeta {
                name: Some(event_name.clone()),
                namespace: Some(namespace.clone()),
                ..Default::default()
            },
            involved_object: involved.clone(),
            reason: Some(reason.into()),
            message: Some(message),
            type_: Some(match severity {
                Severity::Normal => "Normal".into(),
                Severity::Warning => "Warning".into(),
            }),
            source: Some(EventSource {
                component: Some(self.component.into()),
                host: host.map(str::to_string),
            }),
            reporting_component: Some(self.component.into()),
            reporting_instance: Some("daemonscope-sim".into()),
            first_timestamp: Some(Time(now)),
            last_timestamp: Some(Time(now)),
            count: Some(1),
            ..Default::default()
        };
        match store.create(event) {
            Ok(_) => {
                // An LRU in client-go; forgetting everything at the bound is close enough for
                // a simulation and keeps memory flat.
                if self.seen.len() >= MAX_REMEMBERED {
                    self.seen.clear();
                }
                self.seen.insert(key, event_name);
            }
            Err(e) => tracing::debug!(error = %e, reason, "recording event failed"),
        }
    }

    /// client-go's `EventAggregator`: the message to write and the key that identifies the
    /// Event it belongs to (the message itself, or the combined Event of its reason).
    fn aggregate(
        &mut self,
        namespace: &str,
        uid: &str,
        severity: Severity,
        reason: &str,
        message: String,
        now: Timestamp,
    ) -> (String, String) {
        let kind = match severity {
            Severity::Normal => "Normal",
            Severity::Warning => "Warning",
        };
        let key = (
            namespace.to_string(),
            uid.to_string(),
            kind,
            reason.to_string(),
        );
        if self.similar.len() >= MAX_REMEMBERED && !self.similar.contains_key(&key) {
            self.similar.clear();
        }
        let similar = self.similar.entry(key).or_insert_with(|| Similar {
            since: now,
            messages: HashSet::new(),
        });
        if now.as_second() - similar.since.as_second() > AGGREGATE_INTERVAL_SECONDS {
            similar.since = now;
            similar.messages.clear();
        }
        similar.messages.insert(message.clone());
        if similar.messages.len() < AGGREGATE_MAX_EVENTS {
            return (message.clone(), message);
        }
        // Do not grow the set beyond the bound (client-go pops an arbitrary key).
        if let Some(any) = similar.messages.iter().next().cloned() {
            similar.messages.remove(&any);
        }
        (
            format!("{COMBINED_PREFIX}{message}"),
            COMBINED_PREFIX.to_string(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreSettings;
    use k8s_openapi::api::apps::v1::DaemonSet;

    fn daemonset() -> DaemonSet {
        DaemonSet {
            metadata: ObjectMeta {
                name: Some("agent".into()),
                namespace: Some("kube-system".into()),
                uid: Some("uid-agent".into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn events(store: &Store) -> Vec<Event> {
        let mut all = store.list::<Event>(Some("kube-system"));
        all.sort_by_key(|e| e.metadata.name.clone());
        all
    }

    fn record(recorder: &mut Recorder, store: &Store, note: Note, second: i64) {
        recorder.record(store, &reference(&daemonset()), None, note, at(second));
    }

    fn at(second: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + second).unwrap_or_default()
    }

    #[test]
    fn ten_similar_messages_fold_into_one_combined_event_with_the_rest_counted() {
        let store = Store::new(StoreSettings::default());
        let mut recorder = Recorder::new("daemonset-controller");
        for i in 1..=25 {
            let message = format!("Created pod: agent-{i}");
            record(
                &mut recorder,
                &store,
                Note::normal("SuccessfulCreate", message),
                i,
            );
        }
        let events = events(&store);
        assert_eq!(events.len(), 10, "9 single events and one combined");
        let combined: Vec<_> = events
            .iter()
            .filter(|e| {
                e.message
                    .as_deref()
                    .is_some_and(|m| m.starts_with(COMBINED_PREFIX))
            })
            .collect();
        assert_eq!(combined.len(), 1);
        assert_eq!(combined[0].count, Some(16));
        assert_eq!(
            combined[0].message.as_deref(),
            Some("(combined from similar events): Created pod: agent-25")
        );
    }

    #[test]
    fn an_identical_repeat_counts_up_on_one_event() {
        let store = Store::new(StoreSettings::default());
        let mut recorder = Recorder::new("daemonset-controller");
        for i in 0..5 {
            let message =
                "Error creating: pods \"agent-x\" is forbidden: exceeded quota".to_string();
            record(
                &mut recorder,
                &store,
                Note::warning("FailedCreate", message),
                i,
            );
        }
        let events = events(&store);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].count, Some(5));
        assert_eq!(events[0].type_.as_deref(), Some("Warning"));
    }

    #[test]
    fn similar_messages_more_than_ten_minutes_apart_are_not_combined() {
        let store = Store::new(StoreSettings::default());
        let mut recorder = Recorder::new("daemonset-controller");
        for i in 0..12 {
            let message = format!("Created pod: agent-{i}");
            record(
                &mut recorder,
                &store,
                Note::normal("SuccessfulCreate", message),
                i * 601,
            );
        }
        let events = events(&store);
        assert_eq!(events.len(), 12);
        assert!(events.iter().all(|e| !e
            .message
            .as_deref()
            .unwrap_or_default()
            .starts_with(COMBINED_PREFIX)));
    }
}
