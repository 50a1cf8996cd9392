//! Rows named by a node, as a view's patches carry them: the rows that entered or changed,
//! whole, and the new order of names when rows entered, left or moved.
//!
//! Why one module: the matrix window and the DaemonSet page both show rows by node and patch
//! them the same way; a bug fixed in one must be fixed in both, so there is one.

use std::collections::HashMap;

/// A row of a view, named by its node.
pub trait NamedRow: Clone {
    /// The node's name.
    fn name(&self) -> &str;
}

impl NamedRow for crate::domain::view::NodeRow {
    fn name(&self) -> &str {
        &self.name
    }
}

impl NamedRow for crate::domain::view::NodeProgress {
    fn name(&self) -> &str {
        &self.node
    }
}

/// The rows of `new` that are not in `old` or changed (as `same` says), and the order of
/// `new`'s names when it is not `old`'s.
pub fn diff_rows<R: NamedRow>(
    old: &[R],
    new: &[R],
    same: impl Fn(&R, &R) -> bool,
) -> (Vec<R>, Option<Vec<String>>) {
    let before: HashMap<&str, &R> = old.iter().map(|r| (r.name(), r)).collect();
    let changed = new
        .iter()
        .filter(|r| !before.get(r.name()).is_some_and(|o| same(o, r)))
        .cloned()
        .collect();
    let same_order =
        old.len() == new.len() && old.iter().zip(new).all(|(a, b)| a.name() == b.name());
    let order = (!same_order).then(|| new.iter().map(|r| r.name().to_string()).collect());
    (changed, order)
}

/// Why patched rows did not fit the rows held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowMismatch {
    /// The order names a row neither held nor brought.
    Unknown(String),
    /// A changed row is not held, and no new order came with it.
    Stray(String),
}

/// Applies `changed` rows and the new `order` (when rows entered, left or moved) to `rows`.
pub fn apply_rows<R: NamedRow>(
    rows: &mut Vec<R>,
    changed: Vec<R>,
    order: Option<Vec<String>>,
) -> Result<(), RowMismatch> {
    match order {
        Some(order) => {
            let mut known: HashMap<String, R> = std::mem::take(rows)
                .into_iter()
                .chain(changed)
                .map(|r| (r.name().to_string(), r))
                .collect();
            for name in order {
                match known.remove(&name) {
                    Some(r) => rows.push(r),
                    None => return Err(RowMismatch::Unknown(name)),
                }
            }
        }
        None => {
            for row in changed {
                match rows.iter_mut().find(|r| r.name() == row.name()) {
                    Some(slot) => *slot = row,
                    None => return Err(RowMismatch::Stray(row.name().to_string())),
                }
            }
        }
    }
    Ok(())
}
