//! Helpers shared by the suites: the proxy, dashboard and convergence waits against either
//! backend (`live`), and Kubernetes' own control plane started on loopback (`real_cluster`).

pub mod audit;
pub mod demo;
pub mod live;
pub mod prometheus;
pub mod real_cluster;
