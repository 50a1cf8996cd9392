//! A DaemonSet's revision history as the DaemonSet page shows it.
//!
//! Why a view type of its own: the page answers "which nodes still run revision 2 and what
//! changed in 3?" without a second round trip, so each row carries its diff lines and its
//! nodes, already bounded (5,000 nodes; cluster text shown as text only).

use serde::{Deserialize, Serialize};

/// Every revision `kubectl rollout history ds/NAME` lists, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionHistory {
    /// `namespace/name` of the DaemonSet.
    pub daemonset: String,
    /// Newest (highest `revision`) first; the numbers are kubectl's REVISION column.
    pub revisions: Vec<RevisionRow>,
}

/// One ControllerRevision of the DaemonSet: its number, what changed from the one before, and
/// the nodes whose pods still carry its hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionRow {
    /// `revision` of the ControllerRevision (kubectl's REVISION).
    pub revision: i64,
    /// Object name, `<ds-name>-<hash>`, bounded.
    pub name: String,
    /// The `controller-revision-hash` its pods carry, bounded.
    pub hash: String,
    /// Age in seconds at the time of the answer (0 when the object has no creation time).
    pub age_seconds: i64,
    /// The DaemonSet's current revision (§d.4): pods with this hash are "updated".
    pub current: bool,
    /// The `kubernetes.io/change-cause` annotation kubectl prints, bounded; None when unset.
    pub change_cause: Option<String>,
    /// The template changes from the next older revision kept, one readable line each
    /// ("image agent: a:1 -> a:2"); never env values.
    pub changes: Vec<String>,
    /// How many of the DaemonSet's pods carry this revision's hash.
    pub pod_count: usize,
    /// How many distinct nodes those pods are on.
    pub node_count: usize,
    /// The first of those nodes by name, at most [`crate::history::MAX_NODES`].
    pub nodes: Vec<String>,
}
