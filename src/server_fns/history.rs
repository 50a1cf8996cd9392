//! The revision history of a DaemonSet's page.
//!
//! Why a server function of its own: the templates are read on demand (one LIST of the
//! namespace's ControllerRevisions when the page asks), not kept in the live store, which
//! holds only each revision's hash and number. The pods per revision come from the store.

use super::codec::JsonText;
use super::error::DashboardError;
use crate::domain::view::RevisionHistory;
use leptos::prelude::*;

/// Every revision `kubectl rollout history ds/NAME` lists for `namespace/name`, newest first,
/// with what changed in each and the nodes still running it.
#[server(endpoint = "revision_history", output = JsonText)]
pub async fn get_revision_history(daemonset: String) -> Result<RevisionHistory, DashboardError> {
    use super::context;
    use crate::domain::history::revision_history;

    super::check_daemonset_key(&daemonset)?;
    let namespace = daemonset
        .split_once('/')
        .map(|(ns, _)| ns)
        .unwrap_or_default();
    let pods = context::live()?.revision_pods(&daemonset)?;
    let reader = context::reader()?;
    let records = crate::cluster::history::revision_records(&reader, namespace, &pods.uid)
        .await
        .map_err(|err| {
            context::read_failed(
                err,
                DashboardError::NotFound {
                    kind: super::ObjectKind::DaemonSet,
                    name: daemonset.clone(),
                },
            )
        })?;
    Ok(revision_history(
        &daemonset,
        records,
        &pods.current_hash,
        &pods.nodes_by_hash,
        crate::cluster::live::unix_now(),
    ))
}
