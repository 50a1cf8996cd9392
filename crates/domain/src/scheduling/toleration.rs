//! Toleration matching (§a.5) and the tolerations the DaemonSet controller adds to every
//! daemon pod (§b).
//!
//! Why its own file: these two rules are the source of most "why is my agent (not) on that
//! node" questions, and both the verdict and the explanation text are built on them.

use crate::facts::{Taint, TaintEffect, TemplateFacts, Toleration};
use crate::names;

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
        (names::TAINT_NOT_READY, "NoExecute"),
        (names::TAINT_UNREACHABLE, "NoExecute"),
        (names::TAINT_DISK_PRESSURE, "NoSchedule"),
        (names::TAINT_MEMORY_PRESSURE, "NoSchedule"),
        (names::TAINT_PID_PRESSURE, "NoSchedule"),
        (names::TAINT_UNSCHEDULABLE, "NoSchedule"),
    ];
    let network = host_network.then_some((names::TAINT_NETWORK_UNAVAILABLE, "NoSchedule"));
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
        || s.starts_with('.')
        // YAML reads 0x1F, 0o17 (and YAML 1.1 readers 1_000, 2026-01-01) as numbers or dates.
        || s.starts_with(|c: char| c.is_ascii_digit());
    if plain_chars && !ambiguous {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

/// A YAML double-quoted scalar: backslash escapes for `"`, `\\` and control characters.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
    // An empty key only goes with Exists and no value (CV ValidateTolerations: "operator must
    // be Exists when `key` is empty"); such a toleration matches every taint of the effect.
    let exists = taint.value.is_empty() || taint.key.is_empty();
    Toleration {
        key: taint.key.clone(),
        operator: if exists { "Exists" } else { "Equal" }.to_string(),
        value: if exists {
            String::new()
        } else {
            taint.value.clone()
        },
        effect: effect_str(&taint.effect).to_string(),
        toleration_seconds: None,
    }
}

#[cfg(test)]
mod tests;
