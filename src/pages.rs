//! One module per route; each owns its resources, Suspense and query parameters.
pub mod daemonset;
pub mod explainer;
pub mod matrix;
pub mod node;
