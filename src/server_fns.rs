//! Thin `#[server]` functions: state from context, then the live store, then a DTO. Every
//! server function of the dashboard is here (pages call them; components never do).
//!
//! Each has a fixed endpoint (`/api/<name>`), not the default hashed one: the default hash
//! includes the build directory, so a WASM bundle built elsewhere would 404 on every call.
//!
//! Why thin: every rule lives in `domain` and every cluster read in `cluster::Live`; these
//! only find the state `web` provides ([`context::ServerContext`]) and turn lookups into a
//! [`DashboardError`] the page can tell apart. They compile for the browser as calls and on
//! the server as bodies. Layer: imports `domain` (and `cluster` on the server); never `web`,
//! `app`, `pages` or `components`.

pub mod codec;
#[cfg(feature = "ssr")]
pub mod context;
pub mod error;
pub mod events;
pub mod history;
pub mod pod;
pub mod whatif;

pub use error::{DashboardError, ObjectKind};
pub use events::get_events;
pub use history::get_revision_history;
pub use pod::get_pod;
pub use whatif::get_whatif_facts;

use crate::domain::view::{CellExplanation, DaemonSetDetail, MatrixSnapshot};
use codec::JsonText;
use leptos::prelude::*;

/// A DaemonSet key must be `namespace/name`; anything else is a malformed request.
#[cfg(feature = "ssr")]
fn check_daemonset_key(key: &str) -> Result<(), DashboardError> {
    match key.split_once('/') {
        Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains('/') => Ok(()),
        _ => Err(DashboardError::BadRequest {
            detail: format!("DaemonSet {key:?} is not namespace/name"),
        }),
    }
}

/// The current coverage matrix; the page renders it on the server and hydrates from it.
/// Its `health` says which resources are still listing, stale or denied.
#[server(endpoint = "matrix", output = JsonText)]
pub async fn get_matrix() -> Result<MatrixSnapshot, DashboardError> {
    Ok(context::live()?.snapshot())
}

/// Why one cell (node × `namespace/name`) is what it is.
#[server(endpoint = "explain_cell", output = JsonText)]
pub async fn explain_cell(
    node: String,
    daemonset: String,
) -> Result<CellExplanation, DashboardError> {
    check_daemonset_key(&daemonset)?;
    Ok(context::live()?.explain(&node, &daemonset)?)
}

/// A DaemonSet's rollout page (`namespace/name`): budget, verdict and node-by-node progress.
#[server(endpoint = "daemonset", output = JsonText)]
pub async fn get_daemonset(daemonset: String) -> Result<DaemonSetDetail, DashboardError> {
    check_daemonset_key(&daemonset)?;
    Ok(context::live()?.detail(&daemonset)?)
}

/// For each DaemonSet that should not run on the node, the rule that keeps it off
/// (`nodeSelector workload-type=gpu: the node has no such label`): the node page names it in
/// the row, with the full explanation one click away.
#[server(endpoint = "node_rules", output = JsonText)]
pub async fn get_node_rules(name: String) -> Result<Vec<(String, String)>, DashboardError> {
    Ok(context::live()?.deciding_rules(&name)?)
}

/// The names of the nodes a Kubernetes label selector matches (full syntax: `=`, `!=`, `in`,
/// `notin`, exists, `!key`), parsed by the same code the placement rules use. The matrix's
/// selector filter asks it, since only the server keeps every label of every node.
#[server(endpoint = "select_nodes", output = JsonText)]
pub async fn select_nodes(selector: String) -> Result<Vec<String>, DashboardError> {
    if selector.len() > 4096 {
        return Err(DashboardError::BadRequest {
            detail: format!(
                "label selector of {} bytes: at most 4096 are read",
                selector.len()
            ),
        });
    }
    let parsed = crate::domain::labels::LabelSelector::parse(&selector).map_err(|err| {
        DashboardError::BadRequest {
            detail: format!("label selector: {err}"),
        }
    })?;
    Ok(context::live()?.nodes_matching(&parsed))
}

/// Every label of one node, sorted by key; `NotFound` when the node is not known. The node
/// page shows them in full, since the matrix row carries only a few, shortened.
#[server(endpoint = "node_labels", output = JsonText)]
pub async fn get_node_labels(name: String) -> Result<Vec<(String, String)>, DashboardError> {
    let live = context::live()?;
    match live.node_labels(&name) {
        Some(labels) => Ok(labels),
        None => {
            live.find_node(&name)?;
            // Listed between the two reads: it exists, with no labels seen yet.
            Ok(Vec::new())
        }
    }
}
