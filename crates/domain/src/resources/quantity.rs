//! Kubernetes resource quantities (`500m`, `1.5`, `1Gi`, `1e3`, `0.1Ki`), parsed as
//! kube-apiserver parses them (§j.1).
//!
//! Why our own parser: requests and capacities arrive as strings from the watch, the scenario
//! files and manifests; the scheduler compares them as integers (`MilliValue()` for cpu,
//! `Value()` for the rest), and the dashboard must compare them the same way, in the browser
//! too (no k8s-openapi there). Mirrors `k8s.io/apimachinery/pkg/api/resource/quantity.go`
//! (`ParseQuantity`, `parseQuantityString`), `suffix.go` (`fastLookup.interpret`) and
//! `scale_int.go` (`scaledValue`).
//!
//! Representation: the value in nano-units (10⁻⁹, Kubernetes' finest scale) as an `i128`.
//! `ParseQuantity` rounds every value up (away from zero) to a whole nano-unit and caps binary-SI
//! quantities at 2⁶³−1; decimal ones it keeps unbounded in an `inf.Dec`. An `i128` holds
//! ±1.7·10²⁹ whole units, far past any real capacity; beyond it the value saturates at
//! `i128::MAX`/`MIN` nano-units instead of growing without bound, so parsing and arithmetic never
//! panic, never allocate per digit of the value and never overflow. `value()` and
//! `milli_value()` saturate at the `i64` range where Go's `ScaledValue` silently wraps.

use std::fmt;

/// The regular expression Kubernetes quotes when it refuses a quantity (`splitREString`).
pub const QUANTITY_REGEX: &str = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/// Nano-units in one unit.
const NANO: i128 = 1_000_000_000;
/// The cap `ParseQuantity` applies to binary-SI quantities (`maxAllowed`, 2⁶³−1 units).
const MAX_BINARY_NANO: i128 = i64::MAX as i128 * NANO;

/// Why a string is not a quantity, with kube-apiserver's own words (`ErrFormatWrong`,
/// `ErrNumeric`, `ErrSuffix`), so the dashboard can quote the refusal the API server would give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    /// The string does not have the shape number + suffix.
    #[error("quantities must match the regular expression '{QUANTITY_REGEX}'")]
    FormatWrong,
    /// The number has no digit where one is needed.
    #[error("unable to parse numeric part of quantity")]
    Numeric,
    /// The suffix is not one Kubernetes knows (`1K`, `1e`, `1mi`).
    #[error("unable to parse quantity's suffix")]
    Suffix,
}

/// A parsed quantity: a fixed-point number in nano-units, never a float (as Kubernetes').
///
/// Why a value type of 16 bytes: the store sums requests per node and the explanations compare
/// them; the original spelling is not kept (Kubernetes re-emits quantities in canonical form too).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quantity {
    nano: i128,
}

/// The suffix of a quantity: a power of ten or of two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Suffix {
    Decimal(i32),
    /// Binary SI: `Ki` (2¹⁰) … `Ei` (2⁶⁰), as a number of factors 1024.
    Binary(u32),
}

impl Quantity {
    /// The zero quantity.
    pub const ZERO: Quantity = Quantity { nano: 0 };

    /// Parses a quantity as `ParseQuantity` does: the same forms accepted, the same refused
    /// (with its message), the value rounded up to a nano-unit and binary-SI values capped at
    /// 2⁶³−1 (§j.1).
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        if text.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        let parts = split(text)?;
        let suffix = interpret(parts.suffix).ok_or(QuantityError::Suffix)?;
        // The slow path of ParseQuantity hands the number to inf.Dec, which needs a digit ("."
        // alone parses as 0 on the fast path, which a plain decimal suffix takes).
        let has_digit = parts
            .int
            .bytes()
            .chain(parts.frac.bytes())
            .any(|b| b.is_ascii_digit())
            || parts.had_zero;
        if !has_digit && !digitless_is_zero(suffix) {
            return Err(QuantityError::Numeric);
        }
        let magnitude = magnitude_nano(parts.int, parts.frac, suffix);
        let magnitude = match suffix {
            Suffix::Binary(_) => magnitude.min(MAX_BINARY_NANO),
            Suffix::Decimal(_) => magnitude,
        };
        Ok(Quantity {
            nano: if parts.negative {
                -magnitude
            } else {
                magnitude
            },
        })
    }

    /// A quantity of whole units (a pod count, bytes), for sums built from integers.
    pub fn from_units(units: i64) -> Quantity {
        Quantity {
            nano: i128::from(units).saturating_mul(NANO),
        }
    }

    /// A quantity of milli-units (cpu as the scheduler counts it).
    pub fn from_milli(milli: i64) -> Quantity {
        Quantity {
            nano: i128::from(milli).saturating_mul(1_000_000),
        }
    }

    /// The value in nano-units, Kubernetes' finest scale.
    pub fn nano(self) -> i128 {
        self.nano
    }

    /// `Value()`: the value rounded up to a whole unit, saturated to the `i64` range (Go wraps).
    pub fn value(self) -> i64 {
        scaled_ceil(self.nano, NANO)
    }

    /// `MilliValue()`: the value in thousandths rounded up, saturated to the `i64` range.
    pub fn milli_value(self) -> i64 {
        scaled_ceil(self.nano, 1_000_000)
    }

    /// Whether the quantity is zero.
    pub fn is_zero(self) -> bool {
        self.nano == 0
    }

    /// Whether the quantity is below zero (the API server refuses negative requests).
    pub fn is_negative(self) -> bool {
        self.nano < 0
    }

    /// The sum, saturating instead of overflowing (`Quantity.Add` is exact in an `inf.Dec`).
    pub fn saturating_add(self, other: Quantity) -> Quantity {
        Quantity {
            nano: self.nano.saturating_add(other.nano),
        }
    }

    /// The difference, saturating instead of overflowing.
    pub fn saturating_sub(self, other: Quantity) -> Quantity {
        Quantity {
            nano: self.nano.saturating_sub(other.nano),
        }
    }
}

/// `ceil(nano / per)` saturated to `i64`: `scaledValue` rounds up when it scales down.
fn scaled_ceil(nano: i128, per: i128) -> i64 {
    let quotient = nano.div_euclid(per) + i128::from(nano.rem_euclid(per) != 0);
    i64::try_from(quotient).unwrap_or(if quotient < 0 { i64::MIN } else { i64::MAX })
}

impl std::str::FromStr for Quantity {
    type Err = QuantityError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Quantity::parse(text)
    }
}

impl fmt::Display for Quantity {
    /// A plain decimal spelling of the exact value (`1.5`, `0.25`, `1073741824`): for messages
    /// and tests; the pages format quantities per resource (`250m`, `1.5Gi`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.nano < 0 { "-" } else { "" };
        let magnitude = self.nano.unsigned_abs();
        let whole = magnitude / NANO as u128;
        let frac = magnitude % NANO as u128;
        if frac == 0 {
            return write!(f, "{sign}{whole}");
        }
        let digits = format!("{frac:09}");
        write!(f, "{sign}{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// The pieces `parseQuantityString` cuts a quantity into.
struct Parts<'a> {
    negative: bool,
    /// The integer digits after the leading zeros (may be empty).
    int: &'a str,
    /// Whether leading zeros were stripped (so "0" and "00" have a digit).
    had_zero: bool,
    /// The digits after the point (may be empty: `1.` is accepted, as Kubernetes does).
    frac: &'a str,
    suffix: &'a str,
}

/// `parseQuantityString`: sign, number, suffix; only a suffix that does not end in a well-formed
/// exponent is refused here (the rest is refused by the suffix lookup).
fn split(text: &str) -> Result<Parts<'_>, QuantityError> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut negative = false;
    match bytes.first() {
        Some(b'-') => {
            negative = true;
            pos = 1;
        }
        Some(b'+') => pos = 1,
        _ => {}
    }
    let zeros = bytes[pos..].iter().take_while(|b| **b == b'0').count();
    let had_zero = zeros > 0;
    pos += zeros;
    let int_len = bytes[pos..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let int = &text[pos..pos + int_len];
    pos += int_len;
    let mut frac = "";
    if bytes.get(pos) == Some(&b'.') {
        pos += 1;
        let frac_len = bytes[pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        frac = &text[pos..pos + frac_len];
        pos += frac_len;
    }
    let suffix_start = pos;
    pos += bytes[pos..]
        .iter()
        .take_while(|b| b"eEinumkKMGTP".contains(b))
        .count();
    if matches!(bytes.get(pos), Some(b'-' | b'+')) {
        pos += 1;
    }
    pos += bytes[pos..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if pos != bytes.len() {
        return Err(QuantityError::FormatWrong);
    }
    Ok(Parts {
        negative,
        int,
        had_zero,
        frac,
        suffix: &text[suffix_start..],
    })
}

/// `fastLookup.interpret` / `suffixHandler.interpret`: the decimal-SI and binary-SI tables, then
/// `e`/`E` followed by an `int64` exponent, truncated to `int32` as Go's conversion does.
fn interpret(suffix: &str) -> Option<Suffix> {
    let decimal = |exp| Some(Suffix::Decimal(exp));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => Some(Suffix::Binary(1)),
        "Mi" => Some(Suffix::Binary(2)),
        "Gi" => Some(Suffix::Binary(3)),
        "Ti" => Some(Suffix::Binary(4)),
        "Pi" => Some(Suffix::Binary(5)),
        "Ei" => Some(Suffix::Binary(6)),
        _ => {
            let rest = suffix.strip_prefix(['e', 'E'])?;
            if rest.is_empty() {
                return None;
            }
            // strconv.ParseInt accepts a sign and decimal digits only.
            let exp: i64 = rest.parse().ok()?;
            // Go: int32(parsed), a wrapping conversion.
            decimal(exp as i32)
        }
    }
}

/// For a number without a digit (`.`, `+`, `-.`): whether `ParseQuantity` still decides on its
/// integer fast path, where it reads as 0, rather than handing the string to inf.Dec, which
/// refuses it. The fast path needs precision left in an int64 (`15 - 1 - exponent*3/10 - 1 >= 0`
/// for binary SI) and a scale of at least nano.
fn digitless_is_zero(suffix: Suffix) -> bool {
    match suffix {
        Suffix::Decimal(exp) => exp >= -9,
        Suffix::Binary(factors) => 13 >= factors * 3,
    }
}

/// The magnitude in nano-units, rounded up (away from zero) to a whole nano-unit and saturated at
/// `i128::MAX`: exact decimal arithmetic on the digit string, so no float and no overflow.
fn magnitude_nano(int: &str, frac: &str, suffix: Suffix) -> i128 {
    // The number as decimal digits with `point` digits after the decimal point.
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    let mut point = frac.len() as i64;
    let exp10 = match suffix {
        Suffix::Decimal(exp) => i64::from(exp),
        Suffix::Binary(factors) => {
            // Trailing zeros after the point change nothing; dropping them bounds the work.
            while point > 0 && digits.last() == Some(&0) {
                digits.pop();
                point -= 1;
            }
            for _ in 0..factors {
                times_1024(&mut digits);
            }
            0
        }
    };
    // Leading zeros carry no value.
    let first = digits.iter().position(|d| *d != 0).unwrap_or(digits.len());
    let digits = &digits[first..];
    if digits.is_empty() {
        return 0;
    }
    // nano = digits × 10^shift
    let shift = exp10 - point + 9;
    let (kept, dropped) = if shift >= 0 {
        (digits, &[][..])
    } else {
        let cut = digits.len().saturating_sub(shift.unsigned_abs() as usize);
        digits.split_at(cut)
    };
    let mut nano: i128 = 0;
    for d in kept {
        nano = match nano
            .checked_mul(10)
            .and_then(|n| n.checked_add(i128::from(*d)))
        {
            Some(n) => n,
            None => return i128::MAX,
        };
    }
    if shift > 0 {
        for _ in 0..shift.min(40) {
            nano = match nano.checked_mul(10) {
                Some(n) => n,
                None => return i128::MAX,
            };
        }
    }
    if dropped.iter().any(|d| *d != 0) {
        nano = nano.saturating_add(1);
    }
    nano
}

/// Multiplies a big-endian decimal digit string by 1024 in place (one binary-SI factor).
fn times_1024(digits: &mut Vec<u8>) {
    let mut carry: u32 = 0;
    for d in digits.iter_mut().rev() {
        let v = u32::from(*d) * 1024 + carry;
        *d = (v % 10) as u8;
        carry = v / 10;
    }
    while carry > 0 {
        digits.insert(0, (carry % 10) as u8);
        carry /= 10;
    }
}

impl serde::Serialize for Quantity {
    /// As the exact decimal spelling (`Display`), which parses back to the same value.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Quantity {
    /// Any quantity string Kubernetes accepts.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Quantity::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
