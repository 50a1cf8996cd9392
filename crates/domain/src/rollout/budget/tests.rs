//! Tests of `budget`, each case naming the rule it mirrors.
use super::*;

fn rolling(mu: Option<IntOrPercent>, ms: Option<IntOrPercent>) -> UpdateStrategy {
    UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: mu,
        max_surge: ms,
    }
}
fn int(n: i64) -> Option<IntOrPercent> {
    Some(IntOrPercent::Int(n))
}
fn s(v: &str) -> Option<IntOrPercent> {
    Some(IntOrPercent::Str(v.into()))
}

/// (rule, maxUnavailable, maxSurge, desired, expected (mu, ms))
type PercentCase = (
    &'static str,
    Option<IntOrPercent>,
    Option<IntOrPercent>,
    i64,
    (i64, i64),
);

#[test]
fn percentages_round_up_for_both_fields_at_small_and_odd_sizes() {
    // (rule, maxUnavailable, maxSurge, desired, expected (mu, ms))
    let cases: &[PercentCase] = &[
        (
            "§d.2 §g.5 10% of 1 node rounds up to 1",
            s("10%"),
            int(0),
            1,
            (1, 0),
        ),
        (
            "§d.2 §g.5 10% of 3 nodes rounds up to 1",
            s("10%"),
            int(0),
            3,
            (1, 0),
        ),
        (
            "§d.2 §g.5 25% of 7 nodes is 1.75, rounds up to 2",
            s("25%"),
            int(0),
            7,
            (2, 0),
        ),
        (
            "§d.2 §g.5 33% of 10 nodes is 3.3, rounds up to 4",
            s("33%"),
            int(0),
            10,
            (4, 0),
        ),
        (
            "§d.2 §g.5 50% of 5 nodes is 2.5, rounds up to 3",
            s("50%"),
            int(0),
            5,
            (3, 0),
        ),
        (
            "§d.2 25% of 4 nodes is exactly 1",
            s("25%"),
            int(0),
            4,
            (1, 0),
        ),
        (
            "§d.2 100% of 13 nodes is 13",
            s("100%"),
            int(0),
            13,
            (13, 0),
        ),
        (
            "§d.2 1% of 5000 nodes is 50",
            s("1%"),
            int(0),
            5000,
            (50, 0),
        ),
        (
            "§d.2 1% of 5001 nodes rounds up to 51",
            s("1%"),
            int(0),
            5001,
            (51, 0),
        ),
        (
            "§d.2 §g.5 maxSurge 10% of 3 rounds up to 1 too",
            int(0),
            s("10%"),
            3,
            (0, 1),
        ),
        (
            "§d.2 §g.5 maxSurge 34% of 3 is 1.02, rounds up to 2",
            int(0),
            s("34%"),
            3,
            (0, 2),
        ),
        (
            "§d.2 maxSurge 20% of 11 is 2.2, rounds up to 3",
            s("0%"),
            s("20%"),
            11,
            (0, 3),
        ),
        (
            "§d.2 +5% is accepted as Atoi accepts a sign",
            s("+5%"),
            int(0),
            100,
            (5, 0),
        ),
    ];
    for (rule, mu, ms, desired, (want_mu, want_ms)) in cases {
        let got = resolve_budget(&rolling(mu.clone(), ms.clone()), *desired);
        assert_eq!(
            got,
            Ok(Budget {
                max_unavailable: *want_mu,
                max_surge: *want_ms
            }),
            "{rule}"
        );
    }
}

#[test]
fn integers_are_used_as_is_and_the_safety_net_applies_only_with_desired_nodes() {
    let cases: &[(&str, UpdateStrategy, i64, (i64, i64))] = &[
        (
            "§d.2 an integer is not capped at N",
            rolling(int(10), int(0)),
            3,
            (10, 0),
        ),
        (
            "§d.2 integer maxSurge is not capped",
            rolling(int(0), int(7)),
            2,
            (0, 7),
        ),
        (
            "§d.2 an integer is used with N=0 too",
            rolling(int(2), int(0)),
            0,
            (2, 0),
        ),
        (
            "§d.2 safety net: N>0 and both 0 gives maxUnavailable 1",
            rolling(int(0), int(0)),
            5,
            (1, 0),
        ),
        (
            "§d.2 safety net: 0% and 0% with N>0 gives 1",
            rolling(s("0%"), s("0%")),
            5,
            (1, 0),
        ),
        (
            "§d.2 no safety net when N is 0",
            rolling(int(0), int(0)),
            0,
            (0, 0),
        ),
        (
            "§d.2 a percent of 0 nodes is 0",
            rolling(s("50%"), None),
            0,
            (0, 0),
        ),
        (
            "§d.2 5% of 3 is 0.15 → 1 (ceil), no safety net needed",
            rolling(s("5%"), None),
            3,
            (1, 0),
        ),
        (
            "§d.2 nil maxSurge counts as 0",
            rolling(int(2), None),
            4,
            (2, 0),
        ),
        (
            "§d.2 OnDelete gives 0/0, then the safety net",
            UpdateStrategy::OnDelete,
            4,
            (1, 0),
        ),
        (
            "§d.2 OnDelete with N=0 gives 0/0",
            UpdateStrategy::OnDelete,
            0,
            (0, 0),
        ),
        (
            "§d.2 RollingUpdate without a block gives 0/0, then the safety net",
            UpdateStrategy::RollingUpdate {
                rolling_update_block: false,
                max_unavailable: None,
                max_surge: None,
            },
            3,
            (1, 0),
        ),
        (
            "§d.2 an unknown strategy type gives 0/0 then the safety net",
            UpdateStrategy::Other("Recreate".into()),
            2,
            (1, 0),
        ),
        (
            "§d.2 both set (invalid, §d.1) still resolves both",
            rolling(int(1), s("50%")),
            4,
            (1, 2),
        ),
    ];
    for (rule, strategy, desired, (mu, ms)) in cases {
        assert_eq!(
            resolve_budget(strategy, *desired),
            Ok(Budget {
                max_unavailable: *mu,
                max_surge: *ms
            }),
            "{rule}"
        );
    }
}

#[test]
fn invalid_budgets_are_errors_with_the_controllers_text_and_no_number() {
    let cases: &[(&str, UpdateStrategy, &str)] = &[
        (
            "§d.2 §i.3 a string without % is an error, not 5",
            rolling(s("5"), int(0)),
            "invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage",
        ),
        (
            "§d.2 nil maxUnavailable inside a block is an error",
            rolling(None, int(1)),
            "invalid value for MaxUnavailable: nil value for IntOrString",
        ),
        (
            "§d.2 maxSurge without % is an error",
            rolling(int(0), s("2")),
            "invalid value for MaxSurge: invalid value for IntOrString: invalid type: string is not a percentage",
        ),
        (
            "§d.2 a percent that does not parse is an error",
            rolling(s("abc%"), int(0)),
            "invalid value for MaxUnavailable: invalid value for IntOrString: invalid value \"abc%\": strconv.Atoi: parsing \"abc\": invalid syntax",
        ),
        (
            "§d.2 maxUnavailable is resolved first when both are bad",
            rolling(s("1"), s("2")),
            "invalid value for MaxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage",
        ),
    ];
    for (rule, strategy, message) in cases {
        let err = resolve_budget(strategy, 10).expect_err(rule);
        assert_eq!(err.to_string(), *message, "{rule}");
    }
}

#[test]
fn a_defaulted_manifest_has_max_unavailable_one_not_zero() {
    // §g.14 §i.1: `rollingUpdate: {}` is defaulted to maxUnavailable 1, maxSurge 0 before
    // any rule runs; only an object that skipped defaulting reaches the nil error.
    let defaulted = rolling(int(1), int(0));
    assert_eq!(
        resolve_budget(&defaulted, 20),
        Ok(Budget {
            max_unavailable: 1,
            max_surge: 0
        }),
        "§g.14 defaulted rollingUpdate {{}} is 1/0"
    );
    let only_surge_defaulted = rolling(int(1), s("25%"));
    assert_eq!(
        resolve_budget(&only_surge_defaulted, 20),
        Ok(Budget {
            max_unavailable: 1,
            max_surge: 5
        }),
        "§i.1 a manifest with only maxSurge 25% gets maxUnavailable 1 too (and is invalid, §d.1)"
    );
    assert!(
        resolve_budget(&rolling(None, None), 20).is_err(),
        "§d.2 the undefaulted nil maxUnavailable is the controller's error"
    );
}

#[test]
fn surge_mode_is_chosen_by_the_scaled_max_surge() {
    let cases = [
        ("§d.2 maxSurge 1 is surge mode", 0, 1, true),
        ("§d.2 maxSurge 0 is not surge mode", 1, 0, false),
        (
            "§d.2 a negative integer maxSurge is not surge mode",
            1,
            -1,
            false,
        ),
    ];
    for (rule, mu, ms, want) in cases {
        let b = Budget {
            max_unavailable: mu,
            max_surge: ms,
        };
        assert_eq!(b.surge_mode(), want, "{rule}");
    }
}
