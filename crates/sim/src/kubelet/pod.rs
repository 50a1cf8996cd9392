//! One pod's life as the scheduler and the kubelet drive it, as pure functions: which step is
//! next and what the pod looks like after it.
//!
//! Why pure and derived from the pod itself: the kubelet stand-in can pick up any pod (from a
//! scenario file, after a restart, after a missed watch event) and continue its life from what
//! the object says, and every step is unit-tested without a store or a clock.

use crate::scenario::settings::{FailureMode, SimulationSettings};
use k8s_openapi::api::core::v1::{
    ContainerState, ContainerStateRunning, ContainerStateTerminated, ContainerStateWaiting,
    ContainerStatus, Pod, PodCondition, PodStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use std::time::Duration;

/// The next thing that happens to a pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// The scheduler binds it to its target node.
    Bind,
    /// The kubelet has pulled the image and starts the containers (or fails to).
    Start,
    /// The readiness probe passes.
    BecomeReady,
    /// A crash-looping container is restarted (and crashes again).
    Restart,
    /// A terminating pod's containers have stopped: the object goes away.
    Remove,
}

/// What the kubelet knows about the pod's node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeState {
    Ready,
    /// The node's kubelet is down: nothing on it progresses.
    NotReady,
    /// No such node: the pod waits for the pod garbage collector.
    Missing,
}

/// The node a pod is for (§f `GetTargetNodeName`, from `cluster::convert`).
pub fn target_node(pod: &Pod) -> Option<String> {
    pod.spec
        .as_ref()
        .and_then(crate::edge::convert::target_node_name)
}

fn is_bound(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.node_name.as_ref())
        .is_some_and(|n| !n.is_empty())
}

fn images(pod: &Pod) -> impl Iterator<Item = (&str, &str)> {
    pod.spec
        .iter()
        .flat_map(|s| s.containers.iter())
        .map(|c| (c.name.as_str(), c.image.as_deref().unwrap_or_default()))
}

/// The failure mode of the pod's first failing image, if any.
fn failure(pod: &Pod, settings: &SimulationSettings) -> Option<FailureMode> {
    images(pod).find_map(|(_, image)| settings.failure_for(image).map(|f| f.mode))
}

fn condition_true(pod: &Pod, kind: &str) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == kind && c.status == "True"))
}

fn any_waiting(pod: &Pod, reason: &str) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .is_some_and(|cs| {
            cs.iter().any(|c| {
                c.state
                    .as_ref()
                    .and_then(|s| s.waiting.as_ref())
                    .and_then(|w| w.reason.as_deref())
                    == Some(reason)
            })
        })
}

fn phase(pod: &Pod) -> &str {
    pod.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("Pending")
}

/// The next step for a pod and how long (simulated) until it happens; `None` when the pod is
/// settled (ready, finished, stuck on a failing image or on a node that is down).
pub fn next_step(
    pod: &Pod,
    node: NodeState,
    settings: &SimulationSettings,
) -> Option<(Step, Duration)> {
    let k = &settings.kubelet;
    let terminating = pod.metadata.deletion_timestamp.is_some();
    if terminating {
        // A kubelet that is down cannot confirm the containers stopped: the pod stays
        // Terminating, as on a real cluster, until the node returns or is deleted.
        return match (is_bound(pod), node) {
            (true, NodeState::NotReady) => None,
            _ => Some((Step::Remove, k.termination_grace_period)),
        };
    }
    if matches!(phase(pod), "Succeeded" | "Failed") {
        return None;
    }
    if !is_bound(pod) {
        return match node {
            NodeState::Missing => None,
            _ => Some((Step::Bind, k.schedule_delay)),
        };
    }
    if node != NodeState::Ready {
        return None;
    }
    let running = phase(pod) == "Running";
    match failure(pod, settings) {
        Some(FailureMode::ImagePullBackOff) if any_waiting(pod, "ImagePullBackOff") => None,
        Some(FailureMode::CrashLoopBackOff) if running => {
            Some((Step::Restart, k.crash_loop_restart_interval))
        }
        Some(FailureMode::NeverReady) if running => None,
        _ if !running => Some((Step::Start, k.container_creating_delay)),
        None if !condition_true(pod, "Ready") => Some((
            Step::BecomeReady,
            settings.ready_delay_for(images(pod).map(|(_, image)| image)),
        )),
        _ => None,
    }
}

pub(super) fn condition(
    kind: &str,
    status: bool,
    now: Timestamp,
    reason: Option<&str>,
    message: Option<String>,
) -> PodCondition {
    PodCondition {
        type_: kind.into(),
        status: if status { "True" } else { "False" }.into(),
        last_transition_time: Some(Time(now)),
        reason: reason.map(str::to_string),
        message,
        ..Default::default()
    }
}

/// A kubelet reports an unready container twice, on ContainersReady and on Ready, with the
/// same reason and message; one place keeps the pair consistent.
fn set_containers_not_ready(status: &mut PodStatus, now: Timestamp, msg: String) {
    set_condition(
        status,
        condition(
            "ContainersReady",
            false,
            now,
            Some("ContainersNotReady"),
            Some(msg.clone()),
        ),
    );
    set_condition(
        status,
        condition("Ready", false, now, Some("ContainersNotReady"), Some(msg)),
    );
}

/// Sets a condition, keeping its lastTransitionTime when the status does not change.
pub(super) fn set_condition(status: &mut PodStatus, new: PodCondition) {
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    match conditions.iter_mut().find(|c| c.type_ == new.type_) {
        Some(old) if old.status == new.status => {
            old.reason = new.reason;
            old.message = new.message;
        }
        Some(old) => *old = new,
        None => conditions.push(new),
    }
}

fn unready_message(pod: &Pod) -> String {
    let names: Vec<&str> = images(pod).map(|(n, _)| n).collect();
    format!("containers with unready status: [{}]", names.join(" "))
}

/// The status after the scheduler bound the pod (the caller sets `spec.nodeName`): scheduled,
/// initialized, containers being created.
pub fn bound_status(pod: &Pod, host_ip: &str, now: Timestamp) -> PodStatus {
    let mut status = pod.status.clone().unwrap_or_default();
    status.phase = Some("Pending".into());
    status.host_ip = Some(host_ip.to_string());
    status.start_time = Some(Time(now));
    set_condition(
        &mut status,
        condition("PodScheduled", true, now, None, None),
    );
    set_condition(&mut status, condition("Initialized", true, now, None, None));
    let msg = unready_message(pod);
    set_containers_not_ready(&mut status, now, msg);
    status.container_statuses = Some(
        images(pod)
            .map(|(name, image)| ContainerStatus {
                name: name.into(),
                image: image.into(),
                state: Some(waiting("ContainerCreating", None)),
                ..Default::default()
            })
            .collect(),
    );
    status
}

fn waiting(reason: &str, message: Option<String>) -> ContainerState {
    ContainerState {
        waiting: Some(ContainerStateWaiting {
            reason: Some(reason.into()),
            message,
        }),
        ..Default::default()
    }
}

fn image_id(image: &str) -> String {
    use sha2::{Digest, Sha256};
    let repo = image.rsplit_once(':').map_or(image, |(r, _)| r);
    let digest = Sha256::digest(image.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{repo}@sha256:{hex}")
}

/// The status after `step` (Start, BecomeReady or Restart) at `now`; `pod_ip` is used when the
/// containers first start.
pub fn advance(
    pod: &Pod,
    step: Step,
    settings: &SimulationSettings,
    pod_ip: &str,
    now: Timestamp,
) -> PodStatus {
    let mut status = pod.status.clone().unwrap_or_default();
    let mode = failure(pod, settings);
    let msg = unready_message(pod);
    match step {
        Step::Start => {
            if mode == Some(FailureMode::ImagePullBackOff) {
                status.phase = Some("Pending".into());
            } else {
                status.phase = Some("Running".into());
                status.pod_ip = Some(pod_ip.to_string());
            }
            let statuses = images(pod)
                .map(|(name, image)| {
                    let failing = settings.failure_for(image);
                    let (state, started, last_state) =
                        match failing.map(|f| (f.mode, f.message.clone())) {
                            Some((FailureMode::ImagePullBackOff, m)) => (
                                waiting(
                                    "ImagePullBackOff",
                                    Some(m.unwrap_or_else(|| {
                                        format!("Back-off pulling image {image:?}")
                                    })),
                                ),
                                false,
                                None,
                            ),
                            Some((FailureMode::CrashLoopBackOff, m)) => (
                                waiting(
                                    "CrashLoopBackOff",
                                    Some(m.unwrap_or_else(|| {
                                        format!("back-off 10s restarting failed container={name}")
                                    })),
                                ),
                                false,
                                Some(terminated(now)),
                            ),
                            _ => (
                                ContainerState {
                                    running: Some(ContainerStateRunning {
                                        started_at: Some(Time(now)),
                                    }),
                                    ..Default::default()
                                },
                                true,
                                None,
                            ),
                        };
                    ContainerStatus {
                        name: name.into(),
                        image: image.into(),
                        image_id: image_id(image),
                        ready: false,
                        restart_count: i32::from(last_state.is_some()),
                        started: Some(started),
                        state: Some(state),
                        last_state,
                        ..Default::default()
                    }
                })
                .collect();
            status.container_statuses = Some(statuses);
            set_containers_not_ready(&mut status, now, msg);
        }
        Step::BecomeReady => {
            for c in status.container_statuses.iter_mut().flatten() {
                c.ready = true;
                c.started = Some(true);
            }
            set_condition(
                &mut status,
                condition("ContainersReady", true, now, None, None),
            );
            set_condition(&mut status, condition("Ready", true, now, None, None));
        }
        Step::Restart => {
            for c in status.container_statuses.iter_mut().flatten() {
                if settings
                    .failure_for(&c.image)
                    .is_some_and(|f| f.mode == FailureMode::CrashLoopBackOff)
                {
                    c.restart_count = c.restart_count.saturating_add(1);
                    c.last_state = Some(terminated(now));
                }
            }
        }
        Step::Bind | Step::Remove => {}
    }
    status
}

fn terminated(now: Timestamp) -> ContainerState {
    ContainerState {
        terminated: Some(ContainerStateTerminated {
            exit_code: 1,
            reason: Some("Error".into()),
            started_at: Some(Time(now)),
            finished_at: Some(Time(now)),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The status the node lifecycle controller writes on the pods of a node that went NotReady:
/// Ready False (reason NodeNotReady), containers kept as they were.
pub fn node_not_ready_status(pod: &Pod, now: Timestamp) -> Option<PodStatus> {
    if !condition_true(pod, "Ready") {
        return None;
    }
    let mut status = pod.status.clone().unwrap_or_default();
    set_condition(
        &mut status,
        condition(
            "Ready",
            false,
            now,
            Some("NodeNotReady"),
            Some("node is not ready".into()),
        ),
    );
    Some(status)
}

#[cfg(test)]
mod tests;
