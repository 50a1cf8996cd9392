//! `v1` ResourceQuota documents in a scenario file (§l.6).
//!
//! Why: a scenario that shows agents refused by a quota must hold the quota; its status is
//! the store's to compute (as the quota controller's), so the file's own status is dropped.
//! Not replayed into a real control plane by `replay` (the differential quota case applies
//! its quotas with kubectl on both sides).
use serde_json::Value;

use super::{default_namespace, Builder, Place};
use crate::domain::resources::Quantity;
use crate::edge::convert::load::typed;
use crate::scenario::ScenarioError;

impl Builder<'_> {
    /// One ResourceQuota, kept in the scenario; refused when malformed, duplicated, or when a
    /// value of `spec.hard` is not a quantity (the rest of `spec.hard` is checked with every
    /// stored kind, `crate::validation`).
    pub(super) fn resource_quota(
        &mut self,
        doc: Value,
        place: Place,
        what: &str,
    ) -> Result<(), ScenarioError> {
        let mut quota: k8s_openapi::api::core::v1::ResourceQuota =
            typed(doc).map_err(|e| self.error(place, what, e.field(), e.message))?;
        default_namespace(&mut quota.metadata.namespace);
        quota.status = None;
        let hard: Vec<(String, String)> = quota
            .spec
            .iter()
            .flat_map(|s| s.hard.iter().flatten())
            .map(|(name, q)| (name.clone(), q.0.clone()))
            .collect();
        for (name, text) in &hard {
            Quantity::parse(text).map_err(|e| {
                self.error(
                    place,
                    what,
                    Some(format!("spec.hard[{name}]")),
                    format!("{text:?}: {e}"),
                )
            })?;
        }
        let namespace = quota.metadata.namespace.clone();
        self.remember(
            place,
            what,
            "ResourceQuota",
            namespace,
            &quota.metadata.name,
        )?;
        self.scenario.resource_quotas.push(quota);
        Ok(())
    }
}
