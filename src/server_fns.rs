//! Thin `#[server]` functions: state from context, then the live store, then a DTO.
//!
//! Each has a fixed endpoint (`/api/<name>`), not the default hashed one: the default hash
//! includes the build directory, so a WASM bundle built elsewhere would 404 on every call.
//!
//! Why thin: every rule lives in `domain` and every cluster read in `cluster::Live`; these
//! only find the state leptos_axum provides (`web::AppState`) and turn lookups into errors a
//! person can read. They compile for the browser as calls and on the server as bodies.

use crate::domain::view::{CellExplanation, DaemonSetDetail, MatrixSnapshot};
use leptos::prelude::*;

/// The live state from the request context (provided by `leptos_routes_with_context`).
#[cfg(feature = "ssr")]
pub(crate) fn live() -> Result<std::sync::Arc<crate::cluster::Live>, ServerFnError> {
    use_context::<crate::web::AppState>()
        .map(|state| state.live)
        .ok_or_else(|| ServerFnError::new("the dashboard's cluster state is not available"))
}

/// The current coverage matrix; the page renders it on the server and hydrates from it.
/// Its `health` says which resources are still listing, stale or denied.
#[server(endpoint = "matrix")]
pub async fn get_matrix() -> Result<MatrixSnapshot, ServerFnError> {
    Ok(live()?.snapshot())
}

/// Why one cell (node × `namespace/name`) is what it is.
#[server(endpoint = "explain_cell")]
pub async fn explain_cell(
    node: String,
    daemonset: String,
) -> Result<CellExplanation, ServerFnError> {
    live()?
        .explain(&node, &daemonset)
        .map_err(|err| ServerFnError::new(err.to_string()))
}

/// A DaemonSet's rollout page (`namespace/name`): budget, verdict and node-by-node progress.
#[server(endpoint = "daemonset")]
pub async fn get_daemonset(daemonset: String) -> Result<DaemonSetDetail, ServerFnError> {
    live()?
        .detail(&daemonset)
        .map_err(|err| ServerFnError::new(err.to_string()))
}

/// Every label of one node, sorted by key; `None` when the node is not known. The node page
/// shows them in full, since the matrix row carries only a few, shortened.
#[server(endpoint = "node_labels")]
pub async fn get_node_labels(name: String) -> Result<Option<Vec<(String, String)>>, ServerFnError> {
    Ok(live()?.node_labels(&name))
}
