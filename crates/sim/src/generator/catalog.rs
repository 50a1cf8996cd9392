//! What generated clusters are made of: node pools and a catalogue of real-world DaemonSets
//! with the selectors and tolerations their charts ship with.

use crate::domain::names;
use k8s_openapi::api::apps::v1::{
    DaemonSet, DaemonSetSpec, DaemonSetUpdateStrategy, RollingUpdateDaemonSet,
};
use k8s_openapi::api::core::v1::{
    Affinity, Container, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    PodSpec, PodTemplateSpec, ResourceRequirements, Toleration,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// A node pool: its share of the workers, machine shape, labels and taints.
pub struct Pool {
    pub name: &'static str,
    pub weight: u32,
    pub instance_type: &'static str,
    pub cpu: &'static str,
    pub memory: &'static str,
    pub labels: &'static [(&'static str, &'static str)],
    /// (key, value, effect)
    pub taints: &'static [(&'static str, &'static str, &'static str)],
}

/// The pools in the order `pools=N` takes them.
pub const POOLS: &[Pool] = &[
    Pool {
        name: "general",
        weight: 60,
        instance_type: "m6i.2xlarge",
        cpu: "8",
        memory: "32Gi",
        labels: &[("node.kubernetes.io/lifecycle", "on-demand")],
        taints: &[],
    },
    Pool {
        name: "gpu",
        weight: 8,
        instance_type: "g5.4xlarge",
        cpu: "16",
        memory: "64Gi",
        labels: &[("workload-type", "gpu"), ("nvidia.com/gpu.present", "true")],
        taints: &[("nvidia.com/gpu", "present", "NoSchedule")],
    },
    Pool {
        name: "infra",
        weight: 6,
        instance_type: "m6i.xlarge",
        cpu: "4",
        memory: "16Gi",
        labels: &[("dedicated", "infra")],
        taints: &[("dedicated", "infra", "NoSchedule")],
    },
    Pool {
        name: "highmem",
        weight: 14,
        instance_type: "r6i.4xlarge",
        cpu: "16",
        memory: "128Gi",
        labels: &[("workload-type", "memory")],
        taints: &[],
    },
    Pool {
        name: "spot",
        weight: 12,
        instance_type: "m6a.2xlarge",
        cpu: "8",
        memory: "32Gi",
        labels: &[("node.kubernetes.io/lifecycle", "spot")],
        taints: &[("spot", "true", "PreferNoSchedule")],
    },
    Pool {
        name: "batch",
        weight: 6,
        instance_type: "c6i.4xlarge",
        cpu: "16",
        memory: "32Gi",
        labels: &[("workload-type", "batch")],
        taints: &[("workload-type", "batch", "NoExecute")],
    },
];

/// (key, operator, value, effect); empty strings are left out.
type Tol = (&'static str, &'static str, &'static str, &'static str);

/// One kind of agent as its chart installs it.
pub struct Entry {
    pub name: &'static str,
    pub namespace: &'static str,
    pub image: &'static str,
    pub tolerations: &'static [Tol],
    pub node_selector: &'static [(&'static str, &'static str)],
    /// Required node affinity, one term: (key, operator, values); `ZONE` stands for the
    /// first generated zone.
    pub affinity: &'static [(&'static str, &'static str, &'static [&'static str])],
    pub host_network: bool,
}

const ALL: &[Tol] = &[("", "Exists", "", "")];
const CP: Tol = (names::CONTROL_PLANE_ROLE_LABEL, "Exists", "", "NoSchedule");
/// Placeholder in `Entry::affinity` values for the first zone of the generated cluster.
pub const ZONE: &str = "$zone";

/// The catalogue, cycled (with `-2`, `-3` suffixes) when more DaemonSets are asked for.
pub fn daemonsets() -> Vec<Entry> {
    vec![
        Entry {
            name: "kube-proxy",
            namespace: "kube-system",
            image: "registry.k8s.io/kube-proxy:v1.37.0",
            tolerations: ALL,
            node_selector: &[("kubernetes.io/os", "linux")],
            affinity: &[],
            host_network: true,
        },
        Entry {
            name: "calico-node",
            namespace: "calico-system",
            image: "docker.io/calico/node:v3.29.1",
            tolerations: &[
                ("", "Exists", "", "NoSchedule"),
                ("", "Exists", "", "NoExecute"),
                ("CriticalAddonsOnly", "Exists", "", ""),
            ],
            node_selector: &[("kubernetes.io/os", "linux")],
            affinity: &[],
            host_network: true,
        },
        Entry {
            name: "log-collector",
            namespace: "logging",
            image: "cr.fluentbit.io/fluent/fluent-bit:3.2.4",
            tolerations: &[],
            node_selector: &[],
            affinity: &[],
            host_network: false,
        },
        Entry {
            name: "node-exporter",
            namespace: "monitoring",
            image: "quay.io/prometheus/node-exporter:v1.8.2",
            tolerations: ALL,
            node_selector: &[],
            affinity: &[],
            host_network: true,
        },
        Entry {
            name: "speaker",
            namespace: "metallb-system",
            image: "quay.io/metallb/speaker:v0.14.9",
            tolerations: &[
                CP,
                ("node-role.kubernetes.io/master", "Exists", "", "NoSchedule"),
            ],
            node_selector: &[("kubernetes.io/os", "linux")],
            affinity: &[],
            host_network: true,
        },
        Entry {
            name: "ebs-csi-node",
            namespace: "kube-system",
            image: "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.37.0",
            tolerations: &[
                ("CriticalAddonsOnly", "Exists", "", ""),
                ("", "Exists", "", "NoExecute"),
            ],
            node_selector: &[("kubernetes.io/os", "linux")],
            affinity: &[],
            host_network: false,
        },
        Entry {
            name: "gpu-monitor",
            namespace: "monitoring",
            image: "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04",
            tolerations: &[("nvidia.com/gpu", "Exists", "", "NoSchedule")],
            node_selector: &[("workload-type", "gpu")],
            affinity: &[],
            host_network: false,
        },
        Entry {
            name: "nvidia-device-plugin",
            namespace: "kube-system",
            image: "nvcr.io/nvidia/k8s-device-plugin:v0.17.0",
            tolerations: &[("nvidia.com/gpu", "Exists", "", "NoSchedule")],
            node_selector: &[],
            affinity: &[("nvidia.com/gpu.present", "In", &["true"])],
            host_network: false,
        },
        Entry {
            name: "falco",
            namespace: "security",
            image: "docker.io/falcosecurity/falco:0.39.2",
            tolerations: &[("dedicated", "Equal", "infra", "NoSchedule"), CP],
            node_selector: &[],
            affinity: &[],
            host_network: false,
        },
        Entry {
            name: "engine-image",
            namespace: "longhorn-system",
            image: "longhornio/longhorn-engine:v1.8.1",
            tolerations: &[],
            node_selector: &[],
            affinity: &[
                ("kubernetes.io/os", "In", &["linux"]),
                ("workload-type", "NotIn", &["gpu", "batch"]),
            ],
            host_network: false,
        },
        Entry {
            name: "datadog-agent",
            namespace: "datadog",
            image: "gcr.io/datadoghq/agent:7.60.0",
            tolerations: &[("spot", "Equal", "true", "PreferNoSchedule")],
            node_selector: &[],
            affinity: &[],
            host_network: false,
        },
        Entry {
            name: "zone-cache",
            namespace: "kube-system",
            image: "registry.k8s.io/dns/k8s-dns-node-cache:1.24.0",
            tolerations: &[],
            node_selector: &[],
            affinity: &[(names::ZONE_LABEL, "In", &[ZONE])],
            host_network: true,
        },
        Entry {
            name: "infra-agent",
            namespace: "infra",
            image: "docker.io/example/infra-agent:2.4.1",
            tolerations: &[("dedicated", "Equal", "infra", "NoSchedule")],
            node_selector: &[("dedicated", "infra")],
            affinity: &[],
            host_network: false,
        },
        Entry {
            name: "batch-cleaner",
            namespace: "batch-system",
            image: "docker.io/example/batch-cleaner:0.9.3",
            tolerations: &[("workload-type", "Equal", "batch", "NoExecute")],
            node_selector: &[("workload-type", "batch")],
            affinity: &[],
            host_network: false,
        },
        Entry {
            name: "node-problem-detector",
            namespace: "kube-system",
            image: "registry.k8s.io/node-problem-detector/node-problem-detector:v0.8.20",
            tolerations: &[
                ("", "Exists", "", "NoExecute"),
                ("CriticalAddonsOnly", "Exists", "", ""),
            ],
            node_selector: &[],
            affinity: &[("workload-type", "DoesNotExist", &[])],
            host_network: false,
        },
    ]
}

/// A random update strategy, weighted as they appear in charts: mostly maxUnavailable 1.
pub fn strategy(rng: &mut ChaCha8Rng) -> DaemonSetUpdateStrategy {
    let rolling = |unavailable: IntOrString, surge: IntOrString| DaemonSetUpdateStrategy {
        type_: Some("RollingUpdate".into()),
        rolling_update: Some(RollingUpdateDaemonSet {
            max_unavailable: Some(unavailable),
            max_surge: Some(surge),
        }),
    };
    match rng.random_range(0..10) {
        0..=5 => rolling(IntOrString::Int(1), IntOrString::Int(0)),
        6 => rolling(IntOrString::String("10%".into()), IntOrString::Int(0)),
        7 => rolling(IntOrString::Int(0), IntOrString::Int(1)),
        8 => rolling(IntOrString::Int(0), IntOrString::String("5%".into())),
        _ => DaemonSetUpdateStrategy {
            type_: Some("OnDelete".into()),
            rolling_update: None,
        },
    }
}

/// A DaemonSet object for a catalogue entry.
pub fn daemonset(
    entry: &Entry,
    name: &str,
    strategy: DaemonSetUpdateStrategy,
    zones: &[String],
    rng: &mut ChaCha8Rng,
) -> DaemonSet {
    let labels = BTreeMap::from([("app.kubernetes.io/name".to_string(), name.to_string())]);
    let tolerations: Vec<Toleration> = entry
        .tolerations
        .iter()
        .map(|(key, operator, value, effect)| Toleration {
            key: opt(key),
            operator: opt(operator),
            value: opt(value),
            effect: opt(effect),
            toleration_seconds: (*operator == "Exists" && key.is_empty() && *effect == "NoExecute")
                .then_some(300),
        })
        .collect();
    let node_selector: BTreeMap<String, String> = entry
        .node_selector
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let affinity = (!entry.affinity.is_empty()).then(|| Affinity {
        node_affinity: Some(NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(
                        entry
                            .affinity
                            .iter()
                            .map(|(key, op, values)| NodeSelectorRequirement {
                                key: key.to_string(),
                                operator: op.to_string(),
                                values: (!values.is_empty()).then(|| {
                                    values
                                        .iter()
                                        .map(|v| {
                                            if *v == ZONE {
                                                zones[0].clone()
                                            } else {
                                                v.to_string()
                                            }
                                        })
                                        .collect()
                                }),
                            })
                            .collect(),
                    ),
                    match_fields: None,
                }],
            }),
            ..Default::default()
        }),
        ..Default::default()
    });
    let requests = BTreeMap::from([
        (
            "cpu".to_string(),
            Quantity(format!("{}m", 10 * rng.random_range(1..=10))),
        ),
        (
            "memory".to_string(),
            Quantity(format!("{}Mi", 32 * rng.random_range(1..=8))),
        ),
    ]);
    DaemonSet {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: Some(entry.namespace.to_string()),
            labels: Some(labels.clone()),
            ..Default::default()
        },
        spec: DaemonSetSpec {
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                match_expressions: None,
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: entry.name.to_string(),
                        image: Some(entry.image.to_string()),
                        resources: Some(ResourceRequirements {
                            requests: Some(requests),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }],
                    host_network: entry.host_network.then_some(true),
                    node_selector: (!node_selector.is_empty()).then_some(node_selector),
                    tolerations: (!tolerations.is_empty()).then_some(tolerations),
                    affinity,
                    ..Default::default()
                }),
            },
            update_strategy: Some(strategy),
            revision_history_limit: Some(10),
            min_ready_seconds: None,
        },
        status: None,
    }
}

fn opt(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// The image of the next patch release (`repo:v1.8.2` -> `repo:v1.8.3`), or `-next` appended
/// to a tag that is not a version.
pub fn next_version(image: &str) -> String {
    let Some((repo, tag)) = image.rsplit_once(':').filter(|(_, t)| !t.contains('/')) else {
        return format!("{image}:next");
    };
    let (head, last) = match tag.rsplit_once('.') {
        Some((head, last)) => (format!("{head}."), last),
        None => (String::new(), tag),
    };
    let digits: String = last.chars().take_while(char::is_ascii_digit).collect();
    match digits.parse::<u64>() {
        Ok(n) => format!("{repo}:{head}{}{}", n + 1, &last[digits.len()..]),
        Err(_) => format!("{repo}:{tag}-next"),
    }
}
