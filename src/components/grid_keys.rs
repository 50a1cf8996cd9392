//! Keyboard movement in the coverage matrix: one tab stop for the whole grid (roving
//! tabindex), arrows between cells, Home/End along a row (with Ctrl: the first and last
//! cell of the grid), PageUp/PageDown by ten rows. Enter and Space are the cell button's own
//! (they open the explanation).
//!
//! Why: at 50 rows × 30 DaemonSets a page was 1,500 tab stops; a grid a keyboard user can
//! enter once and walk is what WAI-ARIA's grid pattern prescribes. The movement is a pure
//! function (tested here); the DOM part only finds the cell buttons and focuses one.

/// Rows PageUp and PageDown move by.
pub const PAGE_ROWS: usize = 10;

/// Where a key moves the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridMove {
    Left,
    Right,
    Up,
    Down,
    RowStart,
    RowEnd,
    GridStart,
    GridEnd,
    PageUp,
    PageDown,
}

/// The move a key (`KeyboardEvent.key`) asks for, if any.
pub fn grid_move(key: &str, ctrl: bool) -> Option<GridMove> {
    Some(match key {
        "ArrowLeft" => GridMove::Left,
        "ArrowRight" => GridMove::Right,
        "ArrowUp" => GridMove::Up,
        "ArrowDown" => GridMove::Down,
        "Home" if ctrl => GridMove::GridStart,
        "End" if ctrl => GridMove::GridEnd,
        "Home" => GridMove::RowStart,
        "End" => GridMove::RowEnd,
        "PageUp" => GridMove::PageUp,
        "PageDown" => GridMove::PageDown,
        _ => return None,
    })
}

/// The (row, column) a move lands on from `at`, in a grid whose rows have `widths[row]`
/// cells; it stops at the edges. A row shorter than the column asked for lands on its last
/// cell. `None` for an empty grid.
pub fn moved(at: (usize, usize), widths: &[usize], step: GridMove) -> Option<(usize, usize)> {
    let last_row = widths.len().checked_sub(1)?;
    let (row, col) = (at.0.min(last_row), at.1);
    let row = match step {
        GridMove::Up => row.saturating_sub(1),
        GridMove::Down => (row + 1).min(last_row),
        GridMove::PageUp => row.saturating_sub(PAGE_ROWS),
        GridMove::PageDown => (row + PAGE_ROWS).min(last_row),
        GridMove::GridStart => 0,
        GridMove::GridEnd => last_row,
        _ => row,
    };
    let width = widths[row];
    let last_col = width.checked_sub(1)?;
    let col = match step {
        GridMove::Left => col.saturating_sub(1),
        GridMove::Right => col + 1,
        GridMove::RowStart | GridMove::GridStart => 0,
        GridMove::RowEnd | GridMove::GridEnd => last_col,
        _ => col,
    }
    .min(last_col);
    Some((row, col))
}

/// Handles a keydown inside the matrix table: moves the focus to the cell the key asks for
/// and returns its (node, daemonset), so the page makes it the grid's one tab stop.
#[cfg(feature = "hydrate")]
pub fn on_grid_keydown(ev: &web_sys::KeyboardEvent) -> Option<(String, String)> {
    use wasm_bindgen::JsCast;
    let step = grid_move(&ev.key(), ev.ctrl_key() || ev.meta_key())?;
    let target = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
    if !target.class_list().contains("cell") {
        return None;
    }
    let table = target.closest("table").ok()??;
    let rows = table.query_selector_all("tbody tr").ok()?;
    let mut grid: Vec<Vec<web_sys::Element>> = Vec::new();
    let mut at = None;
    for r in 0..rows.length() {
        let Some(row) = rows
            .item(r)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let Ok(cells) = row.query_selector_all("button.cell") else {
            continue;
        };
        let mut line = Vec::new();
        for c in 0..cells.length() {
            if let Some(cell) = cells
                .item(c)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                if cell.is_same_node(Some(&target)) {
                    at = Some((grid.len(), line.len()));
                }
                line.push(cell);
            }
        }
        // Group headers have no cells: the arrows step over them.
        if !line.is_empty() {
            grid.push(line);
        }
    }
    let widths: Vec<usize> = grid.iter().map(Vec::len).collect();
    let (row, col) = moved(at?, &widths, step)?;
    ev.prevent_default();
    let next = grid.get(row)?.get(col)?;
    let id = (
        next.get_attribute("data-node")?,
        next.get_attribute("data-daemonset")?,
    );
    next.dyn_ref::<web_sys::HtmlElement>()?.focus().ok()?;
    Some(id)
}

/// Focuses the matrix grid's one tab stop (the skip link's target); false when the page has no
/// grid cell to focus, so the link falls back to scrolling to the grid.
#[cfg(feature = "hydrate")]
pub fn focus_grid_stop() -> bool {
    use wasm_bindgen::JsCast;
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return false;
    };
    let stop = document
        .query_selector(r#"table.matrix button.cell[tabindex="0"]"#)
        .ok()
        .flatten()
        .or_else(|| {
            document
                .query_selector("table.matrix button.cell")
                .ok()
                .flatten()
        });
    stop.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        .is_some_and(|e| e.focus().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_moves_and_ctrl_home_end_span_the_grid() {
        assert_eq!(grid_move("ArrowDown", false), Some(GridMove::Down));
        assert_eq!(grid_move("Home", false), Some(GridMove::RowStart));
        assert_eq!(grid_move("Home", true), Some(GridMove::GridStart));
        assert_eq!(grid_move("End", true), Some(GridMove::GridEnd));
        assert_eq!(grid_move("Enter", false), None, "Enter is the button's own");
        assert_eq!(grid_move("a", false), None);
    }

    #[test]
    fn moves_stop_at_the_edges_and_pages_jump_ten_rows() {
        let widths = vec![3; 25];
        assert_eq!(moved((0, 0), &widths, GridMove::Left), Some((0, 0)));
        assert_eq!(moved((0, 0), &widths, GridMove::Up), Some((0, 0)));
        assert_eq!(moved((0, 2), &widths, GridMove::Right), Some((0, 2)));
        assert_eq!(moved((24, 1), &widths, GridMove::Down), Some((24, 1)));
        assert_eq!(moved((3, 1), &widths, GridMove::PageDown), Some((13, 1)));
        assert_eq!(moved((20, 1), &widths, GridMove::PageDown), Some((24, 1)));
        assert_eq!(moved((5, 1), &widths, GridMove::PageUp), Some((0, 1)));
        assert_eq!(moved((7, 1), &widths, GridMove::RowEnd), Some((7, 2)));
        assert_eq!(moved((7, 1), &widths, GridMove::GridEnd), Some((24, 2)));
        assert_eq!(moved((7, 1), &widths, GridMove::GridStart), Some((0, 0)));
    }

    #[test]
    fn a_shorter_row_lands_on_its_last_cell_and_an_empty_grid_goes_nowhere() {
        assert_eq!(moved((0, 4), &[5, 2], GridMove::Down), Some((1, 1)));
        assert_eq!(moved((0, 0), &[], GridMove::Down), None);
    }
}
