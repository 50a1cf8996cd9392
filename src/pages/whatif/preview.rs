//! The what-if preview: computed in its own lazily loaded WASM module, shown by the page.
//!
//! Why a split: the preview replays the placement and eviction rules (`domain::whatif`,
//! `domain::scheduling`) over facts the page reads with `get_whatif_facts`, and that code with
//! the facts' JSON decoders is a large part of the WASM; the matrix's first view, without edits,
//! uses none of it. So [`lazy_preview`] is a `#[lazy]` function: the browser fetches its module
//! the first time a preview is computed there (an edit submitted or dropped), the server runs it
//! in place for a shared URL's first render (and asks the page to preload the module), and what
//! crosses back to the page is a [`PreviewDigest`] only. README.md, Performance.

use super::WhatIfTarget;
use crate::domain::whatif::{
    digest, edited_label_keys, edits_requests, CellChange, Edits, Outcome, PreviewDigest,
};
use crate::server_fns::{get_whatif_facts, DashboardError};
use leptos::prelude::*;
use std::any::Any;
use std::sync::Arc;

/// More unaffected cells than this are counted, not listed (a DaemonSet page on 5,000 nodes).
const LIST_UNAFFECTED: usize = 60;

/// The last facts a page read, kept so that one read serves every edit that names no new label
/// key. Opaque on purpose: the facts' type, and so its decoders and drop code, stays in the
/// preview's module ([`lazy_preview`] alone puts in and takes out a [`Read`]).
#[derive(Default)]
pub struct FactsSlot(Option<Box<dyn Any + Send + Sync>>);

/// What the slot holds: the facts of one target and one set of edited label keys, with each
/// node's sums or without (only a requests edit needs them).
struct Read {
    target: WhatIfTarget,
    label_keys: String,
    rooms: bool,
    facts: Arc<crate::domain::whatif::WhatIfFacts>,
}

/// The preview of `edits` on `target`, read through `slot` (a page's [`FactsSlot`]). In the
/// browser the first call fetches this function's module; on the server it runs in place.
#[leptos::lazy]
pub async fn lazy_preview(
    target: WhatIfTarget,
    edits: Edits,
    slot: StoredValue<FactsSlot>,
) -> Result<PreviewDigest, DashboardError> {
    let label_keys = edited_label_keys(&edits).join(",");
    let rooms = edits_requests(&edits);
    let kept = slot
        .try_with_value(|s| {
            s.0.as_ref()
                .and_then(|b| b.downcast_ref::<Read>())
                .filter(|r| r.target == target && r.label_keys == label_keys && r.rooms == rooms)
                .map(|r| Arc::clone(&r.facts))
        })
        .flatten();
    let facts = match kept {
        Some(facts) => facts,
        None => {
            let (node, daemonset, selector) = match &target {
                WhatIfTarget::Node(n) => (n.clone(), String::new(), String::new()),
                WhatIfTarget::DaemonSet(k) => (String::new(), k.clone(), String::new()),
                WhatIfTarget::Matrix(s) => (String::new(), String::new(), s.clone()),
            };
            let facts = Arc::new(
                get_whatif_facts(node, daemonset, selector, label_keys.clone(), rooms).await?,
            );
            // A page left while the facts were on their way has no slot any more: nothing to keep.
            let read = Read {
                target,
                label_keys,
                rooms,
                facts: Arc::clone(&facts),
            };
            let _ = slot.try_set_value(FactsSlot(Some(Box::new(read))));
            facts
        }
    };
    Ok(digest(&facts, &edits, LIST_UNAFFECTED))
}

/// The banner (the edits, each with a link dropping it), the summary and the table of cells.
#[component]
pub fn WhatIfPreview(
    /// The edits of the URL, for the links that drop one.
    edits: Edits,
    /// The preview.
    digest: PreviewDigest,
    /// The page's path with the query the edits must keep.
    path: String,
) -> impl IntoView {
    let chips = digest
        .edits
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let rest = super::href(&path, &super::without(&edits, i));
            view! {
                <li>
                    <code>{w.clone()}</code>
                    " "
                    <a href=rest aria-label=format!("drop {w}") title="drop this edit">"×"</a>
                </li>
            }
        })
        .collect_view();
    let PreviewDigest {
        summary,
        changed,
        unaffected,
        unlisted,
        ..
    } = digest;
    let rows = changed
        .into_iter()
        .chain(unaffected)
        .map(preview_row)
        .collect_view();
    view! {
        <div class="whatif-banner" role="status" data-testid="whatif-banner">
            <strong>"Preview — nothing was changed in the cluster."</strong>
            " What the controllers would do if:"
            <ul class="whatif-edits">{chips}</ul>
            <a href=path.clone() data-testid="whatif-reset">"Reset (leave the preview)"</a>
        </div>
        <p class="whatif-summary" data-testid="whatif-summary">{summary}</p>
        <table class="ds-table whatif-table" data-testid="whatif-table">
            <thead>
                <tr><th>"node"</th><th>"DaemonSet"</th><th>"pod now"</th><th>"would"</th><th>"because"</th></tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        {(unlisted > 0).then(|| view! {
            <p class="muted">{format!("{unlisted} more cells are unaffected.")}</p>
        })}
    }
}

fn preview_row(c: CellChange) -> impl IntoView {
    let pod = if c.has_pod { "running" } else { "none" };
    let outcome = c.outcome;
    let shown = if outcome == Outcome::Unaffected && c.has_pod {
        "stays".to_string()
    } else {
        outcome.phrase()
    };
    view! {
        <tr data-testid="whatif-row" data-whatif=outcome.slug() data-node=c.node.clone() data-daemonset=c.daemonset.clone()>
            <td><a href=crate::links::node(&c.node)>{c.node.clone()}</a></td>
            <td><a href=crate::links::daemonset(&c.daemonset)>{c.daemonset.clone()}</a></td>
            <td>{pod}</td>
            <td class="whatif-outcome">{shown}</td>
            <td class="muted">{c.why.unwrap_or_default()}</td>
        </tr>
    }
}
