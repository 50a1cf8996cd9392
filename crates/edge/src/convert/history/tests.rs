//! Revision templates as the history reads them: the controller's patch, names not values.
use super::*;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use serde_json::json;

fn revision(data: serde_json::Value, owner_uid: &str, controller: bool) -> ControllerRevision {
    ControllerRevision {
        metadata: ObjectMeta {
            name: Some("log-agent-abc".into()),
            namespace: Some("kube-system".into()),
            labels: Some([("controller-revision-hash".to_string(), "abc".to_string())].into()),
            annotations: Some(
                [("kubernetes.io/change-cause".to_string(), "bump".to_string())].into(),
            ),
            owner_references: Some(vec![OwnerReference {
                api_version: "apps/v1".into(),
                kind: "DaemonSet".into(),
                name: "log-agent".into(),
                uid: owner_uid.into(),
                controller: Some(controller),
                ..Default::default()
            }]),
            ..Default::default()
        },
        revision: Some(4),
        data: RawExtension(data),
    }
}

/// What kube-controller-manager stores (UPD `getPatch`), with a secret-looking env value.
fn controller_patch() -> serde_json::Value {
    json!({"spec": {"template": {
        "$patch": "replace",
        "metadata": {"labels": {"app": "log-agent"}},
        "spec": {
            "initContainers": [{"name": "setup", "image": "busybox:1.36"}],
            "containers": [{
                "name": "log-agent",
                "image": "fluent-bit:2.2",
                "command": ["/bin/agent", "--token=hunter2"],
                "env": [
                    {"name": "LOG_LEVEL", "value": "debug"},
                    {"name": "API_TOKEN", "value": "s3cr3t-value"},
                    {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}
                ],
                "resources": {"requests": {"cpu": "50m"}, "limits": {"memory": "300Mi"}}
            }],
            "nodeSelector": {"disk": "ssd"},
            "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]}}}
        }
    }}})
}

#[test]
fn the_controllers_patch_gives_images_env_names_resources_and_placement_d4() {
    let record = revision_record(&revision(controller_patch(), "uid-1", true));
    assert_eq!((record.revision, record.hash.as_str()), (4, "abc"));
    assert_eq!(record.change_cause, "bump");
    let template = record.template.unwrap_or_default();
    let names: Vec<(&str, bool, &str)> = template
        .containers
        .iter()
        .map(|c| (c.name.as_str(), c.init, c.image.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("setup", true, "busybox:1.36"),
            ("log-agent", false, "fluent-bit:2.2")
        ]
    );
    let agent = &template.containers[1];
    assert_eq!(agent.env_names, ["LOG_LEVEL", "API_TOKEN", "NODE"]);
    assert_eq!(
        agent.limits.get("memory").map(String::as_str),
        Some("300Mi")
    );
    assert_eq!(agent.requests.get("cpu").map(String::as_str), Some("50m"));
    assert_eq!(
        template.node_selector.get("disk").map(String::as_str),
        Some("ssd")
    );
    assert_eq!(template.tolerations.len(), 1);
    assert!(template.affinity.is_some());
}

#[test]
fn env_values_and_command_lines_never_leave_the_edge() {
    // docs/architecture.md#read-only: never env values or command lines. The whole record, as
    // the page would receive it, holds neither.
    let record = revision_record(&revision(controller_patch(), "uid-1", true));
    let text = format!("{record:?}");
    for secret in [
        "s3cr3t-value",
        "debug",
        "hunter2",
        "/bin/agent",
        "spec.nodeName",
    ] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
}

#[test]
fn data_without_a_template_or_with_a_broken_one_reads_as_a_reason() {
    let missing = revision_record(&revision(json!({"foo": 1}), "u", true));
    assert_eq!(
        missing.template,
        Err("data has no spec.template".to_string())
    );
    let broken = revision_record(&revision(
        json!({"spec": {"template": {"spec": {"containers": "nope"}}}}),
        "u",
        true,
    ));
    let why = broken.template.err().unwrap_or_default();
    assert!(
        why.starts_with("data.spec.template.spec.containers"),
        "{why}"
    );
}

#[test]
fn only_a_controller_reference_with_the_daemonsets_uid_counts_f() {
    assert!(controlled_by(&revision(json!({}), "uid-1", true), "uid-1"));
    assert!(!controlled_by(
        &revision(json!({}), "uid-1", false),
        "uid-1"
    ));
    assert!(!controlled_by(&revision(json!({}), "uid-2", true), "uid-1"));
    assert!(!controlled_by(&revision(json!({}), "", true), ""));
}
