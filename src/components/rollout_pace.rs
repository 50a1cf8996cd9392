//! A rollout's pace: the small badge in the matrix's DaemonSet header ("stalled", "~4 min
//! left") and the DaemonSet page's panel (rate, ETA, stall with its causes and what would
//! unblock them, the pods in flight by node with their age).
//!
//! Why a component of its own: both follow the column summary the live feed keeps current, so
//! they update live with no request; the words come from the domain (`RolloutPace::badge`,
//! `StallCause::summary` / `unblock`) so the badge's title and the panel say the same.

use crate::domain::rollout::StallCause;
use crate::domain::view::{DaemonSetColumn, RolloutPace};
use crate::links;
use crate::text::format_age;
use crate::text::format_utc_time;
use leptos::either::Either;
use leptos::prelude::*;

/// Unix seconds now: the browser's clock once hydrated, the server's while rendering.
fn wall_now() -> i64 {
    #[cfg(feature = "hydrate")]
    {
        (js_sys::Date::now() / 1000.0) as i64
    }
    #[cfg(not(feature = "hydrate"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0)
    }
}

/// The badge's tooltip: the first cause and what would unblock it, or the rate and ETA.
pub fn badge_title(column: &DaemonSetColumn, pace: &RolloutPace) -> String {
    match pace.causes.first() {
        Some(cause) if pace.stalled_since.is_some() => format!(
            "Rollout stalled: {}. {}",
            cause.summary(),
            cause.unblock(&column.namespace, &column.name)
        ),
        _ => format!(
            "{} of {} nodes updated and available{}",
            pace.done,
            pace.desired,
            pace.rate_text()
                .map(|r| format!(" · {r}"))
                .unwrap_or_default()
        ),
    }
}

/// The matrix header's badge; nothing when the rollout is complete or has no pace.
#[component]
pub fn PaceBadge(#[prop(into)] column: Signal<DaemonSetColumn>) -> impl IntoView {
    move || {
        let c = column.get();
        let pace = c.pace.clone()?;
        let text = pace.badge()?;
        let kind = if pace.stalled_since.is_some() {
            "stalled"
        } else {
            "rolling"
        };
        Some(view! {
            <span class="pace-badge" data-pace=kind title=badge_title(&c, &pace)>
                {text}
            </span>
        })
    }
}

fn node_link(node: &str) -> impl IntoView {
    view! { <a class="node-name" href=links::node(node)>{node.to_string()}</a> }
}

/// One cause: what blocks, with links to the nodes and pods it names, and what unblocks it.
fn cause_view(cause: &StallCause, namespace: &str, name: &str) -> impl IntoView {
    let links = match cause {
        StallCause::NotReadyNodesHoldBudget { nodes, .. }
        | StallCause::CreationRejected { nodes, .. } => nodes
            .iter()
            .map(|n| Either::Left(view! { <li>{node_link(n)}</li> }))
            .collect::<Vec<_>>(),
        StallCause::NewPodsFailing { pods } | StallCause::SurgePodUnscheduled { pods } => pods
            .iter()
            .map(|p| {
                Either::Right(view! {
                    <li>
                        <a class="pod-link" href=links::pod(&p.namespace, &p.pod)>
                            <code>{p.pod.clone()}</code>
                        </a>
                        " on "
                        {node_link(&p.node)}
                        {format!(" · {} · {} restarts", p.reason, p.restarts)}
                    </li>
                })
            })
            .collect(),
        StallCause::Unexplained => Vec::new(),
    };
    view! {
        <li class="stall-cause" data-cause=cause.kind()>
            <p class="cause-summary">{cause.summary()}</p>
            <ul class="cause-links">{links}</ul>
            <p class="cause-unblock">
                <strong>"To unblock: "</strong>
                {cause.unblock(namespace, name)}
            </p>
        </li>
    }
}

/// The DaemonSet page's pace panel. `tick` re-renders the ages (a poll in the browser).
#[component]
pub fn PacePanel(
    #[prop(into)] column: Signal<DaemonSetColumn>,
    #[prop(into)] tick: Signal<u64>,
) -> impl IntoView {
    move || {
        let c = column.get();
        let pace = c.pace.clone()?;
        let (namespace, name) = (c.namespace.clone(), c.name.clone());
        let state = if pace.complete {
            "complete"
        } else if pace.stalled_since.is_some() {
            "stalled"
        } else {
            "rolling"
        };
        let rate = pace
            .rate_text()
            .unwrap_or_else(|| "not known yet (no progress observed over time)".into());
        let eta = if pace.complete {
            "done".to_string()
        } else {
            match pace.eta_seconds {
                Some(s) => format!("~{} at this rate", format_age(s)),
                None => "unknown at this rate".to_string(),
            }
        };
        let stall = pace.stalled_since.map(|since| {
            let causes = pace
                .causes
                .iter()
                .map(|cause| cause_view(cause, &namespace, &name))
                .collect_view();
            view! {
                <div class="stall-warning" role="alert" data-testid="stall-warning">
                    <p>
                        <strong>"Stalled: "</strong>
                        {move || {
                            tick.track();
                            format!(
                                "no node finished for {} (since {} UTC; the threshold is {}).",
                                format_age(wall_now() - since),
                                format_utc_time(since),
                                format_age(pace.stall_after_seconds),
                            )
                        }}
                    </p>
                    <ul class="stall-causes">{causes}</ul>
                </div>
            }
        });
        let flight = pace
            .in_flight
            .iter()
            .map(|p| {
                let created = p.created;
                view! {
                    <tr data-in-flight=p.pod.clone()>
                        <td>{node_link(&p.node)}</td>
                        <td>
                            <a class="pod-link" href=links::pod(&p.namespace, &p.pod)>
                                <code>{p.pod.clone()}</code>
                            </a>
                        </td>
                        <td>{if p.updated { "new" } else { "old" }}</td>
                        <td>{p.status.clone()}</td>
                        <td class="age">
                            {move || {
                                tick.track();
                                format_age(wall_now() - created)
                            }}
                        </td>
                    </tr>
                }
            })
            .collect_view();
        let more = pace.in_flight_total.saturating_sub(pace.in_flight.len());
        let has_flight = !pace.in_flight.is_empty();
        Some(view! {
            <section class="pace-panel" aria-label="Rollout pace" data-testid="pace-panel" data-pace=state>
                <h2>"Pace"</h2>
                <dl class="facts">
                    <dt>"done"</dt>
                    <dd data-testid="pace-done">
                        {format!("{} of {} nodes updated and available", pace.done, pace.desired)}
                    </dd>
                    <dt>"rate"</dt>
                    <dd data-testid="pace-rate">
                        {rate}
                        <span class="muted">
                            {if pace.complete {
                                " (as it finished)".to_string()
                            } else {
                                format!(" (over the last {})", format_age(pace.window_seconds))
                            }}
                        </span>
                    </dd>
                    <dt>"time left"</dt>
                    <dd data-testid="pace-eta" data-eta=pace.eta_seconds.map(|s| s.to_string())>
                        {eta}
                    </dd>
                </dl>
                {stall}
                {has_flight
                    .then(|| {
                        view! {
                            <h3>"Pods in flight"</h3>
                            <table class="ds-table in-flight">
                                <thead>
                                    <tr>
                                        <th>"node"</th>
                                        <th>"pod"</th>
                                        <th>"revision"</th>
                                        <th>"status"</th>
                                        <th>"age"</th>
                                    </tr>
                                </thead>
                                <tbody>{flight}</tbody>
                            </table>
                        }
                    })}
                {(more > 0).then(|| view! { <p class="muted">{format!("and {more} more in flight")}</p> })}
            </section>
        })
    }
}
