//! The DaemonSet tax (§j.5): what the DaemonSets that should run on a node request there, as a
//! share of its allocatable.
//!
//! Why by the placement rules and not by the running pods: the tax is what a node must reserve
//! before any workload fits, including agents not yet running (pending, missing); a node
//! autoscaler sizing nodes needs exactly that sum, and gets it wrong when it misjudges
//! tolerations. The caller passes the DaemonSets whose shouldRun is true (§a).

use serde::{Deserialize, Serialize};

use super::fit::Amounts;

/// One node's DaemonSet tax.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeTax {
    /// Each DaemonSet that should run on the node (`namespace/name`) and its template's
    /// requests (§j.2), in key order. Empty in a pool's sum, which lists no DaemonSet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub daemonsets: Vec<(String, Amounts)>,
    /// Their sum per resource.
    pub total: Amounts,
    /// The node's allocatable, the base of the shares.
    pub allocatable: Amounts,
}

/// `part` as a whole percentage of `whole`, truncated as `kubectl describe node` prints its
/// "Allocated resources" (`int64(float64(req) / float64(alloc) * 100)`); None without a whole.
pub fn share_percent(part: i64, whole: i64) -> Option<i64> {
    if whole <= 0 {
        return None;
    }
    let share = i128::from(part) * 100 / i128::from(whole);
    Some(i64::try_from(share).unwrap_or(i64::MAX))
}

impl NodeTax {
    /// The tax on one resource as a share of allocatable (None when the node has none of it).
    pub fn share(&self, resource: &str) -> Option<i64> {
        share_percent(self.total.get(resource), self.allocatable.get(resource))
    }

    /// Adds another node's tax (a pool's sum in the matrix group headers).
    pub fn add(&mut self, other: &NodeTax) {
        self.total.add_signed(&other.total, 1);
        self.allocatable.add_signed(&other.allocatable, 1);
    }

    /// Adds one node of a pool: its allocatable and the requests of the DaemonSets that should
    /// run there (§j.5), without listing them. Why apart from [`daemonset_tax`]: a pool's sum
    /// over 5,000 nodes × 30 DaemonSets must not allocate a named entry per cell.
    pub fn add_node<'a>(
        &mut self,
        allocatable: &Amounts,
        should_run: impl IntoIterator<Item = &'a Amounts>,
    ) {
        self.allocatable.add_signed(allocatable, 1);
        for requests in should_run {
            self.total.add_signed(requests, 1);
        }
    }

    /// The resources worth showing, cpu and memory first, then any other the DaemonSets
    /// request (an extended resource such as `nvidia.com/gpu`, ephemeral-storage), by name.
    pub fn shown_resources(&self) -> Vec<&str> {
        let mut names = vec![super::CPU, super::MEMORY];
        names.extend(
            self.total
                .iter()
                .map(|(name, _)| name)
                .filter(|name| *name != super::CPU && *name != super::MEMORY),
        );
        names
    }
}

/// The tax on a node with `allocatable`, from the DaemonSets that should run there (§j.5).
pub fn daemonset_tax<'a>(
    allocatable: &Amounts,
    should_run: impl IntoIterator<Item = (&'a str, &'a Amounts)>,
) -> NodeTax {
    let mut tax = NodeTax {
        allocatable: allocatable.clone(),
        ..NodeTax::default()
    };
    for (key, requests) in should_run {
        tax.total.add_signed(requests, 1);
        tax.daemonsets.push((key.to_owned(), requests.clone()));
    }
    tax
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::amounts;

    #[test]
    fn the_tax_sums_the_templates_that_should_run_as_a_share_of_allocatable_j5() {
        let alloc = amounts(&[("cpu", "4"), ("memory", "16Gi"), ("pods", "110")]);
        let log = amounts(&[("cpu", "250m"), ("memory", "256Mi")]);
        let mon = amounts(&[("cpu", "100m"), ("memory", "128Mi")]);
        let tax = daemonset_tax(&alloc, [("ns/log", &log), ("ns/mon", &mon)]);
        assert_eq!(tax.total.get("cpu"), 350);
        assert_eq!(tax.total.get("memory"), 384 << 20);
        // 350m of 4 cores: 8.75% truncated to 8, as kubectl prints it.
        assert_eq!(tax.share("cpu"), Some(8));
        assert_eq!(tax.share("memory"), Some(2));
        assert_eq!(tax.share("nvidia.com/gpu"), None);
        assert_eq!(tax.daemonsets.len(), 2);
    }

    #[test]
    fn a_pool_adds_its_nodes_taxes_and_allocatables_j5() {
        let alloc = amounts(&[("cpu", "2")]);
        let one = daemonset_tax(&alloc, [("ns/log", &amounts(&[("cpu", "500m")]))]);
        let mut pool = NodeTax::default();
        pool.add(&one);
        pool.add(&one);
        assert_eq!(pool.total.get("cpu"), 1000);
        assert_eq!(pool.share("cpu"), Some(25));
    }

    #[test]
    fn a_pool_sums_each_nodes_should_run_templates_over_the_pools_allocatable_j5() {
        let alloc = amounts(&[("cpu", "4"), ("memory", "8Gi")]);
        let log = amounts(&[("cpu", "500m"), ("memory", "512Mi")]);
        let gpu = amounts(&[("cpu", "100m"), ("nvidia.com/gpu", "1")]);
        let mut pool = NodeTax::default();
        // Two nodes: log should run on both, the GPU agent only on the second.
        pool.add_node(&alloc, [&log]);
        pool.add_node(&alloc, [&log, &gpu]);
        assert_eq!(pool.total.get("cpu"), 1100);
        assert_eq!(pool.allocatable.get("cpu"), 8000);
        // 1100m of 8 cores is 13.75%: 13 as kubectl truncates.
        assert_eq!(pool.share("cpu"), Some(13));
        assert_eq!(pool.share("memory"), Some(6));
        // The pool has no GPU allocatable: no share, but the resource is still shown.
        assert_eq!(pool.share("nvidia.com/gpu"), None);
        assert_eq!(
            pool.shown_resources(),
            vec!["cpu", "memory", "nvidia.com/gpu"]
        );
        assert!(pool.daemonsets.is_empty());
    }

    #[test]
    fn shares_never_overflow_or_divide_by_zero_j5() {
        assert_eq!(share_percent(i64::MAX, 1), Some(i64::MAX));
        assert_eq!(share_percent(5, 0), None);
    }
}
