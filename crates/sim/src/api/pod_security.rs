//! Pod Security admission (`staging/src/k8s.io/pod-security-admission`), for the checks of the
//! `baseline` level that daemon agents trip (§l.3): host namespaces, hostPath volumes,
//! hostPorts, privileged containers and capabilities added beyond baseline's list.
//!
//! Why: the dashboard attributes a refused creation from the FailedCreate message (§l), and
//! the differential suite holds the sim's message to kube-apiserver's, word for word: an
//! agent in a namespace labelled `pod-security.kubernetes.io/enforce=baseline` must be
//! refused on both sides with the same text. The checks run in the order of their IDs
//! (`capabilities_baseline`, `hostNamespaces`, `hostPathVolumes`, `hostPorts`, `privileged`),
//! as the policy registry evaluates them. The `restricted` level's own checks are not
//! implemented: a namespace enforcing `restricted` is evaluated against the baseline checks
//! only, and the README says so.

use k8s_openapi::api::core::v1::{Container, Namespace, Pod, PodSpec};
use std::collections::{BTreeMap, BTreeSet};

/// The namespace label that sets the enforced level.
pub const ENFORCE_LABEL: &str = "pod-security.kubernetes.io/enforce";
/// The namespace label that pins the enforced level's version (default `latest`).
pub const ENFORCE_VERSION_LABEL: &str = "pod-security.kubernetes.io/enforce-version";

/// Capabilities a baseline pod may add (`capabilities_allowed_1_0`).
const BASELINE_CAPABILITIES: &[&str] = &[
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];

/// The cause kube-apiserver gives a pod the namespace's enforced level forbids:
/// `violates PodSecurity "baseline:latest": REASON (DETAIL), ...`; None when the namespace
/// enforces nothing (or `privileged`) or the pod passes. The caller wraps it in
/// `pods "NAME" is forbidden: `.
pub fn violation(namespace_labels: &BTreeMap<String, String>, spec: &PodSpec) -> Option<String> {
    let level = namespace_labels.get(ENFORCE_LABEL)?.as_str();
    if level != "baseline" && level != "restricted" {
        return None;
    }
    let version = namespace_labels
        .get(ENFORCE_VERSION_LABEL)
        .map_or("latest", String::as_str);
    let failed: Vec<(&str, String)> = [
        capabilities_baseline(spec),
        host_namespaces(spec),
        host_path_volumes(spec),
        host_ports(spec),
        privileged(spec),
    ]
    .into_iter()
    .flatten()
    .collect();
    if failed.is_empty() {
        return None;
    }
    let detail = failed
        .iter()
        .map(|(reason, detail)| {
            if detail.is_empty() {
                (*reason).to_string()
            } else {
                format!("{reason} ({detail})")
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    Some(format!(
        "violates PodSecurity \"{level}:{version}\": {detail}"
    ))
}

/// The Forbidden message kube-apiserver answers a pod create in `namespace` with when its
/// enforced level refuses the pod (`pods "NAME" is forbidden: violates PodSecurity ...`,
/// NAME the pod's name, else its `generateName`, as `admission.NewForbidden` names an
/// object not yet named); None when admitted. The namespace's labels are read from the store.
pub fn refusal(store: &crate::store::Store, namespace: &str, pod: &Pod) -> Option<String> {
    let labels = store
        .get::<Namespace>(None, namespace)
        .and_then(|ns| ns.metadata.labels)
        .unwrap_or_default();
    let cause = violation(&labels, pod.spec.as_ref()?)?;
    Some(format!("pods {:?} is forbidden: {cause}", object_name(pod)))
}

/// The name `admission.NewForbidden` gives an object: its name, else a name generated from
/// its `generateName` (kube-apiserver generates it before admission runs: the refusal of a
/// DaemonSet's pod names `agent-fp26k`, as the differential suite showed), else `Unknown`.
pub fn object_name(pod: &Pod) -> String {
    let meta = &pod.metadata;
    match (
        meta.name.as_deref().filter(|n| !n.is_empty()),
        meta.generate_name.as_deref().filter(|n| !n.is_empty()),
    ) {
        (Some(name), _) => name.to_string(),
        (None, Some(prefix)) => crate::store::generated_name(prefix),
        (None, None) => "Unknown".to_string(),
    }
}

/// Init, regular and ephemeral containers, in that order (`visitContainers`).
fn containers(spec: &PodSpec) -> Vec<&Container> {
    let mut out: Vec<&Container> = spec.init_containers.iter().flatten().collect();
    out.extend(spec.containers.iter());
    // Ephemeral containers are added by a subresource, never on create: none here.
    out
}

fn pluralize<'a>(one: &'a str, many: &'a str, n: usize) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// `"a", "b"` (`joinQuote`).
fn join_quote<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items
        .into_iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn capabilities_baseline(spec: &PodSpec) -> Option<(&'static str, String)> {
    let mut bad = Vec::new();
    let mut added = BTreeSet::new();
    for c in containers(spec) {
        let adds = c
            .security_context
            .as_ref()
            .and_then(|s| s.capabilities.as_ref())
            .and_then(|caps| caps.add.as_ref());
        let mut valid = true;
        for cap in adds.into_iter().flatten() {
            if !BASELINE_CAPABILITIES.contains(&cap.as_str()) {
                valid = false;
                added.insert(cap.as_str());
            }
        }
        if !valid {
            bad.push(c.name.as_str());
        }
    }
    (!bad.is_empty()).then(|| {
        (
            "non-default capabilities",
            format!(
                "{} {} must not include {} in securityContext.capabilities.add",
                pluralize("container", "containers", bad.len()),
                join_quote(bad.iter().copied()),
                join_quote(added.iter().copied()),
            ),
        )
    })
}

fn host_namespaces(spec: &PodSpec) -> Option<(&'static str, String)> {
    // A sorted set, as `sets.NewString().List()`.
    let mut set = BTreeSet::new();
    if spec.host_network == Some(true) {
        set.insert("hostNetwork=true");
    }
    if spec.host_pid == Some(true) {
        set.insert("hostPID=true");
    }
    if spec.host_ipc == Some(true) {
        set.insert("hostIPC=true");
    }
    (!set.is_empty()).then(|| {
        (
            "host namespaces",
            set.into_iter().collect::<Vec<_>>().join(", "),
        )
    })
}

fn host_path_volumes(spec: &PodSpec) -> Option<(&'static str, String)> {
    let names: Vec<&str> = spec
        .volumes
        .iter()
        .flatten()
        .filter(|v| v.host_path.is_some())
        .map(|v| v.name.as_str())
        .collect();
    (!names.is_empty()).then(|| {
        (
            "hostPath volumes",
            format!(
                "{} {}",
                pluralize("volume", "volumes", names.len()),
                join_quote(names.iter().copied())
            ),
        )
    })
}

fn host_ports(spec: &PodSpec) -> Option<(&'static str, String)> {
    let mut bad = Vec::new();
    // `sets.NewString` of the port numbers as text: sorted as strings.
    let mut ports = BTreeSet::new();
    for c in containers(spec) {
        let mut valid = true;
        for p in c.ports.iter().flatten() {
            if let Some(port) = p.host_port.filter(|p| *p != 0) {
                valid = false;
                ports.insert(port.to_string());
            }
        }
        if !valid {
            bad.push(c.name.as_str());
        }
    }
    (!bad.is_empty()).then(|| {
        (
            "hostPort",
            format!(
                "{} {} {} {} {}",
                pluralize("container", "containers", bad.len()),
                join_quote(bad.iter().copied()),
                pluralize("uses", "use", bad.len()),
                pluralize("hostPort", "hostPorts", ports.len()),
                ports.into_iter().collect::<Vec<_>>().join(", "),
            ),
        )
    })
}

fn privileged(spec: &PodSpec) -> Option<(&'static str, String)> {
    let bad: Vec<&str> = containers(spec)
        .into_iter()
        .filter(|c| {
            c.security_context
                .as_ref()
                .and_then(|s| s.privileged)
                .unwrap_or(false)
        })
        .map(|c| c.name.as_str())
        .collect();
    (!bad.is_empty()).then(|| {
        (
            "privileged",
            format!(
                "{} {} must not set securityContext.privileged=true",
                pluralize("container", "containers", bad.len()),
                join_quote(bad.iter().copied())
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: serde_json::Value) -> PodSpec {
        serde_json::from_value(v).expect("a pod spec")
    }

    fn baseline() -> BTreeMap<String, String> {
        BTreeMap::from([(ENFORCE_LABEL.to_string(), "baseline".to_string())])
    }

    #[test]
    fn a_node_exporter_agent_is_refused_with_kube_apiservers_words_in_check_order_j3() {
        // The real event: host namespaces (hostNetwork=true, hostPID=true), hostPath volumes
        // (volumes "proc", "sys"), hostPort (container "node-exporter" uses hostPort 9100).
        let s = spec(json!({
            "hostNetwork": true, "hostPID": true,
            "containers": [{"name": "node-exporter", "image": "x", "ports": [{"containerPort": 9100, "hostPort": 9100}]}],
            "volumes": [{"name": "proc", "hostPath": {"path": "/proc"}}, {"name": "sys", "hostPath": {"path": "/sys"}}]
        }));
        assert_eq!(
            violation(&baseline(), &s).as_deref(),
            Some("violates PodSecurity \"baseline:latest\": host namespaces (hostNetwork=true, hostPID=true), hostPath volumes (volumes \"proc\", \"sys\"), hostPort (container \"node-exporter\" uses hostPort 9100)")
        );
    }

    #[test]
    fn capabilities_come_first_and_privileged_last_j3() {
        let s = spec(json!({
            "containers": [
                {"name": "a", "image": "x", "securityContext": {"privileged": true, "capabilities": {"add": ["SYS_ADMIN", "CHOWN", "NET_ADMIN"]}}},
                {"name": "b", "image": "x", "securityContext": {"privileged": true}}
            ]
        }));
        let mut labels = baseline();
        labels.insert(ENFORCE_VERSION_LABEL.into(), "v1.37".into());
        assert_eq!(
            violation(&labels, &s).as_deref(),
            Some("violates PodSecurity \"baseline:v1.37\": non-default capabilities (container \"a\" must not include \"NET_ADMIN\", \"SYS_ADMIN\" in securityContext.capabilities.add), privileged (containers \"a\", \"b\" must not set securityContext.privileged=true)")
        );
    }

    #[test]
    fn a_privileged_namespace_or_a_clean_pod_is_admitted() {
        let host = spec(json!({"hostNetwork": true, "containers": [{"name": "a", "image": "x"}]}));
        assert!(
            violation(&BTreeMap::new(), &host).is_none(),
            "no label: privileged"
        );
        let privileged = BTreeMap::from([(ENFORCE_LABEL.to_string(), "privileged".to_string())]);
        assert!(violation(&privileged, &host).is_none());
        let clean = spec(
            json!({"containers": [{"name": "a", "image": "x", "securityContext": {"capabilities": {"add": ["NET_BIND_SERVICE"]}}}]}),
        );
        assert!(
            violation(&baseline(), &clean).is_none(),
            "baseline's own capabilities pass"
        );
    }
}
