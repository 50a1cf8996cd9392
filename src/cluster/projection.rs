//! Watched objects reduced to the facts the matrix needs, at the edge of the watchers.
//!
//! Why: a 150,000-pod cluster must not be held as 150,000 full Pod objects. Each object is
//! turned into its compact domain projection as soon as it arrives and the object is dropped;
//! pods that no DaemonSet controls are reduced to what they add to their node (§j.3). Every conversion is
//! `edge::convert`'s (the one place the two type families meet); this module only names the
//! union of what the watchers deliver.

use crate::domain::resources::load::PodLoad;
pub use crate::domain::RevisionFacts;
use crate::domain::{DaemonSetFacts, NodeFacts, PodFacts};

/// One watched object, projected. `None` from a projection function means "not ours".
#[derive(Debug, Clone, PartialEq)]
pub enum Projection {
    /// A Node (always cluster-wide).
    Node(NodeFacts),
    /// A DaemonSet.
    DaemonSet(DaemonSetFacts),
    /// A pod controlled by a DaemonSet.
    Pod(PodFacts),
    /// Any other pod, as what it adds to its node's sums (§j.3).
    Load(PodLoad),
    /// A ControllerRevision controlled by a DaemonSet.
    Revision(RevisionFacts),
}
