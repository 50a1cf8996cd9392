//! The browser side of the live feed: one connection per page load that follows the page on
//! screen, and the page-wide signals (connection, health, cluster) the header shows.
//!
//! Why a hub: the EventSource connection outlives page navigation, while pages come and go.
//! Each page follows its own view (`/api/view…`, cut and patched on the server): it registers
//! what to do with a message ([`LiveHub::follow_view`]) and holds its view; the browser never
//! holds the matrix. The hub exists on the server too (so SSR and hydration render the same
//! tree) but only connects in the browser (`feed`, hydrate builds).

#[cfg(feature = "hydrate")]
pub mod feed;

use crate::domain::view::{ResourceHealth, StateCounts};
use crate::links;
use crate::views::page::PageView;
use leptos::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The connection to the page's feed, as the stale banner needs it.
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

/// The page's callback for its view's messages (the text of one SSE message); an error says
/// why the message was not applied.
pub type ViewSink = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// The view the page on screen follows: `/api/view…`, cut and patched on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feed(String);

impl Feed {
    /// The matrix window for the query string `query` (with or without its `?`).
    pub fn view(query: &str) -> Self {
        Feed(links::api(&format!(
            "/api/view?{}",
            query.trim_start_matches('?')
        )))
    }

    /// The node page's view: one node's row and its columns' keys.
    pub fn node(name: &str) -> Self {
        Feed(links::api(&format!(
            "/api/view/node/{}",
            links::encode(name)
        )))
    }

    /// The DaemonSet page's view of `namespace/name`: its rollout node by node.
    pub fn daemonset(key: &str) -> Self {
        let (namespace, name) = key.split_once('/').unwrap_or(("", key));
        Feed(links::api(&format!(
            "/api/view/ds/{}/{}",
            links::encode(namespace),
            links::encode(name)
        )))
    }

    /// The same feed, starting from the view the page holds at `version` (rendered by the
    /// server): the server then sends the difference from it, not the view again.
    pub fn since(self, version: u64) -> Self {
        let join = if self.0.contains('?') { '&' } else { '?' };
        Feed(format!("{}{join}since={version}", self.0))
    }

    /// Where the feed is served.
    pub fn url(&self) -> &str {
        &self.0
    }
}

/// A page's view as the browser holds it, shared with the feed's callback. A page that must
/// read the view again (a patch did not fit) puts the fresh one here.
pub struct HeldView<V>(Arc<Mutex<Option<V>>>);

impl<V> Clone for HeldView<V> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<V> HeldView<V> {
    /// Replaces the view held (after reading it again).
    pub fn replace(&self, view: V) {
        if let Ok(mut held) = self.0.lock() {
            *held = Some(view);
        }
    }
}

/// The page-wide live signals and the page's view callback, provided as context by `App`.
#[derive(Clone)]
pub struct LiveHub {
    view_sink: Arc<Mutex<Option<(u64, ViewSink)>>>,
    next_id: Arc<AtomicU64>,
    /// Connection state of the feed.
    pub conn: RwSignal<ConnState>,
    /// Resource health from the feed; `None` until the first message.
    pub health: RwSignal<Option<Vec<ResourceHealth>>>,
    /// Cells per state over the whole matrix (the matrix page's legend); `None` until then.
    pub counts: RwSignal<Option<StateCounts>>,
    /// Last applied version (0 before the first message); tests and the footer read it.
    pub version: RwSignal<u64>,
    /// Cluster and context from the feed (headers of pages without their own).
    pub cluster: RwSignal<Option<String>>,
}

impl LiveHub {
    /// A hub with no data, not connected.
    pub fn new() -> Self {
        Self {
            view_sink: Arc::new(Mutex::new(None)),
            next_id: Arc::new(AtomicU64::new(1)),
            conn: RwSignal::new(ConnState::Idle),
            health: RwSignal::new(None),
            counts: RwSignal::new(None),
            version: RwSignal::new(0),
            cluster: RwSignal::new(None),
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

    /// Registers the page's view callback (one at a time: the page on screen); pair with
    /// [`LiveHub::clear_view_sink`] in `on_cleanup`.
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

    /// Hands one message of the feed (its text) to the page's callback.
    pub fn apply_view(&self, text: &str) -> Result<(), String> {
        let sink = self.view_sink.lock().ok().and_then(|s| s.clone());
        match sink {
            Some((_, sink)) => sink(text),
            None => Ok(()),
        }
    }

    /// Follows `feed` for a page showing `initial`: each message is applied to the view held,
    /// the header's signals follow it, then `show` gets the view and the message. A message
    /// that does not fit goes to `mismatch` (the page reads its view again into the returned
    /// [`HeldView`]). The callback goes with the page (`on_cleanup`).
    pub fn follow_view<V>(
        &self,
        feed: Feed,
        initial: Option<V>,
        show: impl Fn(&V, &V::Message) + Send + Sync + 'static,
        mismatch: impl Fn(&V::Error) + Send + Sync + 'static,
    ) -> HeldView<V>
    where
        V: PageView + Send + 'static,
    {
        let held = HeldView(Arc::new(Mutex::new(initial)));
        let view = held.clone();
        let hub = self.clone();
        let sink: ViewSink = Arc::new(move |text: &str| {
            let message: V::Message = serde_json::from_str(text)
                .map_err(|e| format!("the message does not fit this page's view: {e}"))?;
            let Ok(mut held) = view.0.lock() else {
                return Ok(());
            };
            match V::apply(&mut held, message.clone()) {
                Ok(()) => {
                    if let Some(v) = held.as_ref() {
                        hub.show_header(v);
                        show(v, &message);
                    }
                    Ok(())
                }
                Err(err) => {
                    mismatch(&err);
                    Err(err.to_string())
                }
            }
        });
        let id = self.set_view_sink(sink);
        self.follow(feed);
        let hub = self.clone();
        on_cleanup(move || hub.clear_view_sink(id));
        held
    }

    /// The header's signals from a page's view, set only when they changed.
    fn show_header<V: PageView>(&self, view: &V) {
        if self
            .cluster
            .with_untracked(|c| c.as_deref() != Some(view.cluster()))
        {
            self.cluster.set(Some(view.cluster().to_string()));
        }
        if self
            .health
            .with_untracked(|h| h.as_deref() != Some(view.health()))
        {
            self.health.set(Some(view.health().to_vec()));
        }
        self.version.set(view.version());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_page_follows_its_own_view_from_the_version_it_holds() {
        assert_eq!(
            Feed::view("?problems=0").since(7).url(),
            "/api/view?problems=0&since=7"
        );
        assert_eq!(Feed::view("").url(), "/api/view?");
        assert_eq!(
            Feed::node("worker 2").since(3).url(),
            "/api/view/node/worker%202?since=3"
        );
        assert_eq!(
            Feed::daemonset("kube-system/log").url(),
            "/api/view/ds/kube-system/log"
        );
    }
}
