//! Presentational components: data arrives as props (values, signals or the page's
//! resources); none calls the server. Layer: imports `domain`, `links`, `text`, `live_client`
//! (the connection state) and the server functions' error type; never `pages`, `app` or `web`.
pub mod banner;
pub mod cell;
pub mod events;
pub mod explanation;
pub mod fixes;
pub mod grid_keys;
pub mod legend;
pub mod node_badges;
pub mod node_labels;
pub mod pod;
pub mod pool_tax;
pub mod refusal;
pub mod revision_history;
pub mod rollout_gauge;
pub mod rollout_pace;
pub mod room;
pub mod state_look;
pub mod switcher;
pub mod theme;
pub mod tolerations;
