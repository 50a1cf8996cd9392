//! CONTRACT STUB (to be replaced): rollout budget (§d.2), pod update/availability (§c, §d.4),
//! status (§c) and the `kubectl rollout status` verdict (§e).

use super::facts::*;
use serde::{Deserialize, Serialize};

/// The resolved maxUnavailable / maxSurge for a desired count (§d.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    pub max_unavailable: i64,
    pub max_surge: i64,
}

/// Why a budget cannot be resolved (Kubernetes returns an error and no number, §d.2, §i.3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum BudgetError {
    #[error("invalid value for {field}: {detail}")]
    Invalid { field: String, detail: String },
}

/// §d.2 `updatedDesiredNodeCounts`.
pub fn resolve_budget(_strategy: &UpdateStrategy, _desired: i64) -> Result<Budget, BudgetError> {
    todo!("contract stub")
}

/// What `kubectl rollout status daemonset/NAME` prints (§e).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutVerdict {
    pub done: bool,
    /// The stdout line without the trailing newline; empty when `error` is set.
    pub message: String,
    /// The error kubectl prints on stderr (`error: ` prefix not included).
    pub error: Option<String>,
}

/// §e `DaemonSetStatusViewer.Status`.
pub fn kubectl_rollout_status(_ds: &DaemonSetFacts) -> RolloutVerdict {
    todo!("contract stub")
}

/// §d.4 `IsPodUpdated`.
pub fn is_pod_updated(_ds: &DaemonSetFacts, _pod: &PodFacts) -> bool {
    todo!("contract stub")
}

/// §c `IsPodAvailable`; `now` in unix seconds.
pub fn is_pod_available(_pod: &PodFacts, _min_ready_seconds: i64, _now: i64) -> bool {
    todo!("contract stub")
}
