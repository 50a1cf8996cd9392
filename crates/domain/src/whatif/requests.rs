//! Requests in a what-if (§j.6): "if log-collector asked 500m cpu / 256Mi memory, on which nodes would
//! it not fit?" (§j.4).
//!
//! Why here and not in the scheduler code: the question is asked of a template that does not
//! exist yet. The answer is the scheduler's own fit test (`resources::fit::insufficient`,
//! NodeResourcesFit) on each node where the DaemonSet should run after the edits, over the
//! node's sums from the watch data: what the pods bound there request, minus what this
//! DaemonSet's own pod there requests now (the rollout replaces it), plus the asked requests,
//! against allocatable. No rule is written again; this file reads the edit and words the answer.

use crate::coverage::pending::format_amount;
use crate::resources::fit::{counted_by_scheduler, insufficient, Amounts, Shortfall};
use crate::resources::{scheduler_amount, Quantity, PODS};
use serde::{Deserialize, Serialize};

/// One node's room as a requests preview reads it (§j.3): the sums of every pod bound to it,
/// and the part of them that is the previewed DaemonSet's own pod.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRoomFacts {
    /// The node's name.
    pub node: String,
    /// What the pods bound to the node request, summed (workload and daemon pods, §j.3).
    pub requested: Amounts,
    /// How many pods count against its allocatable `pods`.
    pub pods: i64,
    /// What the previewed DaemonSet's own counted pods there request (replaced by the edit).
    pub own: Amounts,
    /// How many of the counted pods are the previewed DaemonSet's own.
    pub own_pods: i64,
}

/// Reads `requests=cpu=500m,memory=256Mi`: resource=quantity pairs, each quantity as
/// `resource.ParseQuantity` reads it (§j.1, refused with its words), never negative (the API
/// server refuses a negative request), the resource one the scheduler counts (§j.4) other than
/// `pods`. The pairs are kept as written, sorted by resource, so the URL reads back the same.
pub fn parse_requests(spec: &str) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for pair in spec.split(',').filter(|p| !p.trim().is_empty()) {
        let Some((name, text)) = pair.split_once('=') else {
            return Err(format!(
                "{pair:?}: expected RESOURCE=QUANTITY[,…], e.g. cpu=500m,memory=256Mi"
            ));
        };
        let (name, text) = (name.trim(), text.trim());
        if name == PODS || !counted_by_scheduler(name) {
            return Err(format!(
                "{name:?}: a request of cpu, memory, ephemeral-storage or an extended resource (such as nvidia.com/gpu)"
            ));
        }
        let quantity = Quantity::parse(text).map_err(|e| format!("{name}={text:?}: {e}"))?;
        if quantity.is_negative() {
            return Err(format!(
                "{name}={text:?}: must be greater than or equal to 0"
            ));
        }
        out.retain(|(n, _)| n != name);
        out.push((name.to_owned(), text.to_owned()));
    }
    if out.is_empty() {
        return Err("expected RESOURCE=QUANTITY[,…], e.g. cpu=500m,memory=256Mi".into());
    }
    out.sort();
    Ok(out)
}

/// Replaces, per resource, what the template's pod asks (§j.2) by the edit's request. The
/// pairs were checked by [`parse_requests`]; one that no longer parses changes nothing.
pub fn apply_requests(requests: &mut Amounts, pairs: &[(String, String)]) {
    for (name, text) in pairs {
        if let Ok(q) = Quantity::parse(text) {
            requests.set(name, scheduler_amount(name, q));
        }
    }
}

/// What the node could not give a pod asking `ask` in place of the DaemonSet's own pod there
/// (NodeResourcesFit, §j.4): empty when it fits.
pub fn shortfalls(room: &NodeRoomFacts, allocatable: &Amounts, ask: &Amounts) -> Vec<Shortfall> {
    let mut others = room.requested.clone();
    others.add_signed(&room.own, -1);
    let pods = room.pods.saturating_sub(room.own_pods).max(0);
    insufficient(allocatable, &others, pods, ask)
}

/// The shortfalls in words, each resource with how much is missing:
/// `Insufficient cpu: short by 200m (asks 500m, 300m left)`.
pub fn shortfall_words(shortfalls: &[Shortfall]) -> String {
    shortfalls
        .iter()
        .map(|s| {
            if s.resource == PODS {
                format!("{}: {} of {} pods taken", s.reason, s.used, s.capacity)
            } else {
                let r = s.resource.as_str();
                format!(
                    "{}: short by {} (asks {}, {} left)",
                    s.reason,
                    format_amount(r, s.short_by()),
                    format_amount(r, s.asked),
                    format_amount(r, s.room())
                )
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::amounts;

    #[test]
    fn requests_parse_as_kubernetes_parses_quantities_and_keep_their_spelling_j1() {
        assert_eq!(
            parse_requests("memory=256Mi,cpu=.5").unwrap(),
            vec![
                ("cpu".to_string(), ".5".to_string()),
                ("memory".to_string(), "256Mi".to_string())
            ]
        );
        assert_eq!(
            parse_requests("cpu=1K").unwrap_err(),
            "cpu=\"1K\": unable to parse quantity's suffix"
        );
        assert!(parse_requests("cpu=lots")
            .unwrap_err()
            .contains("quantities must match the regular expression"));
        assert_eq!(
            parse_requests("cpu=-1").unwrap_err(),
            "cpu=\"-1\": must be greater than or equal to 0"
        );
        assert!(parse_requests("pods=1").is_err());
        assert!(parse_requests("color=1").is_err());
        assert!(parse_requests("cpu").is_err());
        assert!(parse_requests("").is_err());
        // A huge quantity saturates, it neither panics nor wraps.
        let mut r = Amounts::new();
        apply_requests(&mut r, &parse_requests("cpu=9e30").unwrap());
        assert_eq!(r.get("cpu"), i64::MAX);
    }

    #[test]
    fn the_own_pod_is_replaced_by_the_asked_one_as_noderesourcesfit_counts_j4() {
        // 4 cores; 3500m requested of which 100m is this DaemonSet's own pod.
        let room = NodeRoomFacts {
            node: "a".into(),
            requested: amounts(&[("cpu", "3500m"), ("memory", "1Gi")]),
            pods: 10,
            own: amounts(&[("cpu", "100m"), ("memory", "100Mi")]),
            own_pods: 1,
        };
        let alloc = amounts(&[("cpu", "4"), ("memory", "16Gi"), ("pods", "110")]);
        // 600m left once the own pod goes: 500m fits, 700m is short by 100m.
        assert!(shortfalls(&room, &alloc, &amounts(&[("cpu", "500m")])).is_empty());
        assert!(shortfalls(&room, &alloc, &amounts(&[("cpu", "600m")])).is_empty());
        let short = shortfalls(
            &room,
            &alloc,
            &amounts(&[("cpu", "700m"), ("memory", "1Gi")]),
        );
        assert_eq!(short.len(), 1);
        assert_eq!(
            shortfall_words(&short),
            "Insufficient cpu: short by 100m (asks 700m, 600m left)"
        );
    }

    /// §j.6: "if log-collector asked 500m cpu, on which nodes would it not fit?": the full node is
    /// marked with the short resource and by how much; a node where it should not run is not;
    /// and the edit reads back from its URL.
    #[test]
    fn the_preview_marks_the_nodes_where_the_asked_pod_would_not_fit_j4() {
        use crate::testing::{labelled, node};
        use crate::whatif::{parse_edits, preview, to_query, EditScope, Outcome, WhatIfFacts};
        let alloc = amounts(&[("cpu", "4"), ("memory", "16Gi"), ("pods", "110")]);
        let with_alloc = |mut n: crate::facts::NodeFacts| {
            n.allocatable = alloc.clone();
            n
        };
        let template = crate::facts::TemplateFacts {
            requests: amounts(&[("cpu", "100m"), ("memory", "100Mi")]),
            node_selector: crate::testing::labels(&[("pool", "web")]),
            ..crate::facts::TemplateFacts::default()
        };
        let room = |node: &str, cpu: &str| NodeRoomFacts {
            node: node.into(),
            requested: amounts(&[("cpu", cpu), ("memory", "1Gi")]),
            pods: 5,
            own: amounts(&[("cpu", "100m"), ("memory", "100Mi")]),
            own_pods: 1,
        };
        let facts = WhatIfFacts {
            nodes: vec![
                with_alloc(labelled("full", &[("pool", "web")])),
                with_alloc(labelled("roomy", &[("pool", "web")])),
                with_alloc(node("db")),
            ],
            daemonsets: vec![("ns/log".into(), template)],
            pods: vec![
                ("full".into(), "ns/log".into()),
                ("roomy".into(), "ns/log".into()),
            ],
            rooms: vec![
                room("db", "3900m"),
                room("full", "3800m"),
                room("roomy", "1"),
            ],
        };
        let query = |k: &str| match k {
            "requests" => vec!["cpu=500m,memory=256Mi".to_string()],
            _ => vec![],
        };
        let edits = parse_edits(EditScope::DaemonSet, query).unwrap();
        assert_eq!(to_query(&edits), "requests=cpu%3D500m%2Cmemory%3D256Mi");
        let changes = preview(&facts, &edits);
        let of = |n: &str| changes.iter().find(|c| c.node == n).unwrap();
        // full: 3800m − 100m own = 3700m used, 300m left, asks 500m.
        assert_eq!(of("full").outcome, Outcome::WouldNotFit);
        assert_eq!(
            of("full").why.as_deref(),
            Some("Insufficient cpu: short by 200m (asks 500m, 300m left)")
        );
        assert_eq!(of("roomy").outcome, Outcome::Unaffected);
        // db is full too, but the DaemonSet should not run there (§a.2): not its concern.
        assert_eq!(of("db").outcome, Outcome::Unaffected);
        assert!(crate::whatif::summary(&changes)
            .starts_with("1 pod would not fit and stay Pending (1 node): ns/log"));
        // Without a requests edit no cell is checked for room, full or not.
        let none = preview(&facts, &crate::whatif::Edits::default());
        assert!(none.iter().all(|c| c.outcome == Outcome::Unaffected));
    }

    #[test]
    fn a_full_node_says_too_many_pods_j4() {
        let room = NodeRoomFacts {
            node: "a".into(),
            pods: 3,
            ..NodeRoomFacts::default()
        };
        let alloc = amounts(&[("cpu", "4"), ("pods", "3")]);
        let short = shortfalls(&room, &alloc, &amounts(&[("cpu", "1m")]));
        assert_eq!(shortfall_words(&short), "Too many pods: 3 of 3 pods taken");
    }
}
