//! The differential comparisons (the sim and Kubernetes' own control plane loaded with the same
//! scenario and the same kubectl changes), one after another in a single test.
//!
//! Why one test and not one per comparison: each starts a control plane and a sim, and on 2
//! cores two of them at once slow the controllers enough to blur "settled". They used to be
//! separate tests behind a lock, but a test waiting for the lock holds one of libtest's threads
//! doing nothing, so the other suites waited behind the whole chain (the `it` suite took the sum
//! of both instead of the longer of the two). Here the chain holds exactly one thread. Each
//! comparison still runs in its own task, so one that fails does not hide the others: the test
//! fails naming every comparison that did.
//!
//! `K8S_CASES=demo,rollouts` runs only the comparisons whose names contain one of the words.

use crate::{k8s_differential, k8s_scheduling};
use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

type Case = fn() -> Pin<Box<dyn Future<Output = ()> + Send>>;

/// Every comparison, by name; each name says what it proves.
const CASES: &[(&str, Case)] = &[
    (
        "generated clusters settle to the same matrix as Kubernetes",
        || Box::pin(k8s_differential::generated_clusters_settle_to_the_same_matrix_as_kubernetes()),
    ),
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
async fn the_sim_agrees_with_kubernetes_in_every_differential_comparison() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for (name, case) in CASES.iter().filter(|(name, _)| selected(name)) {
        let started = Instant::now();
        let outcome = tokio::spawn(case()).await;
        eprintln!("k8s lane: {name}: {:.1} s", started.elapsed().as_secs_f64());
        ran += 1;
        if let Err(err) = outcome {
            failures.push(format!("{name}: {err}"));
        }
    }
    assert!(ran > 0, "K8S_CASES selects no comparison");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
