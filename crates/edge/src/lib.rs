//! daemonscope's Kubernetes edge: where k8s-openapi objects become domain values and back.
//!
//! Why a crate of its own: the dashboard (`cluster/`) and the simulated cluster both read
//! Kubernetes objects, and the sim must not depend on the dashboard. Both depend on this crate
//! and on `daemonscope-domain`, so a conversion, a manifest loader or a well-known name exists
//! once. It does no network I/O; `files` is the one bounded reader for files a user names.
// A dependency the library never names fails its build (rustc's lint; tests excluded, since
// dev-dependencies are not its to judge).
#![cfg_attr(not(test), deny(unused_crate_dependencies))]

pub mod convert;
pub mod files;
/// Builders of test objects for every member's tests (the `testing` feature).
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use daemonscope_domain as domain;
