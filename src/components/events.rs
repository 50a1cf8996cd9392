//! "Recent events" on the DaemonSet and node pages: the newest Kubernetes Events about the
//! object (and, on a DaemonSet's page, its daemon pods), newest first.
//!
//! Presentational: the page reads the events (`server_fns::get_events`, re-read when its
//! object changes and on a timer) and hands the resource in. Messages are cluster text and
//! are rendered as text nodes only.

use crate::domain::view::{EventRow, EventType};
use crate::server_fns::DashboardError;
use crate::text::format_utc_time;
use leptos::either::EitherOf3;
use leptos::prelude::*;

/// `3×` for repeated events, nothing for single ones.
fn times(count: i32) -> String {
    if count > 1 {
        format!("{count}×")
    } else {
        String::new()
    }
}

/// The list of the page's `events` resource.
#[component]
pub fn RecentEvents(events: Resource<Result<Vec<EventRow>, DashboardError>>) -> impl IntoView {
    view! {
        <section class="events" data-testid="events">
            <h2>"Recent events"</h2>
            <Transition fallback=|| view! { <p class="section-note">"Loading events…"</p> }>
                {move || Suspend::new(async move {
                    match events.await {
                        Ok(rows) if rows.is_empty() => {
                            EitherOf3::A(view! { <p class="section-note">"No recent events."</p> })
                        }
                        Ok(rows) => EitherOf3::B(view! { <EventTable rows=rows/> }),
                        Err(e) => EitherOf3::C(view! {
                            <p class="section-note">"Events are not available: "{e.to_string()}</p>
                        }),
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
                        let warning = r.event_type == EventType::Warning;
                        let reason = r.reason.clone();
                        view! {
                            <tr class="event" class:event-warning=warning data-reason=reason>
                                <td class="event-type">{r.event_type.to_string()}</td>
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
            event_type: EventType::Warning,
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
