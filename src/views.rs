//! What each page shows and how it travels: its view, the cut that makes it, the diff the
//! server sends and the apply the browser runs. Pure code.
//!
//! Why a layer of its own: the server (`windows`) cuts and diffs each browser's view with the
//! very types and code the pages apply, so the two never disagree. Layer: imports `domain`
//! only; `windows`, `server_fns`, `web`, `live_client` and `pages` import it.

pub mod daemonset;
pub mod fleet;
pub mod matrix;
pub mod node;
pub mod page;
pub mod rows;
