//! §i.2 / §d.1: which fields the API server would reject.
use super::*;
use crate::testing::req;

fn tol(key: &str, operator: &str, value: &str, effect: &str, seconds: Option<i64>) -> Toleration {
    Toleration {
        key: key.into(),
        operator: operator.into(),
        value: value.into(),
        effect: effect.into(),
        toleration_seconds: seconds,
    }
}

/// A table case: name, input, expected.
type Case<'a, T, W> = (&'a str, T, W);

fn fields(found: &[Invalid]) -> Vec<String> {
    found.iter().map(|i| i.field.clone()).collect()
}

fn rolling(unavailable: Option<IntOrPercent>, surge: Option<IntOrPercent>) -> UpdateStrategy {
    UpdateStrategy::RollingUpdate {
        rolling_update_block: true,
        max_unavailable: unavailable,
        max_surge: surge,
    }
}

fn int(n: i64) -> Option<IntOrPercent> {
    Some(IntOrPercent::Int(n))
}

fn pct(s: &str) -> Option<IntOrPercent> {
    Some(IntOrPercent::Str(s.into()))
}

#[test]
fn tolerations_follow_validate_tolerations_i2() {
    let cases: Vec<(&str, Toleration, Vec<&str>)> = vec![
        (
            "§i.2 a valid Equal toleration",
            tol("dedicated", "Equal", "infra", "NoSchedule", None),
            vec![],
        ),
        (
            "§i.2 a valid Exists toleration",
            tol("dedicated", "Exists", "", "", None),
            vec![],
        ),
        (
            "§i.2 empty key with Exists tolerates all and is valid",
            tol("", "Exists", "", "", None),
            vec![],
        ),
        (
            "§i.2 empty key needs Exists",
            tol("", "Equal", "infra", "", None),
            vec!["t[0].operator"],
        ),
        (
            "§i.2 empty key with no operator",
            tol("", "", "", "NoSchedule", None),
            vec!["t[0].operator"],
        ),
        (
            "§i.2 a key must be a qualified name",
            tol("bad key", "Exists", "", "", None),
            vec!["t[0].key"],
        ),
        (
            "§i.2 Exists needs an empty value",
            tol("k", "Exists", "v", "", None),
            vec!["t[0].operator"],
        ),
        (
            "§i.2 Equal needs a valid label value",
            tol("k", "Equal", "bad value", "", None),
            vec!["t[0].operator"],
        ),
        (
            "§i.2 tolerationSeconds needs NoExecute",
            tol("k", "Exists", "", "NoSchedule", Some(30)),
            vec!["t[0].effect"],
        ),
        (
            "§i.2 tolerationSeconds with NoExecute is fine",
            tol("k", "Exists", "", "NoExecute", Some(30)),
            vec![],
        ),
        (
            "§i.2 tolerationSeconds with an empty effect is rejected",
            tol("k", "Exists", "", "", Some(30)),
            vec!["t[0].effect"],
        ),
        (
            "§i.2 Lt only with the gate",
            tol("k", "Lt", "5", "NoSchedule", None),
            vec!["t[0].operator"],
        ),
        (
            "§i.2 an unknown operator",
            tol("k", "Matches", "v", "", None),
            vec!["t[0].operator"],
        ),
        (
            "§i.2 an unknown effect",
            tol("k", "Exists", "", "NoWay", None),
            vec!["t[0].effect"],
        ),
    ];
    for (name, t, want) in cases {
        assert_eq!(fields(&validate_tolerations(&[t], "t")), want, "{name}");
    }
}

#[test]
fn gated_operators_are_reported_with_the_gate_name_a5() {
    let found = validate_tolerations(&[tol("k", "Gt", "5", "NoSchedule", None)], "t");
    assert!(
        found[0].rule.contains("TaintTolerationComparisonOperators"),
        "{}",
        found[0].rule
    );
}

#[test]
fn node_selector_keys_and_values_are_checked_i2() {
    let cases: Vec<Case<Vec<(&str, &str)>, usize>> = vec![
        (
            "§i.2 valid labels",
            vec![("workload-type", "gpu"), ("kubernetes.io/os", "linux")],
            0,
        ),
        ("§i.2 an empty value is valid", vec![("flag", "")], 0),
        ("§i.2 invalid key", vec![("bad key", "x")], 1),
        ("§i.2 invalid value", vec![("k", "bad value")], 1),
        ("§i.2 both invalid", vec![("-k", "-v")], 2),
    ];
    for (name, pairs, want) in cases {
        let sel: Labels = pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(validate_node_selector(&sel, "ns").len(), want, "{name}");
    }
}

#[test]
fn required_node_affinity_follows_validate_node_selector_i2() {
    let exprs = |r: SelectorRequirement| {
        vec![NodeSelectorTerm {
            match_expressions: vec![r],
            match_fields: vec![],
        }]
    };
    let fields_of = |r: SelectorRequirement| {
        vec![NodeSelectorTerm {
            match_expressions: vec![],
            match_fields: vec![r],
        }]
    };
    let cases: Vec<Case<Option<Vec<NodeSelectorTerm>>, Vec<&str>>> = vec![
        ("§i.2 no block is valid", None, vec![]),
        (
            "§i.2 an empty term list is rejected",
            Some(vec![]),
            vec!["a.nodeSelectorTerms"],
        ),
        (
            "§i.2 In with values",
            Some(exprs(req("zone", "In", &["a"]))),
            vec![],
        ),
        (
            "§i.2 In needs values",
            Some(exprs(req("zone", "In", &[]))),
            vec!["a.nodeSelectorTerms[0].matchExpressions[0].values"],
        ),
        (
            "§i.2 Exists takes none",
            Some(exprs(req("zone", "Exists", &["a"]))),
            vec!["a.nodeSelectorTerms[0].matchExpressions[0].values"],
        ),
        (
            "§i.2 Gt takes one",
            Some(exprs(req("n", "Gt", &["1", "2"]))),
            vec!["a.nodeSelectorTerms[0].matchExpressions[0].values"],
        ),
        (
            "§i.2 Gt [abc] is stored (only the count is checked)",
            Some(exprs(req("n", "Gt", &["abc"]))),
            vec![],
        ),
        (
            "§i.2 unknown operator",
            Some(exprs(req("n", "Equals", &["1"]))),
            vec!["a.nodeSelectorTerms[0].matchExpressions[0].operator"],
        ),
        (
            "§i.2 invalid key",
            Some(exprs(req("bad key", "Exists", &[]))),
            vec!["a.nodeSelectorTerms[0].matchExpressions[0].key"],
        ),
        (
            "§i.2 invalid value",
            Some(exprs(req("k", "NotIn", &["bad value"]))),
            vec!["a.nodeSelectorTerms[0].matchExpressions[0].values[0]"],
        ),
        (
            "§i.2 matchFields metadata.name In one value",
            Some(fields_of(req("metadata.name", "In", &["node-1"]))),
            vec![],
        ),
        (
            "§i.2 matchFields another key",
            Some(fields_of(req("metadata.uid", "In", &["x"]))),
            vec!["a.nodeSelectorTerms[0].matchFields[0].key"],
        ),
        (
            "§i.2 matchFields two values",
            Some(fields_of(req("metadata.name", "In", &["a", "b"]))),
            vec!["a.nodeSelectorTerms[0].matchFields[0].values"],
        ),
        (
            "§i.2 matchFields Exists",
            Some(fields_of(req("metadata.name", "Exists", &[]))),
            vec!["a.nodeSelectorTerms[0].matchFields[0].operator"],
        ),
        (
            "§i.2 matchFields invalid node name",
            Some(fields_of(req("metadata.name", "In", &["Node_1"]))),
            vec!["a.nodeSelectorTerms[0].matchFields[0].values[0]"],
        ),
    ];
    for (name, terms, want) in cases {
        assert_eq!(
            fields(&validate_required_node_affinity(terms.as_deref(), "a")),
            want,
            "{name}"
        );
    }
}

#[test]
fn update_strategy_follows_validate_rolling_update_daemonset_d1() {
    let mu = "spec.updateStrategy.rollingUpdate.maxUnavailable";
    let ms = "spec.updateStrategy.rollingUpdate.maxSurge";
    let cases: Vec<(&str, UpdateStrategy, Vec<&str>)> = vec![
        ("§d.1 the defaults 1/0", rolling(int(1), int(0)), vec![]),
        (
            "§d.1 surge with maxUnavailable 0",
            rolling(int(0), pct("25%")),
            vec![],
        ),
        (
            "§d.1 percent maxUnavailable",
            rolling(pct("10%"), int(0)),
            vec![],
        ),
        (
            "§d.1 both non-zero: error on maxSurge",
            rolling(int(1), pct("25%")),
            vec![ms],
        ),
        (
            "§d.1 both zero: error on maxUnavailable",
            rolling(int(0), int(0)),
            vec![mu],
        ),
        (
            "§d.1 0% counts as zero",
            rolling(pct("0%"), int(0)),
            vec![mu],
        ),
        (
            "§d.1 a percent over 100",
            rolling(pct("101%"), int(0)),
            vec![mu],
        ),
        ("§d.1 100% is allowed", rolling(pct("100%"), int(0)), vec![]),
        ("§d.1 negative integer", rolling(int(-1), int(0)), vec![mu]),
        (
            "§d.2 a string without % is invalid (and counts as its number)",
            rolling(pct("5"), int(0)),
            vec![mu],
        ),
        (
            "§d.1 a string that is no number",
            rolling(pct("abc"), int(0)),
            vec![mu, mu],
        ),
        (
            "§d.1 OnDelete has nothing to check",
            UpdateStrategy::OnDelete,
            vec![],
        ),
        (
            "§d.1 an unknown type",
            UpdateStrategy::Other("Recreate".into()),
            vec!["spec.updateStrategy.type"],
        ),
        (
            "§d.1 RollingUpdate needs the block",
            UpdateStrategy::RollingUpdate {
                rolling_update_block: false,
                max_unavailable: None,
                max_surge: None,
            },
            vec!["spec.updateStrategy.rollingUpdate"],
        ),
    ];
    for (name, s, want) in cases {
        assert_eq!(fields(&validate_update_strategy(&s)), want, "{name}");
    }
}

#[test]
fn a_daemonset_collects_template_and_strategy_findings() {
    let ds = DaemonSetFacts {
        namespace: "kube-system".into(),
        name: "agent".into(),
        uid: String::new(),
        generation: 1,
        template: TemplateFacts {
            tolerations: vec![tol("", "Equal", "x", "", None)],
            required_node_affinity: Some(vec![]),
            ..Default::default()
        },
        strategy: rolling(int(1), pct("25%")),
        min_ready_seconds: 0,
        current_revision_hash: String::new(),
        template_generation: None,
        status: None,
    };
    let found = validate_daemonset(&ds);
    assert_eq!(
        fields(&found),
        vec![
            "spec.template.spec.tolerations[0].operator",
            "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
            "spec.updateStrategy.rollingUpdate.maxSurge",
        ]
    );
    assert!(found.iter().all(|f| !f.rule.is_empty()));
}

#[test]
fn negative_min_ready_seconds_is_refused_d1() {
    // AV validation.go `ValidateDaemonSetSpec` → `ValidateNonnegativeField(minReadySeconds)`.
    let found = validate_nonnegative(-1, "spec.minReadySeconds");
    assert_eq!(fields(&found), vec!["spec.minReadySeconds"]);
    assert_eq!(
        found[0].rule,
        "Invalid value: -1: must be greater than or equal to 0"
    );
    assert!(validate_nonnegative(0, "spec.minReadySeconds").is_empty());
}
