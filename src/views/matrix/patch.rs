//! A matrix view's live updates as `/api/view` sends them: the window whole once, then only
//! what changed in it.
//!
//! Why: at 5,000 nodes × 30 DaemonSets the whole matrix is megabytes and changes many times a
//! second during a rollout, while a browser shows 50 rows. The server cuts each browser's
//! window itself and sends the difference from the last window it sent, so a browser receives
//! what its view shows (rows, group counts, column summaries) and nothing of the rest.
//! `diff` and `apply` are pure and inverse to each other: `apply(old, diff(old, new)) == new`.

use super::window::{GroupHeader, MatrixWindow};
use crate::domain::view::{DaemonSetColumn, NodeRow, ResourceHealth, StateCounts};
use crate::views::rows::{apply_rows, diff_rows, RowMismatch};
use serde::{Deserialize, Serialize};

/// One message of `/api/view` (`id:` is the version it brings the view to).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ViewMessage {
    /// The whole window: the first message, and whenever the column set changed.
    Window(MatrixWindow),
    /// What changed since the previous message.
    Patch(WindowPatch),
}

impl ViewMessage {
    /// The snapshot version the view is at after this message.
    pub fn version(&self) -> u64 {
        match self {
            ViewMessage::Window(w) => w.version,
            ViewMessage::Patch(p) => p.version,
        }
    }
}

/// The window's figures about the rest of the cluster (header, pager, legend).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowFigures {
    pub total_nodes: usize,
    pub matched_nodes: usize,
    pub problem_nodes: usize,
    /// DaemonSets whose creations the API server refuses (§l).
    #[serde(default)]
    pub refused_daemonsets: usize,
    pub total_daemonsets: usize,
    pub page: usize,
    pub pages: usize,
    pub state_counts: StateCounts,
    pub problems_only: bool,
    pub group_by: Option<String>,
}

impl WindowFigures {
    fn of(w: &MatrixWindow) -> Self {
        Self {
            total_nodes: w.total_nodes,
            matched_nodes: w.matched_nodes,
            problem_nodes: w.problem_nodes,
            refused_daemonsets: w.refused_daemonsets,
            total_daemonsets: w.total_daemonsets,
            page: w.page,
            pages: w.pages,
            state_counts: w.state_counts,
            problems_only: w.problems_only,
            group_by: w.group_by.clone(),
        }
    }

    fn write_to(self, w: &mut MatrixWindow) {
        w.total_nodes = self.total_nodes;
        w.matched_nodes = self.matched_nodes;
        w.problem_nodes = self.problem_nodes;
        w.refused_daemonsets = self.refused_daemonsets;
        w.total_daemonsets = self.total_daemonsets;
        w.page = self.page;
        w.pages = self.pages;
        w.state_counts = self.state_counts;
        w.problems_only = self.problems_only;
        w.group_by = self.group_by;
    }
}

/// What changed between two windows of one view with the same columns. Each field is empty
/// (or `None`) when its part did not change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WindowPatch {
    /// The version the view is at after this patch.
    pub version: u64,
    /// Rows that entered the window or changed, whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<NodeRow>,
    /// Every row name in display order, when rows entered, left or moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Vec<String>>,
    /// Column summaries (counts, budget, verdict) that changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<DaemonSetColumn>,
    /// The group headers of the window, when any changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<GroupHeader>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figures: Option<WindowFigures>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<Vec<ResourceHealth>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_keys: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<Vec<String>>,
}

impl WindowPatch {
    /// Nothing but the version changed.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
            && self.order.is_none()
            && self.columns.is_empty()
            && self.groups.is_none()
            && self.figures.is_none()
            && self.health.is_none()
            && self.group_keys.is_none()
            && self.notes.is_none()
    }
}

/// Why a patch could not be applied: the browser then asks for the window again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The patch orders a row the window does not have and the patch does not bring.
    #[error("the patch to version {version} orders row {node}, which the window does not have")]
    UnknownRow { version: u64, node: String },
    /// The patch changes a row that is not in the window, without a new order.
    #[error("the patch to version {version} changes row {node}, which the window does not show")]
    StrayRow { version: u64, node: String },
    /// A row's cells do not line up with the window's columns.
    #[error("row {node} has {got} cells but the window has {want} columns")]
    RowShape {
        node: String,
        got: usize,
        want: usize,
    },
}

/// The message that brings a browser showing `old` to `new`: a patch, or the whole window when
/// the columns changed (every row's cells shift then). `None` when nothing changed.
pub fn diff(old: &MatrixWindow, new: &MatrixWindow) -> Option<ViewMessage> {
    let same_columns = old.daemonsets.len() == new.daemonsets.len()
        && old
            .daemonsets
            .iter()
            .zip(&new.daemonsets)
            .all(|(a, b)| a.key == b.key);
    if !same_columns || old.cluster != new.cluster {
        return Some(ViewMessage::Window(new.clone()));
    }
    let (rows, order) = diff_rows(&old.rows, &new.rows, |a, b| a == b);
    let changed = |a: bool| a.then_some(());
    let patch = WindowPatch {
        version: new.version,
        rows,
        order,
        columns: new
            .daemonsets
            .iter()
            .zip(&old.daemonsets)
            .filter(|(n, o)| n != o)
            .map(|(n, _)| n.clone())
            .collect(),
        groups: changed(old.groups != new.groups).map(|()| new.groups.clone()),
        figures: {
            let f = WindowFigures::of(new);
            changed(WindowFigures::of(old) != f).map(|()| f)
        },
        health: changed(old.health != new.health).map(|()| new.health.clone()),
        group_keys: changed(old.group_keys != new.group_keys).map(|()| new.group_keys.clone()),
        notes: changed(old.notes != new.notes).map(|()| new.notes.clone()),
    };
    if patch.is_empty() {
        return None;
    }
    Some(ViewMessage::Patch(patch))
}

/// Applies one message to the window a browser holds (`None` before the first window).
pub fn apply(window: &mut Option<MatrixWindow>, message: ViewMessage) -> Result<(), PatchError> {
    let patch = match message {
        ViewMessage::Window(w) => {
            check_shape(&w.rows, w.daemonsets.len())?;
            *window = Some(w);
            return Ok(());
        }
        ViewMessage::Patch(p) => p,
    };
    let Some(w) = window.as_mut() else {
        // A patch without a window cannot happen on one stream; ignoring it is safe because
        // the stream's first message is always a window.
        return Ok(());
    };
    check_shape(&patch.rows, w.daemonsets.len())?;
    let version = patch.version;
    apply_rows(&mut w.rows, patch.rows, patch.order).map_err(|mismatch| match mismatch {
        RowMismatch::Unknown(node) => PatchError::UnknownRow { version, node },
        RowMismatch::Stray(node) => PatchError::StrayRow { version, node },
    })?;
    for column in patch.columns {
        if let Some(slot) = w.daemonsets.iter_mut().find(|d| d.key == column.key) {
            *slot = column;
        }
    }
    if let Some(groups) = patch.groups {
        w.groups = groups;
    }
    if let Some(figures) = patch.figures {
        figures.write_to(w);
    }
    if let Some(health) = patch.health {
        w.health = health;
    }
    if let Some(keys) = patch.group_keys {
        w.group_keys = keys;
    }
    if let Some(notes) = patch.notes {
        w.notes = notes;
    }
    w.version = version;
    Ok(())
}

crate::views::page::page_view!(
    MatrixWindow,
    ViewMessage,
    WindowPatch,
    PatchError,
    diff,
    apply
);

fn check_shape(rows: &[NodeRow], want: usize) -> Result<(), PatchError> {
    match rows.iter().find(|r| r.cells.len() != want) {
        Some(r) => Err(PatchError::RowShape {
            node: r.name.clone(),
            got: r.cells.len(),
            want,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
#[path = "patch_tests.rs"]
mod tests;
