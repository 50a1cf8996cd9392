//! A ControllerRevision's stored template, reduced to what the revision history compares.
//!
//! Why here: the history reads `data` as the DaemonSet controller wrote it (UPD `getPatch`:
//! `{"spec":{"template":{…,"$patch":"replace"}}}`), and only this crate knows API structs.
//! Env values, commands, args and volumes are never copied out: the domain type has no field
//! for them, so no page can show them (docs/architecture.md#read-only).

use super::{pod_spec_facts, unix_seconds};
use crate::domain::history::{ContainerTemplate, RevisionRecord, RevisionTemplate};
use crate::domain::names;
use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::core::v1::{Container, PodTemplateSpec};
use std::collections::BTreeMap;

#[cfg(test)]
mod tests;

/// Whether `rev` is controlled by the DaemonSet with uid `ds_uid` (§f: a controller
/// ownerReference with that uid, what kubectl's `IsControlledBy` checks).
pub fn controlled_by(rev: &ControllerRevision, ds_uid: &str) -> bool {
    !ds_uid.is_empty()
        && rev
            .metadata
            .owner_references
            .iter()
            .flatten()
            .any(|o| o.controller == Some(true) && o.uid == ds_uid)
}

/// One revision for the history: number, hash, age, change-cause and its template, or a
/// readable reason when `data` holds no pod template.
pub fn revision_record(rev: &ControllerRevision) -> RevisionRecord {
    let meta = &rev.metadata;
    let name = meta.name.clone().unwrap_or_default();
    let hash = super::revision_facts(rev)
        .map(|f| f.hash)
        .or_else(|| {
            meta.labels
                .as_ref()
                .and_then(|l| l.get(names::CONTROLLER_REVISION_HASH))
                .cloned()
        })
        .unwrap_or_default();
    RevisionRecord {
        name,
        revision: rev.revision.unwrap_or_default(),
        hash,
        created: meta
            .creation_timestamp
            .as_ref()
            .map(unix_seconds)
            .unwrap_or(0),
        change_cause: meta
            .annotations
            .as_ref()
            .and_then(|a| a.get(names::CHANGE_CAUSE_ANNOTATION))
            .cloned()
            .unwrap_or_default(),
        template: stored_template(&rev.data.0),
    }
}

fn stored_template(data: &serde_json::Value) -> Result<RevisionTemplate, String> {
    let mut template = data
        .pointer("/spec/template")
        .cloned()
        .ok_or_else(|| "data has no spec.template".to_string())?;
    if let Some(map) = template.as_object_mut() {
        map.remove("$patch");
    }
    let template: PodTemplateSpec = serde_path_to_error::deserialize(template)
        .map_err(|e| format!("data.spec.template.{}: {}", e.path(), e.inner()))?;
    let spec = template
        .spec
        .ok_or_else(|| "data.spec.template has no spec".to_string())?;
    let facts = pod_spec_facts(&spec);
    let containers = spec
        .init_containers
        .iter()
        .flatten()
        .map(|c| container(c, true))
        .chain(spec.containers.iter().map(|c| container(c, false)))
        .collect();
    Ok(RevisionTemplate {
        containers,
        node_selector: facts.node_selector,
        tolerations: facts.tolerations,
        affinity: spec
            .affinity
            .as_ref()
            .and_then(|a| serde_json::to_string(a).ok()),
    })
}

/// Name, image, env names (the values are not read) and resources of one container.
fn container(c: &Container, init: bool) -> ContainerTemplate {
    let quantities =
        |m: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>| {
            m.map(|m| m.iter().map(|(k, q)| (k.clone(), q.0.clone())).collect())
                .unwrap_or_default()
        };
    let resources = c.resources.as_ref();
    ContainerTemplate {
        name: c.name.clone(),
        init,
        image: c.image.clone().unwrap_or_default(),
        env_names: c.env.iter().flatten().map(|e| e.name.clone()).collect(),
        requests: quantities(resources.and_then(|r| r.requests.as_ref())),
        limits: quantities(resources.and_then(|r| r.limits.as_ref())),
    }
}
