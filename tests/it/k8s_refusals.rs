//! Refused creations against Kubernetes' own control plane (issue 24 items 2 and 4): a
//! DaemonSet of host agents in a namespace labelled `pod-security.kubernetes.io/enforce=baseline`.
//! kube-apiserver v1.37.2's Pod Security admission refuses every pod the real DaemonSet
//! controller creates, which records FailedCreate with the refusal; the sim must refuse with
//! the same words (§l.3), and the dashboard must classify both into the same refusal: the
//! same kind, level, violated checks and message, on the same missing cells.
//!
//! Why its own file and scenario: no pod is ever created, so the case settles in seconds
//! (the control plane's start is most of its time).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use crate::support::real_cluster::RealCluster;

use daemonscope::cluster::{connect, Live};
use daemonscope::domain::admission::Refusal;
use daemonscope::domain::coverage::CellState;
use daemonscope::domain::view::{MatrixSnapshot, RefusedCreation};
use daemonscope::sim::replay::prepare;
use daemonscope::sim::scenario::parse_str;
use daemonscope::sim::{start_in_process, ScenarioSource};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, PostParams};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Two Ready nodes, a baseline namespace and a node agent that asks for host access.
const SCENARIO: &str = r#"
apiVersion: v1
kind: Namespace
metadata:
  name: agents
  labels: {kubernetes.io/metadata.name: agents, pod-security.kubernetes.io/enforce: baseline}
---
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {kubernetes.io/hostname: node-a, kubernetes.io/os: linux, kubernetes.io/arch: amd64}
status:
  conditions: [{type: Ready, status: 'True'}]
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
  labels: {kubernetes.io/hostname: node-b, kubernetes.io/os: linux, kubernetes.io/arch: amd64}
status:
  conditions: [{type: Ready, status: 'True'}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: host-agent
  namespace: agents
spec:
  selector: {matchLabels: {app: host-agent}}
  template:
    metadata:
      labels: {app: host-agent}
    spec:
      hostNetwork: true
      hostPID: true
      containers:
      - name: agent
        image: registry.example.com/host-agent:1.0
        ports: [{containerPort: 9100, hostPort: 9100}]
        securityContext:
          privileged: true
          capabilities: {add: [SYS_ADMIN, NET_BIND_SERVICE]}
        volumeMounts: [{name: proc, mountPath: /host/proc}]
      volumes:
      - {name: proc, hostPath: {path: /proc}}
"#;

const KEY: &str = "agents/host-agent";

async fn watch(name: &str, config: kube::Config) -> (Arc<Live>, Vec<tokio::task::JoinHandle<()>>) {
    let conn = connect::from_config(config, name.into(), "tester".into()).expect("a client");
    daemonscope::web::start_watching(&conn, &[]).await
}

/// The refusal and the missing cells of the agent, once the side has classified one.
fn refused(snapshot: &MatrixSnapshot) -> Option<(RefusedCreation, Vec<String>)> {
    let column = snapshot.daemonsets.iter().position(|c| c.key == KEY)?;
    let refused = snapshot.daemonsets[column].refused.clone()?;
    let missing = snapshot
        .nodes
        .iter()
        .filter(|n| n.cells.get(column) == Some(&CellState::Missing))
        .map(|n| n.name.clone())
        .collect();
    Some((refused, missing))
}

/// The refusal with the generated pod name's five random characters replaced by `*`.
fn masked(mut r: Refusal) -> Refusal {
    const PREFIX: &str = "pods \"host-agent-";
    if let Some(rest) = r.message.strip_prefix(PREFIX) {
        if let Some((suffix, tail)) = rest.split_once('"') {
            r.message = format!("{PREFIX}{}\"{tail}", "*".repeat(suffix.chars().count()));
        }
    }
    r
}

/// The code, reason and message of a pod create the API server refuses.
async fn refused_create(client: kube::Client, pod: &Pod) -> (u16, String, String) {
    match Api::<Pod>::namespaced(client, "agents")
        .create(&PostParams::default(), pod)
        .await
    {
        Err(kube::Error::Api(status)) => (status.code, status.reason, status.message),
        other => panic!("the pod was not refused: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_baseline_namespace_refuses_a_host_agent_with_the_same_words_as_kubernetes() {
    let scenario = parse_str(SCENARIO, "pod-security.yaml").expect("the scenario parses");
    let replay = prepare(&scenario);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("scenario.yaml");
    std::fs::write(&file, replay.to_sim_scenario().expect("sim scenario")).expect("write");
    let sim = start_in_process(ScenarioSource::File(file))
        .await
        .expect("the sim starts");
    let cluster = tokio::task::block_in_place(|| RealCluster::start(&[]));
    eprintln!("control plane up in {} ms", cluster.startup_ms);
    replay
        .create_all(&cluster.admin().await)
        .await
        .expect("the scenario replays into kube-apiserver");
    let (sim_live, _sim_tasks) = watch("sim", sim.kube_config()).await;
    let (real_live, _real_tasks) = watch("kubernetes", cluster.kube_config().await).await;

    let deadline = Instant::now() + Duration::from_secs(60);
    let (sim_side, real_side) = loop {
        if let (Some(s), Some(r)) = (
            refused(&sim_live.snapshot()),
            refused(&real_live.snapshot()),
        ) {
            if s.1.len() == 2 && r.1.len() == 2 {
                break (s, r);
            }
        }
        assert!(
            Instant::now() < deadline,
            "no refusal on both sides within 60 s: sim {:?}, kubernetes {:?}",
            refused(&sim_live.snapshot()),
            refused(&real_live.snapshot())
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let real = masked(real_side.0.refusal.clone());
    eprintln!("kubernetes: {}", real_side.0.refusal.message);
    // Kubernetes' own words decide: the same classified refusal, message included (the
    // pod's generated name aside: kube-apiserver names it before admission, at random).
    assert!(
        real_side
            .0
            .refusal
            .message
            .starts_with("pods \"host-agent-")
            && !real_side
                .0
                .refusal
                .message
                .starts_with("pods \"host-agent-\""),
        "kube-apiserver names the generated pod: {}",
        real_side.0.refusal.message
    );
    assert_eq!(
        masked(sim_side.0.refusal.clone()),
        real,
        "the sim's refusal differs from kube-apiserver's"
    );
    assert_eq!(
        real.kind,
        daemonscope::domain::admission::RefusalKind::PodSecurity
    );
    assert_eq!(real.level.as_deref(), Some("baseline:latest"));
    assert_eq!(sim_side.1, real_side.1, "the same missing cells");

    // A pod created directly (as kubectl would) gets the same 403 from both API servers.
    let probe: Pod = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "probe", "namespace": "agents"},
        "spec": {"hostNetwork": true, "containers": [{"name": "a", "image": "registry.example.com/a:1"}]}
    }))
    .expect("a pod");
    let sim_client = kube::Client::try_from(sim.kube_config()).expect("a sim client");
    let sim_answer = refused_create(sim_client, &probe).await;
    let real_answer = refused_create(cluster.admin().await, &probe).await;
    assert_eq!(
        sim_answer, real_answer,
        "the sim's 403 differs from kube-apiserver's"
    );
    assert_eq!(
        real_answer.2,
        "pods \"probe\" is forbidden: violates PodSecurity \"baseline:latest\": host namespaces (hostNetwork=true)"
    );
    drop(cluster);
}
