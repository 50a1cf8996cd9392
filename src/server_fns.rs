//! Thin `#[server]` functions: state from context, then domain, then a DTO.
//! CONTRACT STUB: bodies to be replaced by the live-data implementation; signatures stay.

use crate::domain::view::{CellExplanation, MatrixSnapshot};
use leptos::prelude::*;

/// The current coverage matrix; the page renders it on the server and hydrates from it.
#[server]
pub async fn get_matrix() -> Result<MatrixSnapshot, ServerFnError> {
    Err(ServerFnError::new("not implemented yet"))
}

/// Why one cell (node × `namespace/name`) is what it is.
#[server]
pub async fn explain_cell(
    node: String,
    daemonset: String,
) -> Result<CellExplanation, ServerFnError> {
    let _ = (node, daemonset);
    Err(ServerFnError::new("not implemented yet"))
}
