//! What the API server would default and reject (§i).
pub mod names;
