//! The browser side of the live feed: one hub per page load that owns the live matrix and
//! tells the pages what changed.
//!
//! Why a hub: the EventSource connection outlives page navigation, while pages come and go
//! and each shows only a window of the matrix. Pages subscribe, project the changes they care
//! about onto their own fine-grained signals, and unsubscribe on cleanup. The hub exists on
//! the server too (so SSR and hydration render the same tree) but only connects in the
//! browser (`feed`, hydrate builds).

/// The live matrix a browser keeps (`crate::views::live_state`), under its old path.
pub use crate::views::live_state as state;

#[cfg(feature = "hydrate")]
pub mod feed;

use crate::domain::view::{LiveMessage, ResourceHealth, StateCounts};
use crate::views::matrix::patch::ViewMessage;
use leptos::prelude::*;
use state::{ApplyError, Change, LiveState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The connection to `/api/live`, as the stale banner needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnState {
    /// Not started (server render, or before hydration).
    Idle,
    /// Opening the stream; nothing received yet.
    Connecting,
    /// Receiving messages.
    Live,
    /// The stream broke; the page shows data as of `since` (unix seconds) while reconnecting.
    Lost { since: i64 },
}

/// A page's callback: gets the whole live state and the list of changes of one message.
/// It must not call back into the hub (the state lock is held).
pub type Subscriber = Arc<dyn Fn(&LiveState, &[Change]) + Send + Sync>;

/// The matrix page's callback for its window's messages (`/api/view`).
pub type ViewSink = Arc<dyn Fn(ViewMessage) + Send + Sync>;

/// What the page on screen follows: a browser receives only what its page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feed {
    /// `/api/view?…`: the matrix page's window, cut and patched on the server.
    View(String),
    /// `/api/live?…`: a scope of the matrix (one node's row, one DaemonSet's column) as
    /// snapshot and deltas, kept in the hub's [`LiveState`].
    Live(String),
}

impl Feed {
    /// The matrix window for the query string `query` (with or without its `?`).
    pub fn view(query: &str) -> Self {
        Feed::View(format!("/api/view?{}", query.trim_start_matches('?')))
    }

    /// One node's row and every column summary.
    pub fn node(name: &str) -> Self {
        Feed::Live(format!("/api/live?node={}", encode(name)))
    }

    /// One DaemonSet's column and its cell on every node.
    pub fn daemonset(key: &str) -> Self {
        Feed::Live(format!("/api/live?ds={}", encode(key)))
    }

    /// Where the feed is served.
    pub fn url(&self) -> &str {
        match self {
            Feed::View(url) | Feed::Live(url) => url,
        }
    }
}

/// Percent-encodes a query value (node names and DaemonSet keys are DNS names plus `/`, but
/// the feed must not trust that).
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The live matrix and its subscribers, provided as context by `App`.
#[derive(Clone)]
pub struct LiveHub {
    state: Arc<Mutex<LiveState>>,
    subscribers: Arc<Mutex<Vec<(u64, Subscriber)>>>,
    view_sink: Arc<Mutex<Option<(u64, ViewSink)>>>,
    next_id: Arc<AtomicU64>,
    /// Connection state of the feed.
    pub conn: RwSignal<ConnState>,
    /// Resource health from the feed; `None` until the first snapshot.
    pub health: RwSignal<Option<Vec<ResourceHealth>>>,
    /// Cells per state over the whole matrix; `None` until the first snapshot.
    pub counts: RwSignal<Option<StateCounts>>,
    /// Last applied version (0 before the first snapshot); tests and the footer read it.
    pub version: RwSignal<u64>,
    /// Cluster and context from the last snapshot (headers of pages without their own).
    pub cluster: RwSignal<Option<String>>,
}

impl LiveHub {
    /// A hub with no data, not connected.
    pub fn new() -> Self {
        Self {
            state: Arc::new(Mutex::new(LiveState::default())),
            subscribers: Arc::new(Mutex::new(Vec::new())),
            view_sink: Arc::new(Mutex::new(None)),
            next_id: Arc::new(AtomicU64::new(1)),
            conn: RwSignal::new(ConnState::Idle),
            health: RwSignal::new(None),
            counts: RwSignal::new(None),
            version: RwSignal::new(0),
            cluster: RwSignal::new(None),
        }
    }

    /// Registers a page's callback; pair with [`LiveHub::unsubscribe`] in `on_cleanup`.
    pub fn subscribe(&self, subscriber: Subscriber) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut subs) = self.subscribers.lock() {
            subs.push((id, subscriber));
        }
        id
    }

    /// Removes a callback registered with [`LiveHub::subscribe`].
    pub fn unsubscribe(&self, id: u64) {
        if let Ok(mut subs) = self.subscribers.lock() {
            subs.retain(|(i, _)| *i != id);
        }
    }

    /// Opens `feed` for the page on screen, in place of the one before (browser only: on the
    /// server it does nothing, the page is rendered from server functions).
    pub fn follow(&self, feed: Feed) {
        #[cfg(feature = "hydrate")]
        feed::follow(self.clone(), feed);
        #[cfg(not(feature = "hydrate"))]
        let _ = feed;
    }

    /// Registers the matrix page's window callback (one at a time: the page on screen);
    /// pair with [`LiveHub::clear_view_sink`] in `on_cleanup`.
    pub fn set_view_sink(&self, sink: ViewSink) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut slot) = self.view_sink.lock() {
            *slot = Some((id, sink));
        }
        id
    }

    /// Removes the callback registered as `id` (a newer page's stays).
    pub fn clear_view_sink(&self, id: u64) {
        if let Ok(mut slot) = self.view_sink.lock() {
            if slot.as_ref().is_some_and(|(i, _)| *i == id) {
                *slot = None;
            }
        }
    }

    /// Applies one message of `/api/view`: the page-wide signals (health, cluster, version,
    /// counts), then the page's window callback.
    pub fn apply_view(&self, message: ViewMessage) {
        match &message {
            ViewMessage::Window(w) => {
                self.cluster.set(Some(w.cluster.clone()));
                self.health.set(Some(w.health.clone()));
                self.counts.set(Some(w.state_counts));
            }
            ViewMessage::Patch(p) => {
                if let Some(health) = &p.health {
                    self.health.set(Some(health.clone()));
                }
                if let Some(figures) = &p.figures {
                    self.counts.set(Some(figures.state_counts));
                }
            }
        }
        self.version.set(message.version());
        let sink = self.view_sink.lock().ok().and_then(|s| s.clone());
        if let Some((_, sink)) = sink {
            sink(message);
        }
    }

    /// Applies one message from the feed and notifies the subscribers.
    pub fn apply(&self, message: LiveMessage) -> Result<(), ApplyError> {
        let Ok(mut state) = self.state.lock() else {
            return Ok(());
        };
        let outcome = state.apply(message);
        let changes = match &outcome {
            Ok(changes) => changes.clone(),
            // A bad delta in a batch still applied the good ones: let pages recut.
            Err(ApplyError::RowShape { .. }) => vec![Change::Structure],
            Err(ApplyError::NoSnapshot(_)) => Vec::new(),
        };
        if changes.is_empty() {
            return outcome.map(|_| ());
        }
        if changes.contains(&Change::Reset) {
            self.cluster
                .set(state.snapshot().map(|s| s.cluster.clone()));
        }
        if changes
            .iter()
            .any(|c| matches!(c, Change::Reset | Change::Health))
        {
            self.health.set(state.snapshot().map(|s| s.health.clone()));
        }
        self.counts.set(Some(state.counts()));
        self.version.set(state.version());
        let subs: Vec<Subscriber> = match self.subscribers.lock() {
            Ok(subs) => subs.iter().map(|(_, s)| s.clone()).collect(),
            Err(_) => Vec::new(),
        };
        for sub in subs {
            sub(&state, &changes);
        }
        outcome.map(|_| ())
    }
}

impl Default for LiveHub {
    fn default() -> Self {
        Self::new()
    }
}

/// The hub from context, or a fresh unconnected one (a component rendered outside `App`).
pub fn use_live_hub() -> LiveHub {
    use_context::<LiveHub>().unwrap_or_default()
}

/// Renders unix seconds as `HH:MM:SS` UTC (the stale banner's clock).
pub fn format_utc_time(unix_seconds: i64) -> String {
    let s = unix_seconds.rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_clock_formats_hours_minutes_seconds() {
        let cases = [
            (0, "00:00:00"),
            (1_764_686_096, "14:34:56"),
            (86_399, "23:59:59"),
            (-1, "23:59:59"),
        ];
        for (t, want) in cases {
            assert_eq!(format_utc_time(t), want, "{t}");
        }
    }
}
