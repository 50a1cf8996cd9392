//! Putting a scenario's objects into the store, as `kubectl create -f` would, keeping what the
//! file says about ownership and status.
//!
//! Why not a plain loop of creates: the store assigns new uids (as an API server does), so the
//! pods' and revisions' ownerReferences are rewritten to the new DaemonSet uids; the store
//! clears a DaemonSet's status on create, so the file's status is written back; and the store
//! defaults pod templates, so a ControllerRevision's stored template is defaulted the same way
//! (in a scratch store) to stay byte-equal to its DaemonSet's template, which is how the
//! controller recognises the current revision (§d.4).

use super::Scenario;
use crate::domain::scheduling::priority_class::system_class;
use crate::store::{Store, StoreError, StoreSettings};
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use serde_json::Value;
use std::collections::HashMap;

/// Why a scenario could not be applied: the object and the store's refusal.
#[derive(Debug, thiserror::Error)]
#[error("applying {what} from scenario {source_name}: {source}")]
pub struct ApplyError {
    pub source_name: String,
    /// `Kind namespace/name`.
    pub what: String,
    #[source]
    pub source: StoreError,
}

fn describe(kind: &str, meta: &ObjectMeta) -> String {
    let name = meta
        .name
        .as_deref()
        .or(meta.generate_name.as_deref())
        .unwrap_or_default();
    match meta.namespace.as_deref() {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    }
}

/// Creates every object of the scenario in the store: namespaces, nodes, DaemonSets (with
/// their status), ControllerRevisions, then pods.
pub fn apply(scenario: &Scenario, store: &Store) -> Result<(), ApplyError> {
    let fail = |what: String, source: StoreError| ApplyError {
        source_name: scenario.source_name.clone(),
        what,
        source,
    };
    for ns in &scenario.namespaces {
        let mut ns = ns.clone();
        ns.metadata.resource_version = None;
        match store.create(ns.clone()) {
            Ok(_) | Err(StoreError::AlreadyExists { .. }) => {}
            Err(e) => return Err(fail(describe("Namespace", &ns.metadata), e)),
        }
    }
    // Before any pod: the Priority admission resolves a pod's class when it is created (§k.5).
    // The built-ins are already stored, as on a cluster (a scenario exported from one lists them).
    for class in &scenario.priority_classes {
        let mut class = class.clone();
        class.metadata.resource_version = None;
        let name = class.metadata.name.as_deref().unwrap_or_default();
        match store.create(class.clone()) {
            Ok(_) => {}
            Err(StoreError::AlreadyExists { .. }) if system_class(name).is_some() => {}
            Err(e) => return Err(fail(describe("PriorityClass", &class.metadata), e)),
        }
    }
    // Quotas before any pod as well; the store keeps their status from then on (§l.6).
    for quota in &scenario.resource_quotas {
        let mut quota = quota.clone();
        quota.metadata.resource_version = None;
        store
            .create(quota.clone())
            .map_err(|e| fail(describe("ResourceQuota", &quota.metadata), e))?;
    }
    // Nodes keep the file's creationTimestamp (`Store::restore`): the scenario's nodes joined
    // when it says, not when the simulation started.
    for node in &scenario.nodes {
        let mut node = node.clone();
        node.metadata.resource_version = None;
        store
            .restore(node.clone())
            .map_err(|e| fail(describe("Node", &node.metadata), e))?;
    }
    // old uid (from the file) -> uid the store gave the DaemonSet
    let mut uids: HashMap<String, String> = HashMap::new();
    for ds in &scenario.daemonsets {
        let mut ds = ds.clone();
        ds.metadata.resource_version = None;
        let what = describe("DaemonSet", &ds.metadata);
        let status = ds.status.take();
        let mut created = store
            .create(ds.clone())
            .map_err(|e| fail(what.clone(), e))?;
        if let (Some(old), Some(new)) = (ds.metadata.uid.clone(), created.metadata.uid.clone()) {
            uids.insert(old, new);
        }
        if let Some(status) = status {
            created.status = Some(status);
            store.update_status(created).map_err(|e| fail(what, e))?;
        }
    }
    let scratch = Store::new(StoreSettings::default());
    for cr in &scenario.revisions {
        let mut cr = cr.clone();
        cr.metadata.resource_version = None;
        let what = describe("ControllerRevision", &cr.metadata);
        rewrite_owners(&mut cr.metadata.owner_references, &uids);
        let data = std::mem::take(&mut cr.data);
        cr.data = RawExtension(default_revision_template(&scratch, data.0));
        store.create(cr).map_err(|e| fail(what, e))?;
    }
    for pod in &scenario.pods {
        let mut pod = pod.clone();
        pod.metadata.resource_version = None;
        rewrite_owners(&mut pod.metadata.owner_references, &uids);
        let what = describe("Pod", &pod.metadata);
        store.create(pod).map_err(|e| fail(what, e))?;
    }
    if !scenario.skipped.is_empty() {
        tracing::info!(skipped = ?scenario.skipped, "scenario objects of kinds the simulation does not hold were left out");
    }
    Ok(())
}

fn rewrite_owners(owners: &mut Option<Vec<OwnerReference>>, uids: &HashMap<String, String>) {
    for owner in owners.iter_mut().flatten() {
        if let Some(new) = uids.get(&owner.uid) {
            owner.uid = new.clone();
        }
    }
}

/// A revision's `data.spec.template` defaulted exactly as the store defaults a DaemonSet's
/// template; anything that is not a template is returned unchanged.
fn default_revision_template(scratch: &Store, mut data: Value) -> Value {
    let Some(template) = data.pointer_mut("/spec/template") else {
        return data;
    };
    let mut bare = template.clone();
    if let Some(map) = bare.as_object_mut() {
        map.remove("$patch");
    }
    let probe = serde_json::json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"generateName": "template-", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"probe": "probe"}}, "template": bare},
    });
    let Ok(ds) = serde_json::from_value::<DaemonSet>(probe) else {
        return data;
    };
    let defaulted = scratch
        .create(ds)
        .ok()
        .and_then(|ds| serde_json::to_value(ds.spec.template).ok());
    if let Some(Value::Object(mut map)) = defaulted {
        map.insert("$patch".into(), Value::String("replace".into()));
        *template = Value::Object(map);
    }
    data
}

/// The template a revision stores, without the `$patch` marker, as JSON (what the controller
/// compares with a DaemonSet's live template to find the current revision, §d.4).
pub fn revision_template(cr: &ControllerRevision) -> Option<Value> {
    let mut template = cr.data.0.pointer("/spec/template")?.clone();
    if let Some(map) = template.as_object_mut() {
        map.remove("$patch");
    }
    Some(template)
}
