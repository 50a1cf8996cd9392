//! Node health as the kubelet reports it and the node lifecycle controller reacts to it: the
//! Ready condition and the `not-ready` taints.
//!
//! Why both here: on a real cluster the two are different components, but the dashboard only
//! sees their combined effect (a NotReady node carries `node.kubernetes.io/not-ready` with
//! effects NoSchedule and NoExecute, §a.6), and the sim must produce exactly that.

use super::NodeState;
use crate::domain::names;
use crate::store::{Store, StoreError};
use k8s_openapi::api::core::v1::{Node, NodeCondition, NodeSystemInfo, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

/// A Ready condition as the kubelet posts it.
pub fn ready_condition(ready: bool, now: Option<Timestamp>) -> NodeCondition {
    let time = now.map(Time);
    NodeCondition {
        type_: "Ready".into(),
        status: if ready { "True" } else { "False" }.into(),
        reason: Some(if ready { "KubeletReady" } else { "KubeletNotReady" }.into()),
        message: Some(
            if ready {
                "kubelet is posting ready status"
            } else {
                "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady"
            }
            .into(),
        ),
        last_heartbeat_time: time.clone(),
        last_transition_time: time,
    }
}

/// The `nodeInfo` block every simulated kubelet reports (`kubectl get nodes` shows VERSION).
pub fn node_info() -> NodeSystemInfo {
    NodeSystemInfo {
        architecture: "amd64".into(),
        container_runtime_version: "containerd://2.0.4".into(),
        kernel_version: "6.1.0-28-cloud-amd64".into(),
        kubelet_version: "v1.37.0".into(),
        operating_system: "linux".into(),
        os_image: "Debian GNU/Linux 12 (bookworm)".into(),
        ..Default::default()
    }
}

/// Whether the node's Ready condition is True. A node without conditions (a hand-written
/// manifest) counts as ready, as its kubelet would post Ready on start.
pub fn is_node_ready(node: &Node) -> bool {
    let conditions = node.status.as_ref().and_then(|s| s.conditions.as_ref());
    match conditions.and_then(|c| c.iter().find(|c| c.type_ == "Ready")) {
        Some(c) => c.status == "True",
        None => true,
    }
}

/// Why a node's readiness could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum NodeHealthError {
    #[error("node {0} does not exist")]
    NotFound(String),
    #[error("updating node {node}: {source}")]
    Store {
        node: String,
        #[source]
        source: StoreError,
    },
}

/// Turns a node NotReady (its kubelet stops posting Ready) or back to Ready, with the node
/// lifecycle controller's `not-ready` NoSchedule and NoExecute taints added or removed.
///
/// The kubelet's heartbeat and the node lifecycle pass write the same node, so a write can
/// meet a newer resourceVersion: like client-go's `retry.RetryOnConflict` (5 tries), it reads
/// the node again and repeats.
pub fn set_node_ready(
    store: &Store,
    name: &str,
    ready: bool,
    now: Timestamp,
) -> Result<(), NodeHealthError> {
    let mut tries = 1;
    loop {
        match try_set_node_ready(store, name, ready, now) {
            Err(NodeHealthError::Store {
                source: StoreError::Conflict { .. },
                ..
            }) if tries < 5 => {
                tries += 1;
                // client-go's retry.DefaultRetry waits 10 ms between tries.
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// One read-modify-write of [`set_node_ready`].
fn try_set_node_ready(
    store: &Store,
    name: &str,
    ready: bool,
    now: Timestamp,
) -> Result<(), NodeHealthError> {
    let wrap = |source| NodeHealthError::Store {
        node: name.to_string(),
        source,
    };
    let mut node: Node = store
        .get(None, name)
        .ok_or_else(|| NodeHealthError::NotFound(name.to_string()))?;
    // Status first (the kubelet's condition), then spec (the node lifecycle controller's
    // taints), in the order the two happen in a cluster. The other order races the sim's own
    // node lifecycle controller: it sees not-ready taints beside a Ready condition and removes
    // them before the condition is written.
    let status = node.status.get_or_insert_with(Default::default);
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    conditions.retain(|c| c.type_ != "Ready");
    conditions.push(ready_condition(ready, Some(now)));
    let mut node = store.update_status(node).map_err(wrap)?;
    let spec = node.spec.get_or_insert_with(Default::default);
    let mut taints = spec.taints.take().unwrap_or_default();
    let had_ours = taints.iter().any(|t| t.key == names::TAINT_NOT_READY);
    taints.retain(|t| t.key != names::TAINT_NOT_READY);
    if !ready {
        for effect in ["NoSchedule", "NoExecute"] {
            taints.push(Taint {
                key: names::TAINT_NOT_READY.into(),
                value: None,
                effect: effect.into(),
                time_added: Some(Time(now)),
            });
        }
    }
    if ready && !had_ours {
        return Ok(());
    }
    spec.taints = (!taints.is_empty()).then_some(taints);
    store.update(node).map_err(wrap)?;
    Ok(())
}

/// A stable address in `prefix.x.y` derived from a name.
pub(super) fn synthetic_ip(prefix: &str, name: &str) -> String {
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!("{prefix}.{}.{}", (h >> 8) % 256, h % 254 + 1)
}

/// The kubelet stand-in's (and its scheduler's) record of each node.
impl super::Kubelet {
    pub(super) fn remember_node(&mut self, node: &Node) {
        let Some(name) = node.metadata.name.clone() else {
            return;
        };
        let ip = node
            .status
            .as_ref()
            .and_then(|s| s.addresses.as_ref())
            .and_then(|a| a.iter().find(|a| a.type_ == "InternalIP"))
            .map(|a| a.address.clone())
            .unwrap_or_else(|| synthetic_ip("10.0", &name));
        self.rooms.node(node);
        self.node_ips.insert(name.clone(), ip);
        self.nodes.insert(name, is_node_ready(node));
    }

    pub(super) fn node_state(&self, node: Option<&str>) -> NodeState {
        match node.and_then(|n| self.nodes.get(n)) {
            Some(true) => NodeState::Ready,
            Some(false) => NodeState::NotReady,
            None => NodeState::Missing,
        }
    }
}
