//! Toleration matching (§a.5) and the tolerations the DaemonSet controller adds to every
//! daemon pod (§b).
//!
//! Why its own file: these two rules are the source of most "why is my agent (not) on that
//! node" questions, and both the verdict and the explanation text are built on them.

use crate::domain::facts::{Taint, TaintEffect, TemplateFacts, Toleration};

/// The text Kubernetes uses for a taint effect.
pub(crate) fn effect_str(effect: &TaintEffect) -> &str {
    match effect {
        TaintEffect::NoSchedule => "NoSchedule",
        TaintEffect::PreferNoSchedule => "PreferNoSchedule",
        TaintEffect::NoExecute => "NoExecute",
        TaintEffect::Other(other) => other,
    }
}

/// §a.5 `ToleratesTaint`, with `TaintTolerationComparisonOperators` at its default (off):
/// `Lt`, `Gt` and unknown operators tolerate nothing.
pub(crate) fn toleration_tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    if !toleration.effect.is_empty() && toleration.effect != effect_str(&taint.effect) {
        return false;
    }
    if !toleration.key.is_empty() && toleration.key != taint.key {
        return false;
    }
    match toleration.operator.as_str() {
        "" | "Equal" => toleration.value == taint.value,
        "Exists" => true,
        _ => false,
    }
}

/// Whether an operator is one the default gates accept; `Lt`/`Gt` need
/// `TaintTolerationComparisonOperators` (§a.5).
pub(crate) fn is_gated_operator(operator: &str) -> bool {
    matches!(operator, "Lt" | "Gt")
}

/// Whether an operator tolerates anything at all under the default gates.
pub(crate) fn is_working_operator(operator: &str) -> bool {
    matches!(operator, "" | "Equal" | "Exists")
}

/// The automatic tolerations of §b, in the order `AddOrUpdateDaemonPodTolerations` adds them.
pub(crate) fn automatic_tolerations(host_network: bool) -> Vec<Toleration> {
    const ALWAYS: [(&str, &str); 6] = [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    let network = host_network.then_some(("node.kubernetes.io/network-unavailable", "NoSchedule"));
    ALWAYS
        .iter()
        .copied()
        .chain(network)
        .map(|(key, effect)| Toleration {
            key: key.to_string(),
            operator: "Exists".to_string(),
            value: String::new(),
            effect: effect.to_string(),
            toleration_seconds: None,
        })
        .collect()
}

/// A toleration on the synthetic daemon pod and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PodToleration {
    pub toleration: Toleration,
    /// Added or put in place by the DaemonSet controller (§b), not written by the user.
    pub automatic: bool,
}

/// §b `AddOrUpdateTolerationInPodSpec` applied for each automatic toleration: a user
/// toleration equal on key, operator, value and effect is replaced in place (losing its
/// tolerationSeconds); otherwise the automatic one is appended after the user's.
pub(crate) fn merged_tolerations(template: &TemplateFacts) -> Vec<PodToleration> {
    let mut list: Vec<PodToleration> = template
        .tolerations
        .iter()
        .map(|t| PodToleration {
            toleration: t.clone(),
            automatic: false,
        })
        .collect();
    for auto in automatic_tolerations(template.host_network) {
        let mut replaced = false;
        for existing in list.iter_mut() {
            let t = &existing.toleration;
            if t.key == auto.key
                && t.operator == auto.operator
                && t.value == auto.value
                && t.effect == auto.effect
            {
                *existing = PodToleration {
                    toleration: auto.clone(),
                    automatic: true,
                };
                replaced = true;
            }
        }
        if !replaced {
            list.push(PodToleration {
                toleration: auto,
                automatic: true,
            });
        }
    }
    list
}

/// Quote a string for YAML flow style when a plain scalar would be read as something else.
pub(crate) fn yaml_scalar(s: &str) -> String {
    let plain_chars = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/'));
    let ambiguous = s.is_empty()
        || s.parse::<f64>().is_ok()
        || matches!(
            s.to_ascii_lowercase().as_str(),
            "true"
                | "false"
                | "yes"
                | "no"
                | "on"
                | "off"
                | "null"
                | "y"
                | "n"
                | "~"
                | ".inf"
                | ".nan"
        )
        || s.starts_with('-')
        || s.starts_with('.');
    if plain_chars && !ambiguous {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
    }
}

/// A toleration as the YAML flow mapping a user would paste into `tolerations:`.
pub(crate) fn render_toleration(t: &Toleration) -> String {
    let mut parts = Vec::new();
    if !t.key.is_empty() {
        parts.push(format!("key: {}", yaml_scalar(&t.key)));
    }
    if !t.operator.is_empty() {
        parts.push(format!("operator: {}", yaml_scalar(&t.operator)));
    }
    if !t.value.is_empty() {
        parts.push(format!("value: {}", yaml_scalar(&t.value)));
    }
    if !t.effect.is_empty() {
        parts.push(format!("effect: {}", yaml_scalar(&t.effect)));
    }
    if let Some(seconds) = t.toleration_seconds {
        parts.push(format!("tolerationSeconds: {seconds}"));
    }
    format!("{{{}}}", parts.join(", "))
}

/// A taint as `kubectl describe node` prints it: `key=value:Effect` (or `key:Effect`).
pub(crate) fn render_taint(taint: &Taint) -> String {
    if taint.value.is_empty() {
        format!("{}:{}", taint.key, effect_str(&taint.effect))
    } else {
        format!(
            "{}={}:{}",
            taint.key,
            taint.value,
            effect_str(&taint.effect)
        )
    }
}

/// The smallest toleration that tolerates exactly this taint: `Exists` when it has no value
/// (so a later value does not break it), `Equal` with the value otherwise.
pub(crate) fn toleration_for(taint: &Taint) -> Toleration {
    let exists = taint.value.is_empty();
    Toleration {
        key: taint.key.clone(),
        operator: if exists { "Exists" } else { "Equal" }.to_string(),
        value: taint.value.clone(),
        effect: effect_str(&taint.effect).to_string(),
        toleration_seconds: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(key: &str, operator: &str, value: &str, effect: &str) -> Toleration {
        Toleration {
            key: key.into(),
            operator: operator.into(),
            value: value.into(),
            effect: effect.into(),
            toleration_seconds: None,
        }
    }

    fn taint(key: &str, value: &str, effect: TaintEffect) -> Taint {
        Taint {
            key: key.into(),
            value: value.into(),
            effect,
        }
    }

    #[test]
    fn toleration_matching_follows_tolerates_taint_a5() {
        use TaintEffect::*;
        let dedicated = taint("dedicated", "infra", NoSchedule);
        let cp = taint("node-role.kubernetes.io/control-plane", "", NoSchedule);
        let noexec = taint("dedicated", "infra", NoExecute);
        let five = taint("dedicated", "5", NoSchedule);
        let cases: Vec<(&str, Toleration, &Taint, bool)> = vec![
            (
                "§a.5 Equal with the same key, value and effect",
                tol("dedicated", "Equal", "infra", "NoSchedule"),
                &dedicated,
                true,
            ),
            (
                "§a.5 empty operator means Equal",
                tol("dedicated", "", "infra", "NoSchedule"),
                &dedicated,
                true,
            ),
            (
                "§a.5 Equal with another value",
                tol("dedicated", "Equal", "gpu", "NoSchedule"),
                &dedicated,
                false,
            ),
            (
                "§a.5 Equal with empty value against a valued taint",
                tol("dedicated", "Equal", "", "NoSchedule"),
                &dedicated,
                false,
            ),
            (
                "§a.5 two empty values are equal",
                tol(
                    "node-role.kubernetes.io/control-plane",
                    "",
                    "",
                    "NoSchedule",
                ),
                &cp,
                true,
            ),
            (
                "§a.5 Exists ignores the value",
                tol("dedicated", "Exists", "", "NoSchedule"),
                &dedicated,
                true,
            ),
            (
                "§a.5 key is case-sensitive",
                tol("Dedicated", "Exists", "", "NoSchedule"),
                &dedicated,
                false,
            ),
            (
                "§a.5 empty effect matches every effect",
                tol("dedicated", "Exists", "", ""),
                &noexec,
                true,
            ),
            (
                "§a.5 another effect does not match",
                tol("dedicated", "Exists", "", "NoSchedule"),
                &noexec,
                false,
            ),
            (
                "§a.5 empty key + Exists + empty effect tolerates everything",
                tol("", "Exists", "", ""),
                &cp,
                true,
            ),
            (
                "§a.5 empty key + Exists is limited to its effect",
                tol("", "Exists", "", "NoExecute"),
                &cp,
                false,
            ),
            (
                "§a.5 empty key + Equal matches any key by value",
                tol("", "Equal", "infra", ""),
                &dedicated,
                true,
            ),
            (
                "§a.5 empty key + Equal with another value",
                tol("", "Equal", "gpu", ""),
                &dedicated,
                false,
            ),
            (
                "§a.5 empty key + no operator matches empty-valued taints",
                tol("", "", "", "NoSchedule"),
                &cp,
                true,
            ),
            (
                "§a.5 Lt tolerates nothing with the gate off",
                tol("dedicated", "Lt", "100", "NoSchedule"),
                &five,
                false,
            ),
            (
                "§a.5 Gt tolerates nothing with the gate off",
                tol("dedicated", "Gt", "1", "NoSchedule"),
                &five,
                false,
            ),
            (
                "§a.5 unknown operator tolerates nothing",
                tol("dedicated", "Matches", "infra", "NoSchedule"),
                &dedicated,
                false,
            ),
            (
                "§a.5 operator is case-sensitive",
                tol("dedicated", "exists", "", "NoSchedule"),
                &dedicated,
                false,
            ),
        ];
        for (name, t, taint, want) in cases {
            assert_eq!(toleration_tolerates(&t, taint), want, "{name}");
        }
    }

    #[test]
    fn toleration_seconds_is_not_part_of_matching_a5() {
        let mut t = tol("node.kubernetes.io/not-ready", "Exists", "", "NoExecute");
        t.toleration_seconds = Some(0);
        assert!(toleration_tolerates(
            &t,
            &taint("node.kubernetes.io/not-ready", "", TaintEffect::NoExecute)
        ));
    }

    #[test]
    fn automatic_tolerations_are_the_six_of_b_plus_network_with_host_network() {
        let keys = |host| -> Vec<String> {
            automatic_tolerations(host)
                .into_iter()
                .map(|t| format!("{}:{}:{}", t.key, t.operator, t.effect))
                .collect()
        };
        assert_eq!(
            keys(false),
            vec![
                "node.kubernetes.io/not-ready:Exists:NoExecute",
                "node.kubernetes.io/unreachable:Exists:NoExecute",
                "node.kubernetes.io/disk-pressure:Exists:NoSchedule",
                "node.kubernetes.io/memory-pressure:Exists:NoSchedule",
                "node.kubernetes.io/pid-pressure:Exists:NoSchedule",
                "node.kubernetes.io/unschedulable:Exists:NoSchedule",
            ]
        );
        let with_net = keys(true);
        assert_eq!(with_net.len(), 7);
        assert_eq!(
            with_net[6],
            "node.kubernetes.io/network-unavailable:Exists:NoSchedule"
        );
        assert!(automatic_tolerations(true)
            .iter()
            .all(|t| t.toleration_seconds.is_none()));
    }

    #[test]
    fn merge_replaces_only_when_key_operator_value_effect_all_equal_b() {
        let mut exact = tol("node.kubernetes.io/not-ready", "Exists", "", "NoExecute");
        exact.toleration_seconds = Some(300);
        let mut no_operator = tol("node.kubernetes.io/not-ready", "", "", "NoExecute");
        no_operator.toleration_seconds = Some(300);
        let template = TemplateFacts {
            tolerations: vec![
                tol("dedicated", "Exists", "", "NoSchedule"),
                exact,
                no_operator.clone(),
            ],
            ..Default::default()
        };
        let merged = merged_tolerations(&template);
        // user first, in place; the exact match replaced (no tolerationSeconds), the
        // operator-less one kept with its 300 s, then the 5 automatic ones not yet present.
        assert_eq!(merged.len(), 3 + 5);
        assert_eq!(merged[0].toleration.key, "dedicated");
        assert!(!merged[0].automatic);
        assert_eq!(
            merged[1].toleration.toleration_seconds, None,
            "§b exact match is replaced"
        );
        assert!(merged[1].automatic);
        assert_eq!(
            merged[2].toleration, no_operator,
            "§b trap 11: without operator it is kept"
        );
        assert!(!merged[2].automatic);
        assert_eq!(merged[3].toleration.key, "node.kubernetes.io/unreachable");
        assert!(
            merged
                .iter()
                .filter(|t| t.toleration.key == "node.kubernetes.io/not-ready")
                .count()
                == 2
        );
    }

    #[test]
    fn merge_with_no_user_tolerations_gives_the_automatic_list_b() {
        let merged = merged_tolerations(&TemplateFacts {
            host_network: true,
            ..Default::default()
        });
        assert_eq!(merged.len(), 7);
        assert!(merged.iter().all(|t| t.automatic));
    }

    #[test]
    fn rendering_gives_pasteable_yaml() {
        let cases = vec![
            (
                tol("dedicated", "Equal", "infra", "NoSchedule"),
                "{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}",
            ),
            (tol("", "Exists", "", ""), "{operator: Exists}"),
            (
                tol("flag", "Equal", "true", "NoSchedule"),
                "{key: flag, operator: Equal, value: \"true\", effect: NoSchedule}",
            ),
            (
                tol("cores", "Equal", "08", ""),
                "{key: cores, operator: Equal, value: \"08\"}",
            ),
        ];
        for (t, want) in cases {
            assert_eq!(render_toleration(&t), want);
        }
        assert_eq!(
            render_taint(&taint("dedicated", "infra", TaintEffect::NoSchedule)),
            "dedicated=infra:NoSchedule"
        );
        assert_eq!(
            render_taint(&taint("k", "", TaintEffect::NoExecute)),
            "k:NoExecute"
        );
        assert_eq!(
            render_toleration(&toleration_for(&taint("k", "", TaintEffect::NoExecute))),
            "{key: k, operator: Exists, effect: NoExecute}"
        );
    }
}
