//! What every live page's view has in common: the server cuts it, sends it whole once, then
//! sends what changed; the browser applies those messages to the copy it holds.
//!
//! Why one trait: the matrix window, the node page and the DaemonSet page travel over the one
//! `/api/view` protocol (Server-Sent Events, `id:` = the version the view is at). The server's
//! loop (`windows::stream`) and the browser's feed are written once against it; each page's
//! `cut`, `diff` and `apply` stay in its own module.

use crate::domain::view::ResourceHealth;

/// A page's view of the cluster at one version.
pub trait PageView: Clone + Sized {
    /// One message of the page's feed: the whole view or a patch.
    type Message: Clone + serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static;
    /// Why a message did not fit the view a browser holds (it then reloads the view).
    type Error: std::fmt::Display;

    /// The version the view was cut at.
    fn version(&self) -> u64;
    /// The message carrying this view whole.
    fn whole(self) -> Self::Message;
    /// The message saying a browser holding this view is current (the first message of a
    /// feed that starts from the view the page was rendered with, when nothing changed since).
    fn unchanged(&self) -> Self::Message;
    /// The message that brings a browser holding `self` to `next`; `None` when nothing it
    /// shows changed.
    fn diff(&self, next: &Self) -> Option<Self::Message>;
    /// Applies one message to the view a browser holds (`None` before the first whole one).
    fn apply(held: &mut Option<Self>, message: Self::Message) -> Result<(), Self::Error>;
    /// The version a message brings the view to (its SSE `id:`).
    fn message_version(message: &Self::Message) -> u64;
    /// Cluster and context, for the page's header.
    fn cluster(&self) -> &str;
    /// Health of the watched resources, for the stale banner.
    fn health(&self) -> &[ResourceHealth];
}

/// Implements [`PageView`] for a view whose message enum has the variants `Window(view)` and
/// `Patch(patch)`, whose view and patch carry `version` (and the view `cluster` and
/// `health`), and whose patch's `Default` changes nothing: the three views are alike in this,
/// and differ only in their `diff` and `apply`.
macro_rules! page_view {
    ($view:ty, $message:ident, $patch:ident, $error:ty, $diff:path, $apply:path) => {
        impl $crate::views::page::PageView for $view {
            type Message = $message;
            type Error = $error;

            fn version(&self) -> u64 {
                self.version
            }
            fn whole(self) -> $message {
                $message::Window(self)
            }
            fn unchanged(&self) -> $message {
                $message::Patch($patch {
                    version: self.version,
                    ..$patch::default()
                })
            }
            fn diff(&self, next: &Self) -> Option<$message> {
                $diff(self, next)
            }
            fn apply(held: &mut Option<Self>, message: $message) -> Result<(), $error> {
                $apply(held, message)
            }
            fn message_version(message: &$message) -> u64 {
                match message {
                    $message::Window(w) => w.version,
                    $message::Patch(p) => p.version,
                }
            }
            fn cluster(&self) -> &str {
                &self.cluster
            }
            fn health(&self) -> &[$crate::domain::view::ResourceHealth] {
                &self.health
            }
        }
    };
}
pub(crate) use page_view;
