//! Badges for a node row: readiness, cordon, taints and a few identifying labels.
//!
//! Why show them: readiness and cordon do NOT decide DaemonSet placement (§a.6) but taints
//! do (§a.2 step 3); seeing them beside the cells explains most of a row at a glance.

use crate::domain::view::NodeRow;
use leptos::prelude::*;

/// Longest badge text shown; the full value stays in the tooltip.
const MAX_BADGE: usize = 48;

fn bounded(s: &str) -> String {
    if s.chars().count() > MAX_BADGE {
        format!("{}…", s.chars().take(MAX_BADGE).collect::<String>())
    } else {
        s.to_string()
    }
}

/// A label as it fits in a row: the key without its DNS prefix; `role` for node-role keys.
pub fn short_label(key: &str, value: &str) -> String {
    if let Some(role) = key.strip_prefix("node-role.kubernetes.io/") {
        return bounded(&format!("role={role}"));
    }
    let key = key.rsplit('/').next().unwrap_or(key);
    bounded(&format!("{key}={value}"))
}

/// The readiness badge text and its `data-badge` kind.
pub fn readiness(ready: Option<bool>) -> (&'static str, &'static str) {
    match ready {
        Some(true) => ("Ready", "ready"),
        Some(false) => ("NotReady", "notready"),
        None => ("Unknown", "unknown"),
    }
}

/// The badges of one node (its own fields, live).
#[component]
pub fn NodeBadges(
    /// The node row (cells are ignored here).
    #[prop(into)]
    row: Signal<NodeRow>,
) -> impl IntoView {
    view! {
        <span class="badges">
            {move || {
                let r = row.get();
                let (text, kind) = readiness(r.ready);
                let cordon = r
                    .unschedulable
                    .then(|| {
                        view! {
                            <span class="badge" data-badge="cordoned" title="spec.unschedulable: true (ignored by DaemonSets, §a.6)">
                                "⊘ Cordoned"
                            </span>
                        }
                    });
                let taints = r
                    .taints
                    .iter()
                    .map(|t| {
                        view! {
                            <span class="badge" data-badge="taint" title=format!("taint {t}")>
                                {format!("⚑ {}", bounded(t))}
                            </span>
                        }
                    })
                    .collect_view();
                let labels = (!r.labels.is_empty()).then(|| {
                    let full = r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("\n");
                    let short = r.labels.iter().map(|(k, v)| short_label(k, v)).collect::<Vec<_>>().join(" · ");
                    view! { <span class="labels" title=full>{short}</span> }
                });
                view! {
                    <span class="badge" data-badge=kind>{text}</span>
                    {cordon}
                    {taints}
                    {labels}
                }
            }}
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_has_three_distinct_badges() {
        assert_eq!(readiness(Some(true)).1, "ready");
        assert_eq!(readiness(Some(false)).0, "NotReady");
        assert_eq!(readiness(None).0, "Unknown");
    }

    #[test]
    fn labels_lose_their_prefix_and_roles_read_as_role() {
        let cases = [
            (
                "topology.kubernetes.io/zone",
                "eu-west-1a",
                "zone=eu-west-1a",
            ),
            (
                "node-role.kubernetes.io/control-plane",
                "",
                "role=control-plane",
            ),
            ("workload-type", "gpu", "workload-type=gpu"),
        ];
        for (k, v, want) in cases {
            assert_eq!(short_label(k, v), want);
        }
    }

    #[test]
    fn long_values_are_cut_for_display() {
        assert_eq!(bounded("short"), "short");
        let long = "k".repeat(100);
        assert_eq!(bounded(&long).chars().count(), MAX_BADGE + 1);
    }
}
