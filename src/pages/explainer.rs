//! The click-to-explain behaviour shared by every page with cells: which cell is selected,
//! what the side panel shows, and the `explain_cell` call behind it.
//!
//! Why shared: the matrix, the DaemonSet page and the node page all open the same panel, and
//! all must ignore a slow answer once a newer click has won.

use crate::components::explanation::PanelState;
use crate::server_fns::explain_cell;
use crate::views::matrix::patch::ViewMessage;
use leptos::prelude::*;

/// The selection and panel state of one page.
#[derive(Clone, Copy)]
pub struct Explainer {
    /// The selected (node, daemonset), if any.
    pub selected: RwSignal<Option<(String, String)>>,
    /// What the panel shows.
    pub panel: RwSignal<PanelState>,
    seq: StoredValue<u64>,
}

impl Explainer {
    /// A closed panel with nothing selected.
    pub fn new() -> Self {
        Self {
            selected: RwSignal::new(None),
            panel: RwSignal::new(PanelState::Closed),
            seq: StoredValue::new(0),
        }
    }

    /// Asks the server; `show_loading` is false for live refreshes (no flicker).
    pub fn fetch(&self, node: String, daemonset: String, show_loading: bool) {
        let n = self.seq.get_value() + 1;
        self.seq.set_value(n);
        let (seq, panel) = (self.seq, self.panel);
        if show_loading {
            panel.set(PanelState::Loading {
                node: node.clone(),
                daemonset: daemonset.clone(),
            });
        }
        leptos::task::spawn_local(async move {
            let result = explain_cell(node.clone(), daemonset.clone()).await;
            if seq.try_get_value() != Some(n) {
                return; // a newer click (or a close) won
            }
            panel.set(match result {
                Ok(e) => PanelState::Loaded(Box::new(e)),
                Err(e) => PanelState::Failed {
                    node,
                    daemonset,
                    error: e.to_string(),
                },
            });
        });
    }

    /// The callback cells call when clicked.
    pub fn on_select(&self) -> Callback<(String, String)> {
        let this = *self;
        Callback::new(move |(node, ds): (String, String)| {
            this.selected.set(Some((node.clone(), ds.clone())));
            this.fetch(node, ds, true);
            #[cfg(feature = "hydrate")]
            request_animation_frame(keep_focused_cell_in_view);
        })
    }

    /// The panel's close button.
    pub fn on_close(&self) -> Callback<()> {
        let this = *self;
        Callback::new(move |()| {
            this.seq.set_value(this.seq.get_value() + 1);
            this.selected.set(None);
            this.panel.set(PanelState::Closed);
        })
    }

    /// Re-asks the server when a live message touched the selected cell, as
    /// `touched(node, daemonset)` says (the node and DaemonSet pages).
    pub fn refresh_if(&self, touched: impl Fn(&str, &str) -> bool) {
        let Some((node, ds)) = self.selected.try_get_untracked().flatten() else {
            return;
        };
        if touched(&node, &ds) {
            self.fetch(node, ds, false);
        }
    }
}

impl Explainer {
    /// Re-asks the server when a window message (`/api/view`) brought the selected node's
    /// row anew (a cell or a badge of it changed) or replaced the window.
    pub fn refresh_if_in_view(&self, message: &ViewMessage) {
        let Some((node, ds)) = self.selected.try_get_untracked().flatten() else {
            return;
        };
        let touched = match message {
            ViewMessage::Window(_) => true,
            ViewMessage::Patch(p) => p.rows.iter().any(|r| r.name == node),
        };
        if touched {
            self.fetch(node, ds, false);
        }
    }
}

impl Default for Explainer {
    fn default() -> Self {
        Self::new()
    }
}

/// The open panel takes the right side of a wide window and the bottom half of a narrow one
/// (style/main.css), and must not cover the cell it explains: once it is drawn, the cell (which
/// has focus after a click or Enter) scrolls into the part of the page the panel leaves free.
/// Its scroll margin (the CSS again) keeps it clear of the bottom sheet.
#[cfg(feature = "hydrate")]
fn keep_focused_cell_in_view() {
    let Some(cell) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
    else {
        return;
    };
    if !cell.class_list().contains("cell") {
        return;
    }
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
    options.set_inline(web_sys::ScrollLogicalPosition::Nearest);
    cell.scroll_into_view_with_scroll_into_view_options(&options);
}
