//! One module per route; each owns its resources, Suspense and query parameters.
pub mod matrix;
