//! Which DaemonSets a node's change makes the controller sync (DC `addNode`, `updateNode`,
//! `shouldIgnoreNodeUpdate`, `syncNodeUpdate`, Kubernetes v1.37).
//!
//! Why it matters to a dashboard: the controller does not re-sync every DaemonSet on every node
//! change, so its status can lag behind the rules. A NoSchedule taint added under a running pod
//! (§a.2 step 3: shouldRun false, shouldContinueRunning true) enqueues nothing when the
//! DaemonSet has no misscheduled pod yet: `kubectl get ds` keeps the old DESIRED count until
//! something else syncs the DaemonSet. Node deletions enqueue nothing at all (the informer has
//! no delete handler); the pods' removal by the pod GC does. Found by the differential tests
//! against kube-controller-manager v1.37.2, where the sim had re-synced everything.

use crate::facts::NodeFacts;

/// `shouldIgnoreNodeUpdate`: only a change of labels or taints can matter.
pub fn node_update_matters(old: &NodeFacts, new: &NodeFacts) -> bool {
    old.labels != new.labels || old.taints != new.taints
}

/// `syncNodeUpdate`'s condition for one DaemonSet: enqueue it when a pod must be created
/// (`shouldRun && !scheduled`), deleted (`!shouldContinueRunning && scheduled`), or when its
/// status counts misscheduled pods and it has one here (the count may have to drop).
/// `scheduled`: the DaemonSet has a pod bound to this node (`spec.nodeName`, any phase).
pub fn node_change_syncs(verdict: (bool, bool), scheduled: bool, status_misscheduled: i64) -> bool {
    let (should_run, should_continue_running) = verdict;
    // The Go condition `(shouldRun && !scheduled) || (!shouldContinueRunning && scheduled) ||
    // (scheduled && NumberMisscheduled > 0)`, split on `scheduled`.
    if scheduled {
        !should_continue_running || status_misscheduled > 0
    } else {
        should_run
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_no_schedule_taint_under_a_running_pod_syncs_nothing() {
        // (false, true), scheduled, no misscheduled yet: none of the three conditions hold.
        assert!(!node_change_syncs((false, true), true, 0));
    }

    #[test]
    fn a_node_that_now_needs_a_pod_or_must_lose_one_syncs() {
        assert!(node_change_syncs((true, true), false, 0));
        assert!(node_change_syncs((false, false), true, 0));
    }

    #[test]
    fn a_misscheduled_count_is_rechecked_when_the_node_has_a_pod() {
        // The taint is removed again: (true, true), scheduled, status still counts one.
        assert!(node_change_syncs((true, true), true, 1));
        assert!(!node_change_syncs((true, true), true, 0));
    }

    #[test]
    fn only_labels_and_taints_matter() {
        let node = NodeFacts {
            name: "n".into(),
            ..NodeFacts::default()
        };
        let cordoned = NodeFacts {
            unschedulable: true,
            ready: Some(false),
            ..node.clone()
        };
        assert!(!node_update_matters(&node, &cordoned));
        let mut labelled = node.clone();
        labelled.labels.insert("a".into(), "b".into());
        assert!(node_update_matters(&node, &labelled));
    }
}
