//! Events the DaemonSet controller emits (§f): `SuccessfulCreate`, `SuccessfulDelete`,
//! `FailedCreate`, `FailedDaemonPod`, `SucceededDaemonPod`, `SelectingAll`.
//!
//! Why aggregated: a real event recorder folds repeats of the same reason and message on the
//! same object into one Event with a growing `count` (a blocked creation retried every few
//! seconds must not produce thousands of objects), and `kubectl describe ds` shows it that way.

use crate::sim::store::Store;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use std::collections::HashMap;

/// The event source of the DaemonSet controller.
pub const COMPONENT: &str = "daemonset-controller";

/// Normal or Warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Normal,
    Warning,
}

/// Writes events on DaemonSets, folding repeats into one object.
#[derive(Debug, Default)]
pub struct Recorder {
    /// (namespace, involved uid, reason, message) -> event name
    seen: HashMap<(String, String, String, String), String>,
    counter: u64,
}

impl Recorder {
    /// Records one event on `ds`. Failures are logged, never fatal: an event is a courtesy.
    pub fn record(
        &mut self,
        store: &Store,
        ds: &DaemonSet,
        severity: Severity,
        reason: &str,
        message: String,
        now: Timestamp,
    ) {
        let namespace = ds.metadata.namespace.clone().unwrap_or_default();
        let name = ds.metadata.name.clone().unwrap_or_default();
        let uid = ds.metadata.uid.clone().unwrap_or_default();
        let key = (
            namespace.clone(),
            uid.clone(),
            reason.to_string(),
            message.clone(),
        );
        if let Some(existing) = self.seen.get(&key) {
            if let Some(mut event) = store.get::<Event>(Some(&namespace), existing) {
                event.count = Some(event.count.unwrap_or(1).saturating_add(1));
                event.last_timestamp = Some(Time(now));
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
            involved_object: ObjectReference {
                api_version: Some("apps/v1".into()),
                kind: Some("DaemonSet".into()),
                name: Some(name),
                namespace: Some(namespace),
                uid: Some(uid),
                resource_version: ds.metadata.resource_version.clone(),
                ..Default::default()
            },
            reason: Some(reason.into()),
            message: Some(message),
            type_: Some(match severity {
                Severity::Normal => "Normal".into(),
                Severity::Warning => "Warning".into(),
            }),
            source: Some(EventSource {
                component: Some(COMPONENT.into()),
                host: None,
            }),
            reporting_component: Some(COMPONENT.into()),
            reporting_instance: Some("daemonscope-sim".into()),
            first_timestamp: Some(Time(now)),
            last_timestamp: Some(Time(now)),
            count: Some(1),
            ..Default::default()
        };
        match store.create(event) {
            // Only warnings repeat (a retried creation); "Created pod: <name>" never does.
            Ok(_) if severity == Severity::Warning => {
                self.seen.insert(key, event_name);
            }
            Ok(_) => {}
            Err(e) => tracing::debug!(error = %e, reason, "recording event failed"),
        }
    }
}
