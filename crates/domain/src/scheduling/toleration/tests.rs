//! §a.5 toleration matching, §b automatic tolerations and their merge, rendering.
use super::*;

fn tol(key: &str, operator: &str, value: &str, effect: &str) -> Toleration {
    Toleration {
        key: key.into(),
        operator: operator.into(),
        value: value.into(),
        effect: effect.into(),
        toleration_seconds: None,
    }
}

fn taint(key: &str, value: &str, effect: TaintEffect) -> Taint {
    Taint {
        key: key.into(),
        value: value.into(),
        effect,
    }
}

#[test]
fn toleration_matching_follows_tolerates_taint_a5() {
    use TaintEffect::*;
    let dedicated = taint("dedicated", "infra", NoSchedule);
    let cp = taint("node-role.kubernetes.io/control-plane", "", NoSchedule);
    let noexec = taint("dedicated", "infra", NoExecute);
    let five = taint("dedicated", "5", NoSchedule);
    let cases: Vec<(&str, Toleration, &Taint, bool)> = vec![
        (
            "§a.5 Equal with the same key, value and effect",
            tol("dedicated", "Equal", "infra", "NoSchedule"),
            &dedicated,
            true,
        ),
        (
            "§a.5 empty operator means Equal",
            tol("dedicated", "", "infra", "NoSchedule"),
            &dedicated,
            true,
        ),
        (
            "§a.5 Equal with another value",
            tol("dedicated", "Equal", "gpu", "NoSchedule"),
            &dedicated,
            false,
        ),
        (
            "§a.5 Equal with empty value against a valued taint",
            tol("dedicated", "Equal", "", "NoSchedule"),
            &dedicated,
            false,
        ),
        (
            "§a.5 two empty values are equal",
            tol(
                "node-role.kubernetes.io/control-plane",
                "",
                "",
                "NoSchedule",
            ),
            &cp,
            true,
        ),
        (
            "§a.5 Exists ignores the value",
            tol("dedicated", "Exists", "", "NoSchedule"),
            &dedicated,
            true,
        ),
        (
            "§a.5 key is case-sensitive",
            tol("Dedicated", "Exists", "", "NoSchedule"),
            &dedicated,
            false,
        ),
        (
            "§a.5 empty effect matches every effect",
            tol("dedicated", "Exists", "", ""),
            &noexec,
            true,
        ),
        (
            "§a.5 another effect does not match",
            tol("dedicated", "Exists", "", "NoSchedule"),
            &noexec,
            false,
        ),
        (
            "§a.5 empty key + Exists + empty effect tolerates everything",
            tol("", "Exists", "", ""),
            &cp,
            true,
        ),
        (
            "§a.5 empty key + Exists is limited to its effect",
            tol("", "Exists", "", "NoExecute"),
            &cp,
            false,
        ),
        (
            "§a.5 empty key + Equal matches any key by value",
            tol("", "Equal", "infra", ""),
            &dedicated,
            true,
        ),
        (
            "§a.5 empty key + Equal with another value",
            tol("", "Equal", "gpu", ""),
            &dedicated,
            false,
        ),
        (
            "§a.5 empty key + no operator matches empty-valued taints",
            tol("", "", "", "NoSchedule"),
            &cp,
            true,
        ),
        (
            "§a.5 Lt tolerates nothing with the gate off",
            tol("dedicated", "Lt", "100", "NoSchedule"),
            &five,
            false,
        ),
        (
            "§a.5 Gt tolerates nothing with the gate off",
            tol("dedicated", "Gt", "1", "NoSchedule"),
            &five,
            false,
        ),
        (
            "§a.5 unknown operator tolerates nothing",
            tol("dedicated", "Matches", "infra", "NoSchedule"),
            &dedicated,
            false,
        ),
        (
            "§a.5 operator is case-sensitive",
            tol("dedicated", "exists", "", "NoSchedule"),
            &dedicated,
            false,
        ),
    ];
    for (name, t, taint, want) in cases {
        assert_eq!(toleration_tolerates(&t, taint), want, "{name}");
    }
}

#[test]
fn toleration_seconds_is_not_part_of_matching_a5() {
    let mut t = tol("node.kubernetes.io/not-ready", "Exists", "", "NoExecute");
    t.toleration_seconds = Some(0);
    assert!(toleration_tolerates(
        &t,
        &taint("node.kubernetes.io/not-ready", "", TaintEffect::NoExecute)
    ));
}

#[test]
fn automatic_tolerations_are_the_six_of_b_plus_network_with_host_network() {
    let keys = |host| -> Vec<String> {
        automatic_tolerations(host)
            .into_iter()
            .map(|t| format!("{}:{}:{}", t.key, t.operator, t.effect))
            .collect()
    };
    assert_eq!(
        keys(false),
        vec![
            "node.kubernetes.io/not-ready:Exists:NoExecute",
            "node.kubernetes.io/unreachable:Exists:NoExecute",
            "node.kubernetes.io/disk-pressure:Exists:NoSchedule",
            "node.kubernetes.io/memory-pressure:Exists:NoSchedule",
            "node.kubernetes.io/pid-pressure:Exists:NoSchedule",
            "node.kubernetes.io/unschedulable:Exists:NoSchedule",
        ]
    );
    let with_net = keys(true);
    assert_eq!(with_net.len(), 7);
    assert_eq!(
        with_net[6],
        "node.kubernetes.io/network-unavailable:Exists:NoSchedule"
    );
    assert!(automatic_tolerations(true)
        .iter()
        .all(|t| t.toleration_seconds.is_none()));
}

#[test]
fn merge_replaces_only_when_key_operator_value_effect_all_equal_b() {
    let mut exact = tol("node.kubernetes.io/not-ready", "Exists", "", "NoExecute");
    exact.toleration_seconds = Some(300);
    let mut no_operator = tol("node.kubernetes.io/not-ready", "", "", "NoExecute");
    no_operator.toleration_seconds = Some(300);
    let template = TemplateFacts {
        tolerations: vec![
            tol("dedicated", "Exists", "", "NoSchedule"),
            exact,
            no_operator.clone(),
        ],
        ..Default::default()
    };
    let merged = merged_tolerations(&template);
    // user first, in place; the exact match replaced (no tolerationSeconds), the
    // operator-less one kept with its 300 s, then the 5 automatic ones not yet present.
    assert_eq!(merged.len(), 3 + 5);
    assert_eq!(merged[0].toleration.key, "dedicated");
    assert!(!merged[0].automatic);
    assert_eq!(
        merged[1].toleration.toleration_seconds, None,
        "§b exact match is replaced"
    );
    assert!(merged[1].automatic);
    assert_eq!(
        merged[2].toleration, no_operator,
        "§b trap 11: without operator it is kept"
    );
    assert!(!merged[2].automatic);
    assert_eq!(merged[3].toleration.key, "node.kubernetes.io/unreachable");
    assert!(
        merged
            .iter()
            .filter(|t| t.toleration.key == "node.kubernetes.io/not-ready")
            .count()
            == 2
    );
}

#[test]
fn merge_with_no_user_tolerations_gives_the_automatic_list_b() {
    let merged = merged_tolerations(&TemplateFacts {
        host_network: true,
        ..Default::default()
    });
    assert_eq!(merged.len(), 7);
    assert!(merged.iter().all(|t| t.automatic));
}

#[test]
fn rendering_gives_pasteable_yaml() {
    let cases = vec![
        (
            tol("dedicated", "Equal", "infra", "NoSchedule"),
            "{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}",
        ),
        (tol("", "Exists", "", ""), "{operator: Exists}"),
        (
            tol("flag", "Equal", "true", "NoSchedule"),
            "{key: flag, operator: Equal, value: \"true\", effect: NoSchedule}",
        ),
        (
            tol("cores", "Equal", "08", ""),
            "{key: cores, operator: Equal, value: \"08\"}",
        ),
    ];
    for (t, want) in cases {
        assert_eq!(render_toleration(&t), want);
    }
    assert_eq!(
        render_taint(&taint("dedicated", "infra", TaintEffect::NoSchedule)),
        "dedicated=infra:NoSchedule"
    );
    assert_eq!(
        render_taint(&taint("k", "", TaintEffect::NoExecute)),
        "k:NoExecute"
    );
    assert_eq!(
        render_toleration(&toleration_for(&taint("k", "", TaintEffect::NoExecute))),
        "{key: k, operator: Exists, effect: NoExecute}"
    );
}

#[test]
fn quoted_scalars_escape_quotes_backslashes_and_control_characters() {
    assert_eq!(yaml_scalar("a \"b\"\\\n"), r#""a \"b\"\\\n""#);
    assert_eq!(yaml_scalar(""), r#""""#);
    assert_eq!(yaml_scalar("yes"), r#""yes""#);
    assert_eq!(yaml_scalar("infra"), "infra");
}

#[test]
fn the_suggested_toleration_for_an_empty_key_is_one_the_api_server_accepts() {
    // Issue 15 reproduction 7: a taint `=v:NoSchedule` (empty key, from a hand-written dump)
    // got `{operator: Equal, value: v}` with no key, which CV ValidateTolerations refuses
    // ("operator must be Exists when `key` is empty").
    let t = toleration_for(&taint("", "v", TaintEffect::NoSchedule));
    assert_eq!(
        render_toleration(&t),
        "{operator: Exists, effect: NoSchedule}"
    );
    assert!(crate::validation::validate_tolerations(&[t], "t").is_empty());
}
