//! Small closed sets that travel to the browser as enums, not strings: the update strategy,
//! an event's type and which page's events are asked for.
//!
//! Why: a string compared to `"RollingUpdate"` or `"Warning"` on the page fails silently when
//! the spelling drifts; an enum makes the compiler check every use. The serde names may change
//! (server and browser are built together); the text shown to people does not.

use crate::facts::UpdateStrategy;
use serde::{Deserialize, Serialize};
use std::fmt;

/// `spec.updateStrategy.type` of a DaemonSet column (§d.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum StrategyKind {
    /// Pods are replaced within the rolling-update budget (§d.2).
    RollingUpdate,
    /// Pods change only when deleted (§d.5).
    OnDelete,
    /// Any other type the object carried (rejected by the API server), bounded in length.
    Other(String),
}

impl StrategyKind {
    /// The strategy's kind from the defaulted strategy; `Other` keeps the text as written.
    pub fn of(strategy: &UpdateStrategy) -> Self {
        match strategy {
            UpdateStrategy::RollingUpdate { .. } => StrategyKind::RollingUpdate,
            UpdateStrategy::OnDelete => StrategyKind::OnDelete,
            UpdateStrategy::Other(other) => StrategyKind::Other(other.clone()),
        }
    }

    /// The type as Kubernetes spells it, as the pages print it.
    pub fn as_str(&self) -> &str {
        match self {
            StrategyKind::RollingUpdate => "RollingUpdate",
            StrategyKind::OnDelete => "OnDelete",
            StrategyKind::Other(other) => other,
        }
    }
}

impl fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A Kubernetes Event's `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventType {
    /// Routine: a pod created, an image pulled.
    Normal,
    /// Something a person may need to act on (highlighted on the page).
    Warning,
    /// A type outside the two the API documents, kept as the reporter wrote it.
    Other(String),
}

impl EventType {
    /// The type from the Event's `type` field; absent means `Normal`, as kubectl shows it.
    pub fn parse(text: Option<&str>) -> Self {
        match text {
            None | Some("Normal") => EventType::Normal,
            Some("Warning") => EventType::Warning,
            Some(other) => EventType::Other(other.to_string()),
        }
    }

    /// The type as Kubernetes spells it.
    pub fn as_str(&self) -> &str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
            EventType::Other(other) => other,
        }
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which page asks for its recent events: the name that goes with it is `namespace/name` for
/// a DaemonSet and the node's name for a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventScope {
    /// A DaemonSet's page (its own events and its daemon pods').
    DaemonSet,
    /// A node's page (its own events and its daemon pods').
    Node,
    /// A daemon pod's page (`namespace/name`): its events, as kept for its DaemonSet's page.
    Pod,
}
