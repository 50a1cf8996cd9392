//! The sim's scheduler at work on a generated cluster: with workload pods filling every
//! untainted node to 99.9% of its cpu and memory, daemon pods there stay pending with
//! kube-scheduler's message (§k.3) while those on the control plane run.
use std::time::{Duration, Instant};

use daemonscope::sim::{start_in_process, ScenarioSource};
use k8s_openapi::api::core::v1::Pod;

#[tokio::test]
async fn a_generated_cluster_filled_by_workload_pods_leaves_its_agents_pending_for_room() {
    let sim = start_in_process(ScenarioSource::Generate(
        "nodes=8,daemonsets=4,seed=2,rollouts=0,workload=0.999".into(),
    ))
    .await
    .expect("the sim starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let pods = sim.store.list::<Pod>(None);
        let pending: Vec<String> = pods
            .iter()
            .filter_map(|p| p.status.as_ref()?.conditions.as_ref())
            .flatten()
            .filter(|c| c.type_ == "PodScheduled" && c.status == "False")
            .filter_map(|c| c.message.clone())
            .collect();
        let workloads = pods
            .iter()
            .filter(|p| p.metadata.namespace.as_deref() == Some("workloads"))
            .count();
        if !pending.is_empty() {
            assert!(workloads > 0);
            assert!(
                pending
                    .iter()
                    .all(|m| m.starts_with("0/8 nodes are available: 1 Insufficient")),
                "{pending:#?}"
            );
            return;
        }
        assert!(Instant::now() < deadline, "no daemon pod left pending");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
