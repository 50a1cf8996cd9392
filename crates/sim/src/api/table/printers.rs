//! One printer per kind: the cells `kubectl get` shows for a node, pod, DaemonSet, namespace,
//! event or ControllerRevision, as the API server's printers fill them.
use k8s_openapi::jiff::Timestamp;
use serde_json::{json, Value};

use super::{age, i, or_none, s};
use crate::domain::names;
use crate::store::Kind;

fn node_cells(v: &Value, now: Timestamp) -> Vec<Value> {
    let ready = v
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
                .map(|c| s(c, "/status").to_string())
        });
    let mut status = match ready.as_deref() {
        Some("True") => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    };
    if v.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push_str(",SchedulingDisabled");
    }
    let mut roles: Vec<String> = v
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|l| {
            l.iter()
                .filter_map(|(k, val)| {
                    if let Some(r) = k.strip_prefix(names::NODE_ROLE_PREFIX) {
                        Some(r.to_string())
                    } else if k == "kubernetes.io/role" {
                        val.as_str().map(str::to_string)
                    } else {
                        None
                    }
                })
                .filter(|r| !r.is_empty())
                .collect()
        })
        .unwrap_or_default();
    roles.sort();
    roles.dedup();
    let address = |t: &str| {
        v.pointer("/status/addresses")
            .and_then(Value::as_array)
            .and_then(|a| {
                a.iter()
                    .find(|x| x.get("type").and_then(Value::as_str) == Some(t))
            })
            .map(|x| s(x, "/address").to_string())
            .unwrap_or_default()
    };
    let info = |f: &str| {
        let x = s(v, &format!("/status/nodeInfo/{f}"));
        if x.is_empty() {
            "<unknown>".to_string()
        } else {
            x.to_string()
        }
    };
    vec![
        json!(s(v, "/metadata/name")),
        json!(status),
        json!(if roles.is_empty() {
            "<none>".to_string()
        } else {
            roles.join(",")
        }),
        json!(age(now, s(v, "/metadata/creationTimestamp"))),
        json!(s(v, "/status/nodeInfo/kubeletVersion")),
        json!(or_none(&address("InternalIP"))),
        json!(or_none(&address("ExternalIP"))),
        json!(info("osImage")),
        json!(info("kernelVersion")),
        json!(info("containerRuntimeVersion")),
    ]
}

fn pod_cells(v: &Value, now: Timestamp) -> Vec<Value> {
    let empty = Vec::new();
    let containers = v
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let statuses = v
        .pointer("/status/containerStatuses")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let mut reason = s(v, "/status/reason").to_string();
    if reason.is_empty() {
        reason = s(v, "/status/phase").to_string();
    }
    let mut restarts = 0;
    let mut ready = 0;
    let mut last_restart: Option<String> = None;
    let mut has_running = false;
    for cs in statuses.iter().rev() {
        restarts += i(cs, "/restartCount");
        let finished = s(cs, "/lastState/terminated/finishedAt");
        if !finished.is_empty() && last_restart.as_deref().is_none_or(|l| finished > l) {
            last_restart = Some(finished.to_string());
        }
        let waiting = s(cs, "/state/waiting/reason");
        let terminated = cs.pointer("/state/terminated");
        if !waiting.is_empty() {
            reason = waiting.to_string();
        } else if let Some(t) = terminated {
            let r = s(t, "/reason");
            reason = if !r.is_empty() {
                r.to_string()
            } else if i(t, "/signal") != 0 {
                format!("Signal:{}", i(t, "/signal"))
            } else {
                format!("ExitCode:{}", i(t, "/exitCode"))
            };
        } else if cs.get("ready").and_then(Value::as_bool) == Some(true)
            && cs.pointer("/state/running").is_some()
        {
            has_running = true;
            ready += 1;
        } else if cs.pointer("/state/running").is_some() {
            has_running = true;
        }
    }
    if reason == "Completed" && has_running {
        reason = "Running".into();
    }
    if v.pointer("/metadata/deletionTimestamp").is_some() {
        reason = if s(v, "/status/reason") == "NodeLost" {
            "Unknown".into()
        } else {
            "Terminating".into()
        };
    }
    let restarts_cell = match last_restart {
        Some(t) if restarts > 0 => format!("{restarts} ({} ago)", age(now, &t)),
        _ => restarts.to_string(),
    };
    let ip = v
        .pointer("/status/podIPs/0/ip")
        .and_then(Value::as_str)
        .unwrap_or_else(|| s(v, "/status/podIP"));
    let gates = v
        .pointer("/spec/readinessGates")
        .and_then(Value::as_array)
        .filter(|g| !g.is_empty())
        .map(|g| {
            let conds = v
                .pointer("/status/conditions")
                .and_then(Value::as_array)
                .unwrap_or(&empty);
            let true_gates = g
                .iter()
                .filter(|gate| {
                    let t = s(gate, "/conditionType");
                    conds
                        .iter()
                        .any(|c| s(c, "/type") == t && s(c, "/status") == "True")
                })
                .count();
            format!("{true_gates}/{}", g.len())
        });
    vec![
        json!(s(v, "/metadata/name")),
        json!(format!("{ready}/{}", containers.len())),
        json!(reason),
        json!(restarts_cell),
        json!(age(now, s(v, "/metadata/creationTimestamp"))),
        json!(or_none(ip)),
        json!(or_none(s(v, "/spec/nodeName"))),
        json!(or_none(s(v, "/status/nominatedNodeName"))),
        json!(gates.unwrap_or_else(|| "<none>".into())),
    ]
}

/// `metav1.FormatLabelSelector`.
fn format_selector(sel: Option<&Value>) -> String {
    let Some(sel) = sel else {
        return "<none>".into();
    };
    let mut parts: Vec<String> = sel
        .get("matchLabels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    if let Some(exprs) = sel.get("matchExpressions").and_then(Value::as_array) {
        for e in exprs {
            let values: Vec<&str> = e
                .get("values")
                .and_then(Value::as_array)
                .map(|vs| vs.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let key = s(e, "/key");
            parts.push(match s(e, "/operator") {
                "In" => format!("{key} in ({})", values.join(",")),
                "NotIn" => format!("{key} notin ({})", values.join(",")),
                "Exists" => key.to_string(),
                "DoesNotExist" => format!("!{key}"),
                op => format!("{key} {op} ({})", values.join(",")),
            });
        }
    }
    if parts.is_empty() {
        "<none>".into()
    } else {
        parts.join(",")
    }
}

fn daemonset_cells(v: &Value, now: Timestamp) -> Vec<Value> {
    let node_selector = v
        .pointer("/spec/template/spec/nodeSelector")
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
        .map(|m| {
            m.iter()
                .map(|(k, x)| format!("{k}={}", x.as_str().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(",")
        });
    let containers = v
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = containers.iter().map(|c| s(c, "/name")).collect();
    let images: Vec<&str> = containers.iter().map(|c| s(c, "/image")).collect();
    vec![
        json!(s(v, "/metadata/name")),
        json!(i(v, "/status/desiredNumberScheduled")),
        json!(i(v, "/status/currentNumberScheduled")),
        json!(i(v, "/status/numberReady")),
        json!(i(v, "/status/updatedNumberScheduled")),
        json!(i(v, "/status/numberAvailable")),
        json!(node_selector.unwrap_or_else(|| "<none>".into())),
        json!(age(now, s(v, "/metadata/creationTimestamp"))),
        json!(names.join(",")),
        json!(images.join(",")),
        json!(format_selector(v.pointer("/spec/selector"))),
    ]
}

fn event_cells(v: &Value, now: Timestamp) -> Vec<Value> {
    let first = [s(v, "/firstTimestamp"), s(v, "/eventTime")]
        .into_iter()
        .find(|x| !x.is_empty())
        .unwrap_or("");
    let last = [
        s(v, "/series/lastObservedTime"),
        s(v, "/lastTimestamp"),
        first,
    ]
    .into_iter()
    .find(|x| !x.is_empty())
    .unwrap_or("");
    let source = match (s(v, "/source/component"), s(v, "/source/host")) {
        ("", _) => s(v, "/reportingComponent").to_string(),
        (c, "") => c.to_string(),
        (c, h) => format!("{c}, {h}"),
    };
    let count = v.get("count").and_then(Value::as_i64).unwrap_or(1);
    vec![
        json!(if last.is_empty() {
            "<unknown>".into()
        } else {
            age(now, last)
        }),
        json!(s(v, "/type")),
        json!(s(v, "/reason")),
        json!(format!(
            "{}/{}",
            s(v, "/involvedObject/kind").to_lowercase(),
            s(v, "/involvedObject/name")
        )),
        json!(s(v, "/involvedObject/fieldPath")),
        json!(source),
        json!(s(v, "/message")),
        json!(if first.is_empty() {
            "<unknown>".into()
        } else {
            age(now, first)
        }),
        json!(count.to_string()),
        json!(s(v, "/metadata/name")),
    ]
}

fn revision_cells(v: &Value, now: Timestamp) -> Vec<Value> {
    let controller = v
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .and_then(|refs| {
            refs.iter()
                .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
        })
        .map(|r| {
            let group = s(r, "/apiVersion")
                .split_once('/')
                .map(|(g, _)| g)
                .unwrap_or("");
            let kind = s(r, "/kind").to_lowercase();
            let res = if group.is_empty() {
                kind
            } else {
                format!("{kind}.{group}")
            };
            format!("{res}/{}", s(r, "/name"))
        })
        .unwrap_or_else(|| "<none>".into());
    vec![
        json!(s(v, "/metadata/name")),
        json!(controller),
        json!(i(v, "/revision")),
        json!(age(now, s(v, "/metadata/creationTimestamp"))),
    ]
}

/// The cells of one object.
pub fn cells(kind: Kind, v: &Value, now: Timestamp) -> Vec<Value> {
    match kind {
        Kind::Node => node_cells(v, now),
        Kind::Pod => pod_cells(v, now),
        Kind::DaemonSet => daemonset_cells(v, now),
        Kind::Namespace => vec![
            json!(s(v, "/metadata/name")),
            json!(s(v, "/status/phase")),
            json!(age(now, s(v, "/metadata/creationTimestamp"))),
        ],
        Kind::Event => event_cells(v, now),
        Kind::ControllerRevision => revision_cells(v, now),
        Kind::PriorityClass => vec![
            json!(s(v, "/metadata/name")),
            json!(i(v, "/value")),
            json!(v
                .pointer("/globalDefault")
                .and_then(Value::as_bool)
                .unwrap_or(false)),
            json!(age(now, s(v, "/metadata/creationTimestamp"))),
            json!(s(v, "/preemptionPolicy")),
        ],
        Kind::ResourceQuota => quota_cells(v, now),
    }
}

/// `printResourceQuota`: `resource: used/hard` for each resource of `status.hard`, sorted,
/// `limits.*` in the Limit column and the rest in Request, each joined by `, `.
fn quota_cells(v: &Value, now: Timestamp) -> Vec<Value> {
    let text = |pointer: &str, name: &str| {
        v.pointer(pointer)
            .and_then(|m| m.get(name))
            .and_then(Value::as_str)
            .unwrap_or("0")
            .to_string()
    };
    let mut names: Vec<&String> = v
        .pointer("/status/hard")
        .and_then(Value::as_object)
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    names.sort();
    let (mut request, mut limit) = (Vec::new(), Vec::new());
    for name in names {
        let cell = format!(
            "{name}: {}/{}",
            text("/status/used", name),
            text("/status/hard", name)
        );
        if name.split('.').next() == Some("limits") && name.contains('.') {
            limit.push(cell);
        } else {
            request.push(cell);
        }
    }
    vec![
        json!(s(v, "/metadata/name")),
        json!(request.join(", ")),
        json!(limit.join(", ")),
        json!(age(now, s(v, "/metadata/creationTimestamp"))),
    ]
}
