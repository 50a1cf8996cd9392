//! ControllerRevisions: one per distinct pod template, the current one found by template
//! equality, new ones numbered after the highest, old ones pruned past the history limit
//! (§d.4, UPD `constructHistory`, `snapshot`, `cleanupHistory`).
//!
//! Why it matters to the dashboard: the current revision's hash is what makes a pod "updated"
//! (§d.4), and `kubectl rollout undo` works by revision number.

use crate::domain::names;
use crate::scenario::revision_template;
use crate::store::{Store, StoreError};
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashSet;

const SAFE_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `controller.ComputeHash`: FNV-32a of the template (here its JSON) and the collision count,
/// printed as a decimal number and mapped through `rand.SafeEncodeString`'s alphabet.
pub fn template_hash(template: &Value, collision_count: Option<i32>) -> String {
    let mut h: u32 = 0x811c_9dc5;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h ^= u32::from(*b);
            h = h.wrapping_mul(0x0100_0193);
        }
    };
    feed(template.to_string().as_bytes());
    if let Some(c) = collision_count {
        feed(&(c as u32).to_le_bytes());
    }
    h.to_string()
        .bytes()
        .map(|b| SAFE_ALPHABET[usize::from(b) % SAFE_ALPHABET.len()] as char)
        .collect()
}

/// A template as canonical JSON (through the typed struct, so field order and empty values
/// compare equal however they were written).
pub fn canonical(template: &Value) -> Option<Value> {
    PodTemplateSpec::deserialize(template)
        .ok()
        .and_then(|t| serde_json::to_value(t).ok())
}

/// The revisions owned by a DaemonSet through a controller ownerReference.
pub fn owned(store: &Store, ds: &DaemonSet) -> Vec<ControllerRevision> {
    let uid = ds.metadata.uid.clone().unwrap_or_default();
    store
        .list::<ControllerRevision>(ds.metadata.namespace.as_deref())
        .into_iter()
        .filter(|cr| {
            cr.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|o| o.controller == Some(true) && o.uid == uid)
        })
        .collect()
}

fn hash_of(cr: &ControllerRevision) -> String {
    cr.metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(names::CONTROLLER_REVISION_HASH))
        .cloned()
        .or_else(|| {
            let name = cr.metadata.name.as_deref()?;
            name.rsplit_once('-').map(|(_, h)| h.to_string())
        })
        .unwrap_or_default()
}

/// The controller reference every object the controller creates carries (§f).
pub fn controller_ref(ds: &DaemonSet) -> OwnerReference {
    OwnerReference {
        api_version: "apps/v1".into(),
        kind: "DaemonSet".into(),
        name: ds.metadata.name.clone().unwrap_or_default(),
        uid: ds.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// The current revision as `current_hash` found or made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Current {
    /// The hash pods of the live template carry.
    pub hash: String,
    /// `status.collisionCount` after any bump.
    pub collision_count: Option<i32>,
    /// A revision was created after others, or an old one renumbered: the template changed.
    pub template_changed: bool,
}

/// The current revision of a DaemonSet: the hash pods of the live template carry, creating a
/// revision (numbered after the highest) when no stored one holds this template, and renumbering
/// an older one that does (a rollback).
pub fn current_hash(
    store: &Store,
    ds: &DaemonSet,
    revisions: &mut Vec<ControllerRevision>,
) -> Result<Current, StoreError> {
    let live = serde_json::to_value(&ds.spec.template).unwrap_or(Value::Null);
    let live = canonical(&live).unwrap_or(live);
    let max_revision = revisions
        .iter()
        .filter_map(|r| r.revision)
        .max()
        .unwrap_or(0);
    let matching = revisions
        .iter()
        .filter(|cr| revision_template(cr).and_then(|t| canonical(&t)).as_ref() == Some(&live))
        .max_by_key(|cr| cr.revision.unwrap_or(0))
        .cloned();
    let mut collision_count = ds.status.as_ref().and_then(|s| s.collision_count);
    if let Some(mut cr) = matching {
        let renumbered = cr.revision.unwrap_or(0) < max_revision;
        if renumbered {
            cr.revision = Some(max_revision + 1);
            cr = store.update(cr)?;
            if let Some(slot) = revisions
                .iter_mut()
                .find(|r| r.metadata.uid == cr.metadata.uid)
            {
                *slot = cr.clone();
            }
        }
        return Ok(Current {
            hash: hash_of(&cr),
            collision_count,
            template_changed: renumbered,
        });
    }
    let mut patch = live.clone();
    if let Some(map) = patch.as_object_mut() {
        map.insert("$patch".into(), Value::String("replace".into()));
    }
    loop {
        let hash = template_hash(&live, collision_count);
        let name =
            names::controller_revision_name(ds.metadata.name.as_deref().unwrap_or_default(), &hash);
        let mut labels = ds
            .spec
            .template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.clone())
            .unwrap_or_default();
        labels.insert(names::CONTROLLER_REVISION_HASH.into(), hash.clone());
        let cr = ControllerRevision {
            metadata: ObjectMeta {
                name: Some(name.clone()),
                namespace: ds.metadata.namespace.clone(),
                labels: Some(labels),
                owner_references: Some(vec![controller_ref(ds)]),
                ..Default::default()
            },
            data: RawExtension(serde_json::json!({"spec": {"template": patch}})),
            revision: Some(max_revision + 1),
        };
        match store.create(cr) {
            Ok(created) => {
                revisions.push(created);
                return Ok(Current {
                    hash,
                    collision_count,
                    template_changed: max_revision > 0,
                });
            }
            Err(StoreError::AlreadyExists { .. }) => {
                // Same name, different template (`snapshot`): bump collisionCount, rehash.
                let existing =
                    store.get::<ControllerRevision>(ds.metadata.namespace.as_deref(), &name);
                if existing
                    .as_ref()
                    .and_then(revision_template)
                    .and_then(|t| canonical(&t))
                    .as_ref()
                    == Some(&live)
                {
                    if let Some(e) = existing {
                        revisions.push(e);
                    }
                    return Ok(Current {
                        hash,
                        collision_count,
                        template_changed: false,
                    });
                }
                collision_count = Some(collision_count.unwrap_or(0).saturating_add(1));
            }
            Err(e) => return Err(e),
        }
    }
}

/// `cleanupHistory`: deletes the oldest revisions beyond `revisionHistoryLimit` (default 10),
/// never the current one nor one whose hash a live pod still carries.
pub fn prune(
    store: &Store,
    ds: &DaemonSet,
    revisions: &[ControllerRevision],
    current: &str,
    live_hashes: &HashSet<String>,
) {
    let limit = usize::try_from(ds.spec.revision_history_limit.unwrap_or(10).max(0)).unwrap_or(10);
    let mut old: Vec<&ControllerRevision> = revisions
        .iter()
        .filter(|r| {
            let h = hash_of(r);
            h != current && !live_hashes.contains(&h)
        })
        .collect();
    if old.len() <= limit {
        return;
    }
    old.sort_by_key(|r| r.revision.unwrap_or(0));
    let excess = old.len() - limit;
    for r in old.into_iter().take(excess) {
        if let Some(name) = r.metadata.name.as_deref() {
            if let Err(e) =
                store.delete::<ControllerRevision>(r.metadata.namespace.as_deref(), name)
            {
                tracing::debug!(revision = name, error = %e, "pruning revision failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_uses_the_safe_alphabet_and_changes_with_template_and_collisions() {
        let a = serde_json::json!({"spec": {"containers": [{"name": "c", "image": "a:1"}]}});
        let b = serde_json::json!({"spec": {"containers": [{"name": "c", "image": "a:2"}]}});
        let ha = template_hash(&a, None);
        assert!(
            !ha.is_empty() && ha.bytes().all(|c| SAFE_ALPHABET.contains(&c)),
            "{ha}"
        );
        assert_eq!(ha, template_hash(&a, None), "deterministic");
        assert_ne!(ha, template_hash(&b, None));
        assert_ne!(
            ha,
            template_hash(&a, Some(1)),
            "§c collisionCount feeds the hash"
        );
    }

    #[test]
    fn canonical_form_ignores_key_order_and_empty_optionals() {
        let a = serde_json::json!({"metadata": {"labels": {"x": "1"}}, "spec": {"containers": [{"image": "i", "name": "c"}]}});
        let b = serde_json::json!({"spec": {"containers": [{"name": "c", "image": "i", "env": null}]}, "metadata": {"labels": {"x": "1"}}});
        assert_eq!(canonical(&a), canonical(&b));
    }
}
