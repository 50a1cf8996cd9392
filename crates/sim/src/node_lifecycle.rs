//! The node lifecycle controller's tainting passes: a node's conditions and cordon become
//! taints (`TaintNodesByCondition`), whoever changed them (a scenario file, `kubectl cordon`,
//! a status patch).
//!
//! Why: the DaemonSet controller decides on taints, not on conditions (§a.2 step 3, §b). A
//! cordoned node carries `node.kubernetes.io/unschedulable:NoSchedule` and a NotReady node
//! `node.kubernetes.io/not-ready` with NoSchedule and NoExecute, and only those taints keep a
//! new DaemonSet without the matching toleration off the node. Found by the differential tests
//! against kube-controller-manager v1.37.2 (issue 11): a node created cordoned or NotReady got
//! no taint in the sim, so daemon pods were created where Kubernetes creates none.
//!
//! Mirrors `pkg/controller/nodelifecycle/node_lifecycle_controller.go` at v1.37.2:
//! `doNoScheduleTaintingPass` (every condition in `nodeConditionToTaintKeyStatusMap`, plus
//! `spec.unschedulable`, as NoSchedule taints) and `doNoExecuteTaintingPass` (Ready False →
//! `not-ready:NoExecute`, Ready Unknown → `unreachable:NoExecute`, swapped, never both).

use super::clock::SimClock;
use super::store::{EventType, Kind, Store, StoreEvent};
use crate::domain::names;
use daemonscope_supervise::Supervisor;
use k8s_openapi::api::core::v1::{Node, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;

/// `nodeConditionToTaintKeyStatusMap`: (condition type, status) → taint key.
const CONDITION_TAINTS: &[(&str, &str, &str)] = &[
    ("Ready", "False", names::TAINT_NOT_READY),
    ("Ready", "Unknown", names::TAINT_UNREACHABLE),
    ("MemoryPressure", "True", names::TAINT_MEMORY_PRESSURE),
    ("DiskPressure", "True", names::TAINT_DISK_PRESSURE),
    (
        "NetworkUnavailable",
        "True",
        names::TAINT_NETWORK_UNAVAILABLE,
    ),
    ("PIDPressure", "True", names::TAINT_PID_PRESSURE),
];

/// Whether the controller owns this taint (it adds and removes it by itself).
fn is_managed(taint: &Taint) -> bool {
    match taint.effect.as_str() {
        "NoSchedule" => {
            taint.key == names::TAINT_UNSCHEDULABLE
                || CONDITION_TAINTS.iter().any(|(_, _, key)| *key == taint.key)
        }
        "NoExecute" => taint.key == names::TAINT_NOT_READY || taint.key == names::TAINT_UNREACHABLE,
        _ => false,
    }
}

/// The (key, effect) pairs the two passes want on `node`.
fn wanted(node: &Node) -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    let conditions = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default();
    for condition in conditions {
        for (kind, status, key) in CONDITION_TAINTS {
            if condition.type_ == *kind && condition.status == *status {
                out.push((*key, "NoSchedule"));
                if *kind == "Ready" {
                    out.push((*key, "NoExecute"));
                }
            }
        }
    }
    if node.spec.as_ref().and_then(|s| s.unschedulable) == Some(true) {
        out.push((names::TAINT_UNSCHEDULABLE, "NoSchedule"));
    }
    out
}

/// The node's taints after both passes, or None when they are already right. Taints the
/// controller does not own are kept as they are, in their order; new ones get `timeAdded`.
pub fn reconciled_taints(node: &Node, now: Timestamp) -> Option<Vec<Taint>> {
    let current = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.clone())
        .unwrap_or_default();
    let wanted = wanted(node);
    let mut next: Vec<Taint> = current
        .iter()
        .filter(|t| !is_managed(t) || wanted.iter().any(|(k, e)| t.key == *k && t.effect == *e))
        .cloned()
        .collect();
    for (key, effect) in &wanted {
        if !next.iter().any(|t| t.key == *key && t.effect == *effect) {
            next.push(Taint {
                key: (*key).into(),
                value: None,
                effect: (*effect).into(),
                time_added: Some(Time(now)),
            });
        }
    }
    (next != current).then_some(next)
}

/// Starts the controller; it stops when `shutdown` turns true.
/// Supervised: after a panic it starts again with a resync.
pub fn spawn(
    supervisor: &Supervisor,
    store: Store,
    clock: SimClock,
    shutdown: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    supervisor.spawn("node-lifecycle-controller", move || {
        let store = store.clone();
        let mut shutdown = shutdown.clone();
        async move {
            let mut events = store.subscribe();
            resync(&store, &clock);
            loop {
                tokio::select! {
                    _ = shutdown.changed() => return,
                    event = events.recv() => match event {
                        Ok(event) => on_event(&store, &clock, &event),
                        Err(RecvError::Lagged(_)) => resync(&store, &clock),
                        Err(RecvError::Closed) => return,
                    },
                }
            }
        }
    })
}

/// One pass over every node. The controllers call it before they start, so a scenario's
/// cordoned and NotReady nodes are tainted before the DaemonSet controller first looks, as on
/// a cluster where those nodes were tainted long ago.
pub fn resync(store: &Store, clock: &SimClock) {
    for node in store.list::<Node>(None) {
        reconcile(store, clock, node);
    }
}

fn on_event(store: &Store, clock: &SimClock, event: &StoreEvent) {
    if event.kind() != Kind::Node || event.event_type == EventType::Deleted {
        return;
    }
    if let Ok(node) = event.decode::<Node>() {
        reconcile(store, clock, node);
    }
}

/// Writes the node's taints when they are not what the passes want. A conflict means someone
/// else wrote the node; their change comes back as an event and is reconciled then.
fn reconcile(store: &Store, clock: &SimClock, mut node: Node) {
    let Some(taints) = reconciled_taints(&node, clock.now()) else {
        return;
    };
    let name = node.metadata.name.clone().unwrap_or_default();
    node.spec.get_or_insert_with(Default::default).taints = (!taints.is_empty()).then_some(taints);
    if let Err(err) = store.update(node) {
        tracing::debug!(node = %name, error = %err, "node lifecycle: taint update not applied");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::testing::object;
    use serde_json::json;

    fn node(value: serde_json::Value) -> Node {
        object(value)
    }

    fn keys(taints: &[Taint]) -> Vec<String> {
        taints
            .iter()
            .map(|t| format!("{}:{}", t.key, t.effect))
            .collect()
    }

    #[test]
    fn a_not_ready_node_gets_not_ready_no_schedule_and_no_execute() {
        // doNoScheduleTaintingPass + doNoExecuteTaintingPass, Ready=False.
        let n = node(json!({"metadata": {"name": "n"},
            "status": {"conditions": [{"type": "Ready", "status": "False"}]}}));
        let taints = reconciled_taints(&n, Timestamp::UNIX_EPOCH).expect("taints change");
        assert_eq!(
            keys(&taints),
            [
                "node.kubernetes.io/not-ready:NoSchedule",
                "node.kubernetes.io/not-ready:NoExecute"
            ]
        );
    }

    #[test]
    fn a_cordoned_node_gets_the_unschedulable_taint_and_loses_it_when_uncordoned() {
        let cordoned = node(
            json!({"metadata": {"name": "n"}, "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
        );
        let taints = reconciled_taints(&cordoned, Timestamp::UNIX_EPOCH).expect("added");
        assert_eq!(
            keys(&taints),
            ["node.kubernetes.io/unschedulable:NoSchedule"]
        );
        let uncordoned = node(json!({"metadata": {"name": "n"},
            "spec": {"taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}));
        let taints = reconciled_taints(&uncordoned, Timestamp::UNIX_EPOCH).expect("removed");
        assert!(taints.is_empty());
    }

    #[test]
    fn unreachable_replaces_not_ready_and_user_taints_stay() {
        let n = node(json!({"metadata": {"name": "n"},
            "spec": {"taints": [
                {"key": "dedicated", "value": "infra", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]},
            "status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}}));
        let taints = reconciled_taints(&n, Timestamp::UNIX_EPOCH).expect("swapped");
        assert_eq!(
            keys(&taints),
            [
                "dedicated:NoSchedule",
                "node.kubernetes.io/unreachable:NoSchedule",
                "node.kubernetes.io/unreachable:NoExecute"
            ]
        );
    }

    #[test]
    fn a_ready_node_with_nothing_to_change_is_left_alone() {
        let n = node(json!({"metadata": {"name": "n"},
            "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
            "status": {"conditions": [{"type": "Ready", "status": "True"},
                                      {"type": "MemoryPressure", "status": "False"}]}}));
        assert_eq!(reconciled_taints(&n, Timestamp::UNIX_EPOCH), None);
    }

    #[test]
    fn pressure_conditions_taint_no_schedule_only() {
        // nodeConditionToTaintKeyStatusMap: MemoryPressure/DiskPressure/PIDPressure True.
        let n = node(json!({"metadata": {"name": "n"},
            "status": {"conditions": [{"type": "Ready", "status": "True"},
                                      {"type": "DiskPressure", "status": "True"}]}}));
        let taints = reconciled_taints(&n, Timestamp::UNIX_EPOCH).expect("added");
        assert_eq!(
            keys(&taints),
            ["node.kubernetes.io/disk-pressure:NoSchedule"]
        );
    }
}
