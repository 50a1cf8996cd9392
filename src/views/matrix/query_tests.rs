//! The matrix view query: parsed from the URL (garbage falls back to a default with a note),
//! written back into links.

use super::*;
use std::collections::HashMap;

fn parse(pairs: &[(&str, &str)]) -> ParsedQuery {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    parse_query(|k| map.get(k).cloned())
}

#[test]
fn an_empty_query_means_every_node_every_state_first_page() {
    let p = parse(&[]);
    assert_eq!(
        p.query,
        MatrixQuery {
            q: String::new(),
            state: None,
            page: 1,
            ..Default::default()
        }
    );
    assert!(p.notes.is_empty());
}

#[test]
fn valid_parameters_are_taken_as_given() {
    let cases: &[(&[(&str, &str)], MatrixQuery)] = &[
        (
            &[("q", " gpu ")],
            MatrixQuery {
                q: "gpu".into(),
                state: None,
                page: 1,
                ..Default::default()
            },
        ),
        (
            &[("state", "missing")],
            MatrixQuery {
                q: String::new(),
                state: Some(CellState::Missing),
                page: 1,
                ..Default::default()
            },
        ),
        (
            &[("state", "Excluded")],
            MatrixQuery {
                q: String::new(),
                state: Some(CellState::Excluded),
                page: 1,
                ..Default::default()
            },
        ),
        (
            &[("state", "all")],
            MatrixQuery {
                q: String::new(),
                state: None,
                page: 1,
                ..Default::default()
            },
        ),
        (
            &[("page", "3")],
            MatrixQuery {
                q: String::new(),
                state: None,
                page: 3,
                ..Default::default()
            },
        ),
    ];
    for (pairs, want) in cases {
        let p = parse(pairs);
        assert_eq!(&p.query, want, "{pairs:?}");
        assert!(p.notes.is_empty(), "{pairs:?}: {:?}", p.notes);
    }
}

#[test]
fn garbage_falls_back_to_defaults_with_a_note_each() {
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[("state", "on-fire")], "Unknown state filter"),
        (&[("page", "abc")], "is not a page number"),
        (&[("page", "0")], "is not a page number"),
        (&[("page", "-2")], "is not a page number"),
        (
            &[("page", "99999999999999999999999999")],
            "is not a page number",
        ),
    ];
    for (pairs, note) in cases {
        let p = parse(pairs);
        assert_eq!(p.query.state, None, "{pairs:?}");
        assert_eq!(p.query.page, 1, "{pairs:?}");
        assert_eq!(p.notes.len(), 1, "{pairs:?}");
        assert!(p.notes[0].contains(note), "{pairs:?}: {:?}", p.notes);
    }
}

#[test]
fn an_overlong_filter_is_cut_and_the_echoed_value_is_bounded() {
    let long = "x".repeat(1000);
    let p = parse(&[("q", &long), ("state", &long)]);
    assert_eq!(p.query.q.len(), MAX_FILTER_LEN);
    assert_eq!(p.notes.len(), 2);
    assert!(p.notes[1].len() < 300, "{}", p.notes[1]);
}

#[test]
fn page_links_keep_the_filters_and_encode_them() {
    let q = MatrixQuery {
        q: "a b&c".into(),
        state: Some(CellState::Missing),
        page: 1,
        ..Default::default()
    };
    assert_eq!(q.href_for_page(2), "?q=a%20b%26c&state=missing&page=2");
    assert_eq!(q.href_for_page(1), "?q=a%20b%26c&state=missing");
    assert_eq!(MatrixQuery::default().href_for_page(1), "?");
}

#[test]
fn a_label_selector_is_kept_when_it_parses_and_dropped_with_a_note_when_not() {
    let good = parse(&[("selector", " pool in (gpu,web),!spot,zone!=a ")]);
    assert_eq!(good.query.selector, "pool in (gpu,web),!spot,zone!=a");
    assert!(good.notes.is_empty(), "{:?}", good.notes);
    for bad in ["pool in gpu", "=x", "a b"] {
        let p = parse(&[("selector", bad)]);
        assert_eq!(p.query.selector, "", "{bad}");
        assert!(p.notes[0].contains("is not valid"), "{bad}: {:?}", p.notes);
    }
    let huge = parse(&[("selector", &"a".repeat(5000))]);
    assert_eq!(huge.query.selector, "");
    assert_eq!(huge.notes.len(), 1);
}

#[test]
fn problems_sort_group_and_collapse_parse_and_garbage_gets_a_note() {
    let p = parse(&[
        ("problems", "0"),
        ("sort", "problems"),
        ("group", "topology.kubernetes.io/zone"),
        ("collapse", "eu-west-1a,-,,eu-west-1a"),
    ]);
    assert_eq!(p.query.problems, Some(false));
    assert_eq!(p.query.sort, RowSort::Problems);
    assert_eq!(
        p.query.group,
        GroupChoice::Label("topology.kubernetes.io/zone".into())
    );
    assert_eq!(
        p.query.collapsed,
        ["eu-west-1a", "-"],
        "blank and repeated tokens dropped"
    );
    assert!(p.notes.is_empty());
    assert_eq!(parse(&[("group", "None")]).query.group, GroupChoice::None);
    for (pairs, note) in [
        (&[("problems", "maybe")][..], "neither 1 nor 0"),
        (&[("sort", "age;drop")][..], "Unknown sort"),
        (&[("group", "a\u{7}b")][..], "is not a label key"),
    ] {
        let p = parse(pairs);
        assert!(p.notes[0].contains(note), "{pairs:?}: {:?}", p.notes);
    }
}

#[test]
fn every_choice_survives_the_round_trip_through_a_link() {
    let q = MatrixQuery {
        q: "gpu".into(),
        state: Some(CellState::Missing),
        problems: Some(true),
        sort: RowSort::Problems,
        selector: "pool in (a,b),!spot".into(),
        columns: "monitoring/".into(),
        group: GroupChoice::Label("karpenter.sh/nodepool".into()),
        collapsed: vec!["a".into(), "-".into()],
        page: 2,
    };
    let href = q.href_for_page(2);
    let pairs: Vec<(String, String)> = href
        .trim_start_matches('?')
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), decode(v)))
        .collect();
    let back = parse_query(|k| {
        pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    });
    assert_eq!(back.query, q, "{href}");
    let toggled = q.href_toggling_group("a");
    assert!(toggled.contains("collapse=-&"), "{toggled}");
    assert!(q.href_toggling_group("b").contains("collapse=a,-,b"));
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}
