//! The pod page's data: one daemon pod read in full, on demand.
//!
//! Why a GET per page load rather than the live store: the store keeps a pod in bytes
//! (`PodFacts`) for 150,000 pods; container states and conditions are read only for the one
//! pod a person opens (`cluster::Reader`). Whether it runs the current revision (§d.4) still
//! comes from the live store's DaemonSet, through the domain rule the other pages use.

use super::codec::JsonText;
use super::error::DashboardError;
use crate::domain::view::PodDetail;
use leptos::prelude::*;

/// A namespace or pod name from the URL: non-empty and without `/`.
#[cfg(feature = "ssr")]
fn check_part(what: &str, text: &str) -> Result<(), DashboardError> {
    if text.is_empty() || text.contains('/') {
        return Err(DashboardError::BadRequest {
            detail: format!("pod {what} {text:?} is empty or contains '/'"),
        });
    }
    Ok(())
}

/// One pod (`namespace`, `name`) as the pod page shows it: `NotFound` when the API server has
/// no such pod, `Forbidden` when the dashboard may not read it.
#[server(endpoint = "pod", output = JsonText)]
pub async fn get_pod(namespace: String, name: String) -> Result<PodDetail, DashboardError> {
    use super::context;
    use super::error::ObjectKind;
    use crate::domain::rollout::is_pod_updated;
    use crate::edge::convert::{pod::pod_detail, pod_facts};
    use k8s_openapi::api::core::v1::Pod;

    check_part("namespace", &namespace)?;
    check_part("name", &name)?;
    let key = format!("{namespace}/{name}");
    let pod: Pod = context::reader()?
        .get(&namespace, &name, &format!("pod {key}"))
        .await
        .map_err(|err| {
            context::read_failed(
                err,
                DashboardError::NotFound {
                    kind: ObjectKind::Pod,
                    name: key,
                },
            )
        })?;
    let live = context::live()?;
    let mut detail = pod_detail(&pod, crate::cluster::live::unix_now());
    let facts = pod_facts(&pod);
    detail.updated = facts.owner_uid.as_deref().and_then(|uid| {
        live.read(|state| {
            state
                .daemonset_by_uid(uid)
                .map(|ds| is_pod_updated(ds, &facts))
        })
    });
    Ok(detail)
}
