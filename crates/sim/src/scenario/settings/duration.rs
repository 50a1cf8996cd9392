//! Durations as a scenario writes them (`1500ms`, `1m30s`, a bare number of seconds), and
//! their serde form in the settings document.
use serde::{Deserialize, Deserializer};
use std::time::Duration;

use super::DurationError;

/// Parses a duration the way people write them in Kubernetes-adjacent YAML: `1500ms`, `2s`,
/// `1m30s`, `1h`, or a bare number of seconds (`2`, `0.5`).
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(DurationError::Empty);
    }
    if let Ok(secs) = t.parse::<f64>() {
        return seconds(secs, text);
    }
    let mut total = 0f64;
    let mut rest = t;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| DurationError::NoUnit(text.to_string()))?;
        if digits == 0 {
            return Err(DurationError::ExpectedNumber {
                text: text.to_string(),
                at: rest.to_string(),
            });
        }
        let number: f64 = rest[..digits]
            .parse()
            .map_err(|_| DurationError::NotANumber {
                text: text.to_string(),
                number: rest[..digits].to_string(),
            })?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            other => {
                return Err(DurationError::UnknownUnit {
                    text: text.to_string(),
                    unit: other.to_string(),
                })
            }
        };
        total += number * factor;
        rest = &rest[unit_len..];
    }
    seconds(total, text)
}

pub(super) fn seconds(secs: f64, text: &str) -> Result<Duration, DurationError> {
    if !secs.is_finite() || secs < 0.0 {
        return Err(DurationError::Negative(text.to_string()));
    }
    Duration::try_from_secs_f64(secs).map_err(|_| DurationError::TooLarge(text.to_string()))
}

pub(super) fn de_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(f64),
        Text(String),
    }
    match Raw::deserialize(d)? {
        Raw::Number(n) => seconds(n, &n.to_string()).map_err(serde::de::Error::custom),
        Raw::Text(t) => parse_duration(&t).map_err(serde::de::Error::custom),
    }
}

pub(super) fn ser_duration<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{}ms", d.as_millis()))
}
