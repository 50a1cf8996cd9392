//! The simulated cluster's object store: every object of every kind, one cluster-wide
//! monotonically increasing resourceVersion, and a bounded history of changes that watches
//! replay from.
//!
//! Objects are kept as compact JSON bytes plus a few pre-extracted facts (labels, owners,
//! selectable fields): a LIST of 150,000 pods is then a concatenation of byte slices, and a
//! pod costs about its JSON size in memory instead of a `serde_json::Value` tree several
//! times larger. Controllers use the typed helpers (`create`, `get`, `update`, ...), the
//! HTTP API uses the `*_value` and raw readers; both go through the same write paths, so the
//! rules (409 on a stale resourceVersion, no event for a no-op update, generation bumps,
//! graceful pod deletion, garbage collection of a DaemonSet's pods) hold for both.
mod default_tolerations;
mod defaults;
mod fields;
pub mod history;
mod kind;
mod list;
pub(crate) mod priority;
pub mod selector;
mod snapshot;
mod typed;
mod write;
pub(crate) use write::generated_name;

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use bytes::Bytes;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::jiff::Timestamp;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

pub use fields::ObjectFacts;
pub use history::{ElapsedFn, HistoryStats};
pub use kind::{Kind, SCHEDULING_GROUP};
use list::{page_start, take_page};
pub use selector::{FieldSelector, LabelSelector, SelectorError};
pub use write::{DeleteOptions, DeleteOutcome, UpdateTarget};

/// The type of a change, as a watch names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    /// The watch event `type` string.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One change, for the in-process controllers. It shares the stored object (raw JSON and
/// facts) with the store and its watch history, so the change stream costs a pointer per change
/// instead of a parsed copy, and a consumer decodes only the changes it cares about.
#[derive(Debug, Clone)]
pub struct StoreEvent {
    pub event_type: EventType,
    /// The object after (or for Deleted: at) the change; its JSON carries
    /// metadata.resourceVersion = `object.resource_version`.
    pub object: Arc<StoredObject>,
}

impl StoreEvent {
    /// The kind of the changed object.
    pub fn kind(&self) -> Kind {
        self.object.kind
    }

    /// Its namespace (None for cluster-scoped kinds).
    pub fn namespace(&self) -> Option<&str> {
        self.object.facts.namespace.as_deref()
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.object.facts.name
    }

    /// Its uid.
    pub fn uid(&self) -> &str {
        &self.object.facts.uid
    }

    /// The resourceVersion the change got.
    pub fn resource_version(&self) -> u64 {
        self.object.resource_version
    }

    /// The object as a typed value.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(&self.object.raw)
    }
}

/// Why a store operation failed; each maps to the Status a real API server returns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("{} \"{name}\" not found", .kind.qualified_resource())]
    NotFound {
        kind: Kind,
        namespace: Option<String>,
        name: String,
    },
    #[error("{} \"{name}\" already exists", .kind.qualified_resource())]
    AlreadyExists {
        kind: Kind,
        namespace: Option<String>,
        name: String,
    },
    #[error("Operation cannot be fulfilled on {} \"{name}\": {reason}", .kind.qualified_resource())]
    Conflict {
        kind: Kind,
        name: String,
        reason: String,
    },
    #[error("{kind} \"{name}\" is invalid: {message}")]
    Invalid {
        kind: Kind,
        name: String,
        message: String,
        /// The fields at fault, for the 422's `details.causes` (empty when the fault is the
        /// stored bytes, not a field of the request). Boxed: every `Result` of the store
        /// carries this error, so it stays small.
        causes: Box<[crate::domain::validation::Invalid]>,
    },
    #[error("too old resource version: {requested} ({oldest})")]
    Gone { requested: u64, oldest: u64 },
}

/// The message of a Conflict on a stale resourceVersion, word for word the API server's.
pub const STALE_MESSAGE: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

/// A source of "now" for timestamps the store writes (the simulated clock may run fast).
pub type NowFn = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// Tuning of the store.
#[derive(Clone)]
pub struct StoreSettings {
    /// How long a change stays in the watch history, as etcd keeps a revision until
    /// kube-apiserver's next compaction (`--etcd-compaction-interval`, 5 minutes by default);
    /// older resourceVersions and continue tokens get 410 Expired (see `history`).
    pub history_window: std::time::Duration,
    /// Hard cap on the number of changes the history holds, whatever their age: a memory
    /// bound far above what 5 minutes of a 5,000-node cluster write (README, "The simulated
    /// cluster").
    pub history_limit: usize,
    /// Hard cap on the JSON bytes of the objects the history holds.
    pub history_max_bytes: usize,
    /// The monotonic clock the window is measured on (real time; tests move it by hand).
    pub history_clock: ElapsedFn,
    /// Capacity of the `subscribe()` broadcast channel.
    pub event_capacity: usize,
    /// Clock for creationTimestamp and deletionTimestamp.
    pub now: NowFn,
}

impl Default for StoreSettings {
    fn default() -> Self {
        StoreSettings {
            history_window: history::DEFAULT_WINDOW,
            history_limit: HISTORY_LIMIT,
            history_max_bytes: HISTORY_MAX_BYTES,
            history_clock: history::monotonic(),
            // Events share their objects with the history, so a channel no longer than the
            // history costs pointers only; 65,536 lets the controllers absorb the burst of a
            // 5,000-node cluster being scheduled without falling behind and relisting.
            event_capacity: 65_536,
            now: Arc::new(Timestamp::now),
        }
    }
}

/// The default cap on history entries (see [`StoreSettings::history_limit`]).
pub const HISTORY_LIMIT: usize = 4_000_000;

/// The default cap on the history's JSON bytes (see [`StoreSettings::history_max_bytes`]).
pub const HISTORY_MAX_BYTES: usize = 4 << 30;

impl std::fmt::Debug for StoreSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreSettings")
            .field("history_window", &self.history_window)
            .field("history_limit", &self.history_limit)
            .field("history_max_bytes", &self.history_max_bytes)
            .field("event_capacity", &self.event_capacity)
            .finish_non_exhaustive()
    }
}

/// One stored object: its JSON (with kind, apiVersion and resourceVersion) and its facts.
#[derive(Debug)]
pub struct StoredObject {
    pub kind: Kind,
    pub resource_version: u64,
    pub raw: Bytes,
    pub facts: ObjectFacts,
}

impl StoredObject {
    /// Parse the stored JSON (for patches, tables and typed reads).
    pub fn value(&self) -> Result<Value, StoreError> {
        serde_json::from_slice(&self.raw).map_err(|e| StoreError::Invalid {
            kind: self.kind,
            name: self.facts.name.clone(),
            message: format!("stored object does not parse: {e}"),
            causes: Box::default(),
        })
    }
}

/// One entry of the watch history.
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    pub resource_version: u64,
    pub event_type: EventType,
    pub object: Arc<StoredObject>,
    /// The object before the change (for Modified), so a selector watch can see an object
    /// leave or enter its selection.
    pub previous: Option<Arc<StoredObject>>,
    /// When the change was made, on the history's monotonic clock (for the window).
    pub at: std::time::Duration,
}

/// A page of a list.
#[derive(Debug)]
pub struct ListPage {
    pub items: Vec<Arc<StoredObject>>,
    pub resource_version: u64,
    /// The key of the last item when more items follow.
    pub next_key: Option<(String, String)>,
}

pub(crate) type Key = (String, String);

pub(crate) struct State {
    pub(crate) rv: u64,
    pub(crate) objects: Vec<BTreeMap<Key, Arc<StoredObject>>>,
    pub(crate) history: VecDeque<HistoryEntry>,
    /// JSON bytes of the objects `history` carries.
    pub(crate) history_bytes: usize,
    /// The highest resourceVersion that has left the history.
    pub(crate) evicted_rv: u64,
}

pub(crate) struct Inner {
    pub(crate) state: RwLock<State>,
    pub(crate) settings: StoreSettings,
    pub(crate) events: tokio::sync::broadcast::Sender<StoreEvent>,
    pub(crate) latest: tokio::sync::watch::Sender<u64>,
}

/// The cluster object store. Cheap to clone; all clones share the same objects.
#[derive(Clone)]
pub struct Store {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("resource_version", &self.resource_version())
            .finish_non_exhaustive()
    }
}

/// A k8s-openapi type the store can hold.
pub trait SimObject:
    k8s_openapi::Resource
    + k8s_openapi::Metadata<Ty = ObjectMeta>
    + Serialize
    + DeserializeOwned
    + Clone
{
    const KIND: Kind;
}

macro_rules! sim_object {
    ($t:ty, $k:expr) => {
        impl SimObject for $t {
            const KIND: Kind = $k;
        }
    };
}
sim_object!(k8s_openapi::api::core::v1::Namespace, Kind::Namespace);
sim_object!(k8s_openapi::api::core::v1::Node, Kind::Node);
sim_object!(k8s_openapi::api::core::v1::Pod, Kind::Pod);
sim_object!(k8s_openapi::api::core::v1::Event, Kind::Event);
sim_object!(k8s_openapi::api::apps::v1::DaemonSet, Kind::DaemonSet);
sim_object!(
    k8s_openapi::api::apps::v1::ControllerRevision,
    Kind::ControllerRevision
);
sim_object!(
    k8s_openapi::api::scheduling::v1::PriorityClass,
    Kind::PriorityClass
);
sim_object!(
    k8s_openapi::api::core::v1::ResourceQuota,
    Kind::ResourceQuota
);

pub(crate) fn key(kind: Kind, namespace: Option<&str>, name: &str) -> Key {
    let ns = if kind.namespaced() {
        namespace.unwrap_or("default")
    } else {
        ""
    };
    (ns.to_string(), name.to_string())
}

impl Store {
    /// An empty store holding the namespaces every cluster has.
    pub fn new(settings: StoreSettings) -> Store {
        let (events, _) = tokio::sync::broadcast::channel(settings.event_capacity.max(1));
        let (latest, _) = tokio::sync::watch::channel(1);
        let state = State {
            rv: 1,
            objects: (0..Kind::ALL.len()).map(|_| BTreeMap::new()).collect(),
            history: VecDeque::new(),
            history_bytes: 0,
            evicted_rv: 0,
        };
        let store = Store {
            inner: Arc::new(Inner {
                state: RwLock::new(state),
                settings,
                events,
                latest,
            }),
        };
        for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
            let obj = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
            // A fresh store cannot hold these names yet.
            let _ = store.create_value(Kind::Namespace, obj, false);
        }
        priority::create_system_classes(&store);
        store
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, State> {
        self.inner
            .state
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn write_lock(&self) -> RwLockWriteGuard<'_, State> {
        self.inner
            .state
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The store's clock.
    pub fn now(&self) -> Timestamp {
        (self.inner.settings.now)()
    }

    /// Now, on the history's monotonic clock.
    pub(crate) fn history_now(&self) -> std::time::Duration {
        (self.inner.settings.history_clock)()
    }

    /// What the watch history holds: changes, bytes and the oldest one's age.
    pub fn history_stats(&self) -> HistoryStats {
        let now = self.history_now();
        self.read().history_stats(now)
    }

    /// The latest resourceVersion (of the last write).
    pub fn resource_version(&self) -> u64 {
        self.read().rv
    }

    /// Every change from now on, for controllers. A receiver that falls behind by more than
    /// `event_capacity` events gets `Lagged` and should re-list.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<StoreEvent> {
        self.inner.events.subscribe()
    }

    /// A receiver of the latest resourceVersion, woken on every write (for watch streams).
    pub fn latest(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.latest.subscribe()
    }

    /// One stored object as bytes.
    pub fn get_raw(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Arc<StoredObject>> {
        self.read().objects[kind.index()]
            .get(&key(kind, namespace, name))
            .cloned()
    }
}

#[cfg(test)]
mod tests;
