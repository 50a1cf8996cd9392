//! One daemon pod in full, as the pod page (`/pod/NAMESPACE/NAME`) shows it.
//!
//! Why a type of its own and not `PodFacts`: the live store keeps a pod in bytes
//! (docs/architecture.md#scale), so the page reads the pod on demand and keeps only what a
//! person debugging a failing agent needs: phase, conditions, each container's state and
//! restarts. It has no field for env values, command lines, args, volumes or probes
//! (docs/architecture.md#read-only: nothing secret), so no page can show them by accident.
//! Every string in it is cluster text, bounded in length by the edge that fills it, and
//! rendered as text only.

use crate::facts::PodPhase;
use serde::{Deserialize, Serialize};

/// The pod page's data: identity, placement, revision, conditions and containers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodDetail {
    pub namespace: String,
    pub name: String,
    /// The node it runs on or is pinned to (§f `GetTargetNodeName`); None: not placed.
    pub node: Option<String>,
    pub phase: PodPhase,
    /// `status.reason` (`Evicted`, `NodeLost`), when the kubelet set one.
    pub reason: Option<String>,
    /// `namespace/name` of the DaemonSet that controls it (§f ownerReference), if any.
    pub owner: Option<String>,
    /// `controller-revision-hash` label (empty when absent).
    pub revision_hash: String,
    /// Whether it runs the DaemonSet's current revision (§d.4); None when the owner is not
    /// known to the dashboard, so the page does not guess.
    pub updated: Option<bool>,
    /// `status.qosClass` (`Guaranteed`, `Burstable`, `BestEffort`).
    pub qos_class: Option<String>,
    /// `spec.priorityClassName`.
    pub priority_class: Option<String>,
    /// `spec.priority`.
    pub priority: Option<i32>,
    /// creationTimestamp, unix seconds (0 when absent).
    pub created: i64,
    /// deletionTimestamp, unix seconds: set while the pod is terminating.
    pub deleting_since: Option<i64>,
    /// When the server read the pod, unix seconds: ages on the page are counted from it.
    pub read_at: i64,
    /// `status.conditions`, in the pod's order.
    pub conditions: Vec<PodCondition>,
    /// Init containers, in spec order, with their status.
    pub init_containers: Vec<ContainerDetail>,
    /// Containers, in spec order, with their status.
    pub containers: Vec<ContainerDetail>,
}

/// One `status.conditions` entry (`Ready`, `ContainersReady`, `PodScheduled`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodCondition {
    /// The condition's `type`.
    pub kind: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    pub reason: Option<String>,
    pub message: Option<String>,
    /// lastTransitionTime, unix seconds.
    pub last_transition: Option<i64>,
}

/// One container or init container: what it runs and how it is doing. Never its env,
/// command, args, mounts or probes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerDetail {
    pub name: String,
    /// The image the spec asks for (else the one the status reports).
    pub image: String,
    pub ready: bool,
    /// `started` (startup probe passed); None when the kubelet did not say.
    pub started: Option<bool>,
    pub restart_count: i32,
    pub state: ContainerState,
    /// `lastState.terminated`: why the previous run ended (OOMKilled, Error, exit code).
    pub last_termination: Option<Termination>,
}

/// A container's current state, as the kubelet reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ContainerState {
    /// Not running yet or any more: `CrashLoopBackOff`, `ImagePullBackOff`, `ContainerCreating`.
    Waiting {
        reason: Option<String>,
        message: Option<String>,
    },
    /// Running since `since` (unix seconds).
    Running { since: Option<i64> },
    /// Ended.
    Terminated(Termination),
    /// No status for this container yet (the pod is not on a kubelet).
    Unknown,
}

/// How one run of a container ended. Not its termination message: that is the container's
/// own output (a log), which the dashboard does not show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Termination {
    /// `Completed`, `Error`, `OOMKilled`, ...
    pub reason: Option<String>,
    pub exit_code: i32,
    /// finishedAt, unix seconds.
    pub finished: Option<i64>,
}

impl ContainerState {
    /// The short word the page shows: the waiting or terminated reason, else the state.
    pub fn label(&self) -> String {
        match self {
            ContainerState::Waiting { reason, .. } => {
                reason.clone().unwrap_or_else(|| "Waiting".to_string())
            }
            ContainerState::Running { .. } => "Running".to_string(),
            ContainerState::Terminated(t) => {
                t.reason.clone().unwrap_or_else(|| "Terminated".to_string())
            }
            ContainerState::Unknown => "no status yet".to_string(),
        }
    }

    /// True for a state a person should look at first: waiting for any reason other than
    /// ordinary start-up, or terminated with a non-zero exit code.
    pub fn is_trouble(&self) -> bool {
        match self {
            ContainerState::Waiting { reason, .. } => !matches!(
                reason.as_deref(),
                None | Some("ContainerCreating" | "PodInitializing")
            ),
            ContainerState::Terminated(t) => t.exit_code != 0,
            ContainerState::Running { .. } | ContainerState::Unknown => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(reason: Option<&str>) -> ContainerState {
        ContainerState::Waiting {
            reason: reason.map(str::to_string),
            message: None,
        }
    }

    #[test]
    fn a_back_off_or_a_failed_exit_stands_out_and_start_up_does_not() {
        let ended = |code| {
            ContainerState::Terminated(Termination {
                reason: None,
                exit_code: code,
                finished: None,
            })
        };
        let cases = [
            (waiting(Some("CrashLoopBackOff")), true, "CrashLoopBackOff"),
            (waiting(Some("ImagePullBackOff")), true, "ImagePullBackOff"),
            (
                waiting(Some("ContainerCreating")),
                false,
                "ContainerCreating",
            ),
            (waiting(None), false, "Waiting"),
            (ContainerState::Running { since: Some(1) }, false, "Running"),
            (ended(0), false, "Terminated"),
            (ended(137), true, "Terminated"),
            (ContainerState::Unknown, false, "no status yet"),
        ];
        for (state, trouble, label) in cases {
            assert_eq!(state.is_trouble(), trouble, "{state:?}");
            assert_eq!(state.label(), label, "{state:?}");
        }
    }
}
