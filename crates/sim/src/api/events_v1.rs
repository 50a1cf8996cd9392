//! `events.k8s.io/v1` Events, served read-only (get, list, watch) from the stored core/v1
//! Events, converted the way kube-apiserver converts them (`pkg/apis/events/v1`
//! `Convert_core_Event_To_v1_Event`): involvedObject → regarding, message → note, source →
//! deprecatedSource, firstTimestamp/lastTimestamp/count → deprecated*, reportingComponent →
//! reportingController; eventTime, series, action, reason, type, related and
//! reportingInstance keep their names.
//!
//! Why: kubectl and newer clients (`kubectl events`, `kubectl get events.events.k8s.io`) read
//! this group, and a real API server serves the same objects through both.
use serde_json::{json, Map, Value};

use super::status::ApiError;

/// The API group.
pub const GROUP: &str = "events.k8s.io";
/// `apiVersion` of the objects.
pub const API_VERSION: &str = "events.k8s.io/v1";
/// The verbs the sim serves in this group.
pub const VERBS: [&str; 3] = ["get", "list", "watch"];

/// One core/v1 Event as an events.k8s.io/v1 Event.
pub fn to_v1(core: &Value) -> Value {
    let field = |name: &str| core.get(name).cloned();
    let mut out = Map::new();
    out.insert("kind".into(), json!("Event"));
    out.insert("apiVersion".into(), json!(API_VERSION));
    out.insert(
        "metadata".into(),
        field("metadata").unwrap_or_else(|| json!({})),
    );
    // eventTime is not omitempty in events.k8s.io/v1: a legacy event shows `null`.
    out.insert(
        "eventTime".into(),
        field("eventTime").unwrap_or(Value::Null),
    );
    let renamed = [
        ("series", "series"),
        ("reportingComponent", "reportingController"),
        ("reportingInstance", "reportingInstance"),
        ("action", "action"),
        ("reason", "reason"),
        ("involvedObject", "regarding"),
        ("related", "related"),
        ("message", "note"),
        ("type", "type"),
        ("source", "deprecatedSource"),
        ("firstTimestamp", "deprecatedFirstTimestamp"),
        ("lastTimestamp", "deprecatedLastTimestamp"),
        ("count", "deprecatedCount"),
    ];
    for (from, to) in renamed {
        match field(from) {
            Some(Value::Null) | None => {}
            Some(Value::String(s)) if s.is_empty() => {}
            Some(v) => {
                out.insert(to.into(), v);
            }
        }
    }
    // `regarding` is a struct, not a pointer: always present.
    out.entry("regarding").or_insert_with(|| json!({}));
    Value::Object(out)
}

/// A stored core/v1 Event's bytes as events.k8s.io/v1 bytes.
pub fn convert_raw(raw: &[u8]) -> Result<Vec<u8>, ApiError> {
    let core: Value = serde_json::from_slice(raw).map_err(|e| ApiError {
        code: 500,
        reason: "InternalError",
        message: format!("stored event is not JSON: {e}"),
        details: None,
    })?;
    Ok(to_v1(&core).to_string().into_bytes())
}

/// The group in aggregated discovery (`/apis`, `apidiscovery.k8s.io/v2`).
pub fn aggregated_group() -> Value {
    let gvk = json!({"group": GROUP, "version": "v1", "kind": "Event"});
    json!({"metadata": {"name": GROUP}, "versions": [{"version": "v1", "freshness": "Current", "resources": [
        {"resource": "events", "responseKind": gvk, "scope": "Namespaced", "singularResource": "event",
         "verbs": VERBS, "shortNames": ["ev"]}
    ]}]})
}

/// The group in the legacy `APIGroupList`.
pub fn legacy_group() -> Value {
    let gv = json!({"groupVersion": API_VERSION, "version": "v1"});
    json!({"name": GROUP, "versions": [gv], "preferredVersion": gv})
}

/// `GET /apis/events.k8s.io/v1`.
pub fn resource_list() -> Value {
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": API_VERSION, "resources": [
        {"name": "events", "singularName": "event", "namespaced": true, "kind": "Event",
         "verbs": VERBS, "shortNames": ["ev"]}
    ]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_event_converts_as_the_api_server_converts_it() {
        let core = json!({
            "kind": "Event", "apiVersion": "v1",
            "metadata": {"name": "log.1", "namespace": "kube-system", "uid": "u", "resourceVersion": "7"},
            "involvedObject": {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "log", "namespace": "kube-system", "uid": "d"},
            "reason": "SuccessfulCreate", "message": "Created pod: log-x", "type": "Normal",
            "source": {"component": "daemonset-controller"},
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:01:00Z", "count": 2,
            "reportingComponent": "daemonset-controller", "reportingInstance": "daemonscope-sim",
            "eventTime": null
        });
        let v1 = to_v1(&core);
        let want = json!({
            "kind": "Event", "apiVersion": "events.k8s.io/v1",
            "metadata": {"name": "log.1", "namespace": "kube-system", "uid": "u", "resourceVersion": "7"},
            "eventTime": null,
            "reportingController": "daemonset-controller", "reportingInstance": "daemonscope-sim",
            "reason": "SuccessfulCreate",
            "regarding": {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "log", "namespace": "kube-system", "uid": "d"},
            "note": "Created pod: log-x", "type": "Normal",
            "deprecatedSource": {"component": "daemonset-controller"},
            "deprecatedFirstTimestamp": "2026-01-01T00:00:00Z",
            "deprecatedLastTimestamp": "2026-01-01T00:01:00Z",
            "deprecatedCount": 2
        });
        assert_eq!(v1, want);
    }

    #[test]
    fn a_new_style_event_keeps_its_event_time_and_series() {
        let core = json!({
            "metadata": {"name": "e"}, "involvedObject": {"kind": "Node", "name": "n"},
            "eventTime": "2026-01-01T00:00:00.000000Z", "action": "Ready",
            "series": {"count": 3, "lastObservedTime": "2026-01-01T00:02:00.000000Z"}
        });
        let v1 = to_v1(&core);
        assert_eq!(v1["eventTime"], "2026-01-01T00:00:00.000000Z");
        assert_eq!(v1["series"]["count"], 3);
        assert_eq!(v1["action"], "Ready");
        assert!(v1.get("deprecatedCount").is_none());
        assert!(v1.get("involvedObject").is_none() && v1.get("message").is_none());
    }
}
