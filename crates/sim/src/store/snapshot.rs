//! Lists as of an earlier resourceVersion, so that every page of a paginated list shows the
//! cluster as it was when the first page was read.
//!
//! Why: kube-apiserver serves a `continue` page from etcd at the first page's revision, so a
//! client paging through 150,000 pods while the cluster changes gets one consistent list whose
//! `metadata.resourceVersion` it can watch from. Serving later pages from the current state
//! would show an object twice or not at all when it changes during the list.
//!
//! The state at `at` is rebuilt from the watch history: for each object changed since `at`,
//! the first change after `at` tells what it was then (ADDED: absent; MODIFIED or DELETED: the
//! object before that change). Once `at` has left the history the list is Gone (410), as
//! etcd's compaction makes it for a real server.

use std::collections::BTreeMap;
use std::iter::Peekable;
use std::ops::Bound;
use std::sync::Arc;

use super::{
    key, page_start, take_page, EventType, Key, Kind, ListPage, Store, StoreError, StoredObject,
};

impl Store {
    /// A page of objects of `kind` as they were at resourceVersion `at` (in one namespace or
    /// all), in key order after `start_after`, keeping those `filter` accepts.
    pub fn list_page_at(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        start_after: Option<&Key>,
        limit: Option<usize>,
        filter: &dyn Fn(&StoredObject) -> bool,
        at: u64,
    ) -> Result<ListPage, StoreError> {
        let now = self.history_now();
        let state = self.read();
        state.retained(at, &self.inner.settings, now)?;
        let ns = namespace.filter(|_| kind.namespaced());
        let start = page_start(start_after, ns);
        let mut then: BTreeMap<Key, Option<Arc<StoredObject>>> = BTreeMap::new();
        let first_after = state.history.partition_point(|e| e.resource_version <= at);
        for entry in state.history.range(first_after..) {
            if entry.object.kind != kind {
                continue;
            }
            let facts = &entry.object.facts;
            // Only keys from the page's start on matter: compare borrowed before allocating, so
            // a page read while the cluster writes fast does not copy every changed key.
            let entry_ns = match (kind.namespaced(), facts.namespace.as_deref()) {
                (false, _) => "",
                (true, ns) => ns.unwrap_or("default"),
            };
            let here = (entry_ns, facts.name.as_str());
            let before_start = match &start {
                Bound::Excluded(k) => here <= (k.0.as_str(), k.1.as_str()),
                Bound::Included(k) => here < (k.0.as_str(), k.1.as_str()),
                Bound::Unbounded => false,
            };
            if before_start || ns.is_some_and(|n| n != entry_ns) {
                continue;
            }
            then.entry(key(kind, facts.namespace.as_deref(), &facts.name))
                .or_insert_with(|| match entry.event_type {
                    EventType::Added => None,
                    EventType::Modified | EventType::Deleted => entry.previous.clone(),
                });
        }
        let now = state.objects[kind.index()].range((start.clone(), Bound::Unbounded));
        let changed = then.range((start, Bound::Unbounded));
        let (items, next_key) = take_page(kind, ns, AsOf::new(now, changed), limit, filter);
        Ok(ListPage {
            items,
            resource_version: at,
            next_key,
        })
    }
}

/// The objects at an earlier resourceVersion, in key order: the current objects merged with
/// the earlier state of those changed since (which replaces them, or removes them when they
/// did not exist yet).
struct AsOf<'a, N, C>
where
    N: Iterator<Item = (&'a Key, &'a Arc<StoredObject>)>,
    C: Iterator<Item = (&'a Key, &'a Option<Arc<StoredObject>>)>,
{
    now: Peekable<N>,
    changed: Peekable<C>,
}

impl<'a, N, C> AsOf<'a, N, C>
where
    N: Iterator<Item = (&'a Key, &'a Arc<StoredObject>)>,
    C: Iterator<Item = (&'a Key, &'a Option<Arc<StoredObject>>)>,
{
    fn new(now: N, changed: C) -> Self {
        AsOf {
            now: now.peekable(),
            changed: changed.peekable(),
        }
    }
}

impl<'a, N, C> Iterator for AsOf<'a, N, C>
where
    N: Iterator<Item = (&'a Key, &'a Arc<StoredObject>)>,
    C: Iterator<Item = (&'a Key, &'a Option<Arc<StoredObject>>)>,
{
    type Item = (&'a Key, &'a Arc<StoredObject>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let now_key = self.now.peek().map(|(k, _)| *k);
            let changed_key = self.changed.peek().map(|(k, _)| *k);
            let take_changed = match (now_key, changed_key) {
                (None, None) => return None,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(now_key), Some(changed_key)) => {
                    if changed_key == now_key {
                        // The earlier state replaces the current one.
                        self.now.next();
                    }
                    changed_key <= now_key
                }
            };
            if !take_changed {
                return self.now.next();
            }
            match self.changed.next() {
                Some((k, Some(obj))) => return Some((k, obj)),
                // Created after `at`: not in the list then.
                Some((_, None)) => continue,
                None => return None,
            }
        }
    }
}
