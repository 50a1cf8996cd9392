//! What the pages ask of the live state besides the matrix: a cell's explanation, a
//! DaemonSet's rollout, a what-if's facts, a node's labels, and, when the answer is "no such
//! object", whether that is proven or only what a refused or unfinished list leaves unknown.

use super::{Inner, Live, WhatIfNodes};
use crate::cluster::LookupError;
use crate::domain::view::CellExplanation;

impl Live {
    /// The explanation of one cell.
    pub fn explain(&self, node: &str, daemonset: &str) -> Result<CellExplanation, LookupError> {
        let inner = self.lock();
        let now = inner.state.now();
        inner
            .state
            .explain(node, daemonset, now)
            .map_err(|err| Self::why_missing(&inner, err))
    }

    /// Per DaemonSet kept off `node`, the rule that keeps it off.
    pub fn deciding_rules(&self, node: &str) -> Result<Vec<(String, String)>, LookupError> {
        let inner = self.lock();
        inner
            .state
            .deciding_rules(node)
            .map_err(|err| Self::why_missing(&inner, err))
    }

    /// A node's room: sums, DaemonSet tax, pending daemon pods explained (§j).
    pub fn node_room(
        &self,
        node: &str,
    ) -> Result<crate::domain::coverage::pending::NodeRoom, LookupError> {
        let inner = self.lock();
        inner
            .state
            .node_room(node)
            .map_err(|err| Self::why_missing(&inner, err))
    }

    /// A DaemonSet's cluster-wide tax and pending pods explained (§j).
    pub fn daemonset_room(
        &self,
        daemonset: &str,
    ) -> Result<crate::domain::coverage::pending::DaemonSetRoom, LookupError> {
        let inner = self.lock();
        inner
            .state
            .daemonset_room(daemonset)
            .map_err(|err| Self::why_missing(&inner, err))
    }

    /// A DaemonSet's rollout page at the current version.
    pub fn detail(
        &self,
        daemonset: &str,
    ) -> Result<crate::domain::view::DaemonSetDetail, LookupError> {
        let inner = self.lock();
        let now = inner.state.now();
        inner
            .state
            .detail(daemonset, inner.feed.version(), now)
            .map_err(|err| Self::why_missing(&inner, err))
    }

    /// The names of the nodes whose labels `selector` matches, by name. Why here: the matrix's
    /// label-selector filter needs every label, and only the server keeps them (a matrix row
    /// carries a few, shortened).
    pub fn nodes_matching(&self, selector: &crate::domain::labels::LabelSelector) -> Vec<String> {
        let inner = self.lock();
        let mut names: Vec<String> = inner
            .state
            .nodes()
            .filter(|node| selector.matches(&node.labels))
            .map(|node| node.name.clone())
            .collect();
        names.sort_unstable();
        names
    }

    /// A DaemonSet's pods' nodes by revision hash, for its revision history.
    pub fn revision_pods(
        &self,
        daemonset: &str,
    ) -> Result<crate::cluster::state::RevisionPods, LookupError> {
        let inner = self.lock();
        inner
            .state
            .revision_pods(daemonset)
            .map_err(|err| Self::why_missing(&inner, err))
    }

    /// The facts of a what-if preview: one node (`node`) or the nodes a selector matches, and
    /// one DaemonSet or all; `NotFound` (or why it cannot be known) for a missing one.
    pub fn whatif_facts(
        &self,
        nodes: WhatIfNodes<'_>,
        daemonset: Option<&str>,
    ) -> Result<crate::domain::whatif::WhatIfFacts, LookupError> {
        let inner = self.lock();
        let facts = match nodes {
            WhatIfNodes::One(name) => {
                if inner.state.node(name).is_none() {
                    return Err(Self::why_missing(
                        &inner,
                        LookupError::NodeNotFound(name.to_string()),
                    ));
                }
                inner.state.whatif_facts(|n| n.name == name, daemonset)
            }
            WhatIfNodes::Matching(selector) => inner
                .state
                .whatif_facts(|n| selector.matches(&n.labels), daemonset),
            WhatIfNodes::All => inner.state.whatif_facts(|_| true, daemonset),
        };
        facts.map_err(|err| Self::why_missing(&inner, err))
    }

    /// Each node's room for a what-if that changes DaemonSet `key`'s requests (§j.4).
    pub fn whatif_rooms(
        &self,
        key: &str,
    ) -> Result<Vec<crate::domain::whatif::requests::NodeRoomFacts>, LookupError> {
        let inner = self.lock();
        inner
            .state
            .whatif_rooms(key)
            .map_err(|err| Self::why_missing(&inner, err))
    }

    /// Whether node `name` is known; an error says why it cannot be shown (the node page's
    /// not-found, refused and not-yet-listed answers).
    pub fn find_node(&self, name: &str) -> Result<(), LookupError> {
        let inner = self.lock();
        match inner.state.node(name) {
            Some(_) => Ok(()),
            None => Err(Self::why_missing(
                &inner,
                LookupError::NodeNotFound(name.to_string()),
            )),
        }
    }

    /// A lookup that found nothing proves the object absent only when its resource was
    /// listed: a watcher refused with 403 makes it `Denied`, one that never listed makes it
    /// `NotListed` (the page says so instead of "not found").
    fn why_missing(inner: &Inner, err: LookupError) -> LookupError {
        let (resource, namespace) = match &err {
            LookupError::NodeNotFound(_) => ("nodes", None),
            LookupError::DaemonSetNotFound(key) => {
                ("daemonsets", key.split_once('/').map(|(ns, _)| ns))
            }
            LookupError::Denied { .. } | LookupError::NotListed { .. } => return err,
        };
        let covers = |label: &str| {
            label == resource || namespace.is_some_and(|ns| label == format!("{resource} in {ns}"))
        };
        let health = inner.state.health();
        let detail_of = |label: &str| {
            health
                .iter()
                .find(|h| h.resource == label)
                .and_then(|h| h.error.clone())
        };
        if let Some(label) = inner.denied.iter().find(|l| covers(l)) {
            return LookupError::Denied {
                resource: label.clone(),
                detail: detail_of(label).unwrap_or_else(|| "forbidden".to_string()),
            };
        }
        let listed = inner.synced_once.iter().any(|l| covers(l));
        let watched = health.iter().any(|h| covers(&h.resource));
        if watched && !listed {
            let label = health
                .iter()
                .find(|h| covers(&h.resource))
                .map(|h| h.resource.clone())
                .unwrap_or_else(|| resource.to_string());
            return LookupError::NotListed {
                detail: detail_of(&label),
                resource: label,
            };
        }
        err
    }

    /// Every label of one node, sorted by key (the node page); `None` for an unknown node.
    pub fn node_labels(&self, name: &str) -> Option<Vec<(String, String)>> {
        self.read(|s| {
            s.node(name).map(|n| {
                n.labels
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
        })
    }
}
