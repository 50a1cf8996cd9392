//! A refusal the sim does not produce, on Kubernetes' own control plane only (issue 24 item 6
//! allows the real side alone where the sim does not evaluate it): a ValidatingAdmissionPolicy
//! (CEL) refuses DaemonSet pods on kube-apiserver v1.37.2, and the dashboard, watching it,
//! classifies each FailedCreate as kube-apiserver worded it (§l.2): the policy's name, binding
//! and message. (The quota half that lived here is now differential: `k8s_quota.rs`.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use crate::support::real_cluster::RealCluster;

use daemonscope::cluster::connect;
use daemonscope::domain::admission::{Refusal, RefusalKind};
use daemonscope::sim::replay::prepare;
use daemonscope::sim::scenario::parse_str;
use k8s_openapi::api::admissionregistration::v1::{
    ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, PostParams};
use serde_json::json;
use std::time::{Duration, Instant};

/// Two Ready nodes and the namespace (the policy binds by the `policy: strict` label).
const SCENARIO: &str = r#"
apiVersion: v1
kind: Namespace
metadata: {name: strict, labels: {kubernetes.io/metadata.name: strict, policy: strict}}
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
"#;

fn daemonset(namespace: &str, host_network: bool) -> DaemonSet {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {"hostNetwork": host_network, "containers": [{"name": "agent", "image": "registry.example.com/agent:1"}]}
            }
        }
    }))
    .expect("a DaemonSet")
}

async fn until(what: &str, mut ok: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ok().await {
        assert!(Instant::now() < deadline, "{what}: not within 60 s");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_refusals_from_kubernetes_are_classified_as_it_words_them() {
    let cluster = tokio::task::block_in_place(|| RealCluster::start(&[]));
    let client = cluster.admin().await;
    let replay = prepare(&parse_str(SCENARIO, "refusals.yaml").expect("the scenario parses"));
    replay
        .create_all(&client)
        .await
        .expect("namespaces and nodes");
    let pp = PostParams::default();

    // §l.2: pods with hostNetwork are denied in namespaces labelled policy=strict.
    let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({
        "metadata": {"name": "no-host-network"},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]},
            "validations": [{"expression": "!has(object.spec.hostNetwork) || !object.spec.hostNetwork", "message": "hostNetwork is not allowed in this namespace"}]
        }
    }))
    .expect("a policy");
    let binding: ValidatingAdmissionPolicyBinding = serde_json::from_value(json!({
        "metadata": {"name": "no-host-network-strict"},
        "spec": {"policyName": "no-host-network", "validationActions": ["Deny"],
                 "matchResources": {"namespaceSelector": {"matchLabels": {"policy": "strict"}}}}
    }))
    .expect("a binding");
    Api::<ValidatingAdmissionPolicy>::all(client.clone())
        .create(&pp, &policy)
        .await
        .expect("the policy");
    Api::<ValidatingAdmissionPolicyBinding>::all(client.clone())
        .create(&pp, &binding)
        .await
        .expect("the binding");
    // The policy takes effect once the API server has compiled it: probe with a dry run.
    let probe: Pod = serde_json::from_value(json!({
        "metadata": {"name": "probe"},
        "spec": {"hostNetwork": true, "containers": [{"name": "a", "image": "registry.example.com/a:1"}]}
    }))
    .expect("a pod");
    let strict_pods: Api<Pod> = Api::namespaced(client.clone(), "strict");
    until("the policy in effect", async || {
        strict_pods
            .create(
                &PostParams {
                    dry_run: true,
                    ..PostParams::default()
                },
                &probe,
            )
            .await
            .is_err()
    })
    .await;

    Api::<DaemonSet>::namespaced(client.clone(), "strict")
        .create(&pp, &daemonset("strict", true))
        .await
        .expect("the DaemonSet");

    let conn = connect::from_config(
        cluster.kube_config().await,
        "kubernetes".into(),
        "tester".into(),
    )
    .expect("a client");
    let (live, _tasks) = daemonscope::web::start_watching(&conn, &[]).await;
    let refusal = |key: &str| -> Option<Refusal> {
        live.snapshot()
            .daemonsets
            .iter()
            .find(|c| c.key == key)
            .and_then(|c| c.refused.clone())
            .map(|r| r.refusal)
    };
    until("the refusal classified", async || {
        refusal("strict/agent").is_some()
    })
    .await;

    let policy = refusal("strict/agent").expect("the policy refusal");
    eprintln!("kubernetes: {}", policy.message);
    assert_eq!(
        policy.kind,
        RefusalKind::ValidatingAdmissionPolicy,
        "{policy:?}"
    );
    assert_eq!(policy.name.as_deref(), Some("no-host-network"));
    assert_eq!(policy.binding.as_deref(), Some("no-host-network-strict"));
    assert_eq!(
        policy.reason,
        "hostNetwork is not allowed in this namespace"
    );
}
