//! daemonscope: a read-only, live web dashboard for Kubernetes DaemonSets.
//!
//! The module tree follows the layers of `docs/architecture.md#layers`: `domain` (pure rules,
//! also in WASM), `cluster` and `sim` (server-only I/O), `web` (axum), `pages`/`components`
//! (Leptos UI).
//!
//! The UI modules import downwards only (no cycle; `use crate::` lines say so):
//!
//! ```text
//! web -> app -> pages -> { components, server_fns, live_client } -> views -> domain
//!          (web also -> server_fns::context and windows; components -> live_client for
//!           formatting and the hub, and -> server_fns::DashboardError, the type their props
//!           carry; on the server, server_fns -> windows -> { cluster, views })
//! ```
//!
//! `server_fns` holds every `#[server]` fn and the context they read (`server_fns::context`,
//! provided by `web`); `windows` cuts every page's view on the server; `live_client` (the
//! browser's feed) holds no matrix, only each page's view, and needs only `views`.
// A dependency the library never names fails its build (rustc's lint; tests excluded, since
// dev-dependencies are not its to judge).
#![cfg_attr(not(test), deny(unused_crate_dependencies))]
#![recursion_limit = "256"]

// The binary's own dependency (src/main.rs parses its command line with it): Cargo has no
// per-target dependencies, so the library names it to keep `unused_crate_dependencies` exact.
#[cfg(feature = "ssr")]
use clap as _;

pub mod app;
pub mod components;
pub mod links;
pub mod live_client;
pub mod pages;
pub mod server_fns;
pub mod text;
pub mod views;

/// The pure rules, from their own crate (`crates/domain`): also compiled to WASM.
pub use daemonscope_domain as domain;
/// The Kubernetes edge (`crates/edge`): conversions, manifest loading, bounded file reads.
#[cfg(feature = "ssr")]
pub use daemonscope_edge as edge;
/// The simulated cluster (`crates/sim`), for `serve --demo`, `sim` and the tests.
#[cfg(feature = "ssr")]
pub use daemonscope_sim as sim;

#[cfg(feature = "ssr")]
pub mod cli;
#[cfg(feature = "ssr")]
pub mod cluster;
#[cfg(feature = "ssr")]
pub mod fleet_prometheus;
#[cfg(feature = "ssr")]
pub mod web;
#[cfg(feature = "ssr")]
pub mod windows;

/// The WASM entry point: hydrates the server-rendered page in place. `hydrate_lazy`, not
/// `hydrate_body`: on a direct visit to a lazily loaded page (`app.rs`) the router waits for
/// that page's module before it hydrates.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // A page under `/c/NAME/` shows that cluster for the WASM's whole life: its links, its
    // feeds and its server functions all go under the same prefix (`links::base`).
    let path = web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_default();
    let base = links::set_page_base(&path);
    if !base.is_empty() && leptos::server_fn::client::try_set_server_url(base).is_err() {
        leptos::logging::warn!("the server functions' URL was already set");
    }
    leptos::mount::hydrate_lazy(app::App);
}
