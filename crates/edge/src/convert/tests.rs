//! Conversion of kubectl-shaped objects, and the API-server defaults of §i.1.
use super::load::{daemonset_from_text, node_from_text};
use super::*;

const GPU_NODE: &str = r#"{
  "apiVersion": "v1",
  "kind": "Node",
  "metadata": {
    "name": "gpu-1",
    "uid": "7c5bd3a0-1111-4e0b-9a53-3f4c2b1d0e01",
    "creationTimestamp": "2026-11-20T08:00:00Z",
    "labels": {"kubernetes.io/hostname": "gpu-1", "workload-type": "gpu"},
    "resourceVersion": "4242"
  },
  "spec": {
    "podCIDR": "10.244.3.0/24",
    "taints": [
      {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
      {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": "2026-11-21T10:00:00Z"},
      {"key": "soft", "value": "x", "effect": "PreferNoSchedule"}
    ],
    "unschedulable": true
  },
  "status": {
    "capacity": {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"},
    "conditions": [
      {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": "2026-11-21T10:00:00Z", "lastTransitionTime": "2026-11-20T08:00:00Z", "reason": "KubeletHasSufficientMemory", "message": "ok"},
      {"type": "Ready", "status": "False", "lastHeartbeatTime": "2026-11-21T10:00:00Z", "lastTransitionTime": "2026-11-21T09:00:00Z", "reason": "KubeletNotReady", "message": "container runtime network not ready"}
    ]
  }
}"#;

#[test]
fn node_facts_read_labels_taints_cordon_and_readiness() {
    let node = node_from_text(GPU_NODE).expect("node parses");
    let facts = node_facts(&node);
    assert_eq!(facts.name, "gpu-1");
    assert_eq!(facts.uid, "7c5bd3a0-1111-4e0b-9a53-3f4c2b1d0e01");
    assert_eq!(
        facts.labels.get("workload-type").map(String::as_str),
        Some("gpu")
    );
    assert_eq!(
        facts.taints,
        vec![
            Taint {
                key: "nvidia.com/gpu".into(),
                value: "present".into(),
                effect: TaintEffect::NoSchedule
            },
            Taint {
                key: "node.kubernetes.io/unschedulable".into(),
                value: String::new(),
                effect: TaintEffect::NoSchedule
            },
            Taint {
                key: "soft".into(),
                value: "x".into(),
                effect: TaintEffect::PreferNoSchedule
            },
        ]
    );
    assert!(facts.unschedulable);
    assert_eq!(facts.ready, Some(false));
    // 2026-11-20T08:00:00Z: the new-node grace counts from here (issue 14 item 5).
    assert_eq!(facts.created, Some(1_795_161_600));
}

#[test]
fn node_readiness_is_unknown_without_a_ready_condition() {
    let node = node_from_text(r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}"#)
        .expect("node");
    let facts = node_facts(&node);
    assert_eq!(facts.ready, None);
    assert_eq!(
        facts.created, None,
        "no creationTimestamp: no grace applies"
    );
    assert!(!facts.unschedulable);
    assert!(facts.taints.is_empty());
}

const DS_FROM_CLUSTER: &str = r#"{
  "apiVersion": "apps/v1",
  "kind": "DaemonSet",
  "metadata": {
    "name": "node-exporter",
    "namespace": "monitoring",
    "uid": "0b0e7a4e-2222-4c55-8f3a-5b8c1f0d9a77",
    "generation": 4,
    "annotations": {"deprecated.daemonset.template.generation": "4"},
    "creationTimestamp": "2026-11-01T00:00:00Z"
  },
  "spec": {
    "revisionHistoryLimit": 10,
    "minReadySeconds": 10,
    "selector": {"matchLabels": {"app": "node-exporter"}},
    "template": {
      "metadata": {"labels": {"app": "node-exporter"}},
      "spec": {
        "hostNetwork": true,
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "workload-type", "operator": "NotIn", "values": ["batch"]}]},
          {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-1"]}]}
        ]}}},
        "tolerations": [
          {"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"},
          {"operator": "Exists"},
          {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute", "tolerationSeconds": 300}
        ],
        "containers": [{"name": "exporter", "image": "quay.io/prometheus/node-exporter:v1.8.2", "args": ["--secret-flag"]}]
      }
    },
    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}}
  },
  "status": {
    "currentNumberScheduled": 5, "desiredNumberScheduled": 6, "numberAvailable": 4, "numberMisscheduled": 1,
    "numberReady": 5, "numberUnavailable": 2, "observedGeneration": 3, "updatedNumberScheduled": 2
  }
}"#;

#[test]
fn daemonset_facts_carry_template_strategy_and_status() {
    let ds = daemonset_from_text(DS_FROM_CLUSTER).expect("ds parses");
    let facts = daemonset_facts(&ds).expect("facts");
    assert_eq!(facts.key(), "monitoring/node-exporter");
    assert_eq!(facts.generation, 4);
    assert_eq!(facts.min_ready_seconds, 10);
    assert_eq!(facts.template_generation.as_deref(), Some("4"));
    assert!(facts.template.host_network);
    assert_eq!(
        facts
            .template
            .node_selector
            .get("kubernetes.io/os")
            .map(String::as_str),
        Some("linux")
    );
    let terms = facts
        .template
        .required_node_affinity
        .as_ref()
        .expect("required affinity");
    assert_eq!(terms.len(), 2);
    assert_eq!(
        terms[0].match_expressions[0].values,
        vec!["batch".to_string()]
    );
    assert_eq!(terms[1].match_fields[0].key, "metadata.name");
    assert_eq!(facts.template.tolerations.len(), 3);
    assert_eq!(
        facts.template.tolerations[1],
        Toleration {
            operator: "Exists".into(),
            ..Default::default()
        }
    );
    assert_eq!(
        facts.template.tolerations[2].operator, "",
        "a left-out operator stays empty (§b trap 11)"
    );
    assert_eq!(facts.template.tolerations[2].toleration_seconds, Some(300));
    assert_eq!(
        facts.strategy,
        UpdateStrategy::RollingUpdate {
            rolling_update_block: true,
            max_unavailable: Some(IntOrPercent::Int(0)),
            max_surge: Some(IntOrPercent::Str("25%".into())),
        }
    );
    let status = facts.status.expect("status");
    assert_eq!(
        (
            status.observed_generation,
            status.desired_number_scheduled,
            status.updated_number_scheduled,
            status.number_available
        ),
        (3, 6, 2, 4)
    );
    assert_eq!(
        (
            status.number_misscheduled,
            status.number_unavailable,
            status.current_number_scheduled,
            status.number_ready
        ),
        (1, 2, 5, 5)
    );
}

fn manifest(strategy: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  selector:\n    matchLabels: {{app: agent}}\n{strategy}  template:\n    metadata:\n      labels: {{app: agent}}\n    spec:\n      containers:\n      - name: agent\n        image: agent:1\n"
    )
}

#[test]
fn hand_written_manifests_are_defaulted_like_the_api_server_i1() {
    let rolling = |mu: IntOrPercent, ms: IntOrPercent| UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: Some(mu),
        max_surge: Some(ms),
    };
    let cases: Vec<(&str, &str, UpdateStrategy)> = vec![
        (
            "§i.1 trap 14: no updateStrategy is RollingUpdate 1/0",
            "",
            rolling(IntOrPercent::Int(1), IntOrPercent::Int(0)),
        ),
        (
            "§i.1 an empty type is RollingUpdate",
            "  updateStrategy: {}\n",
            rolling(IntOrPercent::Int(1), IntOrPercent::Int(0)),
        ),
        (
            "§i.1 rollingUpdate: {} is 1/0",
            "  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate: {}\n",
            rolling(IntOrPercent::Int(1), IntOrPercent::Int(0)),
        ),
        (
            "§i.1 only maxSurge set keeps maxUnavailable 1",
            "  updateStrategy:\n    rollingUpdate:\n      maxSurge: 25%\n",
            rolling(IntOrPercent::Int(1), IntOrPercent::Str("25%".into())),
        ),
        (
            "§i.1 a string budget is kept as written",
            "  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: \"5\"\n",
            rolling(IntOrPercent::Str("5".into()), IntOrPercent::Int(0)),
        ),
        (
            "§i.1 OnDelete gets no rollingUpdate",
            "  updateStrategy:\n    type: OnDelete\n",
            UpdateStrategy::OnDelete,
        ),
        (
            "§i.1 an unknown type is kept for validation",
            "  updateStrategy:\n    type: Recreate\n",
            UpdateStrategy::Other("Recreate".into()),
        ),
    ];
    for (name, strategy, want) in cases {
        let ds = daemonset_from_text(&manifest(strategy)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let facts = daemonset_facts(&ds).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(facts.strategy, want, "{name}");
        assert_eq!(facts.status, None, "§i.4 {name}: no status stays None");
        assert_eq!(facts.namespace, "default");
    }
}

#[test]
fn a_template_without_pod_spec_is_an_error() {
    let text = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {}\n  template:\n    metadata: {labels: {a: b}}\n";
    let ds = daemonset_from_text(text).expect("parses");
    let err = daemonset_facts(&ds).expect_err("no pod spec");
    assert_eq!(err.to_string(), "DaemonSet agent has no spec.template.spec");
}

const POD: &str = r#"{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {
    "name": "node-exporter-x7k2p",
    "namespace": "monitoring",
    "uid": "a1b2c3d4-3333-4444-5555-666677778888",
    "creationTimestamp": "2026-11-21T10:00:00Z",
    "labels": {"app": "node-exporter", "controller-revision-hash": "6d4f8b9c7", "pod-template-generation": "4"},
    "ownerReferences": [
      {"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "not-this", "controller": false},
      {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "node-exporter", "uid": "0b0e7a4e-2222-4c55-8f3a-5b8c1f0d9a77", "controller": true, "blockOwnerDeletion": true}
    ]
  },
  "spec": {
    "nodeName": "gpu-1",
    "containers": [{"name": "exporter", "image": "exporter:1"}, {"name": "sidecar", "image": "sidecar:1"}]
  },
  "status": {
    "phase": "Running",
    "conditions": [
      {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-21T10:00:00Z"},
      {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-21T10:00:30Z"}
    ],
    "containerStatuses": [
      {"name": "exporter", "image": "exporter:1", "imageID": "", "ready": true, "restartCount": 2, "state": {"running": {"startedAt": "2026-11-21T10:00:20Z"}}},
      {"name": "sidecar", "image": "sidecar:1", "imageID": "", "ready": false, "restartCount": 5, "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}}}
    ]
  }
}"#;

fn pod(text: &str) -> Pod {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("pod fixture: {e}"))
}

#[test]
fn pod_facts_read_owner_node_readiness_restarts_and_waiting_reason() {
    let facts = pod_facts(&pod(POD));
    assert_eq!(
        facts.owner_uid.as_deref(),
        Some("0b0e7a4e-2222-4c55-8f3a-5b8c1f0d9a77"),
        "§f controller ref uid"
    );
    assert_eq!(facts.node_name.as_deref(), Some("gpu-1"));
    assert!(facts.bound);
    assert_eq!(facts.revision_hash, "6d4f8b9c7");
    assert_eq!(facts.template_generation.as_deref(), Some("4"));
    assert_eq!(facts.phase, PodPhase::Running);
    assert!(facts.ready);
    assert_eq!(
        facts.ready_since,
        Some(1_795_255_230),
        "2026-11-21T10:00:30Z"
    );
    assert_eq!(facts.created, 1_795_255_200);
    assert_eq!(facts.restart_count, 7);
    assert_eq!(facts.waiting_reason.as_deref(), Some("CrashLoopBackOff"));
    assert!(!facts.terminating);
}

#[test]
fn unbound_pods_are_placed_by_the_first_metadata_name_in_pin_f() {
    let with_affinity = |fields: &str| {
        pod(&format!(
            r#"{{"metadata":{{"name":"p","deletionTimestamp":"2026-11-21T10:00:00Z"}},"spec":{{"containers":[],"affinity":{{"nodeAffinity":{{"requiredDuringSchedulingIgnoredDuringExecution":{{"nodeSelectorTerms":[{fields}]}}}}}}}}}}"#
        ))
    };
    let cases = vec![
        (
            "§f the controller's pin",
            r#"{"matchFields":[{"key":"metadata.name","operator":"In","values":["node-a"]}]}"#,
            Some("node-a"),
        ),
        (
            "§f NotIn is not a pin",
            r#"{"matchFields":[{"key":"metadata.name","operator":"NotIn","values":["node-a"]}]}"#,
            None,
        ),
        (
            "§f another key is not a pin",
            r#"{"matchFields":[{"key":"metadata.uid","operator":"In","values":["node-a"]}]}"#,
            None,
        ),
        (
            "§f the first pin decides even with two values",
            r#"{"matchFields":[{"key":"metadata.name","operator":"In","values":["a","b"]}]},{"matchFields":[{"key":"metadata.name","operator":"In","values":["c"]}]}"#,
            None,
        ),
        (
            "§f a later term is used when earlier ones have no pin",
            r#"{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]},{"matchFields":[{"key":"metadata.name","operator":"In","values":["c"]}]}"#,
            Some("c"),
        ),
    ];
    for (name, fields, want) in cases {
        let facts = pod_facts(&with_affinity(fields));
        assert_eq!(facts.node_name.as_deref(), want, "{name}");
        assert!(!facts.bound, "{name}");
        assert!(facts.terminating);
        assert_eq!(facts.phase, PodPhase::Pending, "no status reads as Pending");
    }
}

#[test]
fn a_pod_without_controller_ref_has_no_owner_f() {
    let facts = pod_facts(&pod(
        r#"{"metadata":{"name":"p","ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"d","uid":"u"}]},"spec":{"containers":[]}}"#,
    ));
    assert_eq!(facts.owner_uid, None, "§f only a controller reference owns");
    assert_eq!(facts.node_name, None);
}
