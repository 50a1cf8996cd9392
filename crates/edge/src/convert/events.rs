//! core/v1 Event -> the compact projection the dashboard keeps ([`EventFacts`]).
//!
//! Why here: this is a Kubernetes object becoming a domain value, the edge's one job; the
//! dashboard's `cluster::events` keeps only the store (which page an event is filed on, the
//! newest few per page). Messages are cluster text, bounded here so the store stays small.

use crate::domain::view::{EventRow, EventType};
use k8s_openapi::api::core::v1::Event;

/// Longest message kept, in bytes (cut on a character boundary).
pub const MAX_MESSAGE: usize = 512;
/// Longest reason kept, in bytes.
pub(crate) const MAX_REASON: usize = 128;

/// What an Event is about, from `involvedObject`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Involved {
    /// `kind` (`DaemonSet`, `Node`, `Pod`, ...).
    pub kind: String,
    /// Empty for cluster-scoped objects.
    pub namespace: String,
    /// The object's name.
    pub name: String,
    /// The object's uid (how a pod's events find the pod's DaemonSet and node).
    pub uid: String,
}

/// The compact projection of one Event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventFacts {
    /// The Event's own uid (an update of the same event replaces it).
    pub uid: String,
    /// What the event is about.
    pub involved: Involved,
    /// `object` is filled in when the event is filed on a page.
    pub row: EventRow,
}

/// `text` cut to at most `max` bytes on a character boundary, with `…` when cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Projects a core/v1 Event: the last time is `lastTimestamp`, else `series.lastObservedTime`,
/// else `eventTime`, else `firstTimestamp`, else creation (newer reporters set only the later
/// ones); the count is `count`, else `series.count`, at least 1; no type means `Normal`.
pub fn event_facts(event: &Event) -> EventFacts {
    let o = &event.involved_object;
    let series = event.series.as_ref();
    let last_seen = event
        .last_timestamp
        .as_ref()
        .map(|t| t.0.as_second())
        .or_else(|| {
            series
                .and_then(|s| s.last_observed_time.as_ref())
                .map(|t| t.0.as_second())
        })
        .or_else(|| event.event_time.as_ref().map(|t| t.0.as_second()))
        .or_else(|| event.first_timestamp.as_ref().map(|t| t.0.as_second()))
        .or_else(|| {
            event
                .metadata
                .creation_timestamp
                .as_ref()
                .map(|t| t.0.as_second())
        })
        .unwrap_or(0);
    let count = event
        .count
        .or_else(|| series.and_then(|s| s.count))
        .unwrap_or(1)
        .max(1);
    EventFacts {
        uid: event.metadata.uid.clone().unwrap_or_default(),
        involved: Involved {
            kind: o.kind.clone().unwrap_or_default(),
            namespace: o.namespace.clone().unwrap_or_default(),
            name: o.name.clone().unwrap_or_default(),
            uid: o.uid.clone().unwrap_or_default(),
        },
        row: EventRow {
            object: String::new(),
            event_type: EventType::parse(event.type_.as_deref()),
            reason: cut(event.reason.as_deref().unwrap_or(""), MAX_REASON),
            message: cut(event.message.as_deref().unwrap_or(""), MAX_MESSAGE),
            count,
            last_seen,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(v: serde_json::Value) -> Event {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn an_event_projects_to_its_object_type_reason_message_count_and_last_time() {
        let cases = [
            (
                "a controller event with lastTimestamp and count",
                json!({
                    "metadata": {"name": "e1", "namespace": "kube-system", "uid": "u1"},
                    "involvedObject": {"kind": "DaemonSet", "namespace": "kube-system", "name": "log", "uid": "d1"},
                    "type": "Normal", "reason": "SuccessfulCreate",
                    "message": "Created pod: log-abcde", "count": 3,
                    "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:01:00Z"
                }),
                (
                    "DaemonSet",
                    "kube-system",
                    "log",
                    EventType::Normal,
                    "SuccessfulCreate",
                    3,
                    1_767_225_660,
                ),
            ),
            (
                "a new-style event with eventTime and a series only",
                json!({
                    "metadata": {"name": "e2", "namespace": "default", "uid": "u2"},
                    "involvedObject": {"kind": "Node", "name": "worker-1", "uid": "n1"},
                    "type": "Warning", "reason": "NodeNotReady", "message": "down",
                    "eventTime": "2026-01-01T00:00:00.000000Z",
                    "series": {"count": 7, "lastObservedTime": "2026-01-01T00:02:00.000000Z"}
                }),
                (
                    "Node",
                    "",
                    "worker-1",
                    EventType::Warning,
                    "NodeNotReady",
                    7,
                    1_767_225_720,
                ),
            ),
        ];
        for (what, json, (kind, ns, name, ty, reason, count, last)) in cases {
            let f = event_facts(&event(json));
            assert_eq!(f.involved.kind, kind, "{what}");
            assert_eq!(f.involved.namespace, ns, "{what}");
            assert_eq!(f.involved.name, name, "{what}");
            assert_eq!(f.row.event_type, ty, "{what}");
            assert_eq!(f.row.reason, reason, "{what}");
            assert_eq!(f.row.count, count, "{what}");
            assert_eq!(f.row.last_seen, last, "{what}");
        }
    }

    #[test]
    fn a_huge_message_is_cut_on_a_character_boundary() {
        let long = "é".repeat(MAX_MESSAGE);
        let f = event_facts(&event(json!({
            "metadata": {"uid": "u"}, "involvedObject": {"kind": "Node", "name": "n"},
            "message": long
        })));
        assert!(f.row.message.len() <= MAX_MESSAGE + "…".len());
        assert!(f.row.message.ends_with('…'));
    }
}
