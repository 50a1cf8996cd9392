//! What a page shows, cut from the live matrix: pure code that the server and the browser
//! both run.
//!
//! Why a layer of its own: the server cuts each browser's window (`/api/view`, the server
//! functions, the server-side render) with the very code the pages use to describe it, so
//! the two never disagree. Layer: imports `domain` only; `server_fns`, `web`, `live_client`
//! and `pages` import it.

pub mod daemonset;
pub mod matrix;
pub mod node;
pub mod page;
pub mod rows;
