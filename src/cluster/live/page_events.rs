//! The recent Events each page lists, kept beside the matrix under their own lock; a
//! DaemonSet's FailedCreate is also handed to the store, where it names a stalled rollout's
//! cause.

use super::Live;
use crate::cluster::events::Page;
use crate::domain::view::EventRow;

impl Live {
    /// An added or updated Event, filed on its page. A DaemonSet's FailedCreate also goes to
    /// the store, where it names a stalled rollout's cause.
    pub fn events_apply(&self, pages: &[Page], uid: String, row: EventRow) {
        self.note_failed_creates(std::iter::once((pages, &row)));
        self.events().apply(pages, uid, row);
    }

    /// Hands the DaemonSets' FailedCreate events to the store (its lock, then released: the
    /// events lock is never held with it).
    fn note_failed_creates<'a>(&self, events: impl Iterator<Item = (&'a [Page], &'a EventRow)>) {
        let mut inner = None;
        for (pages, row) in events {
            if row.reason != "FailedCreate" || row.object != "DaemonSet" {
                continue;
            }
            for page in pages {
                if let Page::DaemonSet(key) = page {
                    inner
                        .get_or_insert_with(|| self.lock())
                        .state
                        .note_failed_create(key, row.message.clone(), row.last_seen);
                }
            }
        }
    }

    /// A deleted Event (or one no longer about a shown object).
    pub fn events_remove(&self, uid: &str) {
        self.events().remove(uid);
    }

    /// Every Event after a (re)list.
    pub fn events_replace(&self, events: Vec<(Vec<Page>, String, EventRow)>) {
        self.note_failed_creates(events.iter().map(|(pages, _, row)| (pages.as_slice(), row)));
        self.events().replace(events);
    }

    /// The recent events of one page, newest first.
    pub fn events_of(&self, page: &Page) -> Vec<EventRow> {
        self.events().of(page)
    }

    /// The recent events about one daemon pod, newest first (the pod page).
    pub fn pod_events(&self, namespace: &str, name: &str) -> Vec<EventRow> {
        self.events().of_pod(namespace, name)
    }
}
