//! The typed helpers the in-process controllers use (`create`, `get`, `list`, `update`,
//! `delete`, ...): a k8s-openapi object in and out, over the same write paths as the HTTP API.
use serde_json::Value;

use super::{
    DeleteOptions, LabelSelector, SimObject, Store, StoreError, StoredObject, UpdateTarget,
};

impl Store {
    fn decode<K: SimObject>(obj: &StoredObject) -> Result<K, StoreError> {
        serde_json::from_slice(&obj.raw).map_err(|e| StoreError::Invalid {
            kind: <K as SimObject>::KIND,
            name: obj.facts.name.clone(),
            message: format!(
                "stored object does not decode as {}: {e}",
                <K as SimObject>::KIND
            ),
            causes: Box::default(),
        })
    }

    fn encode<K: SimObject>(obj: &K) -> Result<Value, StoreError> {
        serde_json::to_value(obj).map_err(|e| StoreError::Invalid {
            kind: <K as SimObject>::KIND,
            name: obj.metadata().name.clone().unwrap_or_default(),
            message: format!("does not serialize: {e}"),
            causes: Box::default(),
        })
    }

    /// Create an object (uid, creationTimestamp, resourceVersion, generation are set; a
    /// `generateName` becomes a name; a missing namespace is created).
    pub fn create<K: SimObject>(&self, obj: K) -> Result<K, StoreError> {
        let stored = self.create_value(<K as SimObject>::KIND, Self::encode(&obj)?, true)?;
        Self::decode(&stored)
    }

    /// Create an object replayed from a dump (a scenario): as [`Store::create`], except that
    /// its `creationTimestamp`, when set and not in the future, is kept. Why: a scenario
    /// describes a cluster that already existed, and a node's age is what the dashboard's
    /// new-node grace reads (a demo node must not look as if it had just joined).
    pub fn restore<K: SimObject>(&self, obj: K) -> Result<K, StoreError> {
        let stored =
            self.create_value_with(<K as SimObject>::KIND, Self::encode(&obj)?, true, true)?;
        Self::decode(&stored)
    }

    /// One object, typed.
    pub fn get<K: SimObject>(&self, namespace: Option<&str>, name: &str) -> Option<K> {
        self.get_raw(<K as SimObject>::KIND, namespace, name)
            .and_then(|o| Self::decode(&o).ok())
    }

    /// All objects of a kind in one namespace (or all), typed. Decoding costs: at 150,000
    /// pods prefer `list_selected` or the raw readers.
    pub fn list<K: SimObject>(&self, namespace: Option<&str>) -> Vec<K> {
        self.list_selected(namespace, &LabelSelector::default())
    }

    /// Objects whose labels match `selector`, typed; only the matches are decoded.
    pub fn list_selected<K: SimObject>(
        &self,
        namespace: Option<&str>,
        selector: &LabelSelector,
    ) -> Vec<K> {
        let page = self.list_page(<K as SimObject>::KIND, namespace, None, None, &|o| {
            selector.matches(&o.facts.labels)
        });
        page.items
            .iter()
            .filter_map(|o| Self::decode(o).ok())
            .collect()
    }

    /// Replace an object (status is kept for kinds with a status subresource). A set
    /// resourceVersion that is not the current one is a Conflict.
    pub fn update<K: SimObject>(&self, obj: K) -> Result<K, StoreError> {
        let stored = self.update_value(
            <K as SimObject>::KIND,
            Self::encode(&obj)?,
            UpdateTarget::Object,
        )?;
        Self::decode(&stored)
    }

    /// Replace only the status of an object.
    pub fn update_status<K: SimObject>(&self, obj: K) -> Result<K, StoreError> {
        let stored = self.update_value(
            <K as SimObject>::KIND,
            Self::encode(&obj)?,
            UpdateTarget::Status,
        )?;
        Self::decode(&stored)
    }

    /// Graceful delete: pods bound to a node get deletionTimestamp (the kubelet finishes
    /// them), objects with finalizers wait for them, others go at once.
    pub fn delete<K: SimObject>(
        &self,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<(), StoreError> {
        self.delete_object(
            <K as SimObject>::KIND,
            namespace,
            name,
            &DeleteOptions::default(),
        )
        .map(|_| ())
    }

    /// Immediate removal (the kubelet stand-in finishing a terminating pod).
    pub fn remove<K: SimObject>(
        &self,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<(), StoreError> {
        let opts = DeleteOptions {
            grace_period_seconds: Some(0),
            force: true,
            ..DeleteOptions::default()
        };
        self.delete_object(<K as SimObject>::KIND, namespace, name, &opts)
            .map(|_| ())
    }
}
