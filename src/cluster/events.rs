//! Recent Kubernetes Events for the objects the dashboard shows: DaemonSets, their daemon
//! pods (filed under the owning DaemonSet and the pod's node) and nodes.
//!
//! Why bounded this way: a 150,000-pod cluster produces events without end. Events about
//! anything else are dropped at the edge, and only the newest `PER_OBJECT` of each page's
//! object are kept, so memory is at most `PER_OBJECT` × (nodes + DaemonSets) short rows
//! whatever the event rate. Events are optional data: their watcher never touches the matrix
//! or its health, and a 403 on events only leaves the lists empty.
pub mod watch;

use crate::domain::view::EventRow;
use std::collections::{HashMap, VecDeque};

/// The projection of one Event lives at the edge; re-exported for the watcher and tests.
pub use crate::edge::convert::events::{event_facts, EventFacts, Involved};

/// Events kept per DaemonSet or node page.
pub const PER_OBJECT: usize = 20;

/// Which page an event belongs on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Page {
    /// `namespace/name` of a DaemonSet.
    DaemonSet(String),
    /// A node's name.
    Node(String),
}

/// Where a daemon pod belongs: its DaemonSet's page and, once it is aimed at a node, that
/// node's page (the live state knows both from the pod's projection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodHome {
    /// `namespace/name` of the owning DaemonSet.
    pub daemonset: String,
    /// The node the pod runs on or is pinned to.
    pub node: Option<String>,
}

/// Where an event is shown, or None to drop it. `home_of_pod` maps a pod uid to its
/// DaemonSet and node: a daemon pod's events (a kubelet's BackOff, say) belong both with its
/// DaemonSet and with the node where it fails, since a user may look from either side.
pub fn pages_for(
    involved: &Involved,
    home_of_pod: impl Fn(&str) -> Option<PodHome>,
) -> Option<(Vec<Page>, String)> {
    match involved.kind.as_str() {
        "DaemonSet" => Some((
            vec![Page::DaemonSet(format!(
                "{}/{}",
                involved.namespace, involved.name
            ))],
            "DaemonSet".into(),
        )),
        "Node" => Some((vec![Page::Node(involved.name.clone())], "Node".into())),
        "Pod" => home_of_pod(&involved.uid).map(|home| {
            let mut pages = vec![Page::DaemonSet(home.daemonset)];
            pages.extend(home.node.map(Page::Node));
            (
                pages,
                format!("Pod {}/{}", involved.namespace, involved.name),
            )
        }),
        _ => None,
    }
}

/// The newest events of each page, and on which pages each event uid is filed.
#[derive(Debug, Default)]
pub struct RecentEvents {
    pages: HashMap<Page, VecDeque<(String, EventRow)>>,
    filed: HashMap<String, Vec<Page>>,
}

impl RecentEvents {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or updates one event on each of `pages`, keeping each page's newest `PER_OBJECT`.
    pub fn apply(&mut self, pages: &[Page], uid: String, row: EventRow) {
        self.remove(&uid);
        for page in pages {
            self.apply_on(page, &uid, &row);
        }
    }

    fn apply_on(&mut self, page: &Page, uid: &str, row: &EventRow) {
        let list = self.pages.entry(page.clone()).or_default();
        // Newest first; among equal times the latest write first.
        let at = list
            .iter()
            .position(|(_, r)| r.last_seen <= row.last_seen)
            .unwrap_or(list.len());
        if at >= PER_OBJECT {
            return;
        }
        list.insert(at, (uid.to_string(), row.clone()));
        let mut dropped = Vec::new();
        while list.len() > PER_OBJECT {
            if let Some((gone, _)) = list.pop_back() {
                dropped.push(gone);
            }
        }
        self.filed
            .entry(uid.to_string())
            .or_default()
            .push(page.clone());
        for gone in dropped {
            self.unfile(&gone, page);
        }
    }

    /// Forgets that `uid` is on `page` (it fell off the page's tail).
    fn unfile(&mut self, uid: &str, page: &Page) {
        if let Some(pages) = self.filed.get_mut(uid) {
            pages.retain(|p| p != page);
            if pages.is_empty() {
                self.filed.remove(uid);
            }
        }
    }

    /// Forgets one event (deleted, or expired by the server's TTL) on every page.
    pub fn remove(&mut self, uid: &str) {
        let Some(pages) = self.filed.remove(uid) else {
            return;
        };
        for page in pages {
            if let Some(list) = self.pages.get_mut(&page) {
                list.retain(|(u, _)| u != uid);
                if list.is_empty() {
                    self.pages.remove(&page);
                }
            }
        }
    }

    /// Replaces everything (after a list or relist).
    pub fn replace(&mut self, events: Vec<(Vec<Page>, String, EventRow)>) {
        *self = Self::new();
        for (pages, uid, row) in events {
            self.apply(&pages, uid, row);
        }
    }

    /// The events of one page, newest first.
    pub fn of(&self, page: &Page) -> Vec<EventRow> {
        self.pages
            .get(page)
            .map(|l| l.iter().map(|(_, r)| r.clone()).collect())
            .unwrap_or_default()
    }

    /// The events about one daemon pod, newest first, from its namespace's DaemonSet pages
    /// (every daemon pod's events are filed there, `pages_for`), with `object` reading `Pod`.
    /// Why not a page of its own: a page per pod would multiply the store by the pod count;
    /// the pod page shows what the DaemonSet page keeps (its newest `PER_OBJECT`).
    pub fn of_pod(&self, namespace: &str, name: &str) -> Vec<EventRow> {
        let object = format!("Pod {namespace}/{name}");
        let prefix = format!("{namespace}/");
        let mut rows: Vec<EventRow> = self
            .pages
            .iter()
            .filter(|(page, _)| matches!(page, Page::DaemonSet(key) if key.starts_with(&prefix)))
            .flat_map(|(_, list)| list.iter().map(|(_, row)| row))
            .filter(|row| row.object == object)
            .map(|row| EventRow {
                object: "Pod".to_string(),
                ..row.clone()
            })
            .collect();
        rows.sort_by_key(|row| std::cmp::Reverse(row.last_seen));
        rows
    }

    /// How many distinct events are held in all (metrics, tests of the bound).
    pub fn len(&self) -> usize {
        self.filed.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.filed.is_empty()
    }
}

#[cfg(test)]
mod tests;
