//! The Events a kubelet and the node lifecycle controller write about daemon pods and nodes,
//! with the reasons and messages of the real components, so the dashboard's "Recent events"
//! and `kubectl describe` explain a stalled rollout the way a real cluster would.
//!
//! Why only the warnings for pods: a real kubelet also writes Scheduled, Pulling, Pulled,
//! Created and Started for every pod, five Events per pod that would make a 5,000-node
//! simulation hold 450,000 Events and say nothing a user of this dashboard needs. The failures
//! (BackOff, Failed, Unhealthy) are the ones that explain a cell, and they repeat on one Event
//! with a growing count, as the recorder folds them.

use super::pod::Step;
use crate::recorder::Note;
use crate::scenario::settings::{FailureMode, SimulationSettings};
use k8s_openapi::api::core::v1::Pod;

/// kubelet's `format.Pod`: `name_namespace(uid)`.
fn pod_label(pod: &Pod) -> String {
    let meta = &pod.metadata;
    format!(
        "{}_{}({})",
        meta.name.as_deref().unwrap_or_default(),
        meta.namespace.as_deref().unwrap_or_default(),
        meta.uid.as_deref().unwrap_or_default()
    )
}

/// The kubelet's warnings after `step` for the pod's containers whose image is set to fail:
/// `BackOff` for a crash loop (kuberuntime `doBackOff`), `Failed` and `BackOff` for an image
/// that cannot be pulled (image manager), `Unhealthy` for a readiness probe that never passes
/// (prober). Nothing for a healthy container.
pub fn step_notes(pod: &Pod, step: Step, settings: &SimulationSettings) -> Vec<Note> {
    let containers = pod.spec.iter().flat_map(|s| s.containers.iter());
    let mut notes = Vec::new();
    for container in containers {
        let image = container.image.as_deref().unwrap_or_default();
        let Some(failing) = settings.failure_for(image) else {
            continue;
        };
        match (failing.mode, step) {
            (FailureMode::CrashLoopBackOff, Step::Start | Step::Restart) => {
                notes.push(Note::warning(
                    "BackOff",
                    format!(
                        "Back-off restarting failed container {} in pod {}",
                        container.name,
                        pod_label(pod)
                    ),
                ))
            }
            (FailureMode::ImagePullBackOff, Step::Start) => {
                notes.push(Note::warning(
                    "Failed",
                    format!("Failed to pull image {image:?}: not found"),
                ));
                notes.push(Note::warning(
                    "BackOff",
                    format!("Back-off pulling image {image:?}"),
                ));
            }
            (FailureMode::NeverReady, Step::Start) => notes.push(Note::warning(
                "Unhealthy",
                format!(
                    "Readiness probe failed: {}",
                    failing
                        .message
                        .as_deref()
                        .unwrap_or("HTTP probe failed with statuscode: 503")
                ),
            )),
            _ => {}
        }
    }
    notes
}

/// The node lifecycle controller's event on a node whose Ready condition changed
/// (`RecordNodeStatusChange`): Normal, reason `NodeReady` or `NodeNotReady`.
pub fn node_status_note(node: &str, ready: bool) -> Note {
    let status = if ready { "NodeReady" } else { "NodeNotReady" };
    Note::normal(status, format!("Node {node} status is now: {status}"))
}

/// The node lifecycle controller's warning on each pod it marks not ready (`MarkPodsNotReady`).
pub fn pod_marked_not_ready_note() -> Note {
    Note::warning("NodeNotReady", "Node is not ready".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::testing::object;
    use crate::recorder::Severity;
    use crate::scenario::settings::FailingImage;

    fn pod(image: &str) -> Pod {
        object(serde_json::json!({
            "metadata": {"name": "agent-x7", "namespace": "kube-system", "uid": "u-1"},
            "spec": {"containers": [{"name": "agent", "image": image}, {"name": "sidecar", "image": "ok:1"}]}
        }))
    }

    fn failing(mode: FailureMode, message: Option<&str>) -> SimulationSettings {
        SimulationSettings {
            failing_images: vec![FailingImage {
                image: "bad:2".into(),
                mode,
                message: message.map(str::to_string),
            }],
            ..SimulationSettings::default()
        }
    }

    #[test]
    fn a_crash_loop_backs_off_on_every_start_and_restart_with_the_kubelets_message() {
        let settings = failing(FailureMode::CrashLoopBackOff, None);
        for step in [Step::Start, Step::Restart] {
            let notes = step_notes(&pod("bad:2"), step, &settings);
            assert_eq!(
                notes,
                vec![Note {
                    severity: Severity::Warning,
                    reason: "BackOff",
                    message:
                        "Back-off restarting failed container agent in pod agent-x7_kube-system(u-1)"
                            .into(),
                }],
                "{step:?}"
            );
        }
    }

    #[test]
    fn an_unpullable_image_fails_then_backs_off_and_a_never_ready_one_is_unhealthy() {
        let pull = step_notes(
            &pod("bad:2"),
            Step::Start,
            &failing(FailureMode::ImagePullBackOff, None),
        );
        let reasons: Vec<_> = pull.iter().map(|n| n.reason).collect();
        assert_eq!(reasons, vec!["Failed", "BackOff"]);
        assert_eq!(pull[1].message, "Back-off pulling image \"bad:2\"");

        let probe = step_notes(
            &pod("bad:2"),
            Step::Start,
            &failing(
                FailureMode::NeverReady,
                Some("Get \"http://10.0.0.1:9100/\": connection refused"),
            ),
        );
        assert_eq!(probe.len(), 1);
        assert_eq!(probe[0].reason, "Unhealthy");
        assert_eq!(
            probe[0].message,
            "Readiness probe failed: Get \"http://10.0.0.1:9100/\": connection refused"
        );
    }

    #[test]
    fn healthy_images_and_other_steps_record_nothing() {
        let settings = failing(FailureMode::CrashLoopBackOff, None);
        assert!(step_notes(&pod("ok:1"), Step::Start, &settings).is_empty());
        assert!(step_notes(&pod("bad:2"), Step::BecomeReady, &settings).is_empty());
        assert!(step_notes(&pod("bad:2"), Step::Bind, &settings).is_empty());
        let pull = failing(FailureMode::ImagePullBackOff, None);
        assert!(step_notes(&pod("bad:2"), Step::Restart, &pull).is_empty());
    }

    #[test]
    fn the_node_controller_names_the_new_status() {
        assert_eq!(
            node_status_note("worker-6", false).message,
            "Node worker-6 status is now: NodeNotReady"
        );
        assert_eq!(node_status_note("worker-6", true).reason, "NodeReady");
        assert_eq!(pod_marked_not_ready_note().severity, Severity::Warning);
    }
}
