//! The quota controller's status (§l.6): every ResourceQuota's `status.hard` (a copy of
//! `spec.hard`) and `status.used`, kept current under the store's lock as pods come, go or
//! turn terminal, as kube-controller-manager's resourcequota controller keeps them.
//!
//! Why in the store: every pod write passes `commit`, from the API, the controller, the
//! kubelet stand-in and scenario loading; following it there means no write is missed and the
//! admission never reads a stale `used` (kube-apiserver's admission charges `used` itself on
//! each admitted create, so its view is current too). A pod write in a namespace with quotas
//! changes `used` by the pod's own charge; only a quota's own spec change sums every pod of
//! its namespace.
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Pod, ResourceQuota};
use serde_json::{json, Value};

use super::object::finalize;
use crate::domain::quota::{self, Amount, AmountList};
use crate::quota::{is_scoped, pod_quota, to_json};
use crate::store::{EventType, Kind, State, Store, StoredObject};

/// What a stored pod charges; nothing when it does not decode.
fn charge(object: &StoredObject) -> AmountList {
    serde_json::from_slice::<Pod>(&object.raw)
        .map(|pod| quota::pod_usage(&pod_quota(&pod)))
        .unwrap_or_default()
}

/// The stored quotas of `namespace`.
fn quotas_in(st: &State, namespace: &str) -> Vec<Arc<StoredObject>> {
    st.objects[Kind::ResourceQuota.index()]
        .range((namespace.to_string(), String::new())..)
        .take_while(|((ns, _), _)| ns == namespace)
        .map(|(_, o)| o.clone())
        .collect()
}

fn list(value: Option<&Value>) -> AmountList {
    value
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, v)| {
            let amount = Amount::parse(v.as_str()?).ok()?;
            Some((name.clone(), amount))
        })
        .collect()
}

impl Store {
    /// Follows one committed change into the quotas' status (called by `commit`).
    pub(super) fn follow_quotas(
        &self,
        st: &mut State,
        event_type: EventType,
        object: &Arc<StoredObject>,
        previous: Option<&Arc<StoredObject>>,
    ) {
        match (object.kind, event_type) {
            (Kind::Pod, _) => self.pod_changed(st, event_type, object, previous),
            (Kind::ResourceQuota, EventType::Added | EventType::Modified) => {
                let spec = |o: &StoredObject| o.value().ok().and_then(|v| v.get("spec").cloned());
                if previous.is_none_or(|p| spec(p) != spec(object)) {
                    self.recount(st, object);
                }
            }
            _ => {}
        }
    }

    /// A pod was added, changed or deleted: each unscoped quota of its namespace changes its
    /// `used` by the difference in the pod's charge.
    fn pod_changed(
        &self,
        st: &mut State,
        event_type: EventType,
        object: &Arc<StoredObject>,
        previous: Option<&Arc<StoredObject>>,
    ) {
        let Some(namespace) = object.facts.namespace.clone() else {
            return;
        };
        let quotas = quotas_in(st, &namespace);
        if quotas.is_empty() {
            return;
        }
        let before = match event_type {
            EventType::Added => AmountList::new(),
            _ => previous.map(|p| charge(p)).unwrap_or_default(),
        };
        let after = match event_type {
            EventType::Deleted => AmountList::new(),
            _ => charge(object),
        };
        if before == after {
            return;
        }
        for stored in quotas {
            let Ok(mut value) = stored.value() else {
                continue;
            };
            let scoped = serde_json::from_value::<ResourceQuota>(value.clone())
                .map_or(true, |q| is_scoped(&q));
            if scoped {
                continue;
            }
            let hard = list(value.pointer("/status/hard"));
            let mut used = list(value.pointer("/status/used"));
            for name in quota::matching_resources(hard.keys().map(String::as_str)) {
                let (add, sub) = (after.get(&name), before.get(&name));
                if add.is_none() && sub.is_none() {
                    continue;
                }
                let mut sum = used.get(&name).copied().unwrap_or_default();
                if let Some(a) = add {
                    sum = sum.plus(*a);
                }
                if let Some(s) = sub {
                    sum = sum.minus(*s);
                }
                used.insert(name, sum);
            }
            if let Some(status) = value.get_mut("status").and_then(Value::as_object_mut) {
                status.insert("used".into(), to_json(&used));
            }
            self.write_status(st, &stored, value);
        }
    }

    /// A quota was created or its spec changed: `status.hard` from the spec and `used` summed
    /// over every pod of the namespace (only `hard` for a scoped quota).
    fn recount(&self, st: &mut State, stored: &Arc<StoredObject>) {
        let Ok(mut value) = stored.value() else {
            return;
        };
        let Ok(q) = serde_json::from_value::<ResourceQuota>(value.clone()) else {
            return;
        };
        let hard = list(value.pointer("/spec/hard"));
        let mut used: AmountList = list(value.pointer("/status/used"))
            .into_iter()
            .filter(|(name, _)| hard.contains_key(name))
            .collect();
        if !is_scoped(&q) {
            let namespace = stored.facts.namespace.clone().unwrap_or_default();
            let charges: Vec<AmountList> = st.objects[Kind::Pod.index()]
                .range((namespace.clone(), String::new())..)
                .take_while(|((ns, _), _)| *ns == namespace)
                .map(|(_, pod)| charge(pod))
                .collect();
            used.extend(quota::used(&hard, &charges));
        }
        let mut status = json!({"hard": to_json(&hard)});
        if !used.is_empty() {
            status["used"] = to_json(&used);
        }
        if let Some(root) = value.as_object_mut() {
            root.insert("status".into(), status);
        }
        self.write_status(st, stored, value);
    }

    /// Stores `value` as the quota's next version, unless nothing changed.
    fn write_status(&self, st: &mut State, existing: &Arc<StoredObject>, value: Value) {
        let Ok(same) = finalize(
            Kind::ResourceQuota,
            value.clone(),
            existing.resource_version,
        ) else {
            return;
        };
        if same.raw == existing.raw {
            return;
        }
        if let Ok(next) = finalize(Kind::ResourceQuota, value, st.rv + 1) {
            self.commit(
                st,
                EventType::Modified,
                Arc::new(next),
                Some(existing.clone()),
            );
        }
    }
}
