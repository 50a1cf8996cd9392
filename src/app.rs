//! The HTML shell and the route table; no data logic lives here.

use crate::live_client::LiveHub;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::{
    components::{Outlet, ParentRoute, Route, Router, Routes},
    lazy_route, Lazy, LazyRoute, ParamSegment, SsrMode, StaticSegment,
};

/// The document around the app: SSR renders it once per request.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" type="image/svg+xml" href="/favicon.svg"/>
                // The response's nonce (server only): the page's CSP runs no inline script without it.
                <script nonce=leptos::nonce::use_nonce() inner_html=crate::components::theme::THEME_BOOT_SCRIPT></script>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The routes, the live hub shared by every page, and the hydration marker.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let hub = LiveHub::new();
    provide_context(hub.clone());
    // The clusters for the top bar's switcher: read once per page load (a page shows one
    // cluster for its life; the switcher's links are full loads).
    provide_context(crate::components::switcher::ClusterList(OnceResource::new(
        crate::server_fns::get_clusters(),
    )));

    // Flips once the WASM has hydrated the route's page (end-to-end tests wait for it): each
    // route's view sets it (`HydratedMark`), not the App, because a lazily loaded page hydrates
    // only once its module is in, after the App's own effects have run. Each page opens the
    // live feed it needs (`hub.follow`).
    let hydrated = RwSignal::new(false);
    provide_context(Hydrated(hydrated));

    view! {
        <Stylesheet id="leptos" href="/pkg/daemonscope.css"/>
        <Title text="daemonscope"/>
        <Router>
            <main data-hydrated=move || hydrated.get().to_string()>
                <Routes fallback=|| view! { <p class="not-found">"Page not found. "<a href=crate::links::matrix()>"Back to the matrix"</a></p><HydratedMark/> }>
                    // The single-cluster URLs: the first (or only) cluster.
                    <Route path=StaticSegment("") view=|| view! { <crate::pages::matrix::MatrixPage/><HydratedMark/> }/>
                    // Every other page is a lazily loaded WASM module (below).
                    <Route
                        path=(StaticSegment("ds"), ParamSegment("namespace"), ParamSegment("name"))
                        view={Lazy::<DaemonSetRoute>::new()}
                    />
                    <Route path=(StaticSegment("node"), ParamSegment("name")) view={Lazy::<NodeRoute>::new()}/>
                    <Route
                        path=(StaticSegment("pod"), ParamSegment("namespace"), ParamSegment("name"))
                        view={Lazy::<PodRoute>::new()}
                        // The pod is read from the API server: wait for it before the first
                        // byte, so that a missing pod can still answer 404.
                        ssr=SsrMode::Async
                    />
                    <Route path=StaticSegment("fleet") view={Lazy::<FleetRoute>::new()}/>
                    // The same pages of one cluster among several (`/c/NAME/...`): the server
                    // picks the cluster from the URL, the page's links keep its prefix.
                    <ParentRoute path=(StaticSegment("c"), ParamSegment("cluster")) view=Outlet>
                        <Route path=StaticSegment("") view=|| view! { <crate::pages::matrix::MatrixPage/><HydratedMark/> }/>
                        <Route
                            path=(StaticSegment("ds"), ParamSegment("namespace"), ParamSegment("name"))
                            view={Lazy::<DaemonSetRoute>::new()}
                        />
                        <Route path=(StaticSegment("node"), ParamSegment("name")) view={Lazy::<NodeRoute>::new()}/>
                        <Route
                            path=(StaticSegment("pod"), ParamSegment("namespace"), ParamSegment("name"))
                            view={Lazy::<PodRoute>::new()}
                            ssr=SsrMode::Async
                        />
                    </ParentRoute>
                </Routes>
            </main>
        </Router>
    }
}

/// The hydration marker's signal, shared from the App to the routes' views.
#[derive(Clone, Copy)]
struct Hydrated(RwSignal<bool>);

/// Sets the hydration marker once the page it sits in has hydrated: effects run only in the
/// browser, after the view that created them (for a lazy page, after its module loaded).
#[component]
fn HydratedMark() -> impl IntoView {
    if let Some(Hydrated(hydrated)) = use_context::<Hydrated>() {
        Effect::new(move |_| hydrated.set(true));
    }
}

// The pages other than the matrix, each split by `#[lazy_route]` into its own WASM module
// (`make build-wasm` runs the splitter, tools/wasm-split): the matrix's first load carries none
// of their code. The browser fetches a page's module on the first client-side navigation to
// it, and a direct visit preloads it (the server renders `<link rel="preload">` for it from
// `__wasm_split_manifest.json`) and hydrates once it is in (`hydrate_lazy`, src/lib.rs). On the
// server `view` just renders the page. README.md, Performance.

/// The DaemonSet page (`/ds/:namespace/:name`), with its what-if and rollout sections.
pub struct DaemonSetRoute;

#[lazy_route]
impl LazyRoute for DaemonSetRoute {
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        erase(view! { <crate::pages::daemonset::DaemonSetPage/><HydratedMark/> })
    }
}

/// The node page (`/node/:name`).
pub struct NodeRoute;

#[lazy_route]
impl LazyRoute for NodeRoute {
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        erase(view! { <crate::pages::node::NodePage/><HydratedMark/> })
    }
}

/// The pod page (`/pod/:namespace/:name`).
pub struct PodRoute;

#[lazy_route]
impl LazyRoute for PodRoute {
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        erase(view! { <crate::pages::pod::PodPage/><HydratedMark/> })
    }
}

/// The fleet page (`/fleet`): every cluster and, per DaemonSet, where it has problems.
pub struct FleetRoute;

#[lazy_route]
impl LazyRoute for FleetRoute {
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        erase(view! { <crate::pages::fleet::FleetPage/><HydratedMark/> })
    }
}

/// A lazy route's view is an `AnyView` (`LazyRoute::view`); clippy.toml bans `into_any`
/// elsewhere, where `Either` does the job without the erased type's extra code.
#[allow(clippy::disallowed_methods)]
fn erase(view: impl IntoView + 'static) -> AnyView {
    view.into_any()
}
