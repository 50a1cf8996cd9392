//! A matrix group's DaemonSet tax (§j.5), compact: `tax cpu 8% · memory 4%`, with a tooltip
//! that spells out the sums.
//!
//! Why in the group header: a pool is what a node autoscaler sizes, and the share of each of
//! its nodes that the agents reserve before any workload fits is the figure it gets wrong
//! (karpenter#1749). The sums come computed from the server's cut; this file only words them.

use crate::domain::coverage::pending::format_amount;
use crate::domain::resources::tax::NodeTax;
use leptos::prelude::*;

/// One resource in the compact line: its share of the pool's allocatable, or the amount when
/// the pool has none of it (an extended resource the nodes do not offer).
fn compact(tax: &NodeTax, resource: &str) -> String {
    match tax.share(resource) {
        Some(share) => format!("{resource} {share}%"),
        None => format!(
            "{resource} {}",
            format_amount(resource, tax.total.get(resource))
        ),
    }
}

/// The tooltip: what is summed over how many nodes, each resource with both sums.
pub fn tax_title(tax: &NodeTax, nodes: usize) -> String {
    let parts: Vec<String> = tax
        .shown_resources()
        .into_iter()
        .map(|r| {
            let total = format_amount(r, tax.total.get(r));
            let alloc = format_amount(r, tax.allocatable.get(r));
            match tax.share(r) {
                Some(share) => format!("{r} {total} of {alloc} allocatable ({share}%)"),
                None => format!("{r} {total} (none allocatable)"),
            }
        })
        .collect();
    format!(
        "DaemonSet tax on the {nodes} node{} of this group: the DaemonSets that should run on each node (by the placement rules, pending and missing agents included) request {}.",
        if nodes == 1 { "" } else { "s" },
        parts.join(", ")
    )
}

/// The group header's tax: nothing when no DaemonSet requests anything there.
#[component]
pub fn PoolTaxBadge(tax: NodeTax, nodes: usize) -> impl IntoView {
    (!tax.total.is_empty()).then(|| {
        let line = tax
            .shown_resources()
            .into_iter()
            .map(|r| compact(&tax, r))
            .collect::<Vec<_>>()
            .join(" · ");
        let cpu = tax.share("cpu").map(|s| s.to_string());
        let memory = tax.share("memory").map(|s| s.to_string());
        view! {
            <span class="group-tax" data-testid="group-tax" data-cpu-share=cpu data-memory-share=memory title=tax_title(&tax, nodes)>
                <span class="group-tax-label">"tax "</span>{line}
            </span>
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::resources::fit::Amounts;

    fn tax(total: &[(&str, i64)], alloc: &[(&str, i64)]) -> NodeTax {
        let list = |pairs: &[(&str, i64)]| {
            let mut a = Amounts::new();
            for (n, v) in pairs {
                a.set(n, *v);
            }
            a
        };
        NodeTax {
            daemonsets: Vec::new(),
            total: list(total),
            allocatable: list(alloc),
        }
    }

    #[test]
    fn the_tooltip_spells_out_each_sum_and_the_share_j5() {
        let t = tax(
            &[("cpu", 1200), ("memory", 3 << 30), ("nvidia.com/gpu", 2)],
            &[("cpu", 48_000), ("memory", 192 << 30)],
        );
        assert_eq!(
            tax_title(&t, 12),
            "DaemonSet tax on the 12 nodes of this group: the DaemonSets that should run on each node (by the placement rules, pending and missing agents included) request cpu 1200m of 48 allocatable (2%), memory 3Gi of 192Gi allocatable (1%), nvidia.com/gpu 2 (none allocatable)."
        );
        assert_eq!(compact(&t, "cpu"), "cpu 2%");
        assert_eq!(compact(&t, "nvidia.com/gpu"), "nvidia.com/gpu 2");
    }
}
