//! Presentational components: data arrives as props; they never call the server.
pub mod banner;
pub mod cell;
pub mod events;
pub mod explanation;
pub mod legend;
pub mod node_badges;
pub mod rollout_gauge;
pub mod state_look;
