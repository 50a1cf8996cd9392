//! The pod page's parts: its facts, its containers and its conditions.
//!
//! Presentational: the page reads the pod (`server_fns::get_pod`) and hands a `PodDetail` in.
//! Every string is cluster text rendered as a text node. There is nothing here for env values,
//! command lines or volumes: `PodDetail` has no field for them.

use crate::domain::view::{ContainerDetail, ContainerState, PodCondition, PodDetail};
use crate::links;
use crate::text::format_age;
use leptos::either::Either;
use leptos::prelude::*;

/// `3m 20s ago` for a time `read_at - at` before the read, `—` when unknown.
fn ago(read_at: i64, at: Option<i64>) -> String {
    at.map_or_else(
        || "—".to_string(),
        |t| format!("{} ago", format_age(read_at - t)),
    )
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Whether it runs the DaemonSet's current revision (§d.4), in words.
fn revision_word(updated: Option<bool>) -> &'static str {
    match updated {
        Some(true) => "current",
        Some(false) => "old",
        None => "owner not known",
    }
}

/// The facts beside the pod's name: phase, node, DaemonSet, revision, QoS, priority, age.
#[component]
pub fn PodFacts(pod: PodDetail) -> impl IntoView {
    let read_at = pod.read_at;
    let phase = match (&pod.reason, pod.deleting_since) {
        (_, Some(_)) => format!("{} (terminating)", pod.phase),
        (Some(r), None) => format!("{} ({r})", pod.phase),
        (None, None) => pod.phase.to_string(),
    };
    let node = pod.node.clone().map_or_else(
        || Either::Left(view! { <span class="muted">"not placed"</span> }),
        |n| Either::Right(view! { <a href=links::node(&n)>{n.clone()}</a> }),
    );
    let owner = pod.owner.clone().map_or_else(
        || Either::Left(view! { <span class="muted">"none (not a daemon pod)"</span> }),
        |o| Either::Right(view! { <a href=links::daemonset(&o)>{o.clone()}</a> }),
    );
    let hash = if pod.revision_hash.is_empty() {
        "—".to_string()
    } else {
        pod.revision_hash.clone()
    };
    let priority = match (&pod.priority_class, pod.priority) {
        (Some(c), Some(p)) => format!("{c} ({p})"),
        (Some(c), None) => c.clone(),
        (None, Some(p)) => p.to_string(),
        (None, None) => "—".to_string(),
    };
    view! {
        <dl class="facts" data-testid="pod-facts">
            <dt>"phase"</dt>
            <dd data-testid="pod-phase" data-phase=pod.phase.to_string()>{phase}</dd>
            <dt>"node"</dt>
            <dd data-testid="pod-node">{node}</dd>
            <dt>"DaemonSet"</dt>
            <dd data-testid="pod-owner">{owner}</dd>
            <dt>"revision"</dt>
            <dd data-testid="pod-revision">
                <code>{hash}</code>" "{revision_word(pod.updated)}
            </dd>
            <dt>"QoS class"</dt>
            <dd>{pod.qos_class.clone().unwrap_or_else(|| "—".to_string())}</dd>
            <dt>"priority"</dt>
            <dd>{priority}</dd>
            <dt>"age"</dt>
            <dd>{format_age(read_at - pod.created)}</dd>
            {pod.deleting_since.map(|t| view! {
                <dt>"terminating"</dt>
                <dd data-testid="pod-terminating">"since "{ago(read_at, Some(t))}</dd>
            })}
        </dl>
    }
}

/// The state cell of one container: the reason standing out when it is trouble
/// (CrashLoopBackOff, ImagePullBackOff, a failed exit), with since-when and the kubelet's words.
fn state_cell(state: &ContainerState, read_at: i64) -> impl IntoView {
    let detail = match state {
        ContainerState::Waiting { message, .. } => message.clone(),
        ContainerState::Running { since } => Some(format!("since {}", ago(read_at, *since))),
        ContainerState::Terminated(t) => Some(format!(
            "exit code {}, {}",
            t.exit_code,
            ago(read_at, t.finished)
        )),
        ContainerState::Unknown => None,
    };
    view! {
        <span class="container-state" data-trouble=state.is_trouble().to_string()>{state.label()}</span>
        {detail.map(|d| view! { <div class="container-note">{d}</div> })}
    }
}

fn container_row(c: ContainerDetail, read_at: i64) -> impl IntoView {
    let last = c.last_termination.as_ref().map_or_else(
        || "—".to_string(),
        |t| {
            format!(
                "{}, exit code {}, {}",
                t.reason.clone().unwrap_or_else(|| "Terminated".to_string()),
                t.exit_code,
                ago(read_at, t.finished)
            )
        },
    );
    let started = c.started.map_or("—", yes_no);
    view! {
        <tr data-container=c.name.clone() data-container-state=c.state.label()>
            <td><code>{c.name.clone()}</code></td>
            <td><code class="image">{c.image.clone()}</code></td>
            <td>{state_cell(&c.state, read_at)}</td>
            <td>{yes_no(c.ready)}</td>
            <td>{started}</td>
            <td class="num" data-testid="restarts">{c.restart_count}</td>
            <td data-testid="last-termination">{last}</td>
        </tr>
    }
}

/// One table of containers (or init containers), in spec order.
#[component]
pub fn ContainerTable(
    /// `Containers` or `Init containers`.
    title: &'static str,
    containers: Vec<ContainerDetail>,
    read_at: i64,
) -> impl IntoView {
    let rows = containers
        .into_iter()
        .map(|c| container_row(c, read_at))
        .collect_view();
    view! {
        <section aria-label=title>
            <h2>{title}</h2>
            <table class="ds-table pod-containers">
                <thead>
                    <tr>
                        <th>"container"</th>
                        <th>"image"</th>
                        <th>"state"</th>
                        <th>"ready"</th>
                        <th>"started"</th>
                        <th class="num">"restarts"</th>
                        <th>"last termination"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
}

/// The pod's conditions, in the pod's order.
#[component]
pub fn PodConditions(conditions: Vec<PodCondition>, read_at: i64) -> impl IntoView {
    let body = if conditions.is_empty() {
        Either::Left(view! { <p class="section-note">"The pod reports no conditions yet."</p> })
    } else {
        let rows = conditions
            .into_iter()
            .map(|c| {
                let (kind, status) = (c.kind.clone(), c.status.clone());
                view! {
                    <tr data-condition=kind data-status=status>
                        <td>{c.kind}</td>
                        <td class="condition-status">{c.status}</td>
                        <td>{c.reason.unwrap_or_default()}</td>
                        <td>{c.message.unwrap_or_default()}</td>
                        <td>{ago(read_at, c.last_transition)}</td>
                    </tr>
                }
            })
            .collect_view();
        Either::Right(view! {
            <table class="ds-table pod-conditions">
                <thead>
                    <tr><th>"condition"</th><th>"status"</th><th>"reason"</th><th>"message"</th><th>"last transition"</th></tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        })
    };
    view! {
        <section aria-label="Conditions" data-testid="pod-conditions">
            <h2>"Conditions"</h2>
            {body}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_ages_before_the_read() {
        assert_eq!(ago(1_000, Some(800)), "3m 20s ago");
        assert_eq!(ago(1_000, None), "—");
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_hostile_container_name_and_message_render_as_text() {
        let c = ContainerDetail {
            name: "<b>x</b>".into(),
            image: "img".into(),
            ready: false,
            started: None,
            restart_count: 3,
            state: ContainerState::Waiting {
                reason: Some("CrashLoopBackOff".into()),
                message: Some("<img src=x onerror=alert(1)>".into()),
            },
            last_termination: None,
        };
        let html =
            view! { <ContainerTable title="Containers" containers=vec![c] read_at=0/> }.to_html();
        assert!(!html.contains("<img") && !html.contains("<b>x"), "{html}");
        assert!(
            html.contains("&lt;img") && html.contains("CrashLoopBackOff"),
            "{html}"
        );
        assert!(html.contains("data-trouble=\"true\""), "{html}");
    }
}
