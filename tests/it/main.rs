//! Every integration suite in one test binary.
//!
//! Why one binary: each file of `tests/` used to be a test target of its own, linked against the
//! whole dashboard and kube-rs (15 binaries of 100–240 MB); one binary links once and compiles
//! the shared helpers once, which is most of what the test build cost. A suite is still run
//! alone by its module path: `cargo test --features ssr --test it k8s_differential::`.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

mod support;

mod alert_rules;
mod cli;
mod cli_hardening;
mod docs_citations;
mod fleet_prometheus;
mod fleet_serve;
mod k8s_admission;
mod k8s_differential;
mod k8s_lane;
mod k8s_priority_classes;
mod k8s_quota;
mod k8s_rbac;
mod k8s_refusals;
mod k8s_refusals_real;
mod k8s_resources;
mod k8s_scheduling;
mod live_events;
mod live_forbidden;
mod live_k8s;
mod live_sim;
mod live_stale;
mod page_disconnect;
mod prometheus_real;
mod ship_chart;
mod sim_admission;
mod sim_api;
mod sim_controller;
mod sim_events_v1;
mod sim_history;
mod sim_kubectl;
mod sim_robustness;
mod sim_scheduling;
