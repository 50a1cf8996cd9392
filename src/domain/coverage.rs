//! CONTRACT STUB (to be replaced): the coverage matrix, one cell per node × DaemonSet.

use serde::{Deserialize, Serialize};

/// The state names are a public contract (`data-state` in the HTML): keep them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellState {
    Ready,
    Outdated,
    Unready,
    Pending,
    Missing,
    Excluded,
    Misscheduled,
    Surge,
}
