//! What is wrong with a simulation settings document, with the field it is about.

use super::{MAX_DURATION, MAX_SPEED, MIN_SPEED};

/// A settings field that is out of range; the text starts with the field path
/// (`spec.kubelet.readyDelay: ...`) so a person finds it in the scenario file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct SettingsError {
    /// The field path inside the settings document, e.g. `spec.updates[0].image`.
    pub field: String,
    /// What is wrong with its value.
    pub problem: SettingsProblem,
}

impl SettingsError {
    /// The error for one field.
    pub fn new(field: impl Into<String>, problem: SettingsProblem) -> Self {
        SettingsError {
            field: field.into(),
            problem,
        }
    }
}

/// What is wrong with one settings value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsProblem {
    /// A speed of zero, below zero or not a number.
    #[error("must be a positive number, got {0}")]
    NotPositive(f64),
    /// A speed the simulated clock cannot run at.
    #[error(
        "must be between {MIN_SPEED} and {MAX_SPEED} (simulated seconds per real second), got {0:e}"
    )]
    SpeedOutOfRange(f64),
    /// A duration beyond one year.
    #[error(
        "must be at most {hours}h (one year), got {secs}s",
        hours = MAX_DURATION.as_secs() / 3600
    )]
    DurationTooLong {
        /// The duration given, in whole seconds.
        secs: u64,
    },
    /// A count that must be at least 1.
    #[error("must be at least 1")]
    Zero,
    /// A DaemonSet reference that is not `namespace/name`.
    #[error("expected namespace/name, got {0:?}")]
    NotNamespacedName(String),
    /// A required text left empty.
    #[error("must not be empty")]
    Empty,
}

/// Why a duration text (`1m30s`, `1500ms`, `2`) does not parse; each names the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Nothing but whitespace.
    #[error("empty duration")]
    Empty,
    /// A number at the end without a unit (`1m30`).
    #[error("{0:?}: a number needs a unit (ms, s, m, h)")]
    NoUnit(String),
    /// A unit where a number was expected.
    #[error("{text:?}: expected a number at {at:?}")]
    ExpectedNumber {
        /// The whole duration text.
        text: String,
        /// The rest of the text from where the number was expected.
        at: String,
    },
    /// Digits and dots that are not a number (`1.2.3s`).
    #[error("{text:?}: {number:?} is not a number")]
    NotANumber {
        /// The whole duration text.
        text: String,
        /// The offending number part.
        number: String,
    },
    /// A unit other than ms, s, m, h.
    #[error("{text:?}: unknown unit {unit:?} (use ms, s, m or h)")]
    UnknownUnit {
        /// The whole duration text.
        text: String,
        /// The unit as written.
        unit: String,
    },
    /// A negative or non-finite number.
    #[error("{0:?}: a duration must be a non-negative number")]
    Negative(String),
    /// More than `Duration` can hold.
    #[error("{0:?}: too large for a duration (at most one year is accepted)")]
    TooLarge(String),
}
