//! core/v1 Pod -> [`PodDetail`], the pod page's view of one daemon pod read on demand.
//!
//! Why here: a Kubernetes object becoming a domain value is the edge's one job. Why field by
//! field into a type with no room for them: the pod page must never show env values,
//! command lines, args, volumes, mounts or probe commands (docs/architecture.md#read-only:
//! nothing secret), so nothing here copies a container spec wholesale. Every string is cluster
//! text, cut to a bound like an Event's message, and the lists are capped: a hostile pod
//! cannot make the page or its answer large.

use super::events::{cut, MAX_MESSAGE, MAX_REASON};
use super::{daemonset_owner, pod_phase, target_node_name, unix_seconds};
use crate::domain::names;
use crate::domain::view::{ContainerDetail, ContainerState, PodCondition, PodDetail, Termination};
use k8s_openapi::api::core::v1::{self as core, Pod};

/// Longest name kept (a DNS subdomain is at most 253 bytes), in bytes.
const MAX_NAME: usize = 253;
/// Longest image reference kept, in bytes.
const MAX_IMAGE: usize = 512;
/// At most this many conditions, init containers and containers are kept each.
const MAX_ITEMS: usize = 64;

fn name(text: &str) -> String {
    cut(text, MAX_NAME)
}

fn reason(text: Option<&String>) -> Option<String> {
    text.map(|t| cut(t, MAX_REASON))
}

fn message(text: Option<&String>) -> Option<String> {
    text.map(|t| cut(t, MAX_MESSAGE))
}

/// The pod page's view of `pod`, read at `now` (unix seconds). `updated` is left None: only
/// the live store knows the owner's current revision (§d.4), and the caller fills it in.
pub fn pod_detail(pod: &Pod, now: i64) -> PodDetail {
    let meta = &pod.metadata;
    let spec = pod.spec.as_ref();
    let status = pod.status.as_ref();
    let namespace = meta.namespace.as_deref().unwrap_or_default();
    PodDetail {
        namespace: name(namespace),
        name: name(meta.name.as_deref().unwrap_or_default()),
        node: spec.and_then(target_node_name).map(|n| name(&n)),
        phase: pod_phase(status.and_then(|s| s.phase.as_deref())),
        reason: reason(status.and_then(|s| s.reason.as_ref())),
        owner: daemonset_owner(pod).map(|r| name(&format!("{namespace}/{}", r.name))),
        revision_hash: meta
            .labels
            .as_ref()
            .and_then(|l| l.get(names::CONTROLLER_REVISION_HASH))
            .map(|h| cut(h, MAX_REASON))
            .unwrap_or_default(),
        updated: None,
        qos_class: reason(status.and_then(|s| s.qos_class.as_ref())),
        priority_class: spec
            .and_then(|s| s.priority_class_name.as_deref())
            .map(name),
        priority: spec.and_then(|s| s.priority),
        created: meta
            .creation_timestamp
            .as_ref()
            .map(unix_seconds)
            .unwrap_or(0),
        deleting_since: meta.deletion_timestamp.as_ref().map(unix_seconds),
        read_at: now,
        conditions: status
            .and_then(|s| s.conditions.as_ref())
            .into_iter()
            .flatten()
            .take(MAX_ITEMS)
            .map(condition)
            .collect(),
        init_containers: containers(
            spec.map(|s| s.init_containers.as_deref().unwrap_or_default()),
            status.and_then(|s| s.init_container_statuses.as_deref()),
        ),
        containers: containers(
            spec.map(|s| s.containers.as_slice()),
            status.and_then(|s| s.container_statuses.as_deref()),
        ),
    }
}

fn condition(c: &core::PodCondition) -> PodCondition {
    PodCondition {
        kind: cut(&c.type_, MAX_REASON),
        status: cut(&c.status, MAX_REASON),
        reason: reason(c.reason.as_ref()),
        message: message(c.message.as_ref()),
        last_transition: c.last_transition_time.as_ref().map(unix_seconds),
    }
}

/// The spec's containers in order, each with its status by name; a status whose container
/// the spec does not list (no spec at all, say) is still shown.
fn containers(
    spec: Option<&[core::Container]>,
    statuses: Option<&[core::ContainerStatus]>,
) -> Vec<ContainerDetail> {
    let spec = spec.unwrap_or_default();
    let statuses = statuses.unwrap_or_default();
    let from_spec = spec.iter().map(|c| {
        let status = statuses.iter().find(|s| s.name == c.name);
        container(&c.name, c.image.as_deref(), status)
    });
    let status_only = statuses
        .iter()
        .filter(|s| !spec.iter().any(|c| c.name == s.name))
        .map(|s| container(&s.name, None, Some(s)));
    from_spec.chain(status_only).take(MAX_ITEMS).collect()
}

fn container(
    container_name: &str,
    spec_image: Option<&str>,
    status: Option<&core::ContainerStatus>,
) -> ContainerDetail {
    let image = spec_image
        .filter(|i| !i.is_empty())
        .or(status.map(|s| s.image.as_str()))
        .unwrap_or_default();
    ContainerDetail {
        name: name(container_name),
        image: cut(image, MAX_IMAGE),
        ready: status.is_some_and(|s| s.ready),
        started: status.and_then(|s| s.started),
        restart_count: status.map(|s| s.restart_count).unwrap_or(0),
        state: status
            .and_then(|s| s.state.as_ref())
            .map(state)
            .unwrap_or(ContainerState::Unknown),
        last_termination: status
            .and_then(|s| s.last_state.as_ref())
            .and_then(|s| s.terminated.as_ref())
            .map(termination),
    }
}

/// The one state the kubelet set; waiting wins over running over terminated if a broken
/// status carries several.
fn state(s: &core::ContainerState) -> ContainerState {
    if let Some(w) = &s.waiting {
        ContainerState::Waiting {
            reason: reason(w.reason.as_ref()),
            message: message(w.message.as_ref()),
        }
    } else if let Some(r) = &s.running {
        ContainerState::Running {
            since: r.started_at.as_ref().map(unix_seconds),
        }
    } else if let Some(t) = &s.terminated {
        ContainerState::Terminated(termination(t))
    } else {
        ContainerState::Unknown
    }
}

/// Reason, exit code and end time; never `message` (the container's own termination log).
fn termination(t: &core::ContainerStateTerminated) -> Termination {
    Termination {
        reason: reason(t.reason.as_ref()),
        exit_code: t.exit_code,
        finished: t.finished_at.as_ref().map(unix_seconds),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::PodPhase;
    use serde_json::json;

    fn pod(v: serde_json::Value) -> Pod {
        serde_json::from_value(v).unwrap()
    }

    const SECRET: &str = "hunter2-s3cr3t-token";

    /// A crash-looping daemon pod of `kube-system/log-collector` on worker-1, whose spec
    /// carries the secret in every place the page must not show.
    fn crash_looping() -> Pod {
        let exec = json!({"exec": {"command": ["sh", "-c", format!("check --token={SECRET}")]}});
        pod(json!({
            "metadata": {
                "name": "log-collector-abcde", "namespace": "kube-system", "uid": "p1",
                "creationTimestamp": "2026-01-01T00:00:00Z",
                "labels": {"controller-revision-hash": "7d9f", "app": "log"},
                "annotations": {"note": SECRET},
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "Node", "name": "not-me", "uid": "n"},
                    {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "log-collector",
                     "uid": "d1", "controller": true}
                ]
            },
            "spec": {
                "nodeName": "worker-1",
                "priorityClassName": "system-node-critical", "priority": 2000001000,
                "initContainers": [{
                    "name": "setup", "image": "busybox:1.36",
                    "command": ["sh", "-c", format!("echo {SECRET}")],
                    "env": [{"name": "TOKEN", "value": SECRET}]
                }],
                "containers": [{
                    "name": "fluent-bit", "image": "fluent-bit:3.2",
                    "command": ["/bin/fluent-bit", format!("--password={SECRET}")],
                    "args": [format!("--token={SECRET}")],
                    "env": [{"name": "API_TOKEN", "value": SECRET}],
                    "volumeMounts": [{"name": "creds", "mountPath": format!("/{SECRET}")}],
                    "livenessProbe": exec, "readinessProbe": exec, "startupProbe": exec
                }],
                "volumes": [{"name": "creds", "secret": {"secretName": SECRET}}]
            },
            "status": {
                "phase": "Running", "qosClass": "Burstable",
                "conditions": [
                    {"type": "Ready", "status": "False", "reason": "ContainersNotReady",
                     "message": "containers with unready status: [fluent-bit]",
                     "lastTransitionTime": "2026-01-01T00:05:00Z"}
                ],
                "initContainerStatuses": [{
                    "name": "setup", "image": "busybox:1.36", "imageID": "", "ready": true,
                    "restartCount": 0,
                    "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                             "message": SECRET,
                                             "finishedAt": "2026-01-01T00:00:10Z"}}
                }],
                "containerStatuses": [{
                    "name": "fluent-bit", "image": "fluent-bit:3.2", "imageID": "", "ready": false,
                    "started": false, "restartCount": 7,
                    "state": {"waiting": {"reason": "CrashLoopBackOff",
                              "message": "back-off 5m0s restarting failed container"}},
                    "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
                                  "message": SECRET,
                                  "finishedAt": "2026-01-01T00:04:00Z"}}
                }]
            }
        }))
    }

    #[test]
    fn a_crash_looping_pod_shows_its_owner_node_conditions_and_container_states() {
        let d = pod_detail(&crash_looping(), 1_767_225_900);
        assert_eq!(
            (d.namespace.as_str(), d.name.as_str()),
            ("kube-system", "log-collector-abcde")
        );
        // §f: the owner is the controller reference of kind DaemonSet, in the pod's namespace.
        assert_eq!(d.owner.as_deref(), Some("kube-system/log-collector"));
        assert_eq!(d.node.as_deref(), Some("worker-1"));
        assert_eq!(d.phase, PodPhase::Running);
        assert_eq!(d.revision_hash, "7d9f");
        assert_eq!(
            d.updated, None,
            "only the live store knows the current revision"
        );
        assert_eq!(d.qos_class.as_deref(), Some("Burstable"));
        assert_eq!(d.priority_class.as_deref(), Some("system-node-critical"));
        assert_eq!(d.priority, Some(2_000_001_000));
        assert_eq!(d.created, 1_767_225_600);
        assert_eq!(d.read_at, 1_767_225_900);
        assert_eq!(d.deleting_since, None);
        assert_eq!(d.conditions.len(), 1);
        assert_eq!(d.conditions[0].kind, "Ready");
        assert_eq!(d.conditions[0].status, "False");
        assert_eq!(
            d.conditions[0].reason.as_deref(),
            Some("ContainersNotReady")
        );
        assert_eq!(d.conditions[0].last_transition, Some(1_767_225_900));

        let c = &d.containers[0];
        assert_eq!(
            (c.name.as_str(), c.image.as_str()),
            ("fluent-bit", "fluent-bit:3.2")
        );
        assert_eq!(
            (c.ready, c.started, c.restart_count),
            (false, Some(false), 7)
        );
        assert_eq!(c.state.label(), "CrashLoopBackOff");
        assert!(c.state.is_trouble());
        let last = c.last_termination.as_ref().unwrap();
        assert_eq!(
            (last.reason.as_deref(), last.exit_code),
            (Some("OOMKilled"), 137)
        );
        assert_eq!(last.finished, Some(1_767_225_840));

        let init = &d.init_containers[0];
        assert_eq!(init.name, "setup");
        assert_eq!(init.state.label(), "Completed");
        assert!(!init.state.is_trouble());
    }

    #[test]
    fn no_env_value_command_arg_volume_probe_or_termination_message_reaches_the_page() {
        let d = pod_detail(&crash_looping(), 0);
        let wire = serde_json::to_string(&d).unwrap();
        assert!(!wire.contains(SECRET), "{wire}");
        assert!(
            !wire.contains("API_TOKEN") && !wire.contains("creds"),
            "{wire}"
        );
    }

    #[test]
    fn an_empty_pod_reads_as_pending_with_nothing_known() {
        let d = pod_detail(&Pod::default(), 5);
        assert_eq!(d.phase, PodPhase::Pending);
        assert_eq!((d.name.as_str(), d.namespace.as_str()), ("", ""));
        assert_eq!(
            (d.node, d.owner, d.qos_class, d.priority),
            (None, None, None, None)
        );
        assert!(d.revision_hash.is_empty());
        assert!(d.conditions.is_empty() && d.containers.is_empty() && d.init_containers.is_empty());
        assert_eq!(d.created, 0);
    }

    #[test]
    fn a_container_without_status_is_listed_with_no_status_yet() {
        let p = pod(json!({
            "metadata": {"name": "p", "namespace": "ns", "deletionTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"containers": [{"name": "agent", "image": "agent:1"}],
                     "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                         "nodeSelectorTerms": [{"matchFields": [
                             {"key": "metadata.name", "operator": "In", "values": ["gpu-2"]}]}]}}}}
        }));
        let d = pod_detail(&p, 0);
        // §f GetTargetNodeName: an unscheduled daemon pod is for the node its matchFields pin names.
        assert_eq!(d.node.as_deref(), Some("gpu-2"));
        assert_eq!(d.deleting_since, Some(1_767_225_600));
        let c = &d.containers[0];
        assert_eq!(c.state, ContainerState::Unknown);
        assert_eq!((c.ready, c.started, c.restart_count), (false, None, 0));
        assert_eq!(c.image, "agent:1");
    }

    #[test]
    fn hostile_text_is_kept_as_text_and_cut_to_a_bound() {
        let long = "é".repeat(4 * MAX_MESSAGE);
        let markup = "<script>alert(1)</script>";
        let p = pod(json!({
            "metadata": {"name": markup, "namespace": "ns"},
            "spec": {"containers": [{"name": "c", "image": long}]},
            "status": {
                "conditions": (0..500).map(|i| json!({"type": format!("T{i}"), "status": "True",
                    "message": long})).collect::<Vec<_>>(),
                "containerStatuses": [{"name": "c", "image": "", "imageID": "", "ready": false,
                    "restartCount": 1, "state": {"waiting": {"reason": long, "message": long}}}]
            }
        }));
        let d = pod_detail(&p, 0);
        assert_eq!(
            d.name, markup,
            "text is passed on as text; the page escapes it"
        );
        assert_eq!(d.conditions.len(), MAX_ITEMS);
        let ell = "…".len();
        assert!(d.conditions[0].message.as_ref().unwrap().len() <= MAX_MESSAGE + ell);
        assert!(d.containers[0].image.len() <= MAX_IMAGE + ell);
        let ContainerState::Waiting { reason, message } = &d.containers[0].state else {
            panic!("waiting expected");
        };
        assert!(reason.as_ref().unwrap().len() <= MAX_REASON + ell);
        assert!(message.as_ref().unwrap().len() <= MAX_MESSAGE + ell);
    }

    #[test]
    fn a_status_for_a_container_the_spec_does_not_list_is_still_shown() {
        let p = pod(json!({
            "metadata": {"name": "p", "namespace": "ns"},
            "status": {"containerStatuses": [{"name": "ghost", "image": "ghost:1", "imageID": "",
                "ready": true, "restartCount": 2, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}
        }));
        let d = pod_detail(&p, 0);
        assert_eq!(d.containers.len(), 1);
        assert_eq!(d.containers[0].image, "ghost:1");
        assert_eq!(
            d.containers[0].state,
            ContainerState::Running {
                since: Some(1_767_225_600)
            }
        );
    }
}
