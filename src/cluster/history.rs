//! The on-demand read behind a DaemonSet's revision history.
//!
//! Why in `cluster`: it is a read of the API server (one LIST), and API types stay on this
//! side; the server function receives domain records only.

use crate::cluster::{ReadError, Reader};
use crate::domain::history::RevisionRecord;
use crate::edge::convert::{controlled_by, revision_record};
use k8s_openapi::api::apps::v1::ControllerRevision;
use kube::api::ListParams;

/// The ControllerRevisions in `namespace` that the DaemonSet with uid `ds_uid` controls
/// (§f, kubectl's `IsControlledBy`), each with its stored template read.
pub async fn revision_records(
    reader: &Reader,
    namespace: &str,
    ds_uid: &str,
) -> Result<Vec<RevisionRecord>, ReadError> {
    let what = format!("controllerrevisions in {namespace}");
    let revisions: Vec<ControllerRevision> = reader
        .list(namespace, &ListParams::default(), &what)
        .await?;
    Ok(revisions
        .iter()
        .filter(|rev| controlled_by(rev, ds_uid))
        .map(revision_record)
        .collect())
}
