//! What `kubectl rollout status daemonset/NAME` says (§e, KRS `DaemonSetStatusViewer.Status`).

use crate::facts::{DaemonSetFacts, DaemonSetStatusFacts, UpdateStrategy};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The error kubectl returns for a DaemonSet that is not RollingUpdate (§e.1). kubectl prints
/// it on stderr as `error: <this>` and exits 1.
pub const ON_DELETE_ERROR: &str =
    "rollout status is only available for RollingUpdate strategy type";

/// What `kubectl rollout status daemonset/NAME` prints (§e).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutVerdict {
    /// Whether kubectl would stop waiting.
    pub done: bool,
    /// The stdout line without the trailing newline; empty when `error` is set.
    pub message: String,
    /// The error kubectl prints on stderr (`error: ` prefix not included).
    pub error: Option<String>,
}

/// §e `DaemonSetStatusViewer.Status` on the DaemonSet's own status block.
///
/// A DaemonSet without a status block (a manifest, §i.4) is reported as not observed yet: if
/// created it would get generation 1 and an empty status, and kubectl would say so.
pub fn kubectl_rollout_status(ds: &DaemonSetFacts) -> RolloutVerdict {
    rollout_status_for(ds, ds.status.as_ref())
}

/// §e with a status supplied by the caller (for example one computed by
/// [`super::compute_status`] for a scenario), so the verdict is never written twice.
pub fn rollout_status_for(
    ds: &DaemonSetFacts,
    status: Option<&DaemonSetStatusFacts>,
) -> RolloutVerdict {
    // §e.1: the strategy test comes first, even before the generation test.
    if !matches!(ds.strategy, UpdateStrategy::RollingUpdate { .. }) {
        return RolloutVerdict {
            done: true,
            message: String::new(),
            error: Some(ON_DELETE_ERROR.into()),
        };
    }
    let waiting = |message: String| RolloutVerdict {
        done: false,
        message,
        error: None,
    };
    // §e.2 / §i.4: an absent status has never been observed.
    let Some(status) = status.filter(|s| ds.generation <= s.observed_generation) else {
        return waiting("Waiting for daemon set spec update to be observed...".into());
    };
    // Not a kubectl rule: kubectl would call desired -1 "successfully rolled out". No API server
    // stores such a status (AV ValidateDaemonSetStatusUpdate: every count non-negative), so a
    // dump that has one is damaged data, and saying "rolled out" would be a lie (issue 15).
    if let Some((field, value)) = negative_count(status) {
        return RolloutVerdict {
            done: false,
            message: String::new(),
            error: Some(format!(
                "invalid DaemonSet status: status.{field} is {value}, but a count is never negative \
                 (the API server refuses it: ValidateDaemonSetStatusUpdate); no verdict can be given"
            )),
        };
    }
    let name = go_quote(&ds.name);
    let desired = status.desired_number_scheduled;
    if status.updated_number_scheduled < desired {
        return waiting(format!(
            "Waiting for daemon set {name} rollout to finish: {} out of {desired} new pods have been updated...",
            status.updated_number_scheduled
        ));
    }
    if status.number_available < desired {
        return waiting(format!(
            "Waiting for daemon set {name} rollout to finish: {} of {desired} updated pods are available...",
            status.number_available
        ));
    }
    RolloutVerdict {
        done: true,
        message: format!("daemon set {name} successfully rolled out"),
        error: None,
    }
}

/// The first status field below zero, by its API name, with its value.
fn negative_count(s: &DaemonSetStatusFacts) -> Option<(&'static str, i64)> {
    [
        ("observedGeneration", s.observed_generation),
        ("desiredNumberScheduled", s.desired_number_scheduled),
        ("currentNumberScheduled", s.current_number_scheduled),
        ("numberMisscheduled", s.number_misscheduled),
        ("numberReady", s.number_ready),
        ("numberAvailable", s.number_available),
        ("numberUnavailable", s.number_unavailable),
        ("updatedNumberScheduled", s.updated_number_scheduled),
    ]
    .into_iter()
    .find(|(_, v)| *v < 0)
}

/// Go's `%q` for the characters a name can carry: quotes, backslash-escapes `"` and `\`, and
/// escapes control characters; printable Unicode stays as is.
fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ds;

    fn with_status(generation: i64, status: Option<(i64, i64, i64, i64)>) -> DaemonSetFacts {
        let mut d = ds();
        d.name = "fluentd".into();
        d.generation = generation;
        d.status = status.map(
            |(observed, desired, updated, available)| DaemonSetStatusFacts {
                observed_generation: observed,
                desired_number_scheduled: desired,
                updated_number_scheduled: updated,
                number_available: available,
                ..Default::default()
            },
        );
        d
    }

    #[test]
    fn every_branch_of_the_kubectl_verdict() {
        let mut on_delete_unobserved = with_status(5, Some((4, 3, 0, 0)));
        on_delete_unobserved.strategy = UpdateStrategy::OnDelete;
        let mut other_type = with_status(1, Some((1, 3, 3, 3)));
        other_type.strategy = UpdateStrategy::Other("Recreate".into());
        let cases: Vec<(&str, DaemonSetFacts, bool, &str, Option<&str>)> = vec![
            (
                "§e.1 OnDelete is an error, done, empty message, even when the generation is not observed",
                on_delete_unobserved,
                true, "", Some("rollout status is only available for RollingUpdate strategy type"),
            ),
            (
                "§e.1 any type other than RollingUpdate is the same error",
                other_type,
                true, "", Some("rollout status is only available for RollingUpdate strategy type"),
            ),
            (
                "§e.2 generation > observedGeneration waits for the spec update",
                with_status(3, Some((2, 3, 3, 3))),
                false, "Waiting for daemon set spec update to be observed...", None,
            ),
            (
                "§e.2 §i.4 no status block at all: not observed yet",
                with_status(1, None),
                false, "Waiting for daemon set spec update to be observed...", None,
            ),
            (
                "§e.3 fewer updated than desired",
                with_status(2, Some((2, 5, 2, 5))),
                false, "Waiting for daemon set \"fluentd\" rollout to finish: 2 out of 5 new pods have been updated...", None,
            ),
            (
                "§e.3 all updated, fewer available than desired",
                with_status(2, Some((2, 5, 5, 4))),
                false, "Waiting for daemon set \"fluentd\" rollout to finish: 4 of 5 updated pods are available...", None,
            ),
            (
                "§e.3 the updated test comes before the available test",
                with_status(2, Some((2, 5, 1, 0))),
                false, "Waiting for daemon set \"fluentd\" rollout to finish: 1 out of 5 new pods have been updated...", None,
            ),
            (
                "§e.3 all updated and available: successfully rolled out",
                with_status(2, Some((2, 5, 5, 5))),
                true, "daemon set \"fluentd\" successfully rolled out", None,
            ),
            (
                "§e §g.9 desired 0 is successfully rolled out",
                with_status(1, Some((1, 0, 0, 0))),
                true, "daemon set \"fluentd\" successfully rolled out", None,
            ),
            (
                "§e observedGeneration > generation counts as observed",
                with_status(1, Some((9, 2, 2, 2))),
                true, "daemon set \"fluentd\" successfully rolled out", None,
            ),
            (
                "§e more updated/available than desired is done (only < is tested)",
                with_status(1, Some((1, 2, 3, 3))),
                true, "daemon set \"fluentd\" successfully rolled out", None,
            ),
        ];
        for (rule, d, done, message, error) in cases {
            let got = kubectl_rollout_status(&d);
            assert_eq!(got.done, done, "{rule}: done");
            assert_eq!(got.message, message, "{rule}: message");
            assert_eq!(got.error.as_deref(), error, "{rule}: error");
        }
    }

    #[test]
    fn misscheduled_and_unavailable_counts_are_never_checked() {
        let mut d = with_status(1, Some((1, 3, 3, 3)));
        if let Some(s) = d.status.as_mut() {
            s.number_misscheduled = 4;
            s.number_unavailable = 2;
            s.current_number_scheduled = 1;
        }
        assert!(
            kubectl_rollout_status(&d).done,
            "§e consequences: misscheduled/unavailable/current are ignored"
        );
    }

    #[test]
    fn a_negative_count_is_invalid_status_data_not_a_success() {
        // Issue 15 reproduction 8: desiredNumberScheduled -1 made `0 < -1` false at every step
        // of §e.3, so the verdict was "successfully rolled out". AV
        // ValidateDaemonSetStatusUpdate refuses negative counts, so it is damaged data.
        for (desired, updated, available) in [(-1, 0, 0), (3, -2, 3), (3, 3, -1)] {
            let d = with_status(1, Some((1, desired, updated, available)));
            let got = kubectl_rollout_status(&d);
            assert!(!got.done, "{desired}/{updated}/{available}");
            assert!(got.message.is_empty());
            let error = got.error.unwrap_or_default();
            assert!(
                error.starts_with("invalid DaemonSet status: status.")
                    && error.contains("never negative"),
                "{error}"
            );
        }
        let d = with_status(1, Some((1, -1, 0, 0)));
        assert!(kubectl_rollout_status(&d)
            .error
            .is_some_and(|e| e.contains("status.desiredNumberScheduled is -1")));
    }

    #[test]
    fn a_supplied_status_replaces_the_stored_one() {
        let d = with_status(1, None);
        let computed = DaemonSetStatusFacts {
            observed_generation: 1,
            desired_number_scheduled: 2,
            updated_number_scheduled: 1,
            ..Default::default()
        };
        assert_eq!(
            rollout_status_for(&d, Some(&computed)).message,
            "Waiting for daemon set \"fluentd\" rollout to finish: 1 out of 2 new pods have been updated...",
            "§e.3 with a status computed by §c"
        );
    }

    #[test]
    fn names_are_quoted_like_go_percent_q() {
        let cases = [
            ("§e %q plain name", "a-b.c", "\"a-b.c\""),
            ("§e %q escapes a quote", "a\"b", "\"a\\\"b\""),
            ("§e %q escapes a backslash", "a\\b", "\"a\\\\b\""),
            ("§e %q escapes a newline", "a\nb", "\"a\\nb\""),
        ];
        for (rule, name, want) in cases {
            assert_eq!(go_quote(name), want, "{rule}");
        }
    }
}
