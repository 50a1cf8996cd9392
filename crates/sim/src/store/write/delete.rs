//! The delete path: preconditions, graceful pod termination, finalizers, and the garbage
//! collector's share (a deleted DaemonSet takes its pods and revisions, a namespace its objects).
use std::sync::Arc;

use serde_json::{json, Value};

use super::{finalize, format_time, has_finalizers, meta_mut};
use crate::store::{key, EventType, Kind, State, Store, StoreError, StoredObject};

/// Options of a delete, from the request's DeleteOptions body or query.
#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    pub grace_period_seconds: Option<i64>,
    pub precondition_uid: Option<String>,
    pub precondition_resource_version: Option<String>,
    /// Remove even when finalizers remain (the kubelet stand-in finishing a pod).
    pub force: bool,
}

/// What a delete did.
#[derive(Debug, Clone)]
pub enum DeleteOutcome {
    /// The object is gone; this is its last state.
    Deleted(Arc<StoredObject>),
    /// The object is terminating (deletionTimestamp set) and still stored.
    Terminating(Arc<StoredObject>),
}

impl Store {
    /// Delete one object (see `DeleteOptions`).
    pub fn delete_object(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<DeleteOutcome, StoreError> {
        let mut st = self.write_lock();
        self.delete_locked(&mut st, kind, &key(kind, namespace, name), opts)
    }

    fn delete_locked(
        &self,
        st: &mut State,
        kind: Kind,
        k: &crate::store::Key,
        opts: &DeleteOptions,
    ) -> Result<DeleteOutcome, StoreError> {
        let not_found = || StoreError::NotFound {
            kind,
            namespace: Some(k.0.clone()).filter(|n| !n.is_empty()),
            name: k.1.clone(),
        };
        let existing = st.objects[kind.index()]
            .get(k)
            .cloned()
            .ok_or_else(not_found)?;
        if let Some(uid) = &opts.precondition_uid {
            if *uid != existing.facts.uid {
                return Err(StoreError::Conflict {
                    kind,
                    name: k.1.clone(),
                    reason: format!(
                        "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                        existing.facts.uid
                    ),
                });
            }
        }
        if let Some(rv) = &opts.precondition_resource_version {
            if *rv != existing.resource_version.to_string() {
                return Err(StoreError::Conflict { kind, name: k.1.clone(), reason: format!("Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}", existing.resource_version) });
            }
        }
        let mut obj = existing.value()?;
        let terminating = obj.pointer("/metadata/deletionTimestamp").is_some();
        let now = self.now();
        if !opts.force {
            let grace = if kind == Kind::Pod {
                let bound = obj
                    .pointer("/spec/nodeName")
                    .and_then(Value::as_str)
                    .is_some_and(|n| !n.is_empty());
                let phase = obj
                    .pointer("/status/phase")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let terminal = matches!(phase, "Succeeded" | "Failed");
                let spec_grace = obj
                    .pointer("/spec/terminationGracePeriodSeconds")
                    .and_then(Value::as_i64)
                    .unwrap_or(30);
                let g = opts.grace_period_seconds.unwrap_or(spec_grace).max(0);
                if bound && !terminal {
                    g
                } else {
                    0
                }
            } else {
                0
            };
            if grace > 0 || has_finalizers(&obj) {
                if terminating {
                    return Ok(DeleteOutcome::Terminating(existing));
                }
                let when = now
                    .checked_add(k8s_openapi::jiff::SignedDuration::from_secs(grace))
                    .unwrap_or(now);
                if let Some(meta) = meta_mut(&mut obj) {
                    meta.insert("deletionTimestamp".to_string(), json!(format_time(when)));
                    meta.insert("deletionGracePeriodSeconds".to_string(), json!(grace));
                }
                let stored = Arc::new(finalize(kind, obj, st.rv + 1)?);
                self.commit(st, EventType::Modified, stored.clone(), Some(existing));
                return Ok(DeleteOutcome::Terminating(stored));
            }
        }
        let stored = Arc::new(finalize(kind, obj, st.rv + 1)?);
        self.commit(st, EventType::Deleted, stored.clone(), Some(existing));
        self.collect_garbage(st, kind, &stored);
        Ok(DeleteOutcome::Deleted(stored))
    }

    /// The garbage collector's share: a deleted DaemonSet takes its pods (gracefully) and
    /// ControllerRevisions with it; a deleted namespace takes everything in it.
    pub(super) fn collect_garbage(&self, st: &mut State, kind: Kind, gone: &StoredObject) {
        let mut victims: Vec<(Kind, crate::store::Key)> = Vec::new();
        match kind {
            Kind::DaemonSet => {
                let ns = gone.facts.namespace.clone().unwrap_or_default();
                for dep in [Kind::Pod, Kind::ControllerRevision] {
                    victims.extend(
                        st.objects[dep.index()]
                            .range((ns.clone(), String::new())..)
                            .take_while(|(k, _)| k.0 == ns)
                            .filter(|(_, o)| o.facts.owner_uids.contains(&gone.facts.uid))
                            .map(|(k, _)| (dep, k.clone())),
                    );
                }
            }
            Kind::Namespace => {
                let ns = gone.facts.name.clone();
                for dep in Kind::ALL.into_iter().filter(|k| k.namespaced()) {
                    victims.extend(
                        st.objects[dep.index()]
                            .range((ns.clone(), String::new())..)
                            .take_while(|(k, _)| k.0 == ns)
                            .map(|(k, _)| (dep, k.clone())),
                    );
                }
            }
            _ => {}
        }
        for (dep, k) in victims {
            let opts = DeleteOptions {
                force: dep != Kind::Pod,
                ..DeleteOptions::default()
            };
            // A dependent already gone is fine.
            let _ = self.delete_locked(st, dep, &k, &opts);
        }
    }
}
