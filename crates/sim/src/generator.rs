//! Large clusters on demand, from a one-line spec such as `nodes=5000,daemonsets=30,seed=1`.
//!
//! Why generated rather than stored: benchmarks and scripts name a cluster size in one
//! argument, and the same seed always gives the same cluster (node pools with realistic
//! labels, zones and taints; DaemonSets from a catalogue of real agents with their selectors and
//! tolerations). The generator writes Nodes and DaemonSets only: the DaemonSet controller then
//! schedules every pod, which is exactly what the "time to a fully scheduled cluster" benchmark
//! measures. A share of the DaemonSets gets a template update shortly after start (a
//! `SimulationSettings.updates` entry), some of them to an image that fails, so rollouts are in
//! progress and some stall, as in a real cluster on a busy day. With `blocked=SHARE`, an
//! admission policy rejects the log agent's pods on that share of one pool's nodes, so those
//! nodes lack it for good: the "which pools lack my log agent?" question at scale.

mod catalog;
mod quota;
mod workload;

use super::scenario::settings::{BlockedCreation, FailingImage, FailureMode, ScheduledUpdate};
use super::scenario::Scenario;
use crate::domain::names;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Namespace, Node, NodeSpec, NodeStatus, Taint};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::time::Duration;

/// A parsed `--generate` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateSpec {
    /// Total number of nodes, control plane included.
    pub nodes: usize,
    /// Number of DaemonSets.
    pub daemonsets: usize,
    /// Seed of the random choices; equal specs give equal clusters.
    pub seed: u64,
    /// Number of worker pools besides the control plane (general, highmem, gpu, infra, ...).
    pub pools: usize,
    /// Share (0..=1) of DaemonSets that get a template update after start.
    pub rollouts: f64,
    /// Number of availability zones.
    pub zones: usize,
    /// Share (0..=1) of those updates whose new image fails (the rollout stalls).
    pub failing: f64,
    /// Simulated time after start at which the updates are made.
    pub update_after: Duration,
    /// Share (0..=1) of one pool's nodes (`spot` when generated, else the last pool) on which
    /// an admission policy rejects the log agent's pods: they stay missing. 0 by default, so
    /// every other spec gives the cluster it always gave (and Kubernetes, which has no such
    /// policy installed, agrees with the sim in the differential tests).
    pub blocked: f64,
    /// Share (0..=1) of each untainted node's allocatable cpu and memory that one workload pod
    /// (not owned by a DaemonSet) requests; 0 (none) by default.
    pub workload: f64,
    /// Share (0..=1) of the node count the log agent's namespace may hold in pods (a
    /// ResourceQuota, `generator/quota.rs`); 0 (no quota) by default.
    pub quota: f64,
}

impl Default for GenerateSpec {
    fn default() -> Self {
        GenerateSpec {
            nodes: 100,
            daemonsets: 10,
            seed: 1,
            pools: 4,
            rollouts: 0.2,
            zones: 3,
            failing: 0.25,
            update_after: Duration::from_secs(30),
            blocked: 0.0,
            workload: 0.0,
            quota: 0.0,
        }
    }
}

/// Why a generate spec is rejected; the message names the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("generate spec {spec:?}: {message}")]
pub struct GenerateError {
    pub spec: String,
    pub message: String,
}

const KEYS: &str =
    "nodes, daemonsets, seed, pools, rollouts, zones, failing, updateAfter, blocked, workload, quota";

impl GenerateSpec {
    /// Parses `key=value,key=value`; every key is optional, unknown keys are an error.
    pub fn parse(text: &str) -> Result<GenerateSpec, GenerateError> {
        let fail = |message: String| GenerateError {
            spec: text.to_string(),
            message,
        };
        let mut spec = GenerateSpec::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| fail(format!("{part:?} is not key=value (keys: {KEYS})")))?;
            let (key, value) = (key.trim(), value.trim());
            let int = |max: usize| -> Result<usize, GenerateError> {
                let n: usize = value
                    .parse()
                    .map_err(|_| fail(format!("{key}={value:?}: expected a whole number")))?;
                if n > max {
                    return Err(fail(format!("{key}={n}: at most {max}")));
                }
                Ok(n)
            };
            let share = || -> Result<f64, GenerateError> {
                let n: f64 = value.parse().map_err(|_| {
                    fail(format!("{key}={value:?}: expected a share between 0 and 1"))
                })?;
                if !(0.0..=1.0).contains(&n) {
                    return Err(fail(format!(
                        "{key}={value}: expected a share between 0 and 1"
                    )));
                }
                Ok(n)
            };
            match key {
                "nodes" => spec.nodes = int(100_000)?,
                "daemonsets" => spec.daemonsets = int(1_000)?,
                "seed" => {
                    spec.seed = value
                        .parse()
                        .map_err(|_| fail(format!("seed={value:?}: expected a whole number")))?
                }
                "pools" => spec.pools = int(catalog::POOLS.len())?,
                "zones" => spec.zones = int(26)?,
                "rollouts" => spec.rollouts = share()?,
                "failing" => spec.failing = share()?,
                "blocked" => spec.blocked = share()?,
                "workload" => spec.workload = share()?,
                "quota" => spec.quota = share()?,
                "updateAfter" => {
                    spec.update_after = super::scenario::settings::parse_duration(value)
                        .map_err(|e| fail(format!("updateAfter: {e}")))?
                }
                other => return Err(fail(format!("unknown key {other:?} (keys: {KEYS})"))),
            }
        }
        if spec.nodes == 0 {
            return Err(fail("nodes=0: a cluster needs at least one node".into()));
        }
        if spec.zones == 0 {
            return Err(fail("zones=0: at least one zone".into()));
        }
        if spec.pools == 0 {
            return Err(fail("pools=0: at least one worker pool".into()));
        }
        Ok(spec)
    }
}

/// Parses a spec and generates its cluster.
pub fn generate_from_str(text: &str) -> Result<Scenario, GenerateError> {
    Ok(generate(&GenerateSpec::parse(text)?, text))
}

/// Generates the cluster of a spec; `label` names it in messages.
pub fn generate(spec: &GenerateSpec, label: &str) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let mut scenario = Scenario::empty(&format!("generated: {label}"));
    let zones: Vec<String> = (0..spec.zones)
        .map(|i| format!("eu-west-1{}", (b'a' + i as u8) as char))
        .collect();
    scenario.nodes = nodes(spec, &zones, &mut rng);
    scenario.pods = workload::pods(&scenario.nodes, spec.workload);

    let mut namespaces = std::collections::BTreeSet::new();
    if !scenario.pods.is_empty() {
        namespaces.insert(workload::NAMESPACE.to_string());
    }
    let catalogue = catalog::daemonsets();
    for i in 0..spec.daemonsets {
        let entry = &catalogue[i % catalogue.len()];
        let round = i / catalogue.len();
        let name = if round == 0 {
            entry.name.to_string()
        } else {
            format!("{}-{}", entry.name, round + 1)
        };
        namespaces.insert(entry.namespace.to_string());
        let strategy = catalog::strategy(&mut rng);
        scenario
            .daemonsets
            .push(catalog::daemonset(entry, &name, strategy, &zones, &mut rng));
    }
    scenario.namespaces = namespaces
        .into_iter()
        .map(|ns| Namespace {
            metadata: ObjectMeta {
                name: Some(ns),
                ..Default::default()
            },
            ..Default::default()
        })
        .collect();

    let updates = (spec.rollouts * spec.daemonsets as f64).round() as usize;
    let mut order: Vec<usize> = (0..scenario.daemonsets.len()).collect();
    order.shuffle(&mut rng);
    for (k, &i) in order.iter().take(updates).enumerate() {
        let ds = &scenario.daemonsets[i];
        let Some((container, image)) = first_container(ds) else {
            continue;
        };
        let new_image = catalog::next_version(&image);
        let fails = (k as f64) < spec.failing * updates as f64;
        if fails {
            scenario.settings.failing_images.push(FailingImage {
                image: new_image.clone(),
                mode: if k % 2 == 0 {
                    FailureMode::CrashLoopBackOff
                } else {
                    FailureMode::NeverReady
                },
                message: None,
            });
        }
        scenario.settings.updates.push(ScheduledUpdate {
            daemon_set: format!(
                "{}/{}",
                ds.metadata.namespace.as_deref().unwrap_or_default(),
                ds.metadata.name.as_deref().unwrap_or_default()
            ),
            container: Some(container),
            image: new_image,
            after: spec
                .update_after
                .saturating_add(Duration::from_secs(rng.random_range(0..30))),
        });
    }
    // Last, so the random draws above (and the cluster of every spec without `blocked`) stay
    // as they were.
    if let Some(blocked) = blocked_log_agent(spec, &scenario, &mut rng) {
        scenario.settings.blocked_creations.push(blocked);
    }
    scenario.resource_quotas.extend(quota::log_agent_quota(
        &scenario,
        BLOCKED_DAEMONSET,
        spec.quota,
    ));
    scenario
}

/// The DaemonSet whose pods `blocked=` rejects: the log agent, as an operator would ask
/// "which pools lack my log agent?" (the first DaemonSet when too few are generated).
const BLOCKED_DAEMONSET: &str = "log-collector";

/// The rejection `blocked=SHARE` asks for: the log agent on that share of the `spot` pool's
/// nodes (the last generated pool without spot), chosen at random; `None` for a share of 0.
fn blocked_log_agent(
    spec: &GenerateSpec,
    scenario: &Scenario,
    rng: &mut ChaCha8Rng,
) -> Option<BlockedCreation> {
    if spec.blocked <= 0.0 {
        return None;
    }
    let ds = scenario
        .daemonsets
        .iter()
        .find(|d| d.metadata.name.as_deref() == Some(BLOCKED_DAEMONSET))
        .or_else(|| scenario.daemonsets.first())?;
    let pools = &catalog::POOLS[..spec.pools.min(catalog::POOLS.len())];
    let pool = pools
        .iter()
        .find(|p| p.name == "spot")
        .or_else(|| pools.last())?;
    let mut in_pool: Vec<String> = scenario
        .nodes
        .iter()
        .filter(|n| {
            n.metadata
                .labels
                .as_ref()
                .and_then(|l| l.get(names::POOL_LABEL))
                .is_some_and(|p| p == pool.name)
        })
        .filter_map(|n| n.metadata.name.clone())
        .collect();
    let count = (spec.blocked * in_pool.len() as f64).round() as usize;
    if count == 0 {
        return None;
    }
    in_pool.shuffle(rng);
    in_pool.truncate(count);
    in_pool.sort();
    Some(BlockedCreation {
        daemon_set: format!(
            "{}/{}",
            ds.metadata.namespace.as_deref().unwrap_or_default(),
            ds.metadata.name.as_deref().unwrap_or_default()
        ),
        nodes: in_pool,
        // What a policy engine's admission webhook answers (the FailedCreate event carries it).
        message: format!(
            "admission webhook \"validate.policy.example.com\" denied the request: \
             {BLOCKED_DAEMONSET} may not run on {} nodes",
            pool.name
        ),
    })
}

fn first_container(ds: &DaemonSet) -> Option<(String, String)> {
    let c = ds.spec.template.spec.as_ref()?.containers.first()?;
    Some((c.name.clone(), c.image.clone()?))
}

fn nodes(spec: &GenerateSpec, zones: &[String], rng: &mut ChaCha8Rng) -> Vec<Node> {
    let control_plane = match spec.nodes {
        0..=3 => 1,
        4..=999 => 3,
        _ => 5,
    }
    .min(spec.nodes);
    let pools = &catalog::POOLS[..spec.pools];
    let weight_sum: u32 = pools.iter().map(|p| p.weight).sum();
    let workers = spec.nodes - control_plane;
    let mut out = Vec::with_capacity(spec.nodes);
    for i in 0..control_plane {
        let zone = &zones[i % zones.len()];
        let mut labels = base_labels(&format!("cp-{}", i + 1), zone, "m6i.2xlarge");
        labels.insert(names::CONTROL_PLANE_ROLE_LABEL.into(), String::new());
        let taints = vec![taint(names::CONTROL_PLANE_ROLE_LABEL, None, "NoSchedule")];
        out.push(node(
            format!("cp-{}", i + 1),
            labels,
            taints,
            false,
            true,
            "8",
            "32Gi",
        ));
    }
    // Pools get whole shares of the workers in order; the first pool takes the remainder.
    let mut counts: Vec<usize> = pools
        .iter()
        .map(|p| workers * p.weight as usize / weight_sum as usize)
        .collect();
    let assigned: usize = counts.iter().sum();
    counts[0] += workers - assigned;
    for (pool, count) in pools.iter().zip(counts) {
        for j in 0..count {
            let name = format!("{}-{:05}", pool.name, j + 1);
            let zone = &zones[j % zones.len()];
            let mut labels = base_labels(&name, zone, pool.instance_type);
            labels.insert(names::POOL_LABEL.into(), pool.name.into());
            for (k, v) in pool.labels {
                labels.insert((*k).into(), (*v).into());
            }
            let mut taints: Vec<Taint> = pool
                .taints
                .iter()
                .map(|(k, v, e)| taint(k, Some(v), e))
                .collect();
            // A few nodes are being drained, a few have gone NotReady: as on any big cluster.
            let roll: f64 = rng.random();
            let cordoned = roll < 0.005;
            let not_ready = (0.005..0.01).contains(&roll);
            if cordoned {
                taints.push(taint(names::TAINT_UNSCHEDULABLE, None, "NoSchedule"));
            }
            if not_ready {
                taints.push(taint(names::TAINT_NOT_READY, None, "NoSchedule"));
                taints.push(taint(names::TAINT_NOT_READY, None, "NoExecute"));
            }
            out.push(node(
                name,
                labels,
                taints,
                cordoned,
                !not_ready,
                pool.cpu,
                pool.memory,
            ));
        }
    }
    out
}

fn base_labels(name: &str, zone: &str, instance_type: &str) -> BTreeMap<String, String> {
    let region = zone.trim_end_matches(|c: char| c.is_ascii_lowercase());
    BTreeMap::from([
        (names::HOSTNAME_LABEL.to_string(), name.to_string()),
        ("kubernetes.io/os".to_string(), "linux".to_string()),
        ("kubernetes.io/arch".to_string(), "amd64".to_string()),
        (names::REGION_LABEL.to_string(), region.to_string()),
        (names::ZONE_LABEL.to_string(), zone.to_string()),
        (
            names::INSTANCE_TYPE_LABEL.to_string(),
            instance_type.to_string(),
        ),
    ])
}

fn taint(key: &str, value: Option<&str>, effect: &str) -> Taint {
    Taint {
        key: key.to_string(),
        value: value.map(str::to_string),
        effect: effect.to_string(),
        time_added: None,
    }
}

/// When every generated node joined (any fixed instant in the past will do).
const GENERATED_NODES_JOINED: &str = "2026-01-01T00:00:00Z";

fn node(
    name: String,
    labels: BTreeMap<String, String>,
    taints: Vec<Taint>,
    unschedulable: bool,
    ready: bool,
    cpu: &str,
    memory: &str,
) -> Node {
    let capacity = BTreeMap::from([
        ("cpu".to_string(), Quantity(cpu.to_string())),
        ("memory".to_string(), Quantity(memory.to_string())),
        ("pods".to_string(), Quantity("110".to_string())),
    ]);
    Node {
        metadata: ObjectMeta {
            name: Some(name),
            labels: Some(labels),
            // A generated cluster is an existing one: its nodes joined before the simulation
            // started (kept by `Store::restore`), so none is within a new-node grace.
            creation_timestamp: GENERATED_NODES_JOINED
                .parse()
                .ok()
                .map(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time),
            ..Default::default()
        },
        spec: Some(NodeSpec {
            taints: (!taints.is_empty()).then_some(taints),
            unschedulable: unschedulable.then_some(true),
            ..Default::default()
        }),
        status: Some(NodeStatus {
            allocatable: Some(capacity.clone()),
            capacity: Some(capacity),
            conditions: Some(vec![super::kubelet::ready_condition(ready, None)]),
            node_info: Some(super::kubelet::node_info()),
            ..Default::default()
        }),
    }
}

#[cfg(test)]
mod tests;
