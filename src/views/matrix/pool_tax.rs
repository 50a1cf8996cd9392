//! The DaemonSet tax per pool (§j.5) for the matrix's group headers.
//!
//! Why on the server's cut: the sum needs every node's allocatable and every column's template
//! requests, which the page never receives; the header gets one small sum per group. Why over
//! the whole pool and not only the rows shown: the tax is a property of the pool (what every
//! node of it must reserve), not of the filter a person typed; the header says how many nodes
//! it covers.

use crate::domain::resources::tax::NodeTax;
use crate::domain::view::MatrixSnapshot;
use std::collections::HashMap;

/// A group's DaemonSet tax: the sum over the pool's nodes and how many nodes that is.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PoolTax {
    /// The requests of the DaemonSets that should run on each node, summed, and the nodes'
    /// allocatable summed ([`NodeTax::share`] gives the share).
    pub tax: NodeTax,
    /// Nodes of the cluster with this label value (whatever the filters show).
    pub nodes: usize,
}

/// Per value of label `key` (None: nodes without it), the pool's tax over the columns of
/// `snapshot`: each node adds its allocatable and, for each column whose cell should run there
/// (§a shouldRun, [`crate::domain::coverage::CellState::should_run`]), the template's requests.
pub fn pool_taxes<'a>(
    snapshot: &'a MatrixSnapshot,
    key: &str,
) -> HashMap<Option<&'a str>, PoolTax> {
    let mut pools: HashMap<Option<&str>, PoolTax> = HashMap::new();
    for row in &snapshot.nodes {
        let value = row
            .labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str());
        let pool = pools.entry(value).or_default();
        pool.nodes += 1;
        let should_run = snapshot
            .daemonsets
            .iter()
            .zip(&row.cells)
            .filter(|(_, cell)| cell.should_run())
            .map(|(column, _)| &column.requests);
        pool.tax.add_node(&row.allocatable, should_run);
    }
    pools
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::coverage::CellState::{Excluded, Misscheduled, Missing, Pending, Ready};
    use crate::domain::testing::amounts;
    use crate::domain::testing::{view_column, view_row};

    #[test]
    fn a_pool_is_taxed_for_every_daemonset_that_should_run_not_for_the_pods_that_do_j5() {
        let mut log = view_column("ns/log");
        log.requests = amounts(&[("cpu", "500m"), ("memory", "256Mi")]);
        let mut gpu = view_column("ns/gpu");
        gpu.requests = amounts(&[("cpu", "100m")]);
        let node = |name: &str, pool: &str, cells| {
            let mut r = view_row(name, cells);
            r.labels = vec![("pool".into(), pool.into())];
            r.allocatable = amounts(&[("cpu", "2"), ("memory", "4Gi")]);
            r
        };
        let snapshot = MatrixSnapshot {
            version: 1,
            cluster: String::new(),
            daemonsets: vec![log, gpu],
            nodes: vec![
                // Missing and pending agents still should run: taxed.
                node("a", "web", &[Missing, Excluded]),
                node("b", "web", &[Pending, Excluded]),
                // A misscheduled pod runs but should not: not taxed.
                node("c", "gpu", &[Ready, Misscheduled]),
                view_row("d", &[Ready, Ready]),
            ],
            health: Vec::new(),
        };
        let pools = pool_taxes(&snapshot, "pool");
        let web = &pools[&Some("web")];
        assert_eq!(web.nodes, 2);
        assert_eq!(web.tax.total.get("cpu"), 1000);
        assert_eq!(web.tax.allocatable.get("cpu"), 4000);
        assert_eq!(web.tax.share("cpu"), Some(25));
        assert_eq!(web.tax.total.get("memory"), 512 << 20);
        let gpu_pool = &pools[&Some("gpu")];
        assert_eq!(gpu_pool.tax.total.get("cpu"), 500);
        // Nodes without the label are a pool of their own; no allocatable known, no share.
        let none = &pools[&None];
        assert_eq!(none.tax.total.get("cpu"), 600);
        assert_eq!(none.tax.share("cpu"), None);
    }
}
