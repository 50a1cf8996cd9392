//! The server-side `Table` rendering (`Accept: application/json;as=Table;…`) with the columns
//! and cell values of the API server's printers, so `kubectl get nodes|pods|ds|events` prints
//! the same output as against a real cluster (wire doc §5). All columns are always sent;
//! kubectl hides the priority-1 ones unless `-o wide`.
use crate::domain::names;
use std::sync::Arc;

use k8s_openapi::jiff::Timestamp;
use serde_json::{json, Value};

use super::read::partial_metadata;
use super::{ApiError, Params};
use crate::store::{Kind, Store, StoredObject};

/// (name, type, priority) of each column of a kind.
fn columns(kind: Kind) -> &'static [(&'static str, &'static str, u8)] {
    match kind {
        Kind::Node => &[
            ("Name", "string", 0),
            ("Status", "string", 0),
            ("Roles", "string", 0),
            ("Age", "string", 0),
            ("Version", "string", 0),
            ("Internal-IP", "string", 1),
            ("External-IP", "string", 1),
            ("OS-Image", "string", 1),
            ("Kernel-Version", "string", 1),
            ("Container-Runtime", "string", 1),
        ],
        Kind::Pod => &[
            ("Name", "string", 0),
            ("Ready", "string", 0),
            ("Status", "string", 0),
            ("Restarts", "string", 0),
            ("Age", "string", 0),
            ("IP", "string", 1),
            ("Node", "string", 1),
            ("Nominated Node", "string", 1),
            ("Readiness Gates", "string", 1),
        ],
        Kind::DaemonSet => &[
            ("Name", "string", 0),
            ("Desired", "integer", 0),
            ("Current", "integer", 0),
            ("Ready", "integer", 0),
            ("Up-to-date", "integer", 0),
            ("Available", "integer", 0),
            ("Node Selector", "string", 0),
            ("Age", "string", 0),
            ("Containers", "string", 1),
            ("Images", "string", 1),
            ("Selector", "string", 1),
        ],
        Kind::Namespace => &[
            ("Name", "string", 0),
            ("Status", "string", 0),
            ("Age", "string", 0),
        ],
        Kind::Event => &[
            ("Last Seen", "string", 0),
            ("Type", "string", 0),
            ("Reason", "string", 0),
            ("Object", "string", 0),
            ("Subobject", "string", 1),
            ("Source", "string", 1),
            ("Message", "string", 0),
            ("First Seen", "string", 1),
            ("Count", "string", 1),
            ("Name", "string", 1),
        ],
        Kind::ControllerRevision => &[
            ("Name", "string", 0),
            ("Controller", "string", 0),
            ("Revision", "integer", 0),
            ("Age", "string", 0),
        ],
    }
}

/// `duration.HumanDuration` of apimachinery: `45s`, `5m10s`, `3h10m`, `2d`, `3y40d`.
pub fn human_duration(secs: i64) -> String {
    if secs < -1 {
        return "<invalid>".into();
    }
    let secs = secs.max(0);
    if secs < 120 {
        return format!("{secs}s");
    }
    let minutes = secs / 60;
    if minutes < 10 {
        let s = secs % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let d = (hours / 24) % 365;
        return if d == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{d}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn i(v: &Value, ptr: &str) -> i64 {
    v.pointer(ptr).and_then(Value::as_i64).unwrap_or(0)
}

fn or_none(x: &str) -> String {
    if x.is_empty() {
        "<none>".into()
    } else {
        x.into()
    }
}

fn age(now: Timestamp, ts: &str) -> String {
    match ts.parse::<Timestamp>() {
        Ok(t) => human_duration(now.as_second() - t.as_second()),
        Err(_) => "<unknown>".into(),
    }
}

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
    }
}

/// A Table of `items`. `with_columns` false sends `columnDefinitions: null` (later watch events).
pub fn render(
    store: &Store,
    kind: Kind,
    items: &[Arc<StoredObject>],
    params: &Params,
    with_columns: bool,
    resource_version: Option<u64>,
    continue_token: Option<String>,
) -> Result<Value, ApiError> {
    let now = store.now();
    let column_defs = if with_columns {
        json!(columns(kind)
            .iter()
            .map(|(name, ty, priority)| {
                let mut c = json!({"name": name, "type": ty, "format": "", "description": name, "priority": priority});
                if *name == "Name" {
                    c["format"] = json!("name");
                }
                c
            })
            .collect::<Vec<_>>())
    } else {
        Value::Null
    };
    let mut rows = Vec::with_capacity(items.len());
    for obj in items {
        let v = obj.value()?;
        let mut row = json!({"cells": cells(kind, &v, now)});
        match params.include_object.as_deref() {
            Some("None") => {}
            Some("Object") => row["object"] = v,
            _ => row["object"] = partial_metadata(obj)?,
        }
        rows.push(row);
    }
    let mut metadata = json!({});
    if let Some(rv) = resource_version {
        metadata["resourceVersion"] = json!(rv.to_string());
    }
    if let Some(c) = continue_token {
        metadata["continue"] = json!(c);
    }
    Ok(
        json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata, "columnDefinitions": column_defs, "rows": rows}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_print_like_kubectl() {
        for (secs, want) in [
            (45, "45s"),
            (119, "119s"),
            (310, "5m10s"),
            (600, "10m"),
            (11400, "3h10m"),
            (172800, "2d"),
            (3 * 86400 + 3600, "3d1h"),
        ] {
            assert_eq!(human_duration(secs), want, "{secs}s");
        }
    }

    #[test]
    fn a_cordoned_ready_control_plane_node_prints_its_status_and_role() {
        let node = json!({"metadata": {"name": "cp-1", "labels": {"node-role.kubernetes.io/control-plane": ""}},
            "spec": {"unschedulable": true},
            "status": {"conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.37.0"},
                "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}});
        let c = cells(Kind::Node, &node, Timestamp::UNIX_EPOCH);
        assert_eq!(c[1], json!("Ready,SchedulingDisabled"));
        assert_eq!(c[2], json!("control-plane"));
        assert_eq!(c[5], json!("10.0.0.1"));
        assert_eq!(c[6], json!("<none>"));
        assert_eq!(c[7], json!("<unknown>"));
    }

    #[test]
    fn a_crashlooping_pod_shows_the_waiting_reason_and_a_terminating_one_says_so() {
        let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}], "nodeName": "n1"},
            "status": {"phase": "Running", "podIP": "10.1.0.5", "containerStatuses": [{"name": "c", "ready": false, "restartCount": 3,
                "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
        let c = cells(Kind::Pod, &pod, Timestamp::UNIX_EPOCH);
        assert_eq!(
            (c[1].clone(), c[2].clone(), c[3].clone(), c[5].clone()),
            (
                json!("0/1"),
                json!("CrashLoopBackOff"),
                json!("3"),
                json!("10.1.0.5")
            )
        );
        let mut gone = pod.clone();
        gone["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        assert_eq!(
            cells(Kind::Pod, &gone, Timestamp::UNIX_EPOCH)[2],
            json!("Terminating")
        );
    }

    #[test]
    fn daemonset_selector_columns_format_like_the_printer() {
        let ds = json!({"metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"app": "d"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]},
            "template": {"spec": {"nodeSelector": {"gpu": "true"}, "containers": [{"name": "c", "image": "i:1"}]}}},
            "status": {"desiredNumberScheduled": 3, "numberReady": 2}});
        let c = cells(Kind::DaemonSet, &ds, Timestamp::UNIX_EPOCH);
        assert_eq!(c[1], json!(3));
        assert_eq!(c[3], json!(2));
        assert_eq!(c[6], json!("gpu=true"));
        assert_eq!(c[10], json!("app=d,tier in (a,b)"));
    }
}
