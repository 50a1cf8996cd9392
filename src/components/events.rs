//! "Recent events" on the DaemonSet and node pages: the newest Kubernetes Events about the
//! object (and, on a DaemonSet's page, its daemon pods), newest first.
//!
//! Why a server function of its own: events are optional data kept apart from the matrix
//! (`cluster::events`), read when the page loads, again when the page's live signal says the
//! object changed, and every `POLL` in the browser: a crash-looping pod's repeated BackOff
//! changes no cell, so no live delta would bring it. Messages are cluster text and are
//! rendered as text nodes only.

use crate::domain::view::EventRow;
use crate::live_client::format_utc_time;
use leptos::prelude::*;
use std::time::Duration;

/// How often an open page re-reads its events (at most 20 short rows).
const POLL: Duration = Duration::from_secs(10);

/// The recent events of one page: `page` is `daemonset` (name `namespace/name`) or `node`.
#[server(endpoint = "events")]
pub async fn get_events(page: String, name: String) -> Result<Vec<EventRow>, ServerFnError> {
    use crate::cluster::events::Page;
    let live = crate::server_fns::live()?;
    let page = match page.as_str() {
        "daemonset" => Page::DaemonSet(name),
        "node" => Page::Node(name),
        other => {
            return Err(ServerFnError::new(format!(
                "unknown events page {other:?} (expected daemonset or node)"
            )))
        }
    };
    Ok(live.events_of(&page))
}

/// `3×` for repeated events, nothing for single ones.
fn times(count: i32) -> String {
    if count > 1 {
        format!("{count}×")
    } else {
        String::new()
    }
}

/// The list; `refresh` changes when the page's object changed (re-read then).
#[component]
pub fn RecentEvents(
    page: &'static str,
    name: String,
    #[prop(into)] refresh: Signal<u64>,
) -> impl IntoView {
    let poll = super::poll::poll_tick(POLL);
    let events = Resource::new(
        move || (name.clone(), refresh.get(), poll.get()),
        move |(name, _, _)| get_events(page.to_string(), name),
    );
    view! {
        <section class="events" data-testid="events">
            <h2>"Recent events"</h2>
            <Transition fallback=|| view! { <p class="section-note">"Loading events…"</p> }>
                {move || Suspend::new(async move {
                    match events.await {
                        Ok(rows) if rows.is_empty() => {
                            view! { <p class="section-note">"No recent events."</p> }.into_any()
                        }
                        Ok(rows) => view! { <EventTable rows=rows/> }.into_any(),
                        Err(e) => {
                            view! {
                                <p class="section-note">"Events are not available: "{e.to_string()}</p>
                            }
                                .into_any()
                        }
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn EventTable(rows: Vec<EventRow>) -> impl IntoView {
    view! {
        <table class="events-table">
            <thead>
                <tr>
                    <th>"Type"</th>
                    <th>"Reason"</th>
                    <th>"Last seen (UTC)"</th>
                    <th>"Count"</th>
                    <th>"Object"</th>
                    <th>"Message"</th>
                </tr>
            </thead>
            <tbody>
                {rows
                    .into_iter()
                    .map(|r| {
                        let warning = r.event_type == "Warning";
                        let reason = r.reason.clone();
                        view! {
                            <tr class="event" class:event-warning=warning data-reason=reason>
                                <td class="event-type">{r.event_type}</td>
                                <td class="event-reason">{r.reason}</td>
                                <td class="event-time">{format_utc_time(r.last_seen)}</td>
                                <td class="event-count">{times(r.count)}</td>
                                <td class="event-object">{r.object}</td>
                                <td class="event-message">{r.message}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_event_shows_its_count_and_a_single_one_does_not() {
        assert_eq!(times(1), "");
        assert_eq!(times(0), "");
        assert_eq!(times(4), "4×");
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_message_with_markup_is_rendered_as_text() {
        let rows = vec![EventRow {
            object: "DaemonSet".into(),
            event_type: "Warning".into(),
            reason: "FailedCreate".into(),
            message: "<img src=x onerror=alert(1)>".into(),
            count: 2,
            last_seen: 0,
        }];
        let html = view! { <EventTable rows=rows/> }.to_html();
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;img"), "{html}");
        assert!(
            html.contains("FailedCreate") && html.contains("2×"),
            "{html}"
        );
    }
}
