//! What a page shows of a preview: the edits in words, the summary line, the changed cells and
//! the unaffected ones when they are few.
//!
//! Why a digest: a preview covers every cell of its scope (150,000 at 5,000 nodes × 30
//! DaemonSets) while a page lists the changed ones and a few unaffected. The digest is what the
//! server writes into a shared URL's page for hydration, and what the browser's lazily loaded
//! preview module hands back to the page (README.md, Performance): the page itself then needs
//! neither the facts' decoders nor the rules [`preview`] replays.

use super::{describe_edits, preview, summary, CellChange, Edits, Outcome, WhatIfFacts};
use serde::{Deserialize, Serialize};

/// A preview as a page shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewDigest {
    /// Each edit in words, in the URL's order (the banner's chips, [`describe_edits`]).
    pub edits: Vec<String>,
    /// The one-line summary of the changed cells ([`summary`]).
    pub summary: String,
    /// The cells whose outcome is not [`Outcome::Unaffected`], in the preview's order.
    pub changed: Vec<CellChange>,
    /// The unaffected cells, when there are at most `list_unaffected` of them; else empty.
    pub unaffected: Vec<CellChange>,
    /// How many unaffected cells are counted but not listed (0 when they are listed).
    pub unlisted: usize,
}

/// The digest of `edits` previewed on `facts`: at most `list_unaffected` unaffected cells are
/// listed, more are only counted.
pub fn digest(facts: &WhatIfFacts, edits: &Edits, list_unaffected: usize) -> PreviewDigest {
    let changes = preview(facts, edits);
    let summary = summary(&changes);
    let (changed, mut unaffected): (Vec<CellChange>, Vec<CellChange>) = changes
        .into_iter()
        .partition(|c| c.outcome != Outcome::Unaffected);
    let unlisted = if unaffected.len() > list_unaffected {
        std::mem::take(&mut unaffected).len()
    } else {
        0
    };
    PreviewDigest {
        edits: describe_edits(edits),
        summary,
        changed,
        unaffected,
        unlisted,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{NodeEdit, TemplateFacts};
    use super::*;
    use crate::facts::{Taint, TaintEffect, Toleration};
    use crate::testing::node;

    /// Two nodes, two DaemonSets: one tolerating every taint, one tolerating none; a pod of each
    /// on each node.
    fn facts() -> WhatIfFacts {
        let tolerate_all = TemplateFacts {
            tolerations: vec![Toleration {
                operator: "Exists".into(),
                ..Toleration::default()
            }],
            ..TemplateFacts::default()
        };
        let mut pods = Vec::new();
        for n in ["a", "b"] {
            for ds in ["ns/plain", "ns/tolerant"] {
                pods.push((n.to_string(), ds.to_string()));
            }
        }
        WhatIfFacts {
            nodes: vec![node("a"), node("b")],
            daemonsets: vec![
                ("ns/plain".into(), TemplateFacts::default()),
                ("ns/tolerant".into(), tolerate_all),
            ],
            pods,
            rooms: Vec::new(),
        }
    }

    fn taint_no_execute() -> Edits {
        Edits {
            node: vec![NodeEdit::AddTaint(Taint {
                key: "dedicated".into(),
                value: "ml".into(),
                effect: TaintEffect::NoExecute,
            })],
            template: Vec::new(),
        }
    }

    fn cells(list: &[CellChange]) -> Vec<(&str, &str, &str)> {
        list.iter()
            .map(|c| (c.node.as_str(), c.daemonset.as_str(), c.outcome.slug()))
            .collect()
    }

    #[test]
    fn changed_cells_apart_from_unaffected_ones_with_the_words_and_the_summary() {
        let edits = taint_no_execute();
        let d = digest(&facts(), &edits, 60);
        assert_eq!(
            cells(&d.changed),
            [("a", "ns/plain", "evict"), ("b", "ns/plain", "evict")]
        );
        assert_eq!(
            cells(&d.unaffected),
            [
                ("a", "ns/tolerant", "unaffected"),
                ("b", "ns/tolerant", "unaffected")
            ]
        );
        assert_eq!(d.unlisted, 0);
        assert_eq!(d.edits, describe_edits(&edits));
        assert_eq!(d.summary, summary(&preview(&facts(), &edits)));
        assert!(d
            .summary
            .starts_with("2 pods would be evicted (2 nodes): ns/plain"));
    }

    #[test]
    fn more_unaffected_cells_than_listed_are_counted_not_listed() {
        let d = digest(&facts(), &taint_no_execute(), 1);
        assert!(d.unaffected.is_empty());
        assert_eq!(d.unlisted, 2);
        assert_eq!(d.changed.len(), 2, "changed cells are always listed");
        let exactly = digest(&facts(), &taint_no_execute(), 2);
        assert_eq!((exactly.unaffected.len(), exactly.unlisted), (2, 0));
    }
}
