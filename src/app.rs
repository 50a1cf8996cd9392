//! The HTML shell and the route table; no data logic lives here.

use crate::live_client::LiveHub;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    ParamSegment, SsrMode, StaticSegment,
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

    // Effects run only in the browser: this flips once the WASM has hydrated the page
    // (end-to-end tests wait for it). Each page opens the live feed it needs (`hub.follow`).
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));

    view! {
        <Stylesheet id="leptos" href="/pkg/daemonscope.css"/>
        <Title text="daemonscope"/>
        <Router>
            <main data-hydrated=move || hydrated.get().to_string()>
                <Routes fallback=|| view! { <p class="not-found">"Page not found. "<a href="/">"Back to the matrix"</a></p> }>
                    <Route path=StaticSegment("") view=crate::pages::matrix::MatrixPage/>
                    <Route
                        path=(StaticSegment("ds"), ParamSegment("namespace"), ParamSegment("name"))
                        view=crate::pages::daemonset::DaemonSetPage
                    />
                    <Route path=(StaticSegment("node"), ParamSegment("name")) view=crate::pages::node::NodePage/>
                    <Route
                        path=(StaticSegment("pod"), ParamSegment("namespace"), ParamSegment("name"))
                        view=crate::pages::pod::PodPage
                        // The pod is read from the API server: wait for it before the first
                        // byte, so that a missing pod can still answer 404.
                        ssr=SsrMode::Async
                    />
                </Routes>
            </main>
        </Router>
    }
}
