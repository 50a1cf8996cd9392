//! Pure Kubernetes DaemonSet rules: placement, rollout budget and verdict, coverage.
//!
//! Why a separate layer: the same decisions are needed by the offline CLI, the live server,
//! the simulated cluster's controller and the browser. Nothing here does I/O or async, and
//! nothing here imports kube or k8s-openapi, so it compiles to WASM too. The rules follow
//! `docs/kubernetes-rules.md` (cited as §a…§i in doc comments and test names).
// A dependency the library never names fails its build (rustc's lint; tests excluded, since
// dev-dependencies are not its to judge).
#![cfg_attr(not(test), deny(unused_crate_dependencies))]

pub mod admission;
pub mod alerts;
pub mod controller;
pub mod coverage;
pub mod facts;
pub mod fleet;
pub mod history;
pub mod labels;
pub mod names;
pub mod quota;
pub mod resources;
pub mod resume;
pub mod rollout;
pub mod scheduling;
pub mod shell;
/// Builders of test facts for every member's tests (the `testing` feature).
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod validation;
pub mod view;
pub mod whatif;

pub use facts::*;
