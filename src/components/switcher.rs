//! The cluster switcher in the top bar: every cluster this dashboard shows, the current one
//! marked, and the fleet page.
//!
//! Why links and not a select: a list of links works by keyboard (Tab, Enter) without a
//! script, reads well to a screen reader (`aria-current`), and each link is a full page load
//! (`rel="external"`): a running page shows one cluster for its life (`links::base`). Hidden
//! when the dashboard shows a single cluster.

use crate::server_fns::{ClusterNav, DashboardError};
use leptos::prelude::*;

/// The clusters, read once per page load (provided by the App).
#[derive(Clone, Copy)]
pub struct ClusterList(pub OnceResource<Result<ClusterNav, DashboardError>>);

/// The current cluster of a list: the one the URL names, else the first; None on the fleet
/// page (all of them).
pub fn current_of(nav: &ClusterNav) -> Option<&str> {
    if nav.fleet {
        return None;
    }
    nav.current
        .as_deref()
        .or_else(|| nav.clusters.first().map(String::as_str))
}

/// The switcher: a disclosure with one link per cluster and one to the fleet page.
#[component]
pub fn ClusterSwitcher() -> impl IntoView {
    let list = use_context::<ClusterList>();
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let nav = match list {
                    Some(ClusterList(resource)) => resource.await.unwrap_or_default(),
                    None => ClusterNav::default(),
                };
                (nav.clusters.len() > 1).then(|| switcher(&nav))
            })}
        </Suspense>
    }
}

fn switcher(nav: &ClusterNav) -> impl IntoView + use<> {
    let current = current_of(nav).map(str::to_string);
    let shown = current.clone().unwrap_or_else(|| "all (fleet)".to_string());
    let items = nav
        .clusters
        .iter()
        .map(|name| {
            let here = current.as_deref() == Some(name.as_str());
            view! {
                <li>
                    <a
                        href=crate::links::cluster_matrix(name, "")
                        rel="external"
                        aria-current=here.then_some("page")
                        data-cluster=name.clone()
                    >
                        {name.clone()}
                    </a>
                </li>
            }
        })
        .collect_view();
    view! {
        <nav class="switcher" aria-label="Clusters" data-testid="switcher">
            <details>
                <summary>"Cluster: "<strong>{shown}</strong></summary>
                <ul>
                    {items}
                    <li class="to-fleet"><a href=crate::links::fleet("") rel="external" aria-current=nav.fleet.then_some("page")>"All clusters (fleet)"</a></li>
                </ul>
            </details>
        </nav>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_cluster_is_the_named_one_else_the_first_and_none_on_the_fleet_page() {
        let mut nav = ClusterNav {
            clusters: vec!["a".into(), "b".into()],
            current: Some("b".into()),
            fleet: false,
        };
        assert_eq!(current_of(&nav), Some("b"));
        nav.current = None;
        assert_eq!(current_of(&nav), Some("a"));
        nav.fleet = true;
        assert_eq!(current_of(&nav), None, "the fleet page is no one cluster's");
        assert_eq!(current_of(&ClusterNav::default()), None);
    }
}
