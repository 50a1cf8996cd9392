use super::*;

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn every_label_operator_selects_like_the_api_server() {
    let l = labels(&[("app", "speaker"), ("tier", "node"), ("rank", "5")]);
    let cases = [
        ("", true),
        ("app=speaker", true),
        ("app==speaker", true),
        ("app=other", false),
        ("app!=other", true),
        ("missing!=x", true),
        ("app in (a, speaker)", true),
        ("app in (a,b)", false),
        ("app notin (a,b)", true),
        ("missing notin (a)", true),
        ("app notin (speaker)", false),
        ("tier", true),
        ("missing", false),
        ("!missing", true),
        ("!app", false),
        ("rank>4", true),
        ("rank<4", false),
        ("app=speaker,tier in (node),!missing", true),
        ("app=speaker,tier=other", false),
    ];
    for (sel, want) in cases {
        let parsed = LabelSelector::parse(sel).unwrap_or_else(|e| panic!("{sel}: {e}"));
        assert_eq!(parsed.matches(&l), want, "selector {sel:?}");
    }
}

#[test]
fn malformed_label_selectors_are_rejected() {
    for sel in ["app in a,b", "=x", "app=spe aker", "app ~ x", "rank>x"] {
        assert!(LabelSelector::parse(sel).is_err(), "{sel:?} should fail");
    }
    // labels.Parse validates with IsQualifiedName / IsValidLabelValue, the domain's rules
    // (issue 15 item 6: the sim had a weaker copy that let these through).
    let long = format!("app={}", "a".repeat(64));
    for sel in ["app=-x", "app=x-", "-app=x", "a/b/c=x", long.as_str()] {
        assert!(LabelSelector::parse(sel).is_err(), "{sel:?} should fail");
    }
}

#[test]
fn a_parse_error_reads_like_the_api_servers() {
    assert_eq!(
        LabelSelector::parse("app ~ x").map_err(|e| e.to_string()),
        Err("unable to parse requirement \"app ~ x\": unknown operator".to_string())
    );
}

#[test]
fn a_structured_label_selector_refuses_gt_and_lt_which_node_selectors_allow() {
    let gt = SelectorRequirement {
        key: "rank".into(),
        operator: "Gt".into(),
        values: vec!["1".into()],
    };
    assert_eq!(
        parse_requirement(&gt, SelectorKind::Node),
        Ok(LabelOp::Gt(1))
    );
    let err = parse_requirement(&gt, SelectorKind::Label).expect_err("§f: set operators only");
    assert_eq!(
        err.to_string(),
        "\"Gt\" is not a valid label selector operator"
    );
}
