//! Test builders of domain facts, shared by every crate's tests (one copy instead of one per
//! test module), so each test states only what differs from a Ready node, a healthy, updated,
//! bound, ready pod, or a plain DaemonSet.
//!
//! Compiled for this crate's own tests and, through the `testing` feature, for the other
//! members' tests (they enable it in their `[dev-dependencies]`); never in a release build.

use crate::facts::*;
use crate::scheduling::{Placement, Reason, Rule};

/// A DaemonSet `kube-system/<name>` with uid `uid-<name>`, generation 1, an empty template,
/// RollingUpdate with the defaults left unset, no revision hash yet and no status: what the
/// store holds before the controller has looked at it.
pub fn daemonset(name: &str) -> DaemonSetFacts {
    DaemonSetFacts {
        namespace: "kube-system".into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        generation: 1,
        template: TemplateFacts::default(),
        strategy: UpdateStrategy::RollingUpdate {
            rolling_update_block: true,
            max_unavailable: None,
            max_surge: None,
        },
        min_ready_seconds: 0,
        current_revision_hash: String::new(),
        template_generation: None,
        status: None,
    }
}

/// The DaemonSet every builder pod belongs to (`kube-system/agent`, uid `ds-uid`):
/// RollingUpdate 1/0, current hash `new`, generation 1, status observed.
pub fn ds() -> DaemonSetFacts {
    DaemonSetFacts {
        uid: "ds-uid".into(),
        strategy: UpdateStrategy::RollingUpdate {
            rolling_update_block: true,
            max_unavailable: Some(IntOrPercent::Int(1)),
            max_surge: Some(IntOrPercent::Int(0)),
        },
        current_revision_hash: "new".into(),
        status: Some(DaemonSetStatusFacts {
            observed_generation: 1,
            ..Default::default()
        }),
        ..daemonset("agent")
    }
}

/// A DaemonSet with the given maxUnavailable / maxSurge integers.
pub fn ds_budget(max_unavailable: i64, max_surge: i64) -> DaemonSetFacts {
    let mut d = ds();
    d.strategy = UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: Some(IntOrPercent::Int(max_unavailable)),
        max_surge: Some(IntOrPercent::Int(max_surge)),
    };
    d
}

/// A bound, running, ready pod on node `n1` with the current hash, created at 0.
pub fn pod(name: &str) -> PodFacts {
    PodFacts {
        requests: Default::default(),
        unschedulable: None,
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

/// Chainable tweaks on a builder pod: `pod("p").old().on("n2").unready()`.
pub trait PodExt: Sized {
    /// Any other change, for what no named tweak covers.
    fn with(self, f: impl FnOnce(&mut PodFacts)) -> Self;
    /// At revision `old`: not updated against [`ds`].
    fn old(self) -> Self {
        self.hash("old")
    }
    /// At this revision hash.
    fn hash(self, h: &str) -> Self {
        self.with(|p| p.revision_hash = h.into())
    }
    /// With a `pod-template-generation` label (the pre-hash way of telling updated pods).
    fn generation(self, g: &str) -> Self {
        self.with(|p| p.template_generation = Some(g.into()))
    }
    /// Not ready, and never was.
    fn unready(self) -> Self {
        self.with(|p| {
            p.ready = false;
            p.ready_since = None;
        })
    }
    /// Ready since `t` (for minReadySeconds).
    fn ready_at(self, t: i64) -> Self {
        self.with(|p| {
            p.ready = true;
            p.ready_since = Some(t);
        })
    }
    /// Ready, without a transition time (never available under minReadySeconds > 0).
    fn no_ready_time(self) -> Self {
        self.with(|p| {
            p.ready = true;
            p.ready_since = None;
        })
    }
    /// Created at `t` (the oldest-first orderings).
    fn created(self, t: i64) -> Self {
        self.with(|p| p.created = t)
    }
    /// Not yet bound to its node.
    fn unbound(self) -> Self {
        self.with(|p| p.bound = false)
    }
    /// Being deleted.
    fn terminating(self) -> Self {
        self.with(|p| p.terminating = true)
    }
    /// In this phase; not ready unless Running.
    fn phase(self, phase: PodPhase) -> Self {
        self.with(|p| {
            p.phase = phase;
            if phase != PodPhase::Running {
                p.ready = false;
            }
        })
    }
    /// On this node.
    fn on(self, node: &str) -> Self {
        self.with(|p| p.node_name = Some(node.into()))
    }
    /// Owned by the object with this uid.
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
pub fn placed(should_run: bool, should_continue_running: bool) -> Placement {
    Placement {
        should_run,
        should_continue_running,
        reasons: Vec::new(),
    }
}

/// A placement that fails on one rule, with a fix text.
pub fn refused(rule: Rule, should_continue_running: bool, fix: &str) -> Placement {
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

/// A Ready node without labels or taints, uid `uid-<name>`.
pub fn node(name: &str) -> NodeFacts {
    NodeFacts {
        name: name.into(),
        uid: format!("uid-{name}"),
        ready: Some(true),
        ..Default::default()
    }
}

/// A node with one taint (empty value).
pub fn tainted(name: &str, key: &str, effect: TaintEffect) -> NodeFacts {
    let mut n = node(name);
    n.taints.push(Taint {
        key: key.into(),
        value: String::new(),
        effect,
    });
    n
}

/// A node carrying these labels (a Ready node otherwise).
pub fn labelled(name: &str, pairs: &[(&str, &str)]) -> NodeFacts {
    NodeFacts {
        labels: labels(pairs),
        ..node(name)
    }
}

/// A label map from `(key, value)` pairs.
pub fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A node selector requirement (`key operator values`), as a manifest writes it.
pub fn req(key: &str, operator: &str, values: &[&str]) -> SelectorRequirement {
    SelectorRequirement {
        key: key.into(),
        operator: operator.into(),
        values: values.iter().map(|v| v.to_string()).collect(),
    }
}

/// A matrix column for `key` (`namespace/name`, or a bare name in namespace `ns`): two
/// nodes desired, all ready and updated, rolled out. The view tests state only what differs.
pub fn view_column(key: &str) -> crate::view::DaemonSetColumn {
    let (namespace, name) = key.split_once('/').unwrap_or(("ns", key));
    crate::view::DaemonSetColumn {
        key: key.into(),
        namespace: namespace.into(),
        name: name.into(),
        desired: 2,
        ready: 2,
        updated: 2,
        available: 2,
        misscheduled: 0,
        missing: 0,
        starting: 0,
        problem_nodes: 0,
        cells: Default::default(),
        refused: None,
        strategy: crate::view::StrategyKind::RollingUpdate,
        surge_mode: false,
        max_unavailable: Some(1),
        max_surge: Some(0),
        budget_error: None,
        budget_in_use: 0,
        rollout_message: format!("daemon set \"{name}\" successfully rolled out"),
        rollout_done: true,
        rollout_error: None,
        pace: None,
        missing_causes: None,
        requests: Default::default(),
        unschedulable: Vec::new(),
    }
}

/// A Ready, schedulable, untainted, unlabelled matrix row with these cells.
pub fn view_row(name: &str, cells: &[crate::coverage::CellState]) -> crate::view::NodeRow {
    crate::view::NodeRow {
        name: name.into(),
        ready: Some(true),
        unschedulable: false,
        taints: vec![],
        labels: vec![],
        cells: cells.to_vec(),
        allocatable: Default::default(),
    }
}

/// Resource amounts from `(name, quantity)` pairs as a manifest spells them, e.g.
/// `[("cpu", "500m"), ("memory", "256Mi")]`.
#[allow(clippy::expect_used)] // a test's own literal: a typo should stop the test at once
pub fn amounts(pairs: &[(&str, &str)]) -> crate::resources::fit::Amounts {
    crate::resources::fit::Amounts::from_list(
        &crate::resources::ResourceList::parse(pairs.iter().copied())
            .expect("the test's quantities parse"),
    )
}
