//! The differential comparisons (the sim and Kubernetes' own control plane loaded with the same
//! scenario and the same kubectl changes), in two lanes: two tests, each running its streams of
//! comparisons side by side.
//!
//! Why lanes and not one test per comparison: each comparison starts a control plane and a sim,
//! and a test waiting for a lock holds a libtest thread doing nothing. Why streams: the
//! comparisons wait on controllers far more than they compute (the 20 generated seeds took
//! 143 s one after another, the demo, rollout and scheduling comparisons 148 s, with the whole
//! `it` suite using under one core of two), so each lane runs two at a time: the seeds in two
//! streams (`k8s_differential::SEED_STREAMS`), the demo's changes beside the rollouts and the
//! scheduler's reasons. Each decides "settled" by a quiet period on both sides, so a
//! neighbour's load delays an answer but does not change it. Each comparison runs in its own
//! task, so one that fails does not hide the others: a lane fails naming every comparison that
//! did.
//!
//! `K8S_CASES=demo,rollouts` runs only the comparisons whose names contain one of the words.

use crate::{k8s_differential, k8s_scheduling};
use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

type Case = fn() -> Pin<Box<dyn Future<Output = ()> + Send>>;

/// The generated seeds' lane.
const SEEDS: &[&[(&str, Case)]] = &[&[(
    "generated clusters settle to the same matrix as Kubernetes",
    || Box::pin(k8s_differential::generated_clusters_settle_to_the_same_matrix_as_kubernetes()),
)]];

/// The lane of hand-written scenarios and kubectl changes; each name says what it proves. Its
/// two streams run side by side: the demo's changes (about 90 s, 40 s of it kube-controller-
/// manager's pod-GC quarantine after the node deletion) beside the rollouts and the scheduler's
/// reasons (about 45 s together).
const CHANGES: &[&[(&str, Case)]] = &[
    &[(
        "the demo cluster and the same changes agree with Kubernetes",
        || {
            Box::pin(
                k8s_differential::the_demo_cluster_and_the_same_changes_agree_with_kubernetes(),
            )
        },
    )],
    &[
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
    ],
];

fn selected(name: &str) -> bool {
    match std::env::var("K8S_CASES") {
        Ok(words) if !words.trim().is_empty() => {
            words.split(',').any(|word| name.contains(word.trim()))
        }
        _ => true,
    }
}

// Four workers in each lane: two streams side by side, whose comparisons block in place while a
// control plane starts or kubectl runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn generated_clusters_agree_with_kubernetes() {
    run_lane(SEEDS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_demo_rollouts_and_scheduling_agree_with_kubernetes() {
    run_lane(CHANGES).await;
}

/// Runs the lane's streams side by side, each stream's selected comparisons one after another.
/// A lane of which `K8S_CASES` selects nothing passes when the other lane has the selection; a
/// selection of nothing fails.
async fn run_lane(lane: &'static [&'static [(&'static str, Case)]]) {
    assert!(
        SEEDS
            .iter()
            .chain(CHANGES)
            .flat_map(|stream| stream.iter())
            .any(|(name, _)| selected(name)),
        "K8S_CASES selects no comparison"
    );
    let streams: Vec<_> = lane
        .iter()
        .map(|stream| tokio::spawn(run_stream(stream)))
        .collect();
    let mut failures = Vec::new();
    for stream in streams {
        match stream.await {
            Ok(failed) => failures.extend(failed),
            Err(err) => failures.push(format!("a stream of comparisons: {err}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// One stream's selected comparisons, one after another: the failures, each with its name.
async fn run_stream(stream: &'static [(&'static str, Case)]) -> Vec<String> {
    let mut failures = Vec::new();
    for (name, case) in stream.iter().filter(|(name, _)| selected(name)) {
        let started = Instant::now();
        let outcome = tokio::spawn(case()).await;
        eprintln!("k8s lane: {name}: {:.1} s", started.elapsed().as_secs_f64());
        if let Err(err) = outcome {
            failures.push(format!("{name}: {err}"));
        }
    }
    failures
}
