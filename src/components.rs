//! Presentational components: data arrives as props; only the sections that show optional,
//! separately kept data (recent events, a node's labels) call their own server functions.
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
