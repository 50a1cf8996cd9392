//! The server-side `Table` rendering (`Accept: application/json;as=Table;…`) with the columns
//! and cell values of the API server's printers, so `kubectl get nodes|pods|ds|events` prints
//! the same output as against a real cluster (wire §5). All columns are always sent;
//! kubectl hides the priority-1 ones unless `-o wide`.
use std::sync::Arc;

use k8s_openapi::jiff::Timestamp;
use serde_json::{json, Value};

use super::read::partial_metadata;
use super::{ApiError, Params};
use crate::store::{Kind, Store, StoredObject};

mod printers;
pub use printers::cells;

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
        Kind::PriorityClass => &[
            ("Name", "string", 0),
            ("Value", "integer", 0),
            ("Global-Default", "boolean", 0),
            ("Age", "string", 0),
            ("PreemptionPolicy", "string", 0),
        ],
        Kind::ResourceQuota => &[
            ("Name", "string", 0),
            ("Request", "string", 0),
            ("Limit", "string", 0),
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
mod tests;
