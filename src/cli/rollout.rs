//! `daemonscope rollout`: the budget and the verdict `kubectl rollout status` would give, from
//! one DaemonSet dump.
//!
//! Why: the verdict and the budget are easy to misread by hand (percentages round up, a
//! manifest's missing maxUnavailable is 1, OnDelete is an error); this prints what Kubernetes
//! itself would compute, by calling the same domain rules as the dashboard.

use super::{read_daemonset, to_json, CliError, OutputFormat};
use crate::domain::facts::{DaemonSetFacts, IntOrPercent, UpdateStrategy};
use crate::domain::rollout::{kubectl_rollout_status, resolve_budget, Budget};
use crate::domain::validation::objects::invalid_message;
use crate::domain::validation::validate_daemonset;
use serde_json::{json, Value};
use std::path::Path;

/// Budget and kubectl verdict for one DaemonSet file.
pub fn run(daemonset: &Path, output: OutputFormat) -> Result<String, CliError> {
    let ds = read_daemonset(daemonset)?;
    let verdict = kubectl_rollout_status(&ds);
    let desired = ds.status.as_ref().map(|s| s.desired_number_scheduled);
    let budget = budget_for(&ds, desired);
    let note = ds.status.is_none().then_some(
        "no controller status yet: this manifest has never been seen by the DaemonSet controller (§i.4)",
    );
    let invalid = validate_daemonset(&ds);
    // What `kubectl apply` of this file would get back (issue 15 item 6): a DaemonSet the API
    // server refuses never rolls out, whatever its status block says.
    let refusal =
        (!invalid.is_empty()).then(|| invalid_message("DaemonSet.apps", &ds.name, &invalid));
    let (budget_value, budget_error, budget_note) = match &budget {
        BudgetOutcome::Resolved(b, note) => (Some(*b), None, note.clone()),
        BudgetOutcome::Unresolved(error) => (None, Some(error.clone()), None),
        BudgetOutcome::NotApplicable(note) => (None, None, Some(note.clone())),
    };
    Ok(match output {
        OutputFormat::Json => to_json(&json!({
            "daemonset": ds.key(),
            "done": verdict.done,
            "message": verdict.message,
            "error": verdict.error,
            "note": note,
            "maxUnavailable": budget_value.map(|b| b.max_unavailable),
            "maxSurge": budget_value.map(|b| b.max_surge),
            "budgetError": budget_error,
            "budgetNote": budget_note,
            "desired": desired,
            "generation": ds.generation,
            "observedGeneration": ds.status.as_ref().map(|s| s.observed_generation),
            "updated": ds.status.as_ref().map(|s| s.updated_number_scheduled),
            "available": ds.status.as_ref().map(|s| s.number_available),
            "strategy": strategy_json(&ds.strategy),
            "invalid": invalid.iter().map(|i| json!({"field": i.field, "rule": i.rule})).collect::<Vec<_>>(),
            "apiServer": refusal.as_ref().map(|m| json!({"code": 422, "reason": "Invalid", "message": m})),
        })),
        OutputFormat::Text => {
            let mut out = refusal
                .as_ref()
                .map(|m| {
                    format!(
                        "error: the API server would refuse this DaemonSet (422 Invalid): {m}\n"
                    )
                })
                .unwrap_or_default();
            out.push_str(&match &verdict.error {
                Some(error) => format!("error: {error}\n"),
                None => format!("{}\n", verdict.message),
            });
            if let Some(note) = note {
                out.push_str(&format!("note: {note}\n"));
            }
            out.push_str(&format!("strategy: {}\n", strategy_text(&ds.strategy)));
            match (&budget_value, &budget_error) {
                (Some(b), _) => out.push_str(&format!(
                    "budget: maxUnavailable {}, maxSurge {}{}\n",
                    b.max_unavailable,
                    b.max_surge,
                    desired
                        .map(|d| format!(" (of {d} desired nodes)"))
                        .unwrap_or_default()
                )),
                (None, Some(e)) => out.push_str(&format!("budget: cannot be resolved: {e}\n")),
                (None, None) => {}
            }
            if let Some(n) = budget_note {
                out.push_str(&format!("budget note: {n}\n"));
            }
            if !invalid.is_empty() {
                out.push_str("The API server would reject this DaemonSet:\n");
                for i in &invalid {
                    out.push_str(&format!("  {}: {}\n", i.field, i.rule));
                }
            }
            out.trim_end().to_string()
        }
    })
}

/// What can be said about the budget of one DaemonSet file.
enum BudgetOutcome {
    /// The numbers, with a note on what they assume.
    Resolved(Budget, Option<String>),
    /// Kubernetes itself returns an error and no number (§d.2, §i.3).
    Unresolved(String),
    /// No budget applies (OnDelete), or it needs a desired count the file does not have.
    NotApplicable(String),
}

/// §d.2 through the domain's `resolve_budget`. Without a status the desired count is unknown:
/// integers do not depend on it (the safety net assumes at least one node), percentages do.
fn budget_for(ds: &DaemonSetFacts, desired: Option<i64>) -> BudgetOutcome {
    let UpdateStrategy::RollingUpdate {
        max_unavailable,
        max_surge,
        ..
    } = &ds.strategy
    else {
        return BudgetOutcome::NotApplicable(
            "only RollingUpdate has a maxUnavailable/maxSurge budget; OnDelete replaces a pod only when someone deletes it (§d.5)".into(),
        );
    };
    let (desired, note) = match desired {
        Some(d) => (d, None),
        None => {
            let is_percent = |v: &Option<IntOrPercent>| matches!(v, Some(IntOrPercent::Str(s)) if s.ends_with('%'));
            if is_percent(max_unavailable) || is_percent(max_surge) {
                return BudgetOutcome::NotApplicable(
                    "a percentage is scaled against desiredNumberScheduled, which only the controller's status gives; \
                     this manifest has none"
                        .into(),
                );
            }
            (1, Some("no status: integers do not depend on the node count; assumes at least one node".to_string()))
        }
    };
    match resolve_budget(&ds.strategy, desired) {
        Ok(b) => BudgetOutcome::Resolved(b, note),
        Err(e) => BudgetOutcome::Unresolved(e.to_string()),
    }
}

fn int_or_percent_json(v: &Option<IntOrPercent>) -> Value {
    match v {
        None => Value::Null,
        Some(IntOrPercent::Int(n)) => json!(n),
        Some(IntOrPercent::Str(s)) => json!(s),
    }
}

/// The defaulted strategy as written (§i.1): type and the raw budget fields.
fn strategy_json(s: &UpdateStrategy) -> Value {
    match s {
        UpdateStrategy::RollingUpdate {
            max_unavailable,
            max_surge,
            ..
        } => json!({
            "type": "RollingUpdate",
            "maxUnavailable": int_or_percent_json(max_unavailable),
            "maxSurge": int_or_percent_json(max_surge),
        }),
        UpdateStrategy::OnDelete => json!({"type": "OnDelete"}),
        UpdateStrategy::Other(t) => json!({"type": t}),
    }
}

fn strategy_text(s: &UpdateStrategy) -> String {
    let raw = |v: &Option<IntOrPercent>| match v {
        None => "(unset)".to_string(),
        Some(IntOrPercent::Int(n)) => n.to_string(),
        Some(IntOrPercent::Str(s)) => format!("{s:?}"),
    };
    match s {
        UpdateStrategy::RollingUpdate {
            max_unavailable,
            max_surge,
            ..
        } => {
            format!(
                "RollingUpdate (maxUnavailable {}, maxSurge {})",
                raw(max_unavailable),
                raw(max_surge)
            )
        }
        UpdateStrategy::OnDelete => "OnDelete".into(),
        UpdateStrategy::Other(t) => t.clone(),
    }
}
