//! The matrix page's query string: `?q=&state=&page=`.
//!
//! Why its own module: the query comes from the address bar, i.e. from anyone. Garbage must
//! fall back to a default with a note the page shows, never a panic or an empty page.

use crate::components::state_look::{parse_state, state_name, ALL_STATES};
use crate::domain::coverage::CellState;
use serde::{Deserialize, Serialize};

/// Longest node-name filter kept (a node name is at most 253 characters).
pub const MAX_FILTER_LEN: usize = 253;

/// What the user asked to see.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MatrixQuery {
    /// Case-insensitive substring of the node name; empty means every node.
    pub q: String,
    /// Only rows with at least one cell in this state.
    pub state: Option<CellState>,
    /// 1-based page number (clamped to the last page when the window is cut).
    pub page: usize,
}

/// A parsed query plus the notes explaining what was ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParsedQuery {
    /// The query actually used.
    pub query: MatrixQuery,
    /// One sentence per ignored or corrected parameter, shown on the page.
    pub notes: Vec<String>,
}

impl MatrixQuery {
    /// The query string for this query with `page` replaced (links for paging and filters).
    pub fn href_for_page(&self, page: usize) -> String {
        let mut parts = Vec::new();
        if !self.q.is_empty() {
            parts.push(format!("q={}", encode(&self.q)));
        }
        if let Some(s) = self.state {
            parts.push(format!("state={}", state_name(s)));
        }
        if page > 1 {
            parts.push(format!("page={page}"));
        }
        if parts.is_empty() {
            "?".to_string()
        } else {
            format!("?{}", parts.join("&"))
        }
    }
}

/// Reads `q`, `state` and `page` through `get` (the router's query map).
pub fn parse_query(get: impl Fn(&str) -> Option<String>) -> ParsedQuery {
    let mut notes = Vec::new();

    let mut q = get("q").unwrap_or_default().trim().to_string();
    if q.chars().count() > MAX_FILTER_LEN {
        q = q.chars().take(MAX_FILTER_LEN).collect();
        notes.push(format!(
            "The node filter was longer than {MAX_FILTER_LEN} characters; it was cut to that length."
        ));
    }
    if q.chars().any(char::is_control) {
        q.retain(|c| !c.is_control());
        notes.push("Control characters were removed from the node filter.".to_string());
    }

    let state = match get("state").map(|s| s.trim().to_string()) {
        None => None,
        Some(s) if s.is_empty() || s.eq_ignore_ascii_case("all") => None,
        Some(s) => match parse_state(&s) {
            Some(state) => Some(state),
            None => {
                let valid: Vec<&str> = ALL_STATES.iter().map(|s| state_name(*s)).collect();
                notes.push(format!(
                    "Unknown state filter \u{201c}{}\u{201d}; showing every state. Valid states: {}.",
                    shorten(&s),
                    valid.join(", ")
                ));
                None
            }
        },
    };

    let page = match get("page").map(|s| s.trim().to_string()) {
        None => 1,
        Some(s) if s.is_empty() => 1,
        Some(s) => match s.parse::<usize>() {
            Ok(p) if p >= 1 => p,
            _ => {
                notes.push(format!(
                    "Page \u{201c}{}\u{201d} is not a page number; showing page 1.",
                    shorten(&s)
                ));
                1
            }
        },
    };

    ParsedQuery {
        query: MatrixQuery { q, state, page },
        notes,
    }
}

/// Bounds a user-supplied value before echoing it in a note.
fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    let cleaned: String = s.chars().filter(|c| !c.is_control()).collect();
    if cleaned.chars().count() > MAX {
        format!("{}…", cleaned.chars().take(MAX).collect::<String>())
    } else {
        cleaned
    }
}

/// Percent-encodes a query value (everything but unreserved characters).
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
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
                page: 1
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
                },
            ),
            (
                &[("state", "missing")],
                MatrixQuery {
                    q: String::new(),
                    state: Some(CellState::Missing),
                    page: 1,
                },
            ),
            (
                &[("state", "Excluded")],
                MatrixQuery {
                    q: String::new(),
                    state: Some(CellState::Excluded),
                    page: 1,
                },
            ),
            (
                &[("state", "all")],
                MatrixQuery {
                    q: String::new(),
                    state: None,
                    page: 1,
                },
            ),
            (
                &[("page", "3")],
                MatrixQuery {
                    q: String::new(),
                    state: None,
                    page: 3,
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
        };
        assert_eq!(q.href_for_page(2), "?q=a%20b%26c&state=missing&page=2");
        assert_eq!(q.href_for_page(1), "?q=a%20b%26c&state=missing");
        assert_eq!(MatrixQuery::default().href_for_page(1), "?");
    }
}
