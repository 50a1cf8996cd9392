//! `scheduling.k8s.io/v1` PriorityClass documents in a scenario file (§k.5).
//!
//! Why: a scenario that describes agents of a custom class must also hold the class, or every
//! pod of theirs would be refused (or, for the scenario's own pods, get priority 0).
use serde_json::Value;

use super::{Builder, Place};
use crate::edge::convert::load::typed;
use crate::scenario::ScenarioError;

/// The apiVersion at which PriorityClasses are read.
pub(super) const API_VERSION: &str = "scheduling.k8s.io/v1";

impl Builder<'_> {
    /// One PriorityClass, kept in the scenario, refused when malformed or duplicated.
    pub(super) fn priority_class(
        &mut self,
        doc: Value,
        place: Place,
        what: &str,
    ) -> Result<(), ScenarioError> {
        let class: k8s_openapi::api::scheduling::v1::PriorityClass =
            typed(doc).map_err(|e| self.error(place, what, e.field(), e.message))?;
        self.remember(place, what, "PriorityClass", None, &class.metadata.name)?;
        self.scenario.priority_classes.push(class);
        Ok(())
    }
}
