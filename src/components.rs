//! Presentational components: data arrives as props, except for the page sections that load
//! optional data on their own (recent events, a node's labels) through a server function.
pub mod banner;
pub mod cell;
pub mod events;
pub mod explanation;
pub mod legend;
pub mod node_badges;
pub mod node_labels;
pub mod poll;
pub mod rollout_gauge;
pub mod state_look;
