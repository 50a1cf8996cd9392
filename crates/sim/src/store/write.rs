//! The store's write paths: create, update (object or status), delete with graceful pod
//! termination, finalizers and garbage collection of a DaemonSet's pods and revisions.
//! Every write that changes bytes takes the next resourceVersion and lands in the history.
use crate::domain::names;
use std::sync::Arc;

use serde_json::{json, Value};

mod delete;
mod object;
mod quota;
pub use delete::{DeleteOptions, DeleteOutcome};
use object::{
    fields_invalid, finalize, format_time, has_finalizers, meta_mut, meta_str, new_uid,
    random_suffix, set_template_generation, stamp_type, template_generation,
};

use crate::domain::validation::objects::validate_subdomain_name;
use crate::domain::validation::{field_error, FieldErrorType};

use super::{
    defaults, key, EventType, HistoryEntry, Kind, State, Store, StoreError, StoreEvent,
    StoredObject, STALE_MESSAGE,
};

/// Which part of an object an update replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateTarget {
    /// PUT on the object: everything but status (for kinds with a status subresource).
    Object,
    /// PUT on `/status`: only the status.
    Status,
}

impl Store {
    /// Record a change: next resourceVersion already assigned to `object`.
    fn commit(
        &self,
        st: &mut State,
        event_type: EventType,
        object: Arc<StoredObject>,
        previous: Option<Arc<StoredObject>>,
    ) {
        let kind = object.kind;
        let k = key(kind, object.facts.namespace.as_deref(), &object.facts.name);
        st.rv = object.resource_version;
        match event_type {
            EventType::Deleted => {
                st.objects[kind.index()].remove(&k);
            }
            _ => {
                st.objects[kind.index()].insert(k, object.clone());
            }
        }
        let now = self.history_now();
        let follow = matches!(kind, Kind::Pod | Kind::ResourceQuota).then(|| previous.clone());
        st.record(HistoryEntry {
            resource_version: object.resource_version,
            event_type,
            object: object.clone(),
            previous,
            at: now,
        });
        st.compact(&self.inner.settings, now);
        if self.inner.events.receiver_count() > 0 {
            let _ = self.inner.events.send(StoreEvent {
                event_type,
                object: object.clone(),
            });
        }
        self.inner.latest.send_replace(st.rv);
        // §l.6: the quota controller's status follows pods and quotas (after this change's
        // own event, as the controller writes after it observes the change).
        if let Some(previous) = follow {
            self.follow_quotas(st, event_type, &object, previous.as_ref());
        }
    }

    /// Create from JSON. `auto_namespace` creates a missing namespace (controllers and
    /// scenario loading); the HTTP API passes false and gets NotFound like a real server.
    pub fn create_value(
        &self,
        kind: Kind,
        obj: Value,
        auto_namespace: bool,
    ) -> Result<Arc<StoredObject>, StoreError> {
        self.create_value_with(kind, obj, auto_namespace, false)
    }

    /// [`Store::create_value`]; with `keep_created`, a `creationTimestamp` the object already
    /// carries is kept when it parses and is not in the future (a replayed object existed
    /// before the simulation started), else it is now as on any create.
    pub(crate) fn create_value_with(
        &self,
        kind: Kind,
        mut obj: Value,
        auto_namespace: bool,
        keep_created: bool,
    ) -> Result<Arc<StoredObject>, StoreError> {
        let mut name = meta_str(&obj, "name").unwrap_or("").to_string();
        stamp_type(kind, &mut obj, &name)?;
        if name.is_empty() {
            match meta_str(&obj, "generateName") {
                Some(prefix) => {
                    name = format!(
                        "{}{}",
                        names::generated_name_prefix(prefix),
                        random_suffix()
                    )
                }
                None => {
                    return Err(fields_invalid(
                        kind,
                        "",
                        vec![field_error(
                            FieldErrorType::Required,
                            "metadata.name",
                            "Required value: name or generateName is required",
                        )],
                    ))
                }
            }
        }
        // `NameIsDNSSubdomain` for every kind here (a Namespace's DNS-label rule is stricter;
        // this much is what the store has always held it to).
        let name_errors = validate_subdomain_name(&name);
        if !name_errors.is_empty() {
            return Err(fields_invalid(kind, &name, name_errors));
        }
        let namespace = if kind.namespaced() {
            Some(meta_str(&obj, "namespace").unwrap_or("default").to_string())
        } else {
            None
        };
        let mut st = self.write_lock();
        if let Some(ns) = &namespace {
            if !st.objects[Kind::Namespace.index()].contains_key(&(String::new(), ns.clone())) {
                if !auto_namespace {
                    return Err(StoreError::NotFound {
                        kind: Kind::Namespace,
                        namespace: None,
                        name: ns.clone(),
                    });
                }
                let ns_obj =
                    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
                self.insert_new(&mut st, Kind::Namespace, ns_obj, ns.clone(), None, false)?;
            }
        }
        if st.objects[kind.index()].contains_key(&key(kind, namespace.as_deref(), &name)) {
            return Err(StoreError::AlreadyExists {
                kind,
                namespace,
                name,
            });
        }
        self.insert_new(&mut st, kind, obj, name, namespace, keep_created)
    }

    fn insert_new(
        &self,
        st: &mut State,
        kind: Kind,
        mut obj: Value,
        name: String,
        namespace: Option<String>,
        keep_created: bool,
    ) -> Result<Arc<StoredObject>, StoreError> {
        let now = self.now();
        let kept = keep_created
            .then(|| meta_str(&obj, "creationTimestamp"))
            .flatten()
            .and_then(|t| t.parse::<k8s_openapi::jiff::Timestamp>().ok())
            .filter(|t| *t <= now);
        let now = format_time(kept.unwrap_or(now));
        if let Some(meta) = meta_mut(&mut obj) {
            meta.insert("name".to_string(), json!(name));
            match &namespace {
                Some(ns) => meta.insert("namespace".to_string(), json!(ns)),
                None => meta.remove("namespace"),
            };
            meta.insert("uid".to_string(), json!(new_uid()));
            meta.insert("creationTimestamp".to_string(), json!(now));
            meta.remove("deletionTimestamp");
            meta.remove("deletionGracePeriodSeconds");
            meta.remove("managedFields");
            if kind == Kind::DaemonSet {
                meta.insert("generation".to_string(), json!(1));
                // The API server keeps the template generation (internal
                // spec.templateGeneration, at least 1 on create) in this annotation (§d.4).
                let generation = template_generation(meta).max(1);
                set_template_generation(meta, generation);
            } else if kind == Kind::PriorityClass {
                // Its strategy's PrepareForCreate; no update moves it (§k.5).
                meta.insert("generation".to_string(), json!(1));
            } else {
                meta.remove("generation");
            }
        }
        if let Some(root) = obj.as_object_mut() {
            match kind {
                Kind::DaemonSet => {
                    root.insert("status".to_string(), json!({"currentNumberScheduled": 0, "desiredNumberScheduled": 0, "numberMisscheduled": 0, "numberReady": 0}));
                }
                Kind::Pod if !root.get("status").is_some_and(Value::is_object) => {
                    root.insert("status".to_string(), json!({"phase": "Pending"}));
                }
                _ => {}
            }
        }
        defaults::apply(kind, &mut obj);
        if kind == Kind::Pod {
            super::priority::admit_new_pod(st, &mut obj);
            super::default_tolerations::admit_new_pod(&mut obj);
        }
        let stored = Arc::new(finalize(kind, obj, st.rv + 1)?);
        self.commit(st, EventType::Added, stored.clone(), None);
        Ok(stored)
    }

    /// Replace an object (or its status) from JSON; a set resourceVersion is a precondition.
    pub fn update_value(
        &self,
        kind: Kind,
        mut obj: Value,
        target: UpdateTarget,
    ) -> Result<Arc<StoredObject>, StoreError> {
        let name = meta_str(&obj, "name").unwrap_or("").to_string();
        stamp_type(kind, &mut obj, &name)?;
        let namespace = meta_str(&obj, "namespace").map(str::to_string);
        let mut st = self.write_lock();
        let k = key(kind, namespace.as_deref(), &name);
        let Some(existing) = st.objects[kind.index()].get(&k).cloned() else {
            return Err(StoreError::NotFound {
                kind,
                namespace,
                name,
            });
        };
        if let Some(rv) = meta_str(&obj, "resourceVersion") {
            if rv != existing.resource_version.to_string() {
                return Err(StoreError::Conflict {
                    kind,
                    name,
                    reason: STALE_MESSAGE.to_string(),
                });
            }
        }
        if let Some(uid) = meta_str(&obj, "uid") {
            if uid != existing.facts.uid {
                return Err(StoreError::Conflict {
                    kind,
                    name,
                    reason: format!(
                        "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                        existing.facts.uid
                    ),
                });
            }
        }
        let old = existing.value()?;
        let mut new = match target {
            UpdateTarget::Status => {
                let mut new = old.clone();
                if let (Some(root), Some(status)) = (new.as_object_mut(), obj.get("status")) {
                    root.insert("status".to_string(), status.clone());
                }
                new
            }
            UpdateTarget::Object => {
                let old_meta = old.get("metadata").cloned().unwrap_or_default();
                if let Some(meta) = meta_mut(&mut obj) {
                    for field in [
                        "uid",
                        "creationTimestamp",
                        "deletionTimestamp",
                        "deletionGracePeriodSeconds",
                        "generation",
                        "namespace",
                        "name",
                    ] {
                        match old_meta.get(field) {
                            Some(v) => meta.insert(field.to_string(), v.clone()),
                            None => meta.remove(field),
                        };
                    }
                    meta.remove("managedFields");
                }
                if kind.has_status() {
                    if let Some(root) = obj.as_object_mut() {
                        match old.get("status") {
                            Some(s) => root.insert("status".to_string(), s.clone()),
                            None => root.remove("status"),
                        };
                    }
                }
                obj
            }
        };
        defaults::apply(kind, &mut new);
        if kind == Kind::DaemonSet && new.get("spec") != old.get("spec") {
            let generation = old
                .pointer("/metadata/generation")
                .and_then(Value::as_i64)
                .unwrap_or(1)
                + 1;
            let template_changed = new.pointer("/spec/template") != old.pointer("/spec/template");
            let old_template_generation = old
                .get("metadata")
                .and_then(Value::as_object)
                .map_or(0, template_generation);
            if let Some(meta) = meta_mut(&mut new) {
                meta.insert("generation".to_string(), json!(generation));
                // The registry's PrepareForUpdate: a template change is the next template
                // generation; any other spec change keeps it.
                if template_changed {
                    set_template_generation(meta, old_template_generation + 1);
                }
            }
        }
        // A no-op update takes no resourceVersion and sends no event.
        let same = finalize(kind, new.clone(), existing.resource_version)?;
        if same.raw == existing.raw {
            return Ok(existing);
        }
        let stored = Arc::new(finalize(kind, new.clone(), st.rv + 1)?);
        let finished = kind != Kind::Pod
            && new.pointer("/metadata/deletionTimestamp").is_some()
            && !has_finalizers(&new);
        let event_type = if finished {
            EventType::Deleted
        } else {
            EventType::Modified
        };
        self.commit(&mut st, event_type, stored.clone(), Some(existing));
        if finished {
            self.collect_garbage(&mut st, kind, &stored);
        }
        Ok(stored)
    }
}

/// A name as the API server generates it from `generateName`: the prefix (cut to fit) and
/// five random characters. Why public to the crate: admission names an object by its
/// generated name (kube-apiserver generates it before admission), as Pod Security does.
pub(crate) fn generated_name(generate_name: &str) -> String {
    format!(
        "{}{}",
        names::generated_name_prefix(generate_name),
        object::random_suffix()
    )
}
