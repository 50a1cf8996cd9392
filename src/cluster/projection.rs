//! Watched objects reduced to the facts the matrix needs, at the edge of the watchers.
//!
//! Why: a 150,000-pod cluster must not be held as 150,000 full Pod objects. Each object is
//! turned into its compact domain projection as soon as it arrives and the object is dropped;
//! pods that no DaemonSet controls are dropped here too. Node, DaemonSet and Pod conversion is
//! `cluster::convert`'s (the one place the two type families meet); ControllerRevisions only
//! contribute their owner, number and hash, projected here.

use crate::domain::names;
use crate::domain::{DaemonSetFacts, NodeFacts, PodFacts};
use k8s_openapi::api::apps::v1::ControllerRevision;

/// What a DaemonSet's ControllerRevision contributes: which revision is current (§d.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionFacts {
    /// Namespace of the revision (the DaemonSet's).
    pub namespace: String,
    /// Object name, `<ds-name>-<hash>`.
    pub name: String,
    /// uid of the controlling DaemonSet; revisions without one are not any DaemonSet's.
    pub owner_uid: String,
    /// `revision`: the highest one owned by a DaemonSet is its current revision (§d.4).
    pub revision: i64,
    /// The hash pods of this revision carry in `controller-revision-hash`.
    pub hash: String,
}

/// One watched object, projected. `None` from a projection function means "not ours".
#[derive(Debug, Clone, PartialEq)]
pub enum Projection {
    /// A Node (always cluster-wide).
    Node(NodeFacts),
    /// A DaemonSet.
    DaemonSet(DaemonSetFacts),
    /// A pod controlled by a DaemonSet.
    Pod(PodFacts),
    /// A ControllerRevision controlled by a DaemonSet.
    Revision(RevisionFacts),
}

/// Projects a ControllerRevision; `None` when no DaemonSet controls it (it cannot be a
/// DaemonSet's current revision, §f ownership).
pub fn revision_facts(rev: &ControllerRevision) -> Option<RevisionFacts> {
    let meta = &rev.metadata;
    let owner = meta
        .owner_references
        .as_deref()
        .unwrap_or_default()
        .iter()
        .find(|o| o.controller == Some(true) && o.kind == "DaemonSet")?;
    let name = meta.name.clone().unwrap_or_default();
    let hash = meta
        .labels
        .as_ref()
        .and_then(|l| l.get(names::CONTROLLER_REVISION_HASH))
        .cloned()
        // Without the label, the name is `<ds-name>-<hash>` (§d.4).
        .or_else(|| {
            name.strip_prefix(&format!("{}-", owner.name))
                .map(str::to_string)
        })
        .unwrap_or_default();
    Some(RevisionFacts {
        namespace: meta.namespace.clone().unwrap_or_default(),
        name,
        owner_uid: owner.uid.clone(),
        revision: rev.revision.unwrap_or_default(),
        hash,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

    fn revision(
        name: &str,
        owner: Option<(&str, bool)>,
        labels: &[(&str, &str)],
        number: i64,
    ) -> ControllerRevision {
        ControllerRevision {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("kube-system".into()),
                labels: Some(
                    labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                ),
                owner_references: owner.map(|(uid, controller)| {
                    vec![OwnerReference {
                        api_version: "apps/v1".into(),
                        kind: "DaemonSet".into(),
                        name: "speaker".into(),
                        uid: uid.into(),
                        controller: Some(controller),
                        ..Default::default()
                    }]
                }),
                ..Default::default()
            },
            revision: Some(number),
            data: Default::default(),
        }
    }

    #[test]
    fn a_revision_takes_its_hash_from_the_label_and_its_owner_from_the_controller_ref() {
        let facts = revision_facts(&revision(
            "speaker-abc",
            Some(("u1", true)),
            &[(names::CONTROLLER_REVISION_HASH, "h1")],
            3,
        ));
        assert_eq!(
            facts,
            Some(RevisionFacts {
                namespace: "kube-system".into(),
                name: "speaker-abc".into(),
                owner_uid: "u1".into(),
                revision: 3,
                hash: "h1".into(),
            })
        );
    }

    #[test]
    fn a_revision_without_the_hash_label_takes_the_hash_from_its_name() {
        let facts = revision_facts(&revision("speaker-7f9c", Some(("u1", true)), &[], 1));
        assert_eq!(facts.map(|f| f.hash), Some("7f9c".to_string()));
    }

    #[test]
    fn a_revision_no_daemonset_controls_is_dropped_per_f_ownership() {
        assert_eq!(revision_facts(&revision("x-1", None, &[], 1)), None);
        assert_eq!(
            revision_facts(&revision("x-1", Some(("u1", false)), &[], 1)),
            None
        );
    }
}
