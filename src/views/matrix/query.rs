//! The matrix page's query string: `?q=&selector=&state=&problems=&sort=&group=&collapse=&page=`.
//!
//! Why its own module: the query comes from the address bar, i.e. from anyone. Garbage must
//! fall back to a default with a note the page shows, never a panic or an empty page.

use crate::domain::coverage::CellState;
use crate::domain::labels::LabelSelector;
use crate::links::encode;
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
    /// Only rows with a problem cell: `Some(true)`/`Some(false)` as asked, `None` for the
    /// default (on above [`super::window::PROBLEMS_BY_DEFAULT_ABOVE`] nodes).
    pub problems: Option<bool>,
    /// The order of the rows.
    pub sort: RowSort,
    /// A Kubernetes label selector for nodes (`pool=gpu,zone in (a,b),!spot`), already
    /// checked by the one parser the rules use; empty means every node.
    pub selector: String,
    /// Only the DaemonSet columns whose `namespace/name` contains this (case-insensitive):
    /// `monitoring/` for a namespace, `log-collector` for one agent; empty means every column.
    pub columns: String,
    /// How rows are grouped.
    pub group: GroupChoice,
    /// Collapsed groups, by [`group_token`].
    pub collapsed: Vec<String>,
    /// 1-based page number (clamped to the last page when the window is cut).
    pub page: usize,
}

/// How rows are ordered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RowSort {
    /// By node name.
    #[default]
    Name,
    /// Most problem cells first, then by name.
    Problems,
}

/// Which label the rows are grouped by.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GroupChoice {
    /// The first pool label the nodes carry, else the zone, else none.
    #[default]
    Default,
    /// Not grouped (`group=none`).
    None,
    /// This label key.
    Label(String),
}

/// The `collapse=` token of a group: its label value, or `-` for the nodes without the label
/// (a label value cannot be `-`: it must begin and end with a letter or digit).
pub fn group_token(value: Option<&str>) -> String {
    value.unwrap_or("-").to_string()
}

impl RowSort {
    /// The `sort=` value.
    pub fn as_str(self) -> &'static str {
        match self {
            RowSort::Name => "name",
            RowSort::Problems => "problems",
        }
    }
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
    /// Whether the DaemonSet `key` (`namespace/name`) passes the `ds=` filter: its key
    /// contains the filter, case-insensitively (the matrix's columns, the fleet page's rows).
    pub fn shows_daemonset(&self, key: &str) -> bool {
        self.columns.is_empty() || key.to_lowercase().contains(&self.columns.to_lowercase())
    }

    /// The query string for this query with `page` replaced (links for paging and filters).
    pub fn href_for_page(&self, page: usize) -> String {
        let mut parts = Vec::new();
        if !self.q.is_empty() {
            parts.push(format!("q={}", encode(&self.q)));
        }
        if !self.selector.is_empty() {
            parts.push(format!("selector={}", encode(&self.selector)));
        }
        if !self.columns.is_empty() {
            parts.push(format!("ds={}", encode(&self.columns)));
        }
        if let Some(s) = self.state {
            parts.push(format!("state={}", s.as_str()));
        }
        if let Some(p) = self.problems {
            parts.push(format!("problems={}", u8::from(p)));
        }
        if self.sort != RowSort::Name {
            parts.push(format!("sort={}", self.sort.as_str()));
        }
        match &self.group {
            GroupChoice::Default => {}
            GroupChoice::None => parts.push("group=none".to_string()),
            GroupChoice::Label(key) => parts.push(format!("group={}", encode(key))),
        }
        if !self.collapsed.is_empty() {
            let tokens: Vec<String> = self.collapsed.iter().map(|t| encode(t)).collect();
            parts.push(format!("collapse={}", tokens.join(",")));
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

    /// The link that collapses the group with `token`, or expands it when collapsed; the
    /// page stays where it is (clamped when the page gets shorter).
    pub fn href_toggling_group(&self, token: &str) -> String {
        let mut next = self.clone();
        if let Some(i) = next.collapsed.iter().position(|t| t == token) {
            next.collapsed.remove(i);
        } else {
            next.collapsed.push(token.to_string());
        }
        next.href_for_page(self.page)
    }
}

/// Longest label selector kept (a label key is at most 317 characters, a value 63).
pub const MAX_SELECTOR_LEN: usize = 1024;

/// Most groups kept collapsed at once (one per group of a large cluster is plenty).
const MAX_COLLAPSED: usize = 200;

/// Reads the query parameters through `get` (the router's query map).
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
                let valid: Vec<&str> = CellState::ALL.iter().map(|s| s.as_str()).collect();
                notes.push(format!(
                    "Unknown state filter \u{201c}{}\u{201d}; showing every state. Valid states: {}.",
                    shorten(&s),
                    valid.join(", ")
                ));
                None
            }
        },
    };

    let problems = match get("problems").map(|s| s.trim().to_ascii_lowercase()) {
        None => None,
        Some(s) if s.is_empty() => None,
        Some(s) => match s.as_str() {
            "1" | "true" | "on" | "yes" => Some(true),
            "0" | "false" | "off" | "no" => Some(false),
            _ => {
                notes.push(format!(
                    "\u{201c}problems={}\u{201d} is neither 1 nor 0; using the default.",
                    shorten(&s)
                ));
                None
            }
        },
    };

    let sort = match get("sort").map(|s| s.trim().to_ascii_lowercase()) {
        None => RowSort::Name,
        Some(s) if s.is_empty() || s == "name" => RowSort::Name,
        Some(s) if s == "problems" => RowSort::Problems,
        Some(s) => {
            notes.push(format!(
                "Unknown sort \u{201c}{}\u{201d}; sorting by name. Valid sorts: name, problems.",
                shorten(&s)
            ));
            RowSort::Name
        }
    };

    let mut selector = get("selector").unwrap_or_default().trim().to_string();
    if selector.chars().count() > MAX_SELECTOR_LEN {
        notes.push(format!(
            "The label selector was longer than {MAX_SELECTOR_LEN} characters; it was ignored."
        ));
        selector.clear();
    }
    if !selector.is_empty() {
        if let Err(err) = LabelSelector::parse(&selector) {
            notes.push(format!(
                "The label selector \u{201c}{}\u{201d} is not valid ({}); showing nodes of any label.",
                shorten(&selector),
                shorten_to(&err.to_string(), 160)
            ));
            selector.clear();
        }
    }

    let mut columns = get("ds").unwrap_or_default().trim().to_string();
    if columns.chars().count() > MAX_FILTER_LEN || columns.chars().any(char::is_control) {
        notes.push(format!(
            "The DaemonSet filter \u{201c}{}\u{201d} is not a namespace/name part; showing every DaemonSet.",
            shorten(&columns)
        ));
        columns.clear();
    }

    let group = match get("group").map(|s| s.trim().to_string()) {
        None => GroupChoice::Default,
        Some(s) if s.is_empty() => GroupChoice::Default,
        Some(s) if s.eq_ignore_ascii_case("none") => GroupChoice::None,
        Some(s) if s.chars().count() <= MAX_FILTER_LEN * 2 && !s.chars().any(char::is_control) => {
            GroupChoice::Label(s)
        }
        Some(s) => {
            notes.push(format!(
                "\u{201c}group={}\u{201d} is not a label key; rows are grouped by default.",
                shorten(&s)
            ));
            GroupChoice::Default
        }
    };

    let mut collapsed: Vec<String> = Vec::new();
    for token in get("collapse").unwrap_or_default().split(',') {
        let token = token.trim();
        if token.is_empty() || token.chars().any(char::is_control) || token.len() > 63 {
            continue;
        }
        if collapsed.len() == MAX_COLLAPSED {
            notes.push(format!(
                "Only the first {MAX_COLLAPSED} collapsed groups are kept."
            ));
            break;
        }
        if !collapsed.iter().any(|t| t == token) {
            collapsed.push(token.to_string());
        }
    }

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
        query: MatrixQuery {
            q,
            state,
            problems,
            sort,
            selector,
            columns,
            group,
            collapsed,
            page,
        },
        notes,
    }
}

/// Bounds a user-supplied value before echoing it in a note.
fn shorten(s: &str) -> String {
    shorten_to(s, 40)
}

/// Bounds a text to `max` characters, without control characters.
fn shorten_to(s: &str, max: usize) -> String {
    let cleaned: String = s.chars().filter(|c| !c.is_control()).collect();
    if cleaned.chars().count() > max {
        format!("{}…", cleaned.chars().take(max).collect::<String>())
    } else {
        cleaned
    }
}

/// Parses a state name (case-insensitive), for the `?state=` filter.
fn parse_state(name: &str) -> Option<CellState> {
    CellState::ALL
        .into_iter()
        .find(|s| s.as_str().eq_ignore_ascii_case(name.trim()))
}

#[cfg(test)]
#[path = "query_tests.rs"]
mod tests;
