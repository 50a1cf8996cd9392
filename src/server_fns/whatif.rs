//! The facts a what-if preview needs, for the browser to compute the preview itself.
//!
//! Why facts and not a computed preview: the preview follows the URL's edits as a person types
//! them, so the page runs `domain::whatif` (in WASM after hydration, on the server for the
//! first render) over these facts; one read serves every edit. Read-only like everything else:
//! nothing here, or anywhere, writes the edits to the cluster.

use super::codec::JsonText;
use super::error::DashboardError;
use crate::domain::whatif::WhatIfFacts;
use leptos::prelude::*;

/// The facts of a preview. At most one of the three scopes is given:
/// `node` (a node page: that node and every DaemonSet), `daemonset` (`namespace/name`, a
/// DaemonSet page: every node and that DaemonSet) or `selector` (the matrix: the nodes a label
/// selector matches, every DaemonSet); none is the matrix without a selector (every node).
/// Over many nodes only the labels the rules read are sent, plus `label_keys` (comma-separated:
/// the keys a nodeSelector edit names). `rooms` (a requests edit on a DaemonSet page) adds
/// each node's sums (§j.4), which a preview without one is not sent.
#[server(endpoint = "whatif_facts", output = JsonText)]
pub async fn get_whatif_facts(
    node: String,
    daemonset: String,
    selector: String,
    label_keys: String,
    #[server(default)] rooms: bool,
) -> Result<WhatIfFacts, DashboardError> {
    let mut facts = facts_of(&node, &daemonset, &selector)?;
    if rooms && !daemonset.is_empty() {
        facts.rooms = rooms_of(&daemonset)?;
    }
    if node.is_empty() {
        // Many nodes: only the labels the rules read, and those the edits name.
        let extra: Vec<String> = label_keys
            .split(',')
            .filter(|k| !k.is_empty())
            .take(crate::domain::whatif::MAX_EDITS * 8)
            .map(str::to_string)
            .collect();
        facts.keep_read_labels(&extra);
    }
    Ok(facts)
}

/// Each node's room for a requests edit on DaemonSet `key`.
#[cfg(feature = "ssr")]
fn rooms_of(
    key: &str,
) -> Result<Vec<crate::domain::whatif::requests::NodeRoomFacts>, DashboardError> {
    Ok(super::context::live()?.whatif_rooms(key)?)
}

/// The facts of one scope, whole.
#[cfg(feature = "ssr")]
fn facts_of(node: &str, daemonset: &str, selector: &str) -> Result<WhatIfFacts, DashboardError> {
    use crate::cluster::live::WhatIfNodes;
    let live = super::context::live()?;
    match (node.is_empty(), daemonset.is_empty(), selector.is_empty()) {
        (false, true, true) => Ok(live.whatif_facts(WhatIfNodes::One(node), None)?),
        (true, false, true) => {
            super::check_daemonset_key(daemonset)?;
            Ok(live.whatif_facts(WhatIfNodes::All, Some(daemonset))?)
        }
        (true, true, true) => Ok(live.whatif_facts(WhatIfNodes::All, None)?),
        (true, true, false) => {
            if selector.len() > 4096 {
                return Err(DashboardError::BadRequest {
                    detail: format!(
                        "label selector of {} bytes: at most 4096 are read",
                        selector.len()
                    ),
                });
            }
            let parsed = crate::domain::labels::LabelSelector::parse(selector).map_err(|err| {
                DashboardError::BadRequest {
                    detail: format!("label selector: {err}"),
                }
            })?;
            Ok(live.whatif_facts(WhatIfNodes::Matching(&parsed), None)?)
        }
        _ => Err(DashboardError::BadRequest {
            detail: "a what-if preview covers one node, one DaemonSet or one node selector".into(),
        }),
    }
}
