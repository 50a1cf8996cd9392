//! The rolling-update budget (§d.2): maxUnavailable and maxSurge scaled against the number of
//! nodes that should run the DaemonSet.

use crate::facts::{IntOrPercent, UpdateStrategy};
use serde::{Deserialize, Serialize};

/// The resolved maxUnavailable / maxSurge for a desired count (§d.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Nodes that may be without an available pod at once (maxSurge = 0 mode).
    pub max_unavailable: i64,
    /// Extra new pods that may run beside old ones at once (surge mode).
    pub max_surge: i64,
}

impl Budget {
    /// Surge mode is used iff the scaled maxSurge is > 0 (§d.2, UPD `rollingUpdate`).
    /// Why a method: the rolling update and the gauge must pick the same branch.
    pub fn surge_mode(&self) -> bool {
        self.max_surge > 0
    }
}

/// Why a budget cannot be resolved (Kubernetes returns an error and no number, §d.2, §i.3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum BudgetError {
    /// The text is the controller's own: `invalid value for MaxUnavailable: <detail>`.
    #[error("invalid value for {field}: {detail}")]
    Invalid {
        /// `MaxUnavailable` or `MaxSurge`, as the controller names them.
        field: String,
        /// The intstr error, e.g. `nil value for IntOrString`.
        detail: String,
    },
}

/// §d.2 `updatedDesiredNodeCounts`: scale both fields against `desired` (nodes with shouldRun).
///
/// - a percent rounds **up** for both fields (§g.5); an integer is used as-is, not capped;
/// - a string without `%` (`"5"`) is an error and yields no number (§i.3);
/// - a nil maxUnavailable inside a `rollingUpdate` block is an error; a nil maxSurge is 0;
/// - a strategy other than RollingUpdate, or RollingUpdate without a block, gives 0/0;
/// - safety net: `desired > 0` and both 0 ⇒ maxUnavailable 1.
///
/// maxUnavailable is resolved first, so when both fields are bad its error is the one reported,
/// as in the controller.
pub fn resolve_budget(strategy: &UpdateStrategy, desired: i64) -> Result<Budget, BudgetError> {
    let (mut max_unavailable, max_surge) = match strategy {
        UpdateStrategy::RollingUpdate {
            rolling_update_block: true,
            max_unavailable,
            max_surge,
        } => {
            let unavailable =
                scale_int_or_percent(max_unavailable.as_ref(), desired).map_err(|detail| {
                    BudgetError::Invalid {
                        field: "MaxUnavailable".into(),
                        detail: detail.to_string(),
                    }
                })?;
            let surge = match max_surge {
                None => 0,
                Some(value) => scale_int_or_percent(Some(value), desired).map_err(|detail| {
                    BudgetError::Invalid {
                        field: "MaxSurge".into(),
                        detail: detail.to_string(),
                    }
                })?,
            };
            (unavailable, surge)
        }
        _ => (0, 0),
    };
    if desired > 0 && max_unavailable == 0 && max_surge == 0 {
        max_unavailable = 1;
    }
    Ok(Budget {
        max_unavailable,
        max_surge,
    })
}

/// Why an int-or-percent cannot be scaled; the texts are intstr's, because the controller
/// puts them in its error unchanged (§i.3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntOrPercentError {
    /// The field is absent where a value is needed.
    #[error("nil value for IntOrString")]
    Nil,
    /// A string without a trailing `%`.
    #[error("invalid value for IntOrString: invalid type: string is not a percentage")]
    NotPercent,
    /// A percent whose number part is not an integer (or does not fit).
    #[error(
        "invalid value for IntOrString: invalid value {raw:?}: strconv.Atoi: parsing {number:?}: {why}"
    )]
    BadNumber {
        /// The value as written, `%` included.
        raw: String,
        /// The part before `%`.
        number: String,
        /// strconv's reason: `invalid syntax` or `value out of range`.
        why: &'static str,
    },
}

/// intstr `GetScaledValueFromIntOrPercent(value, total, roundUp=true)`; the error text is the
/// one Kubernetes produces (without the field prefix the caller adds).
///
/// Why public: the controller's `AllowsSurge` scales maxSurge against 1 (§a.7) with this same
/// function.
pub fn scale_int_or_percent(
    value: Option<&IntOrPercent>,
    total: i64,
) -> Result<i64, IntOrPercentError> {
    match value {
        None => Err(IntOrPercentError::Nil),
        Some(IntOrPercent::Int(n)) => Ok(*n),
        Some(IntOrPercent::Str(raw)) => {
            let Some(number) = raw.strip_suffix('%') else {
                return Err(IntOrPercentError::NotPercent);
            };
            let percent: i64 = number.parse().map_err(|e: std::num::ParseIntError| {
                let why = match e.kind() {
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                        "value out of range"
                    }
                    _ => "invalid syntax",
                };
                IntOrPercentError::BadNumber {
                    raw: raw.clone(),
                    number: number.to_string(),
                    why,
                }
            })?;
            Ok(ceil_percent(percent, total))
        }
    }
}

/// ceil(percent × total / 100), exact (Go computes it in float64, which is exact at these sizes).
fn ceil_percent(percent: i64, total: i64) -> i64 {
    let product = i128::from(percent) * i128::from(total);
    let ceil = -((-product).div_euclid(100));
    i64::try_from(ceil).unwrap_or(if ceil > 0 { i64::MAX } else { i64::MIN })
}

#[cfg(test)]
mod tests;
