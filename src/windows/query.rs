//! A matrix window's query as the server reads it: the page's own query string, parsed by the
//! page's own parser, plus its label selector parsed once.
//!
//! Why the parsed selector travels with the query: the view stream cuts the window again on
//! every change; parsing the selector once per browser, not once per cut, and keying the
//! memo of its matches ([`super::memo`]) by its text, is what keeps a cut cheap.

use crate::domain::labels::LabelSelector;
use crate::views::matrix::query::{parse_query, MatrixQuery};
use std::collections::HashMap;

/// A matrix query with its label selector parsed (`None`: every node).
#[derive(Debug, Clone, Default)]
pub struct MatrixCut {
    /// The query as the page has it.
    pub query: MatrixQuery,
    /// `query.selector`, parsed; `None` when it is empty.
    pub selector: Option<LabelSelector>,
}

/// A parsed query string plus the notes saying what was ignored (the page shows them).
#[derive(Debug, Clone, Default)]
pub struct ParsedCut {
    /// The query to cut.
    pub cut: MatrixCut,
    /// One sentence per ignored or corrected parameter.
    pub notes: Vec<String>,
}

impl MatrixCut {
    /// The cut for `query` (a selector that does not parse matches nothing; `parse_query`
    /// keeps only selectors that parse, so that happens only to a hand-made query).
    pub fn new(query: MatrixQuery) -> Self {
        let selector = (!query.selector.is_empty())
            .then(|| LabelSelector::parse(&query.selector).ok())
            .flatten();
        Self { query, selector }
    }

    /// The query's one spelling (its query string): the key of its cuts.
    pub fn key(&self) -> String {
        self.query.href_for_page(self.query.page)
    }

    /// Parses a matrix query string (`q=…&selector=…&page=2`, without the `?`) as the page's
    /// router would, so the server cuts the window the page describes.
    pub fn parse(raw: &str) -> ParsedCut {
        let pairs: HashMap<String, String> = form_urlencoded::parse(raw.as_bytes())
            .into_owned()
            .collect();
        let parsed = parse_query(|key| pairs.get(key).cloned());
        ParsedCut {
            cut: Self::new(parsed.query),
            notes: parsed.notes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_in_the_query_string_becomes_notes_not_errors() {
        let parsed = MatrixCut::parse("page=%ZZ&state=nonsense&selector=a%20in%20(");
        assert_eq!(parsed.cut.query.page, 1);
        assert!(parsed.cut.query.selector.is_empty());
        assert!(parsed.cut.selector.is_none());
        assert!(parsed.notes.len() >= 2, "{:?}", parsed.notes);
    }

    #[test]
    fn the_selector_is_parsed_once_with_the_query() {
        let parsed = MatrixCut::parse("selector=pool%3Dgpu%2C!spot");
        assert_eq!(parsed.cut.query.selector, "pool=gpu,!spot");
        let selector = parsed.cut.selector.expect("parsed");
        assert!(selector.matches(&[("pool".to_string(), "gpu".to_string())].into()));
    }
}
