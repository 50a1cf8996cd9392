//! The page header and the stale banner.
//!
//! Why a banner: "degrade, never lie" (docs/architecture.md#degrade-never-lie): when a watch
//! is forbidden or the feed is lost, the page keeps the last state on screen and says what is
//! stale and since when.

use crate::components::theme::ThemeToggle;
use crate::domain::view::ResourceHealth;
use crate::live_client::ConnState;
use crate::text::format_utc_time;
use leptos::prelude::*;

/// One line of the banner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BannerLine {
    /// "error" (a resource cannot be read) or "stale" (data is old).
    pub kind: &'static str,
    /// What the user reads.
    pub text: String,
}

/// The banner's lines for a health list and the feed's connection state.
pub fn banner_lines(health: &[ResourceHealth], conn: ConnState) -> Vec<BannerLine> {
    let mut lines = Vec::new();
    if let ConnState::Lost { since } = conn {
        lines.push(BannerLine {
            kind: "stale",
            text: format!(
                "Live updates disconnected: stale since {} UTC. Reconnecting…",
                format_utc_time(since)
            ),
        });
    }
    for h in health {
        if let Some(err) = &h.error {
            lines.push(BannerLine {
                kind: "error",
                text: err.clone(),
            });
        }
        if let Some(since) = h.stale_since {
            lines.push(BannerLine {
                kind: "stale",
                text: format!("{}: stale since {} UTC", h.resource, format_utc_time(since)),
            });
        } else if !h.synced && h.error.is_none() {
            lines.push(BannerLine {
                kind: "stale",
                text: format!("{}: waiting for the first sync", h.resource),
            });
        }
    }
    lines
}

/// The stale/error banner; renders nothing when all is well.
#[component]
pub fn StaleBanner(
    /// Resource health (live once the feed runs, else from the server render).
    #[prop(into)]
    health: Signal<Vec<ResourceHealth>>,
    /// The feed's connection state.
    #[prop(into)]
    conn: Signal<ConnState>,
) -> impl IntoView {
    let lines = Memo::new(move |_| health.with(|h| banner_lines(h, conn.get())));
    view! {
        <Show when=move || lines.with(|l| !l.is_empty())>
            <div class="banner" role="status" data-testid="stale-banner">
                <ul>
                    {move || {
                        lines
                            .get()
                            .into_iter()
                            .map(|l| view! { <li data-kind=l.kind>{if l.kind == "error" { "⊘ " } else { "◷ " }}{l.text}</li> })
                            .collect_view()
                    }}
                </ul>
            </div>
        </Show>
    }
}

/// The name of a connection state for `data-live`.
pub fn conn_name(conn: ConnState) -> &'static str {
    match conn {
        ConnState::Idle => "idle",
        ConnState::Connecting => "connecting",
        ConnState::Live => "live",
        ConnState::Lost { .. } => "lost",
    }
}

/// The top bar's mark (`data-live` name, text): "live" only while the feed is connected and
/// nothing the page shows is stale. A connected feed from a cluster that cannot be read (the
/// API server lost its storage, a watch went quiet) is "stale", not "live" (issue 26).
pub fn live_mark(conn: ConnState, health: &[ResourceHealth]) -> (&'static str, &'static str) {
    match conn {
        ConnState::Live if health.iter().any(|h| h.stale_since.is_some()) => ("stale", "◷ stale"),
        ConnState::Idle => ("idle", "static"),
        ConnState::Connecting => ("connecting", "connecting…"),
        ConnState::Live => ("live", "● live"),
        ConnState::Lost { .. } => ("lost", "○ disconnected"),
    }
}

/// The top bar: product, cluster, navigation and the live indicator.
#[component]
pub fn TopBar(
    /// Which cluster and context the page shows.
    #[prop(into)]
    cluster: Signal<String>,
    /// The feed's connection state.
    #[prop(into)]
    conn: Signal<ConnState>,
    /// Resource health, so the mark says "stale" rather than "live" when data is stale.
    #[prop(optional, into)]
    health: Option<Signal<Vec<ResourceHealth>>>,
    /// The page's figures at a glance (the matrix: nodes, DaemonSets, problems).
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let health = health.unwrap_or_else(|| Signal::derive(Vec::new));
    let mark = Memo::new(move |_| health.with(|h| live_mark(conn.get(), h)));
    view! {
        <header class="topbar">
            <a class="brand" href=crate::links::matrix()>"daemonscope"</a>
            <span class="cluster" data-testid="cluster">{move || cluster.get()}</span>
            <crate::components::switcher::ClusterSwitcher/>
            {children.map(|c| view! { <span class="glance" data-testid="glance">{c()}</span> })}
            <span class="live" data-live=move || mark.get().0>{move || mark.get().1}</span>
            <ThemeToggle/>
        </header>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(
        resource: &str,
        synced: bool,
        error: Option<&str>,
        stale: Option<i64>,
    ) -> ResourceHealth {
        ResourceHealth {
            resource: resource.into(),
            synced,
            error: error.map(str::to_string),
            stale_since: stale,
        }
    }

    #[test]
    fn a_healthy_live_page_has_no_banner() {
        assert!(banner_lines(&[health("pods", true, None, None)], ConnState::Live).is_empty());
        assert!(banner_lines(&[], ConnState::Idle).is_empty());
    }

    #[test]
    fn a_forbidden_resource_is_shown_verbatim() {
        let lines = banner_lines(
            &[health(
                "pods",
                false,
                Some("cannot list pods: forbidden for user x"),
                None,
            )],
            ConnState::Live,
        );
        assert_eq!(
            lines,
            vec![BannerLine {
                kind: "error",
                text: "cannot list pods: forbidden for user x".into()
            }]
        );
    }

    #[test]
    fn stale_data_says_since_when_in_utc() {
        let lines = banner_lines(
            &[health("nodes", true, None, Some(1_764_686_096))],
            ConnState::Live,
        );
        assert_eq!(lines[0].text, "nodes: stale since 14:34:56 UTC");
        let lost = banner_lines(
            &[],
            ConnState::Lost {
                since: 1_764_686_096,
            },
        );
        assert!(
            lost[0].text.contains("stale since 14:34:56 UTC"),
            "{:?}",
            lost
        );
    }

    #[test]
    fn the_mark_says_stale_not_live_while_anything_shown_is_stale() {
        let storage = health(
            "API server",
            false,
            Some("the API server cannot reach its storage (etcd)"),
            Some(1_764_686_096),
        );
        assert_eq!(live_mark(ConnState::Live, &[]), ("live", "● live"));
        assert_eq!(
            live_mark(ConnState::Live, std::slice::from_ref(&storage)),
            ("stale", "◷ stale")
        );
        // A lost feed says so first: that is what the reader can act on.
        assert_eq!(
            live_mark(ConnState::Lost { since: 1 }, &[storage]).0,
            "lost"
        );
        let banner = banner_lines(
            &[health(
                "API server",
                false,
                Some("the API server cannot reach its storage (etcd)"),
                Some(1_764_686_096),
            )],
            ConnState::Live,
        );
        assert_eq!(
            banner.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(),
            vec![
                "the API server cannot reach its storage (etcd)",
                "API server: stale since 14:34:56 UTC"
            ]
        );
    }

    #[test]
    fn an_unsynced_resource_without_error_is_waiting() {
        let lines = banner_lines(&[health("events", false, None, None)], ConnState::Live);
        assert_eq!(lines[0].text, "events: waiting for the first sync");
    }
}
