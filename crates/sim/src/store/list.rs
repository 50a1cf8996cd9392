//! Reading the store the way LIST and WATCH do: a page of one kind in key order (limit and
//! continue), and the history entries a watch replays after a resourceVersion (410 Gone once
//! that version has left the history).
use std::ops::Bound;
use std::sync::Arc;

use super::{key, HistoryEntry, Key, Kind, ListPage, Store, StoreError, StoredObject};

/// Where a page starts: after the previous page's last key, or at the namespace's first key.
pub(super) fn page_start(start_after: Option<&Key>, ns: Option<&str>) -> Bound<Key> {
    match (start_after, ns) {
        (Some(k), _) => Bound::Excluded(k.clone()),
        (None, Some(ns)) => Bound::Included((ns.to_string(), String::new())),
        (None, None) => Bound::Unbounded,
    }
}

/// The items of one page from `objects` (in key order, starting where the page starts):
/// stops at the namespace's end or after `limit` matches, and returns the key to continue
/// after when more follow.
pub(super) fn take_page<'a>(
    kind: Kind,
    ns: Option<&str>,
    objects: impl Iterator<Item = (&'a Key, &'a Arc<StoredObject>)>,
    limit: Option<usize>,
    filter: &dyn Fn(&StoredObject) -> bool,
) -> (Vec<Arc<StoredObject>>, Option<Key>) {
    let limit = limit.filter(|l| *l > 0).unwrap_or(usize::MAX);
    let mut items: Vec<Arc<StoredObject>> = Vec::new();
    for (k, obj) in objects {
        if ns.is_some_and(|ns| k.0 != ns) {
            break;
        }
        if !filter(obj) {
            continue;
        }
        if items.len() == limit {
            let next_key = items
                .last()
                .map(|o| key(kind, o.facts.namespace.as_deref(), &o.facts.name));
            return (items, next_key);
        }
        items.push(obj.clone());
    }
    (items, None)
}

impl Store {
    /// A page of objects of `kind` (in one namespace or all), in key order, after
    /// `start_after`, keeping those `filter` accepts. Reads the current state; a continue
    /// page reads the first page's state through `list_page_at`.
    pub fn list_page(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        start_after: Option<&Key>,
        limit: Option<usize>,
        filter: &dyn Fn(&StoredObject) -> bool,
    ) -> ListPage {
        let state = self.read();
        let ns = namespace.filter(|_| kind.namespaced());
        let objects =
            state.objects[kind.index()].range((page_start(start_after, ns), Bound::Unbounded));
        let (items, next_key) = take_page(kind, ns, objects, limit, filter);
        ListPage {
            items,
            resource_version: state.rv,
            next_key,
        }
    }

    /// History entries of `kind` after resourceVersion `after`, at most `max` scanned
    /// entries; also returns the resourceVersion scanned up to. Gone once `after` has left
    /// the history.
    pub fn history_since(
        &self,
        kind: Kind,
        after: u64,
        max: usize,
    ) -> Result<(Vec<HistoryEntry>, u64), StoreError> {
        let now = self.history_now();
        let state = self.read();
        state.retained(after, &self.inner.settings, now)?;
        let start = state
            .history
            .partition_point(|e| e.resource_version <= after);
        let mut out = Vec::new();
        let mut scanned_to = after.max(state.evicted_rv);
        for entry in state.history.range(start..).take(max) {
            scanned_to = entry.resource_version;
            if entry.object.kind == kind {
                out.push(entry.clone());
            }
        }
        if start + max >= state.history.len() {
            scanned_to = scanned_to.max(state.rv);
        }
        Ok((out, scanned_to))
    }
}
