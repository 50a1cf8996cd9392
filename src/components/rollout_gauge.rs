//! The rollout budget gauge: how much of maxUnavailable (or maxSurge) is in use, and the
//! verdict `kubectl rollout status` would print.
//!
//! Why the surge/unavailable switch: a DaemonSet in surge mode (scaled maxSurge > 0, §d.2)
//! spends its budget on extra pods in flight; otherwise on unavailable nodes (§d.3).

use crate::domain::view::{DaemonSetColumn, StrategyKind};
use leptos::prelude::*;

/// What the gauge draws, computed from a column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GaugeModel {
    /// Which budget: "maxUnavailable", "maxSurge", or "" when there is none.
    pub budget_name: &'static str,
    /// Budget in use now.
    pub in_use: i64,
    /// The resolved budget, if any.
    pub budget: Option<i64>,
    /// Fill, 0..=100 (capped).
    pub percent: i64,
    /// In use exceeds the budget.
    pub over: bool,
    /// One line for people: "1 unavailable of 1 allowed (maxUnavailable)" or why there is none.
    pub text: String,
}

/// The gauge for one column (§d.2 surge mode as the domain decided it, carried in
/// `surge_mode`; OnDelete has no budget, §d.5).
pub fn gauge_model(col: &DaemonSetColumn) -> GaugeModel {
    if col.strategy != StrategyKind::RollingUpdate {
        return GaugeModel {
            budget_name: "",
            in_use: col.budget_in_use,
            budget: None,
            percent: 0,
            over: false,
            text: format!("{}: pods change only when deleted", col.strategy),
        };
    }
    if let Some(err) = &col.budget_error {
        return GaugeModel {
            budget_name: "",
            in_use: col.budget_in_use,
            budget: None,
            percent: 0,
            over: false,
            text: format!("budget unresolved: {err}"),
        };
    }
    let surge = col.surge_mode;
    let (budget_name, budget, what) = if surge {
        ("maxSurge", col.max_surge.unwrap_or(0), "surging")
    } else {
        (
            "maxUnavailable",
            col.max_unavailable.unwrap_or(0),
            "unavailable",
        )
    };
    let in_use = col.budget_in_use.max(0);
    let percent = if budget > 0 {
        (in_use * 100 / budget).min(100)
    } else if in_use > 0 {
        100
    } else {
        0
    };
    GaugeModel {
        budget_name,
        in_use,
        budget: Some(budget),
        percent,
        over: in_use > budget,
        text: format!("{in_use} {what} of {budget} allowed ({budget_name})"),
    }
}

/// The verdict line: kubectl's message, or its error.
pub fn verdict_text(col: &DaemonSetColumn) -> String {
    match &col.rollout_error {
        Some(e) => format!("error: {e}"),
        None => col.rollout_message.clone(),
    }
}

/// A bar showing budget use, with the numbers as text beside it.
#[component]
pub fn RolloutGauge(
    /// The column summary (live).
    #[prop(into)]
    column: Signal<DaemonSetColumn>,
    /// Draw only the bar (matrix column headers); the text goes to the tooltip.
    #[prop(optional)]
    compact: bool,
) -> impl IntoView {
    let model = Memo::new(move |_| gauge_model(&column.get()));
    let status = move || {
        let c = column.get();
        if c.rollout_error.is_some() {
            "error"
        } else if c.rollout_done {
            "done"
        } else {
            "progress"
        }
    };
    view! {
        <div
            class="gauge"
            class:compact=compact
            data-rollout=status
            title=move || format!("{} — {}", model.get().text, verdict_text(&column.get()))
        >
            <div
                class="gauge-bar"
                role="meter"
                aria-label=move || model.get().text
                aria-valuemin="0"
                aria-valuemax=move || model.get().budget.unwrap_or(0).to_string()
                aria-valuenow=move || model.get().in_use.to_string()
            >
                // An SVG bar, not a styled div: its width is an attribute, so the page's CSP
                // needs no inline style (web::headers).
                <svg class="gauge-svg" aria-hidden="true" focusable="false">
                    <rect
                        class="gauge-fill"
                        class:over=move || model.get().over
                        width=move || format!("{}%", model.get().percent.clamp(0, 100))
                        height="100%"
                    ></rect>
                </svg>
            </div>
            <Show when=move || !compact>
                <div class="gauge-text">{move || model.get().text}</div>
                <div class="verdict" data-testid="verdict">{move || verdict_text(&column.get())}</div>
            </Show>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(strategy: &str, mu: Option<i64>, ms: Option<i64>, in_use: i64) -> DaemonSetColumn {
        let strategy = match strategy {
            "RollingUpdate" => StrategyKind::RollingUpdate,
            "OnDelete" => StrategyKind::OnDelete,
            other => StrategyKind::Other(other.into()),
        };
        // As the domain resolves it: surge mode from the budget, never from the page.
        let surge_mode = crate::domain::rollout::Budget {
            max_unavailable: mu.unwrap_or(0),
            max_surge: ms.unwrap_or(0),
        }
        .surge_mode();
        DaemonSetColumn {
            key: "ns/x".into(),
            namespace: "ns".into(),
            name: "x".into(),
            desired: 4,
            ready: 4,
            updated: 2,
            available: 3,
            misscheduled: 0,
            missing: 0,
            starting: 0,
            problem_nodes: 0,
            cells: Default::default(),
            refused: None,
            strategy,
            surge_mode,
            max_unavailable: mu,
            max_surge: ms,
            budget_error: None,
            budget_in_use: in_use,
            rollout_message: String::new(),
            rollout_done: false,
            rollout_error: None,
            pace: None,
            missing_causes: None,
            requests: Default::default(),
            unschedulable: Vec::new(),
        }
    }

    #[test]
    fn without_surge_the_budget_is_unavailable_nodes_d2() {
        let g = gauge_model(&col("RollingUpdate", Some(1), Some(0), 1));
        assert_eq!(
            (g.budget_name, g.in_use, g.budget, g.percent, g.over),
            ("maxUnavailable", 1, Some(1), 100, false)
        );
        assert_eq!(g.text, "1 unavailable of 1 allowed (maxUnavailable)");
    }

    #[test]
    fn with_max_surge_above_zero_the_budget_is_surge_pods_d2() {
        let g = gauge_model(&col("RollingUpdate", Some(0), Some(2), 1));
        assert_eq!((g.budget_name, g.percent), ("maxSurge", 50));
        assert_eq!(g.text, "1 surging of 2 allowed (maxSurge)");
    }

    #[test]
    fn use_over_budget_is_flagged_and_the_bar_capped() {
        let g = gauge_model(&col("RollingUpdate", Some(1), Some(0), 3));
        assert!(g.over);
        assert_eq!(g.percent, 100);
        let zero = gauge_model(&col("RollingUpdate", Some(0), Some(0), 1));
        assert_eq!(zero.percent, 100);
    }

    #[test]
    fn on_delete_has_no_budget_d5() {
        let g = gauge_model(&col("OnDelete", None, None, 0));
        assert_eq!(g.budget, None);
        assert!(g.text.starts_with("OnDelete"));
    }

    #[test]
    fn an_unresolvable_budget_says_why() {
        let mut c = col("RollingUpdate", None, None, 0);
        c.budget_error = Some("invalid value for MaxUnavailable: nil value for IntOrString".into());
        assert!(gauge_model(&c).text.contains("nil value"));
    }

    #[test]
    fn the_verdict_prefers_kubectls_error_e1() {
        let mut c = col("OnDelete", None, None, 0);
        c.rollout_error =
            Some("rollout status is only available for RollingUpdate strategy type".into());
        assert_eq!(
            verdict_text(&c),
            "error: rollout status is only available for RollingUpdate strategy type"
        );
    }
}
