//! ControllerRevisions: the current revision hash of each DaemonSet (§d.4) and the column
//! recompute when it changes.

use super::*;

/// What the revision history needs of the live store for one DaemonSet; the templates
/// themselves are read on demand (the store keeps only [`RevisionFacts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionPods {
    /// The DaemonSet's uid: revisions count only when controlled by it (§f).
    pub uid: String,
    /// Hash of its current revision (§d.4), empty when none is known.
    pub current_hash: String,
    /// Per `controller-revision-hash`, the node of each of its pods (§f), one entry per pod.
    pub nodes_by_hash: std::collections::BTreeMap<String, Vec<String>>,
}

impl ClusterState {
    /// The DaemonSet's identity and its pods' nodes grouped by revision hash; pods aimed at
    /// no node (§f `GetTargetNodeName` found none) are on no node and left out.
    pub fn revision_pods(&self, ds_key: &str) -> Result<RevisionPods, crate::cluster::LookupError> {
        let ds = self
            .daemonsets
            .get(ds_key)
            .ok_or_else(|| crate::cluster::LookupError::DaemonSetNotFound(ds_key.to_string()))?;
        let mut nodes_by_hash: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for pod in self.pods.of_daemonset(&ds.uid) {
            if let Some(node) = &pod.node_name {
                nodes_by_hash
                    .entry(pod.revision_hash.clone())
                    .or_default()
                    .push(node.clone());
            }
        }
        Ok(RevisionPods {
            uid: ds.uid.clone(),
            current_hash: ds.current_revision_hash.clone(),
            nodes_by_hash,
        })
    }

    pub(super) fn insert_revision(&mut self, rev: RevisionFacts) {
        let id = format!("{}/{}", rev.namespace, rev.name);
        self.revisions
            .entry(rev.owner_uid.clone())
            .or_default()
            .insert(id, rev);
    }

    /// The hash of the owned revision with the highest `revision` number (§d.4).
    pub(super) fn current_hash(&self, ds_uid: &str) -> Option<String> {
        self.revisions
            .get(ds_uid)?
            .values()
            .max_by_key(|r| (r.revision, r.name.clone()))
            .map(|r| r.hash.clone())
    }

    /// Copies the current revision hash into the DaemonSet; true when it changed.
    pub(super) fn sync_revision_hash(&mut self, key: &str) -> bool {
        let Some(uid) = self.daemonsets.get(key).map(|ds| ds.uid.clone()) else {
            return false;
        };
        let Some(hash) = self.current_hash(&uid) else {
            return false;
        };
        match self.daemonsets.get_mut(key) {
            Some(ds) if ds.current_revision_hash != hash => {
                ds.current_revision_hash = hash;
                true
            }
            _ => false,
        }
    }

    pub(super) fn apply_revision(&mut self, rev: RevisionFacts) -> Vec<Delta> {
        let owner = rev.owner_uid.clone();
        self.insert_revision(rev);
        self.after_revision_change(&owner)
    }

    pub(super) fn delete_revision(&mut self, rev: &RevisionFacts) -> Vec<Delta> {
        if let Some(revs) = self.revisions.get_mut(&rev.owner_uid) {
            revs.remove(&format!("{}/{}", rev.namespace, rev.name));
            if revs.is_empty() {
                self.revisions.remove(&rev.owner_uid);
            }
        }
        self.after_revision_change(&rev.owner_uid)
    }

    pub(super) fn after_revision_change(&mut self, owner_uid: &str) -> Vec<Delta> {
        let Some(key) = self.ds_key_by_uid.get(owner_uid).cloned() else {
            return Vec::new();
        };
        if self.sync_revision_hash(&key) {
            self.column_deltas(&key, false)
        } else {
            Vec::new()
        }
    }
}
