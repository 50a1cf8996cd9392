//! §j.1: every quantity form kube-apiserver accepts parses to the value `ParseQuantity` gives,
//! and every form it refuses is refused with its message (quantity.go, suffix.go, scale_int.go).

use super::*;

fn nano(text: &str) -> i128 {
    Quantity::parse(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .nano()
}

#[test]
fn the_forms_in_the_issue_parse_as_parse_quantity_does_j1() {
    let cases: &[(&str, i64, i64)] = &[
        // (text, MilliValue(), Value())
        ("1.5", 1_500, 2),
        ("500m", 500, 1),
        ("1Gi", 1_073_741_824_000, 1_073_741_824),
        ("1e3", 1_000_000, 1_000),
        ("1E3", 1_000_000, 1_000),
        ("0.1Ki", 102_400, 103),
        ("+1", 1_000, 1),
        ("-1", -1_000, -1),
        ("12e6", 12_000_000_000, 12_000_000),
        ("1e-3", 1, 1),
        ("1.5Gi", 1_610_612_736_000, 1_610_612_736),
        ("1.", 1_000, 1),
        (".5", 500, 1),
        ("0", 0, 0),
        ("00", 0, 0),
        (
            "123456789.123456789Ki",
            126_419_752_062_420,
            126_419_752_063,
        ),
    ];
    for (text, milli, value) in cases {
        let q = Quantity::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!((q.milli_value(), q.value()), (*milli, *value), "{text}");
    }
}

#[test]
fn every_decimal_and_binary_si_suffix_has_its_power_j1() {
    let decimal = [
        ("n", -9),
        ("u", -6),
        ("m", -3),
        ("", 0),
        ("k", 3),
        ("M", 6),
        ("G", 9),
        ("T", 12),
        ("P", 15),
        ("E", 18),
    ];
    for (suffix, exp) in decimal {
        assert_eq!(
            nano(&format!("1{suffix}")),
            10i128.pow((exp + 9) as u32),
            "1{suffix}"
        );
    }
    for (i, suffix) in ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].iter().enumerate() {
        let units = 1i128 << (10 * (i + 1));
        assert_eq!(
            nano(&format!("1{suffix}")),
            units * 1_000_000_000,
            "1{suffix}"
        );
    }
}

#[test]
fn values_finer_than_a_nano_unit_round_up_away_from_zero_j1() {
    // ParseQuantity: amount.Round(amount, Nano.infScale(), inf.RoundUp) on the magnitude.
    assert_eq!(nano("1e-10"), 1);
    assert_eq!(nano("0.0000000001"), 1);
    assert_eq!(nano("0.0000000011"), 2);
    assert_eq!(nano("-1e-10"), -1);
    assert_eq!(nano("1n"), 1);
    assert_eq!(nano("1u"), 1_000);
    // 0.1m is 100µ exactly; MilliValue rounds it up to 1 (scaledValue rounds up).
    assert_eq!(nano("0.1m"), 100_000);
    assert_eq!(Quantity::parse("0.1m").unwrap().milli_value(), 1);
}

#[test]
fn binary_si_is_capped_at_two_to_the_63_minus_one_j1() {
    // maxAllowed applies to BinarySI only.
    for text in [
        "8Ei",
        "100Ei",
        "99999999999999999999999Ki",
        "9223372036854775807.5",
    ] {
        let q = Quantity::parse(text).unwrap();
        assert!(q.value() >= i64::MAX - 1, "{text}: {}", q.value());
    }
    assert_eq!(Quantity::parse("8Ei").unwrap().value(), i64::MAX);
    assert_eq!(Quantity::parse("7Ei").unwrap().value(), 7 << 60);
}

#[test]
fn a_huge_quantity_saturates_instead_of_panicking_or_wrapping_j1() {
    for text in [
        "1e100",
        "1e2147483647",
        "99999999999999999999999999999999999999999999999999",
        "10E",
    ] {
        let q = Quantity::parse(text).unwrap();
        assert_eq!(q.value(), i64::MAX, "{text}");
        assert_eq!(q.milli_value(), i64::MAX, "{text}");
    }
    let q = Quantity::parse("-1e100").unwrap();
    assert_eq!((q.value(), q.milli_value()), (i64::MIN, i64::MIN));
    assert_eq!(nano("1e100"), i128::MAX);
    let sum = Quantity::parse("1e100")
        .unwrap()
        .saturating_add(Quantity::parse("1e100").unwrap());
    assert_eq!(sum.nano(), i128::MAX);
    // A tiny exponent rounds up to one nano-unit.
    assert_eq!(nano("1e-2147483648"), 1);
}

#[test]
fn the_exponent_is_truncated_to_int32_as_gos_conversion_does_j1() {
    // interpret: strconv.ParseInt(…, 64) then int32(parsed): 2^32 becomes 0.
    assert_eq!(nano("1e4294967296"), 1_000_000_000);
    // Beyond int64 ParseInt fails: the suffix is refused.
    assert_eq!(
        Quantity::parse("1e99999999999999999999"),
        Err(QuantityError::Suffix)
    );
}

#[test]
fn a_number_without_digits_is_zero_on_the_fast_path_and_refused_by_inf_dec_j1() {
    for text in [".", "+", "-", "-.", ".Ki", ".Ti", "0Ei", "+m"] {
        assert_eq!(nano(text), 0, "{text}");
    }
    // Exponents past the int64 fast path (Pi, Ei, below nano) go to inf.Dec.SetString.
    for text in [".Ei", "+Ei", "Ei", ".Pi", ".e-10"] {
        assert_eq!(Quantity::parse(text), Err(QuantityError::Numeric), "{text}");
    }
}

#[test]
fn malformed_quantities_are_refused_with_kubernetes_message_j1() {
    let format_wrong = [
        "", "abc", "1x", "1.2.3", "1e3.5", " 1", "1 ", "1,5", "1Gi ", "½", "1e3e", "1KiB", "1gi",
    ];
    for text in format_wrong {
        assert_eq!(
            Quantity::parse(text),
            Err(QuantityError::FormatWrong),
            "{text:?}"
        );
    }
    let bad_suffix = [
        "1K", "1e", "1mi", "1e+", "1ee3", "1Gi1", "--1", "1Kii", "1Mii",
    ];
    for text in bad_suffix {
        assert_eq!(
            Quantity::parse(text),
            Err(QuantityError::Suffix),
            "{text:?}"
        );
    }
    assert_eq!(
        QuantityError::FormatWrong.to_string(),
        "quantities must match the regular expression \
         '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    );
    assert_eq!(
        QuantityError::Suffix.to_string(),
        "unable to parse quantity's suffix"
    );
    assert_eq!(
        QuantityError::Numeric.to_string(),
        "unable to parse numeric part of quantity"
    );
}

#[test]
fn display_and_serde_give_back_the_exact_value() {
    for (text, shown) in [
        ("1.5", "1.5"),
        ("250m", "0.25"),
        ("1Gi", "1073741824"),
        ("-1n", "-0.000000001"),
        ("0", "0"),
    ] {
        let q = Quantity::parse(text).unwrap();
        assert_eq!(q.to_string(), shown);
        let json = serde_json::to_string(&q).unwrap();
        assert_eq!(serde_json::from_str::<Quantity>(&json).unwrap(), q);
    }
    let huge = Quantity::parse("1e100").unwrap();
    assert_eq!(Quantity::parse(&huge.to_string()).unwrap(), huge);
    assert!(serde_json::from_str::<Quantity>("\"1K\"").is_err());
}

#[test]
fn every_short_string_over_the_quantity_alphabet_parses_or_is_refused_without_panic_j1() {
    // A bounded stand-in for the fuzz target (fuzz/fuzz_targets/quantity.rs): all strings of up
    // to four characters over the characters the grammar names, plus one outsider.
    const ALPHABET: &[u8] = b"019.+-eEiKMGTPmnu x";
    let mut parsed = 0;
    let mut stack: Vec<Vec<u8>> = vec![Vec::new()];
    while let Some(s) = stack.pop() {
        let text = std::str::from_utf8(&s).unwrap();
        if let Ok(q) = Quantity::parse(text) {
            parsed += 1;
            assert_eq!(Quantity::parse(&q.to_string()), Ok(q), "{text:?}");
            if !q.is_negative() {
                assert!(q.milli_value() >= q.value() && q.value() >= 0, "{text:?}");
            }
        }
        if s.len() < 4 {
            for c in ALPHABET {
                let mut next = s.clone();
                next.push(*c);
                stack.push(next);
            }
        }
    }
    assert!(parsed > 1_000, "{parsed}");
}
