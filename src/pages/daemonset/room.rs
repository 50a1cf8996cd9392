//! The DaemonSet page's cost section (§j.5) and its pending pods explained (§j.4).

use crate::components::room::PendingView;
use crate::domain::coverage::pending::{format_amount, DaemonSetRoom};
use leptos::prelude::*;

/// What the DaemonSet costs the cluster (its template's requests on every node where it should
/// run) and why each of its pending pods waits for the scheduler.
#[component]
pub(super) fn DaemonSetRoomView(room: DaemonSetRoom) -> impl IntoView {
    let per_pod = room
        .per_pod
        .iter()
        .map(|(r, v)| format!("{r} {}", format_amount(r, v)))
        .collect::<Vec<_>>()
        .join(", ");
    let total = room
        .total
        .iter()
        .map(|(r, v)| format!("{r} {}", format_amount(r, v)))
        .collect::<Vec<_>>()
        .join(", ");
    let line = if room.per_pod.is_empty() {
        format!(
            "Its pods request nothing; it should run on {} nodes.",
            room.nodes
        )
    } else {
        format!(
            "Each pod requests {per_pod}; on the {} nodes where it should run that is {total}.",
            room.nodes
        )
    };
    let pending = room
        .pending
        .into_iter()
        .map(|(node, p)| {
            view! {
                <div class="pending-of" data-node=node.clone()>
                    <p><a href=crate::links::node(&node)>{node.clone()}</a></p>
                    <PendingView pending=p/>
                </div>
            }
        })
        .collect_view();
    view! {
        <section aria-label="DaemonSet tax" data-testid="ds-tax">
            <h2>"What it costs"</h2>
            <p data-testid="ds-tax-line">{line}</p>
            {pending}
        </section>
    }
}
