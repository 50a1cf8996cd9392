//! The differential comparisons (the sim and Kubernetes' own control plane loaded with the same
//! scenario and the same kubectl changes), in two lanes: two tests, each running its
//! comparisons one after another.
//!
//! Why lanes and not one test per comparison: each comparison starts a control plane and a sim,
//! and a test waiting for a lock holds a libtest thread doing nothing. Why two lanes and not
//! one: a single chain (about 260 s) was longer than everything else in the `it` suite together
//! on the other thread, so `make test` waited on it; the generated seeds (about 120 s) and the
//! demo, rollout and scheduling comparisons (about 140 s, 40 s of it kube-controller-manager's
//! pod-GC quarantine) now run beside each other, with `make test-rust` giving libtest three
//! threads. The comparisons wait on controllers far more than they compute, and each decides
//! "settled" by a quiet period on both sides, so a neighbour's load delays an answer but does
//! not change it. Each comparison runs in its own task, so one that fails does not hide the
//! others: a lane fails naming every comparison that did.
//!
//! `K8S_CASES=demo,rollouts` runs only the comparisons whose names contain one of the words.

use crate::{k8s_differential, k8s_scheduling};
use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

type Case = fn() -> Pin<Box<dyn Future<Output = ()> + Send>>;

/// The generated seeds' lane.
const SEEDS: &[(&str, Case)] = &[(
    "generated clusters settle to the same matrix as Kubernetes",
    || Box::pin(k8s_differential::generated_clusters_settle_to_the_same_matrix_as_kubernetes()),
)];

/// The lane of hand-written scenarios and kubectl changes; each name says what it proves.
const CHANGES: &[(&str, Case)] = &[
    (
        "the demo cluster and the same changes agree with Kubernetes",
        || {
            Box::pin(
                k8s_differential::the_demo_cluster_and_the_same_changes_agree_with_kubernetes(),
            )
        },
    ),
    ("rollouts stay within the same budget as Kubernetes", || {
        Box::pin(k8s_differential::rollouts_stay_within_the_same_budget_as_kubernetes())
    }),
    (
        "pending daemon pods carry kube-scheduler's reason and message in the sim too",
        || {
            Box::pin(
                k8s_scheduling::pending_daemon_pods_carry_kube_schedulers_reason_and_message_in_the_sim_too(),
            )
        },
    ),
];

fn selected(name: &str) -> bool {
    match std::env::var("K8S_CASES") {
        Ok(words) if !words.trim().is_empty() => {
            words.split(',').any(|word| name.contains(word.trim()))
        }
        _ => true,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_clusters_agree_with_kubernetes() {
    run_lane(SEEDS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_rollouts_and_scheduling_agree_with_kubernetes() {
    run_lane(CHANGES).await;
}

/// Runs the lane's selected comparisons one after another. A lane of which `K8S_CASES` selects
/// nothing passes when the other lane has the selection; a selection of nothing fails.
async fn run_lane(lane: &[(&str, Case)]) {
    assert!(
        SEEDS.iter().chain(CHANGES).any(|(name, _)| selected(name)),
        "K8S_CASES selects no comparison"
    );
    let mut failures = Vec::new();
    for (name, case) in lane.iter().filter(|(name, _)| selected(name)) {
        let started = Instant::now();
        let outcome = tokio::spawn(case()).await;
        eprintln!("k8s lane: {name}: {:.1} s", started.elapsed().as_secs_f64());
        if let Err(err) = outcome {
            failures.push(format!("{name}: {err}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
