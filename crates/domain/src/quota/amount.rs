//! A quantity with the format Kubernetes keeps beside it (DecimalSI, BinarySI,
//! DecimalExponent) and its canonical spelling (`Quantity.String()`), for the quota's
//! `status.hard`/`status.used` and its refusal words (§l.4).
//!
//! Why beside [`Quantity`]: the scheduler and the tax compare numbers only, but a quota's
//! status and its `exceeded quota` message print quantities, and kube-apiserver prints a sum in
//! the format of its first non-zero addend (`Quantity.Add`: a zero receiver takes the other's
//! format): `128Mi` stays `128Mi`, `100m + 100m` is `200m`, `1000` pods are `1k`.

use std::fmt;

use crate::resources::{Quantity, QuantityError};

/// How a quantity is printed (`resource.Format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Decimal SI suffixes: `m`, ``, `k`, `M`, ... (also the format of a bare number).
    #[default]
    DecimalSi,
    /// Binary SI suffixes: `Ki`, `Mi`, ... `Ei`.
    BinarySi,
    /// `e3`-style exponents.
    DecimalExponent,
}

/// A quantity and its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Amount {
    /// The value.
    pub quantity: Quantity,
    /// How it prints.
    pub format: Format,
}

const NANO: i128 = 1_000_000_000;

impl Amount {
    /// Parses as `ParseQuantity` does, keeping the suffix's format (§j.1).
    pub fn parse(text: &str) -> Result<Amount, QuantityError> {
        let quantity = Quantity::parse(text)?;
        let suffix = text
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '+' || c == '-');
        let format = if suffix.contains('i') {
            Format::BinarySi
        } else if suffix.starts_with(['e', 'E']) {
            Format::DecimalExponent
        } else {
            Format::DecimalSi
        };
        Ok(Amount { quantity, format })
    }

    /// A whole number of units, DecimalSI (an object count: `pods=1`).
    pub fn units(n: i64) -> Amount {
        Amount {
            quantity: Quantity::from_units(n),
            format: Format::DecimalSi,
        }
    }

    /// `Quantity.Add`: the sum; a zero receiver takes the other's format.
    pub fn plus(self, other: Amount) -> Amount {
        Amount {
            quantity: self.quantity.saturating_add(other.quantity),
            format: if self.quantity.is_zero() {
                other.format
            } else {
                self.format
            },
        }
    }

    /// `Quantity.Sub`: the difference; a zero receiver takes the other's format.
    pub fn minus(self, other: Amount) -> Amount {
        Amount {
            quantity: self.quantity.saturating_sub(other.quantity),
            format: if self.quantity.is_zero() {
                other.format
            } else {
                self.format
            },
        }
    }
}

/// `removeInt64Factors`: the value without its trailing factors of `base`, and how many.
fn remove_factors(mut value: i128, base: i128) -> (i128, i32) {
    let mut times = 0;
    while value != 0 && value % base == 0 {
        value /= base;
        times += 1;
    }
    (value, times)
}

fn decimal_suffix(exponent: i32, format: Format) -> String {
    if format == Format::DecimalSi {
        let si = match exponent {
            -9 => Some("n"),
            -6 => Some("u"),
            -3 => Some("m"),
            0 => Some(""),
            3 => Some("k"),
            6 => Some("M"),
            9 => Some("G"),
            12 => Some("T"),
            15 => Some("P"),
            18 => Some("E"),
            _ => None,
        };
        if let Some(s) = si {
            return s.to_string();
        }
    }
    if exponent == 0 {
        String::new()
    } else {
        format!("e{exponent}")
    }
}

impl fmt::Display for Amount {
    /// `CanonicalizeBytes`: zero is `0`; BinarySI for whole values of at least 1024 (else
    /// DecimalSI); decimal mantissas at an exponent that is a multiple of 3.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nano = self.quantity.nano();
        if nano == 0 {
            return f.write_str("0");
        }
        let mut format = self.format;
        if format == Format::BinarySi && (nano.abs() < 1024 * NANO || nano % NANO != 0) {
            format = Format::DecimalSi;
        }
        if format == Format::BinarySi {
            let (mut mantissa, mut times) = remove_factors(nano / NANO, 1024);
            // Ei is the largest binary suffix.
            while times > 6 {
                mantissa *= 1024;
                times -= 1;
            }
            const BINARY: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
            let suffix = usize::try_from(times)
                .ok()
                .and_then(|t| BINARY.get(t))
                .copied()
                .unwrap_or("");
            return write!(f, "{mantissa}{suffix}");
        }
        let (mut mantissa, times) = remove_factors(nano, 10);
        let mut exponent = times - 9;
        let extra = exponent.rem_euclid(3);
        exponent -= extra;
        for _ in 0..extra {
            mantissa = mantissa.saturating_mul(10);
        }
        write!(f, "{mantissa}{}", decimal_suffix(exponent, format))
    }
}
