//! Test builders shared by the rollout, coverage and controller tests, so each test states
//! only what differs from a healthy, updated, bound, ready pod of DaemonSet `kube-system/agent`.

use crate::facts::*;
use crate::scheduling::{Placement, Reason, Rule};

/// The DaemonSet every builder pod belongs to: RollingUpdate 1/0, current hash `new`,
/// generation 1, status observed.
pub(crate) fn ds() -> DaemonSetFacts {
    DaemonSetFacts {
        namespace: "kube-system".into(),
        name: "agent".into(),
        uid: "ds-uid".into(),
        generation: 1,
        template: TemplateFacts::default(),
        strategy: UpdateStrategy::RollingUpdate {
            rolling_update_block: true,
            max_unavailable: Some(IntOrPercent::Int(1)),
            max_surge: Some(IntOrPercent::Int(0)),
        },
        min_ready_seconds: 0,
        current_revision_hash: "new".into(),
        template_generation: None,
        status: Some(DaemonSetStatusFacts {
            observed_generation: 1,
            ..Default::default()
        }),
    }
}

/// A DaemonSet with the given maxUnavailable / maxSurge integers.
pub(crate) fn ds_budget(max_unavailable: i64, max_surge: i64) -> DaemonSetFacts {
    let mut d = ds();
    d.strategy = UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: Some(IntOrPercent::Int(max_unavailable)),
        max_surge: Some(IntOrPercent::Int(max_surge)),
    };
    d
}

/// A bound, running, ready pod on node `n1` with the current hash, created at 0.
pub(crate) fn pod(name: &str) -> PodFacts {
    PodFacts {
        namespace: "kube-system".into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        owner_uid: Some("ds-uid".into()),
        node_name: Some("n1".into()),
        bound: true,
        revision_hash: "new".into(),
        template_generation: None,
        phase: PodPhase::Running,
        ready: true,
        ready_since: Some(0),
        restart_count: 0,
        waiting_reason: None,
        created: 0,
        terminating: false,
    }
}

/// Chainable tweaks on a builder pod.
pub(crate) trait PodExt: Sized {
    fn with(self, f: impl FnOnce(&mut PodFacts)) -> Self;
    fn old(self) -> Self {
        self.hash("old")
    }
    fn hash(self, h: &str) -> Self {
        self.with(|p| p.revision_hash = h.into())
    }
    fn generation(self, g: &str) -> Self {
        self.with(|p| p.template_generation = Some(g.into()))
    }
    fn unready(self) -> Self {
        self.with(|p| {
            p.ready = false;
            p.ready_since = None;
        })
    }
    fn ready_at(self, t: i64) -> Self {
        self.with(|p| {
            p.ready = true;
            p.ready_since = Some(t);
        })
    }
    fn no_ready_time(self) -> Self {
        self.with(|p| {
            p.ready = true;
            p.ready_since = None;
        })
    }
    fn created(self, t: i64) -> Self {
        self.with(|p| p.created = t)
    }
    fn unbound(self) -> Self {
        self.with(|p| p.bound = false)
    }
    fn terminating(self) -> Self {
        self.with(|p| p.terminating = true)
    }
    fn phase(self, phase: PodPhase) -> Self {
        self.with(|p| {
            p.phase = phase;
            if phase != PodPhase::Running {
                p.ready = false;
            }
        })
    }
    fn on(self, node: &str) -> Self {
        self.with(|p| p.node_name = Some(node.into()))
    }
    fn owner(self, uid: &str) -> Self {
        self.with(|p| p.owner_uid = Some(uid.into()))
    }
}

impl PodExt for PodFacts {
    fn with(mut self, f: impl FnOnce(&mut PodFacts)) -> Self {
        f(&mut self);
        self
    }
}

/// A placement verdict with no reasons (§a booleans only).
pub(crate) fn placed(should_run: bool, should_continue_running: bool) -> Placement {
    Placement {
        should_run,
        should_continue_running,
        reasons: Vec::new(),
    }
}

/// A placement that fails on one rule, with a fix text.
pub(crate) fn refused(rule: Rule, should_continue_running: bool, fix: &str) -> Placement {
    Placement {
        should_run: false,
        should_continue_running,
        reasons: vec![Reason {
            rule,
            passed: false,
            node_value: "node value".into(),
            pod_value: "pod value".into(),
            message: format!("{rule:?} does not allow this node"),
            fix: Some(fix.into()),
        }],
    }
}

/// A Ready node without labels or taints.
pub(crate) fn node(name: &str) -> NodeFacts {
    NodeFacts {
        name: name.into(),
        uid: format!("uid-{name}"),
        ready: Some(true),
        ..Default::default()
    }
}

/// A node with one taint (empty value).
pub(crate) fn tainted(name: &str, key: &str, effect: TaintEffect) -> NodeFacts {
    let mut n = node(name);
    n.taints.push(Taint {
        key: key.into(),
        value: String::new(),
        effect,
    });
    n
}
