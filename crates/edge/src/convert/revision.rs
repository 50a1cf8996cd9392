//! ControllerRevisions and the identity of a DaemonSet that no longer converts.
//!
//! Why here: every k8s-openapi → domain conversion lives in `edge::convert`, so the
//! dashboard's watchers only route what this module returns.

use crate::domain::names;
use crate::domain::{DaemonSetFacts, RevisionFacts, TemplateFacts, UpdateStrategy};
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};

#[cfg(test)]
mod tests;

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

/// Only the identity of a DaemonSet (namespace, name, uid) with empty rules: what a watcher
/// needs to remove a DaemonSet that [`super::daemonset_facts`] refuses, so it leaves the page
/// rather than staying shown as it was.
pub fn daemonset_identity(ds: &DaemonSet) -> DaemonSetFacts {
    DaemonSetFacts {
        namespace: ds.metadata.namespace.clone().unwrap_or_default(),
        name: ds.metadata.name.clone().unwrap_or_default(),
        uid: ds.metadata.uid.clone().unwrap_or_default(),
        generation: 0,
        template: TemplateFacts::default(),
        strategy: UpdateStrategy::OnDelete,
        min_ready_seconds: 0,
        current_revision_hash: String::new(),
        template_generation: None,
        status: None,
    }
}
