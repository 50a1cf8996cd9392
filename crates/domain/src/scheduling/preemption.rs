//! DefaultPreemption on a daemon pod's one node (§k.4): which lower-priority pods kube-scheduler
//! evicts so the pod fits, or why evicting cannot help.
//!
//! Why here: a `system-node-critical` agent on a full node is not left pending by Kubernetes,
//! it evicts workload pods of a lower priority; the sim must do the same for the differential
//! suite, and the dashboard can say what such a priority would evict. Mirrors
//! `pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`
//! (`SelectVictimsOnNode`) without PodDisruptionBudgets.

use crate::resources::fit::Amounts;

use super::unschedulable::{reject, HostPort, NodeRoom, Rejection};

/// The value of a built-in PriorityClass (§k.5, `SYSTEM_CLASSES`), which the Priority admission
/// writes into `spec.priority`: `system-node-critical` 2000001000, `system-cluster-critical`
/// 2000000000; None for any other name. For a pod whose `spec.priority` was never set.
pub fn builtin_priority(class: &str) -> Option<i32> {
    super::priority_class::system_class(class).map(|c| c.value)
}

/// A pod bound to the node, as preemption sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resident<K> {
    /// Who it is (the caller's key).
    pub key: K,
    /// `spec.priority`.
    pub priority: i32,
    /// Its requests in scheduler units (§j.2).
    pub ask: Amounts,
    /// The host ports it takes.
    pub ports: Vec<HostPort>,
}

/// What preemption does on the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preemption<K> {
    /// Evict these pods (lowest priority first); the pod then fits.
    Evict(Vec<K>),
    /// Nothing of a lower priority runs there.
    NoVictims,
    /// Even without every lower-priority pod the node rejects the pod: this rejection.
    DoesNotHelp(Rejection),
}

fn remove<K>(room: &mut NodeRoom, pod: &Resident<K>) {
    room.requested.add_signed(&pod.ask, -1);
    room.pods -= 1;
    for port in &pod.ports {
        if let Some(i) = room.host_ports.iter().position(|p| p == port) {
            room.host_ports.swap_remove(i);
        }
    }
}

fn add<K>(room: &mut NodeRoom, pod: &Resident<K>) {
    room.requested.add_signed(&pod.ask, 1);
    room.pods += 1;
    room.host_ports.extend(pod.ports.iter().cloned());
}

/// `SelectVictimsOnNode`: every pod of a lower priority than `priority` is removed; if the pod
/// still does not fit, preemption does not help; otherwise the removed pods are given back one
/// by one, most important first (higher priority, then the order given, which callers make the
/// start order), and those whose return makes the pod not fit are the victims (§k.4).
pub fn select_victims<K: Clone>(
    room: &NodeRoom,
    residents: &[Resident<K>],
    priority: i32,
    ask: &Amounts,
    ports: &[HostPort],
) -> Preemption<K> {
    let mut lower: Vec<&Resident<K>> = residents.iter().filter(|r| r.priority < priority).collect();
    if lower.is_empty() {
        return Preemption::NoVictims;
    }
    let mut trial = room.clone();
    for pod in &lower {
        remove(&mut trial, pod);
    }
    if let Some(rejection) = reject(&trial, ask, ports) {
        return Preemption::DoesNotHelp(rejection);
    }
    lower.sort_by_key(|r| std::cmp::Reverse(r.priority));
    let mut victims = Vec::new();
    for pod in lower {
        add(&mut trial, pod);
        if reject(&trial, ask, ports).is_some() {
            remove(&mut trial, pod);
            victims.push(pod);
        }
    }
    victims.sort_by_key(|r| r.priority);
    Preemption::Evict(victims.into_iter().map(|r| r.key.clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amounts(pairs: &[(&str, i64)]) -> Amounts {
        let mut a = Amounts::new();
        for (n, v) in pairs {
            a.set(n, *v);
        }
        a
    }

    fn resident(key: &str, priority: i32, cpu: i64) -> Resident<String> {
        Resident {
            key: key.into(),
            priority,
            ask: amounts(&[("cpu", cpu)]),
            ports: vec![],
        }
    }

    fn room(residents: &[Resident<String>]) -> NodeRoom {
        let mut room = NodeRoom {
            allocatable: amounts(&[("cpu", 1000), ("pods", 110)]),
            ..NodeRoom::default()
        };
        for r in residents {
            add(&mut room, r);
        }
        room
    }

    #[test]
    fn the_fewest_lowest_priority_pods_are_evicted_and_the_rest_reprieved() {
        let pods = [
            resident("batch", 0, 600),
            resident("web", 100, 300),
            resident("small", 0, 50),
        ];
        let ask = amounts(&[("cpu", 500)]);
        // Without all three: room 1000; web back (300) fits; batch back (900) does not;
        // small back (350+... ) fits: only batch goes (§k.4).
        assert_eq!(
            select_victims(&room(&pods), &pods, 2_000_001_000, &ask, &[]),
            Preemption::Evict(vec!["batch".to_string()])
        );
    }

    #[test]
    fn equal_priority_is_no_victim_and_too_big_a_pod_is_not_helped() {
        let pods = [resident("batch", 0, 900)];
        assert_eq!(
            select_victims(&room(&pods), &pods, 0, &amounts(&[("cpu", 200)]), &[]),
            Preemption::NoVictims
        );
        let too_big = select_victims(&room(&pods), &pods, 1000, &amounts(&[("cpu", 2000)]), &[]);
        assert!(matches!(
            too_big,
            Preemption::DoesNotHelp(Rejection::Resources(_))
        ));
    }
}
