//! What the simulated API server itself does over time: how often an idle watch gets a
//! BOOKMARK, and whether its storage (etcd, for kube-apiserver) is reachable.
//!
//! Why a scenario setting: the dashboard's freshness checks (issue 26) depend on both, and a
//! test must be able to make them happen in seconds, not the minute kube-apiserver takes.

use super::duration::{de_duration, ser_duration};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// kube-apiserver's watch cache sends an idle watcher a bookmark about once a minute
/// (`cacheWatcher.nextBookmarkTime`, bookmarkFrequency = 1 min).
pub const DEFAULT_BOOKMARK_INTERVAL: Duration = Duration::from_secs(60);

/// `spec.apiServer` of the settings document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ApiServerSettings {
    /// How often a watch that asked for bookmarks (`allowWatchBookmarks=true`) gets one while
    /// no event arrives (default 60 s, as kube-apiserver).
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub bookmark_interval: Duration,
    /// Starts with the storage unavailable, as kube-apiserver without etcd: open watches stay
    /// open and deliver only bookmarks, reads wait and fail (504), `/readyz` fails its `etcd`
    /// check. At run time the switch is `PUT /debug/storage` (`{"available": true|false}`).
    pub storage_unavailable: bool,
}

impl Default for ApiServerSettings {
    fn default() -> Self {
        ApiServerSettings {
            bookmark_interval: DEFAULT_BOOKMARK_INTERVAL,
            storage_unavailable: false,
        }
    }
}
