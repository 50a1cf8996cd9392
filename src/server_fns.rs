//! Thin `#[server]` functions: state from context, then the live store, then a DTO. Every
//! server function of the dashboard is here (pages call them; components never do).
//!
//! Each has a fixed endpoint (`/api/<name>`), not the default hashed one: the default hash
//! includes the build directory, so a WASM bundle built elsewhere would 404 on every call.
//!
//! Why thin: every rule lives in `domain`, every cluster read in `cluster::Live` and every cut
//! of a page's view in `windows`; these only find the state `web` provides
//! ([`context::ServerContext`]) and turn lookups into a [`DashboardError`] the page can tell
//! apart. They compile for the browser as calls and on the server as bodies. Layer: imports
//! `views` and `domain` (and `cluster`, `windows` on the server); never `web`, `app`, `pages`
//! or `components`.

pub mod codec;
#[cfg(feature = "ssr")]
pub mod context;
pub mod error;
pub mod events;
pub mod fleet;
pub mod history;
pub mod pod;
pub mod whatif;

pub use error::{DashboardError, ObjectKind};
pub use events::get_events;
pub use fleet::{get_clusters, get_fleet, ClusterNav};
pub use history::get_revision_history;
pub use pod::get_pod;
pub use whatif::get_whatif_facts;

use crate::domain::view::{CellExplanation, DaemonSetDetail};
use crate::views::daemonset::DaemonSetWindow;
use crate::views::matrix::window::MatrixWindow;
use crate::views::node::NodeDetail;
use codec::JsonText;
use leptos::prelude::*;

/// A DaemonSet key must be `namespace/name`; anything else is a malformed request.
#[cfg(feature = "ssr")]
pub(crate) fn check_daemonset_key(key: &str) -> Result<(), DashboardError> {
    match key.split_once('/') {
        Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains('/') => Ok(()),
        _ => Err(DashboardError::BadRequest {
            detail: format!("DaemonSet {key:?} is not namespace/name"),
        }),
    }
}

/// One window of the matrix for the query string `query` (`problems=1&group=…&page=2`, as
/// the page's URL has it): the rows, group headers and figures the page shows, cut on the
/// server, so a browser never downloads the whole matrix (150,000 cells at 5,000 nodes).
#[server(endpoint = "matrix_window", output = JsonText)]
pub async fn get_matrix_window(query: String) -> Result<MatrixWindow, DashboardError> {
    if query.len() > MAX_QUERY_STRING {
        return Err(DashboardError::BadRequest {
            detail: format!(
                "matrix query string of {} bytes: at most {MAX_QUERY_STRING} are read",
                query.len()
            ),
        });
    }
    let cut = crate::windows::query::MatrixCut::parse(&query).cut;
    Ok(context::windows()?.matrix(&cut))
}

/// One node's row of the matrix with its columns' keys (the node page); `None` when the
/// matrix has no such node. The page never downloads the whole matrix for it.
#[server(endpoint = "node_detail", output = JsonText)]
pub async fn get_node_detail(name: String) -> Result<Option<NodeDetail>, DashboardError> {
    Ok(context::windows()?.node(&name))
}

/// Longest matrix query string read (a selector of 1,024 characters, percent-encoded, plus
/// the other filters).
pub const MAX_QUERY_STRING: usize = 16 * 1024;

/// The DaemonSet page's view (`namespace/name`): its rollout on the nodes worth a row, cut on
/// the server; `/api/view/ds/…` keeps it current.
#[server(endpoint = "daemonset_window", output = JsonText)]
pub async fn get_daemonset_window(daemonset: String) -> Result<DaemonSetWindow, DashboardError> {
    check_daemonset_key(&daemonset)?;
    Ok(context::windows()?.daemonset(&daemonset)?)
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

/// A node's room (§j): what its pods request, the DaemonSet tax, and why each pending daemon
/// pod waits for the scheduler.
#[server(endpoint = "node_room", output = JsonText)]
pub async fn get_node_room(
    name: String,
) -> Result<crate::domain::coverage::pending::NodeRoom, DashboardError> {
    Ok(context::live()?.node_room(&name)?)
}

/// A DaemonSet's cluster-wide tax and its pending pods explained (§j.5, §j.4).
#[server(endpoint = "daemonset_room", output = JsonText)]
pub async fn get_daemonset_room(
    key: String,
) -> Result<crate::domain::coverage::pending::DaemonSetRoom, DashboardError> {
    Ok(context::live()?.daemonset_room(&key)?)
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
