//! Which pods a DaemonSet owns (§f): `ControllerRefManager.ClaimObject` and the label
//! selector it matches with (`metav1.LabelSelectorAsSelector`).
//!
//! Why here: ownership goes by the controller ownerReference's uid, not by labels, but the
//! labels decide when an orphan is adopted and when an owned pod is released. The simulated
//! controller carries the decision out; the rule lives once.

use crate::facts::{Labels, SelectorRequirement};

/// A DaemonSet's `spec.selector` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelectorFacts {
    pub match_labels: Labels,
    pub match_expressions: Vec<SelectorRequirement>,
}

impl LabelSelectorFacts {
    /// `{}`: selects everything, which the DaemonSet controller refuses to sync (§f).
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }
}

/// `LabelSelectorAsSelector` then `Matches` (the domain's one label-selector rule,
/// `labels`): every matchLabels pair and every expression must hold. An invalid selector
/// (an unknown operator, `Gt`/`Lt`, a bad key or value) selects nothing.
pub fn label_selector_matches(selector: &LabelSelectorFacts, labels: &Labels) -> bool {
    crate::labels::selector_facts_match(selector, labels)
}

/// What the controller does with one pod of its namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Owned and still selected: it is ours.
    Keep,
    /// An orphan that the selector matches: set our controller ownerReference.
    Adopt,
    /// Owned but no longer selected: remove our ownerReference (the pod keeps running).
    Release,
    /// Another controller's pod, or nothing to do.
    Ignore,
}

/// §f `ClaimObject` for one pod. `pod_controller_uid` is the uid of the pod's controller
/// ownerReference, if any.
pub fn claim(
    daemonset_uid: &str,
    daemonset_deleting: bool,
    pod_controller_uid: Option<&str>,
    pod_deleting: bool,
    selected: bool,
) -> Claim {
    match pod_controller_uid {
        Some(uid) if uid != daemonset_uid => Claim::Ignore,
        Some(_) if selected => Claim::Keep,
        // Owned, not selected: released, unless the DaemonSet itself is going away.
        Some(_) if daemonset_deleting => Claim::Ignore,
        Some(_) => Claim::Release,
        // An orphan: adopted only if selected, alive, and the DaemonSet is not going away.
        None if daemonset_deleting || !selected || pod_deleting => Claim::Ignore,
        None => Claim::Adopt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{labels, req};

    #[test]
    fn the_label_selector_matches_as_kubernetes_does() {
        let pod = labels(&[("app", "agent"), ("tier", "infra")]);
        let sel = |ml: &[(&str, &str)], ex: Vec<SelectorRequirement>| LabelSelectorFacts {
            match_labels: labels(ml),
            match_expressions: ex,
        };
        let cases = [
            (
                "§f matchLabels equal",
                sel(&[("app", "agent")], vec![]),
                true,
            ),
            (
                "§f matchLabels differ",
                sel(&[("app", "other")], vec![]),
                false,
            ),
            (
                "§f In with the value",
                sel(&[], vec![req("tier", "In", &["infra", "x"])]),
                true,
            ),
            (
                "§f In without the key",
                sel(&[], vec![req("zone", "In", &["a"])]),
                false,
            ),
            (
                "§f NotIn on a missing key holds",
                sel(&[], vec![req("zone", "NotIn", &["a"])]),
                true,
            ),
            (
                "§f NotIn with a listed value",
                sel(&[], vec![req("tier", "NotIn", &["infra"])]),
                false,
            ),
            (
                "§f Exists",
                sel(&[], vec![req("tier", "Exists", &[])]),
                true,
            ),
            (
                "§f DoesNotExist",
                sel(&[], vec![req("tier", "DoesNotExist", &[])]),
                false,
            ),
            (
                "§f labels AND expressions",
                sel(&[("app", "agent")], vec![req("tier", "In", &["db"])]),
                false,
            ),
            (
                "§f an unknown operator selects nothing",
                sel(&[], vec![req("tier", "Gt", &["1"])]),
                false,
            ),
        ];
        for (name, selector, want) in cases {
            assert_eq!(label_selector_matches(&selector, &pod), want, "{name}");
        }
    }

    #[test]
    fn claiming_follows_the_controller_ref_manager() {
        let cases = [
            (
                "§f our pod, selected: keep",
                Some("ds"),
                false,
                false,
                true,
                Claim::Keep,
            ),
            (
                "§f our pod, relabelled: release",
                Some("ds"),
                false,
                false,
                false,
                Claim::Release,
            ),
            (
                "§f our pod, relabelled, DaemonSet deleting: leave",
                Some("ds"),
                true,
                false,
                false,
                Claim::Ignore,
            ),
            (
                "§f someone else's pod, selected: not ours",
                Some("rs"),
                false,
                false,
                true,
                Claim::Ignore,
            ),
            (
                "§f orphan, selected: adopt",
                None,
                false,
                false,
                true,
                Claim::Adopt,
            ),
            (
                "§f orphan, not selected: leave",
                None,
                false,
                false,
                false,
                Claim::Ignore,
            ),
            (
                "§f orphan being deleted: leave",
                None,
                false,
                true,
                true,
                Claim::Ignore,
            ),
            (
                "§f orphan, DaemonSet deleting: leave",
                None,
                true,
                false,
                true,
                Claim::Ignore,
            ),
        ];
        for (name, owner, ds_deleting, pod_deleting, selected, want) in cases {
            assert_eq!(
                claim("ds", ds_deleting, owner, pod_deleting, selected),
                want,
                "{name}"
            );
        }
    }
}
