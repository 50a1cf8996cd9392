//! The only code that talks to an API server: watchers, the compact store, conversion.
//!
//! Layer: ssr only. Imports `domain`, `kube` and `k8s-openapi`; never `web` or `leptos`.
//! The flow is `watch` (kube-rs watchers) -> `projection` (objects reduced to domain facts at
//! the edge) -> `live` (the shared, versioned state: `state` + `feed` + `metrics`).

pub mod activity;
pub mod connect;
pub mod error;
pub mod events;
pub mod feed;
pub mod history;
pub mod live;
pub mod metrics;
pub mod projection;
pub mod reader;
pub mod readiness;
pub mod state;
pub mod watch;

pub use error::{ConnectError, LookupError};
pub use live::Live;
pub use reader::{ReadError, Reader};
