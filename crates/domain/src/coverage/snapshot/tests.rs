//! Tests of the column summary, the snapshot and node rows, each naming the rule it mirrors.

use super::*;
use crate::coverage::CellState;
use crate::facts::{IntOrPercent, PodPhase, Taint, TaintEffect, TemplateFacts, Toleration};
use crate::testing::{ds, ds_budget, node, pod, tainted, PodExt};

#[test]
fn column_summary_mirrors_status_budget_and_verdict() {
    let a = [pod("a").old()];
    let b = [pod("b").on("n2")];
    let c = [pod("c").on("n3")];
    let slots = [
        NodeSlot {
            node: "n1",
            should_run: true,
            gone: false,
            pods: &[&a[0]],
        },
        NodeSlot {
            node: "n2",
            should_run: true,
            gone: false,
            pods: &[&b[0]],
        },
        NodeSlot {
            node: "n3",
            should_run: false,
            gone: false,
            pods: &[&c[0]],
        },
        NodeSlot {
            node: "n4",
            should_run: true,
            gone: false,
            pods: &[],
        },
    ];
    let mut d = ds_budget(1, 0);
    d.strategy = UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: Some(IntOrPercent::Str("50%".into())),
        max_surge: Some(IntOrPercent::Int(0)),
    };
    d.status = Some(crate::facts::DaemonSetStatusFacts {
        observed_generation: 1,
        desired_number_scheduled: 3,
        updated_number_scheduled: 1,
        ..Default::default()
    });
    let col = column_summary(&d, &slots, 100);
    let got = (
        col.desired,
        col.ready,
        col.updated,
        col.available,
        col.misscheduled,
        col.missing,
    );
    assert_eq!(
        got,
        (3, 2, 1, 2, 1, 1),
        "§c counts; missing = should run without a pod"
    );
    assert_eq!(
        (col.max_unavailable, col.max_surge),
        (Some(2), Some(0)),
        "§d.2 50% of 3 rounds up to 2"
    );
    assert_eq!(
        col.budget_in_use, 1,
        "§d.3 the node without a pod uses the budget"
    );
    assert_eq!(
        col.problem_nodes, 2,
        "misscheduled n3 and missing n4; §d.3 n1's old revision is the rollout moving"
    );
    let young = column_summary_in_grace(&d, &slots, 100, &|n| n == "n4");
    assert_eq!(
        young.problem_nodes, 1,
        "a young node's missing pod is starting, not a problem"
    );
    let per_state = |c: &DaemonSetColumn| -> Vec<(CellState, usize)> {
        c.cells.iter().filter(|(_, n)| *n > 0).collect()
    };
    assert_eq!(
        per_state(&col),
        [
            (CellState::Ready, 1),
            (CellState::Outdated, 1),
            (CellState::Missing, 1),
            (CellState::Misscheduled, 1)
        ],
        "the cells per state the matrix shows (what /metrics exports)"
    );
    assert_eq!(
        per_state(&young)[2],
        (CellState::Starting, 1),
        "a young node's pod-less cell counts as starting"
    );
    assert_eq!(col.strategy.as_str(), "RollingUpdate");
    assert_eq!(col.key, "kube-system/agent");
    assert_eq!(
        col.rollout_message,
        "Waiting for daemon set \"agent\" rollout to finish: 1 out of 3 new pods have been updated...",
        "§e from the DaemonSet's own status"
    );

    let mut bad = d.clone();
    bad.strategy = UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: Some(IntOrPercent::Str("5".into())),
        max_surge: None,
    };
    let col = column_summary(&bad, &slots, 100);
    assert_eq!(
        (col.max_unavailable, col.max_surge),
        (None, None),
        "§d.2 §i.3 no number for \"5\""
    );
    assert_eq!(
        col.budget_error.as_deref(),
        Some("invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage"),
        "§d.2 the controller's error"
    );

    let mut on_delete = d.clone();
    on_delete.strategy = UpdateStrategy::OnDelete;
    let col = column_summary(&on_delete, &slots, 100);
    assert_eq!(
        (
            col.strategy.as_str(),
            col.max_unavailable,
            col.budget_in_use
        ),
        ("OnDelete", None, 0),
        "§d.5 no budget"
    );
    assert_eq!(
        col.rollout_error.as_deref(),
        Some("rollout status is only available for RollingUpdate strategy type"),
        "§e.1"
    );
    assert!(
        col.rollout_done && col.rollout_message.is_empty(),
        "§e.1 done, no message"
    );
}

#[test]
fn snapshot_uses_real_placement_and_groups_pods_by_owner() {
    let nodes = vec![
        node("worker-1"),
        tainted(
            "cp-1",
            "node-role.kubernetes.io/control-plane",
            TaintEffect::NoSchedule,
        ),
        tainted("dedicated", "dedicated", TaintEffect::NoSchedule),
        {
            let mut n = node("cordoned");
            n.unschedulable = true;
            n
        },
        tainted("soft", "maintenance", TaintEffect::PreferNoSchedule),
    ];
    let mut agent = ds();
    agent.template = TemplateFacts::default();
    let mut tolerant = ds();
    tolerant.name = "tolerant".into();
    tolerant.uid = "tol-uid".into();
    tolerant.template.tolerations.push(Toleration {
        key: String::new(),
        operator: "Exists".into(),
        ..Default::default()
    });
    let pods = vec![
        pod("a1").on("worker-1"),
        pod("a2").on("dedicated").old(),
        pod("a3").on("soft").unready(),
        pod("t1").on("worker-1").owner("tol-uid"),
        pod("t2").on("cp-1").owner("tol-uid").old(),
        pod("t3")
            .on("dedicated")
            .owner("tol-uid")
            .unbound()
            .phase(PodPhase::Pending),
    ];
    let snap = build_snapshot(
        &nodes,
        &[agent, tolerant],
        &pods,
        100,
        "demo",
        NewNodeGrace::OFF,
    );
    assert_eq!(snap.cluster, "demo");
    let grid: Vec<(&str, Vec<CellState>)> = snap
        .nodes
        .iter()
        .map(|r| (r.name.as_str(), r.cells.clone()))
        .collect();
    use CellState::*;
    assert_eq!(
        grid,
        vec![
            ("worker-1", vec![Ready, Ready]),
            ("cp-1", vec![Excluded, Outdated]),
            ("dedicated", vec![Misscheduled, Pending]),
            ("cordoned", vec![Missing, Missing]),
            ("soft", vec![Unready, Missing]),
        ],
        "§a.2 control-plane taint excludes; §g.3 NoSchedule taint after placement is misscheduled; \
         §g.1 cordon is ignored; §g.2 PreferNoSchedule never blocks; empty-key Exists tolerates all (§a.5)"
    );
    let cols: Vec<(i64, i64, i64)> = snap
        .daemonsets
        .iter()
        .map(|c| (c.desired, c.misscheduled, c.missing))
        .collect();
    assert_eq!(
        cols,
        vec![(3, 1, 1), (5, 0, 2)],
        "§c desired/misscheduled, missing cells"
    );
}

#[test]
fn node_rows_bound_taints_and_labels() {
    let mut n = node("big");
    for i in 0..12 {
        n.taints.push(Taint {
            key: format!("k{i}"),
            value: "v".repeat(if i == 0 { 300 } else { 1 }),
            effect: TaintEffect::NoSchedule,
        });
    }
    n.labels
        .insert("node-role.kubernetes.io/worker".into(), String::new());
    n.labels
        .insert("topology.kubernetes.io/zone".into(), "eu-1a".into());
    n.labels.insert("secret-ish".into(), "not shown".into());
    let row = node_row(&n, vec![]);
    assert_eq!(row.taints.len(), 9, "8 taints and a count of the rest");
    assert_eq!(row.taints[8], "…and 4 more");
    assert!(row.taints[0].chars().count() <= 100, "bounded length");
    assert_eq!(row.taints[1], "k1=v:NoSchedule");
    assert_eq!(
        row.labels,
        vec![
            ("node-role.kubernetes.io/worker".to_string(), String::new()),
            (
                "topology.kubernetes.io/zone".to_string(),
                "eu-1a".to_string()
            )
        ],
        "only identifying labels"
    );
}

/// A small deterministic generator (LCG), so the mixed-cluster test needs no randomness crate.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[test]
fn columns_agree_with_their_cells_and_with_compute_status_on_a_mixed_cluster() {
    use crate::coverage::{group_pods, CellState::*};
    use crate::rollout::compute_status;
    use crate::scheduling::placement;
    let mut rng = Lcg(42);
    let effects = [
        TaintEffect::NoSchedule,
        TaintEffect::NoExecute,
        TaintEffect::PreferNoSchedule,
    ];
    let nodes: Vec<NodeFacts> = (0..60)
        .map(|i| match rng.next(4) {
            0 => tainted(
                &format!("n{i:02}"),
                "dedicated",
                effects[rng.next(3) as usize].clone(),
            ),
            _ => node(&format!("n{i:02}")),
        })
        .collect();
    let mut daemonsets = Vec::new();
    for d in 0..4 {
        let mut x = ds();
        x.name = format!("ds{d}");
        x.uid = format!("ds{d}-uid");
        x.min_ready_seconds = 20 * d;
        if d % 2 == 1 {
            x.template.tolerations.push(Toleration {
                key: "dedicated".into(),
                operator: "Exists".into(),
                effect: "NoSchedule".into(),
                ..Default::default()
            });
        }
        daemonsets.push(x);
    }
    let mut pods = Vec::new();
    for n in &nodes {
        for x in &daemonsets {
            for k in 0..rng.next(3) {
                let mut p = pod(&format!("{}-{}-{k}", x.name, n.name))
                    .on(&n.name)
                    .owner(&x.uid)
                    .created(rng.next(50) as i64)
                    .ready_at(rng.next(100) as i64);
                match rng.next(6) {
                    0 => p = p.old(),
                    1 => p = p.unready(),
                    2 => p = p.terminating(),
                    3 => p = p.unbound().phase(PodPhase::Pending),
                    4 => p = p.phase(PodPhase::Failed).terminating(),
                    _ => {}
                }
                pods.push(p);
            }
        }
    }
    let snap = build_snapshot(&nodes, &daemonsets, &pods, 100, "mixed", NewNodeGrace::OFF);
    let groups = group_pods(&pods);
    let mut seen: Vec<CellState> = snap.nodes.iter().flat_map(|r| r.cells.clone()).collect();
    seen.sort_by_key(|s| s.as_str());
    seen.dedup();
    assert_eq!(
        seen.len(),
        8,
        "the generated cluster shows every state: {seen:?}"
    );
    for (i, (x, col)) in daemonsets.iter().zip(&snap.daemonsets).enumerate() {
        let count = |wanted: &[CellState]| {
            snap.nodes
                .iter()
                .filter(|r| wanted.contains(&r.cells[i]))
                .count() as i64
        };
        assert_eq!(
            col.desired,
            count(&[Ready, Outdated, Unready, Pending, Missing, Surge]),
            "§c desired = shouldRun cells"
        );
        assert_eq!(
            col.misscheduled,
            count(&[Misscheduled]),
            "§c misscheduled cells"
        );
        assert_eq!(col.missing, count(&[Missing]), "missing cells");
        assert!(
            col.available <= col.ready && col.ready <= col.desired,
            "§c available ≤ ready ≤ desired"
        );

        let placements: Vec<_> = nodes.iter().map(|n| placement(n, &x.template)).collect();
        let pairs: Vec<_> = nodes.iter().zip(&placements).collect();
        let status = compute_status(x, &pairs, &pods, 100);
        let summary = (
            status.desired_number_scheduled,
            status.number_ready,
            status.number_available,
            status.updated_number_scheduled,
            status.number_misscheduled,
        );
        assert_eq!(
            summary,
            (
                col.desired,
                col.ready,
                col.available,
                col.updated,
                col.misscheduled
            ),
            "§c the snapshot and compute_status agree"
        );

        let slots: Vec<NodeSlot<'_>> = nodes
            .iter()
            .zip(&placements)
            .map(|(n, p)| NodeSlot {
                node: &n.name,
                should_run: p.should_run,
                gone: false,
                pods: groups.pods(&x.uid, &n.name),
            })
            .collect();
        assert_eq!(
            &column_summary(x, &slots, 100),
            col,
            "a column recomputed alone equals the snapshot's"
        );
    }
}
