//! Reading kube-apiserver's refusal texts (§l). Each envelope is matched by its literal words;
//! anything else is [`RefusalKind::Other`]. Only `str` methods that cannot cut a character
//! are used, so no input panics.

use super::{QuotaExceeded, Refusal, RefusalKind, Violation, MAX_MESSAGE, MAX_VIOLATIONS};
use crate::coverage::bounded_to;

/// The DaemonSet controller's prefix on a FailedCreate message (§f).
const ERROR_CREATING: &str = "Error creating: ";
/// client-go's `EventAggregatorByReasonMessageFunc` prefix: once ten FailedCreate events of a
/// DaemonSet differ only in their message (each names another generated pod) within ten
/// minutes, the recorder folds the rest into one Event with this prefix (§f). Seen on
/// kube-apiserver v1.37.2 by `tests/it/k8s_quota.rs`, whose refused pods each have a new name.
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";
/// `apierrors.NewForbidden`'s words between the object and the cause.
const IS_FORBIDDEN: &str = " is forbidden: ";
/// A webhook answering with code 500 (`ToStatusErr`).
const INTERNAL_ERROR: &str = "Internal error occurred: ";

/// Classifies a FailedCreate message (with or without the event recorder's "(combined from
/// similar events): ", the controller's "Error creating: " and the API server's `pods "NAME" is forbidden: ` envelope). Total: unrecognised text is
/// [`RefusalKind::Other`] with the message kept (bounded) as it came.
pub fn classify_refusal(message: &str) -> Refusal {
    let message = message.trim();
    let message = message.strip_prefix(COMBINED_PREFIX).unwrap_or(message);
    let message = message.strip_prefix(ERROR_CREATING).unwrap_or(message);
    let cause = strip_envelope(message);
    let mut refusal = Refusal {
        kind: RefusalKind::Other,
        name: None,
        binding: None,
        level: None,
        violations: Vec::new(),
        exceeded: None,
        reason: String::new(),
        message: bounded_to(message, MAX_MESSAGE),
    };
    if let Some(rest) = cause.strip_prefix("admission webhook \"") {
        // §l.1 `admission webhook %q denied the request: MSG` (or `... without explanation`).
        if let Some((name, tail)) = quoted(rest) {
            if let Some(reason) = tail.strip_prefix(" denied the request: ") {
                return webhook(refusal, name, reason);
            }
            if tail.starts_with(" denied the request without explanation") {
                return webhook(refusal, name, "");
            }
        }
    } else if let Some(rest) = cause.strip_prefix("failed calling webhook \"") {
        // §l.1 a webhook that cannot be called, with failurePolicy Fail.
        if let Some((name, tail)) = quoted(rest) {
            return webhook(refusal, name, tail.strip_prefix(": ").unwrap_or(tail));
        }
    } else if let Some(rest) = cause.strip_prefix("ValidatingAdmissionPolicy '") {
        // §l.2 `ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s`.
        if let Some((name, tail)) = rest.split_once('\'') {
            let (binding, tail) = match tail.strip_prefix(" with binding '") {
                Some(b) => match b.split_once('\'') {
                    Some((binding, tail)) => (Some(binding), tail),
                    None => return refusal,
                },
                None => (None, tail),
            };
            if let Some(reason) = tail.strip_prefix(" denied request: ") {
                refusal.kind = RefusalKind::ValidatingAdmissionPolicy;
                refusal.name = Some(bounded_to(name, MAX_MESSAGE));
                refusal.binding = binding.map(|b| bounded_to(b, MAX_MESSAGE));
                refusal.reason = bounded_to(reason, MAX_MESSAGE);
                return refusal;
            }
        }
    } else if let Some(rest) = cause
        .strip_prefix("violates PodSecurity \"")
        .or_else(|| cause.strip_prefix("pod violates PodSecurity \""))
    {
        // §l.3 `violates PodSecurity %q: REASON (DETAIL), REASON (DETAIL)`.
        if let Some((level, tail)) = quoted(rest) {
            if let Some(detail) = tail.strip_prefix(": ") {
                refusal.kind = RefusalKind::PodSecurity;
                refusal.level = Some(bounded_to(level, MAX_MESSAGE));
                refusal.violations = top_level_parts(detail)
                    .into_iter()
                    .take(MAX_VIOLATIONS)
                    .map(pod_security_violation)
                    .collect();
                refusal.reason = bounded_to(detail, MAX_MESSAGE);
                return refusal;
            }
        }
    } else if let Some(rest) = cause.strip_prefix("exceeded quota: ") {
        // §l.4 `exceeded quota: %s, requested: %s, used: %s, limited: %s`.
        if let Some((name, tail)) = rest.split_once(", requested: ") {
            if let Some((requested, tail)) = tail.split_once(", used: ") {
                if let Some((used, limited)) = tail.split_once(", limited: ") {
                    refusal.kind = RefusalKind::ResourceQuota;
                    refusal.name = Some(bounded_to(name, MAX_MESSAGE));
                    refusal.exceeded = Some(QuotaExceeded {
                        requested: bounded_to(requested, MAX_MESSAGE),
                        used: bounded_to(used, MAX_MESSAGE),
                        limited: bounded_to(limited, MAX_MESSAGE),
                    });
                    refusal.reason = bounded_to(rest, MAX_MESSAGE);
                    return refusal;
                }
            }
        }
    } else if let Some(rest) = cause.strip_prefix("failed quota: ") {
        // §l.4 `failed quota: %s: must specify %s` (a quota on requests the template lacks).
        if let Some((name, reason)) = rest.split_once(": ") {
            refusal.kind = RefusalKind::ResourceQuota;
            refusal.name = Some(bounded_to(name, MAX_MESSAGE));
            refusal.reason = bounded_to(reason, MAX_MESSAGE);
            return refusal;
        }
    } else if let Some(scopes) = cause.strip_prefix("insufficient quota to match these scopes: ") {
        // §l.4 a scoped quota (e.g. on a PriorityClass) with no matching quota object.
        refusal.kind = RefusalKind::ResourceQuota;
        refusal.reason = bounded_to(scopes, MAX_MESSAGE);
        return refusal;
    } else if let Some(violations) = limit_range(cause) {
        // §l.5 `maximum cpu usage per Container is 500m, but limit is 1`, aggregated.
        refusal.kind = RefusalKind::LimitRange;
        refusal.violations = violations;
        refusal.reason = bounded_to(cause, MAX_MESSAGE);
        return refusal;
    }
    refusal
}

/// The cause inside `RESOURCE "NAME" is forbidden: CAUSE` (and a webhook's 500 envelope);
/// the text itself when it has no envelope.
fn strip_envelope(message: &str) -> &str {
    let cause = match message.split_once(IS_FORBIDDEN) {
        Some((object, cause)) if object.ends_with('"') && !object.contains(": ") => cause,
        _ => message,
    };
    cause.strip_prefix(INTERNAL_ERROR).unwrap_or(cause)
}

/// The text up to the next `"`, and what follows it.
fn quoted(rest: &str) -> Option<(&str, &str)> {
    rest.split_once('"')
}

fn webhook(mut refusal: Refusal, name: &str, reason: &str) -> Refusal {
    refusal.kind = RefusalKind::Webhook;
    refusal.name = Some(bounded_to(name, MAX_MESSAGE));
    refusal.reason = bounded_to(reason, MAX_MESSAGE);
    refusal
}

/// `a (x, y), b, c (z)` split at the commas outside parentheses: Pod Security's
/// `ForbiddenDetail` joins `REASON (DETAIL)` with ", " and a detail may hold commas.
fn top_level_parts(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 && text[i..].starts_with(", ") => {
                parts.push(&text[start..i]);
                start = i + 2;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// `host namespaces (hostNetwork=true)` → check `host namespaces`, detail `hostNetwork=true`.
fn pod_security_violation(part: &str) -> Violation {
    let part = part.trim();
    match part
        .strip_suffix(')')
        .and_then(|inner| inner.split_once(" ("))
    {
        Some((check, detail)) => Violation {
            check: bounded_to(check, MAX_MESSAGE),
            detail: bounded_to(detail, MAX_MESSAGE),
        },
        None => Violation {
            check: bounded_to(part, MAX_MESSAGE),
            detail: String::new(),
        },
    }
}

/// The LimitRanger's constraints (`minimum|maximum RES usage per TYPE is Q...`, `RES max
/// limit to request ratio per TYPE is ...`), one or several (`utilerrors.NewAggregate`
/// prints several as `[a, b]`); None when any part is not one of them.
fn limit_range(cause: &str) -> Option<Vec<Violation>> {
    let inner = cause
        .strip_prefix('[')
        .and_then(|c| c.strip_suffix(']'))
        .unwrap_or(cause);
    let mut out = Vec::new();
    for part in inner.split(", ").filter(|p| !p.is_empty()) {
        let constraint = (part.starts_with("minimum ") || part.starts_with("maximum "))
            && part.contains(" usage per ");
        let ratio = part.contains(" max limit to request ratio per ");
        if !(constraint || ratio) {
            // "..., but limit is 1" is the tail of the constraint before it.
            if let (Some(last), true) = (out.last_mut(), part.starts_with("but ")) {
                let last: &mut Violation = last;
                last.detail = bounded_to(&format!("{}, {part}", last.detail), MAX_MESSAGE);
                continue;
            }
            return None;
        }
        let (check, detail) = part.split_once(" is ").unwrap_or((part, ""));
        if out.len() < MAX_VIOLATIONS {
            out.push(Violation {
                check: bounded_to(check, MAX_MESSAGE),
                detail: bounded_to(&format!("is {detail}"), MAX_MESSAGE),
            });
        }
    }
    (!out.is_empty()).then_some(out)
}
