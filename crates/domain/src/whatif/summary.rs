//! The one line over a preview's table: how many pods would change, how, on how many nodes,
//! naming the DaemonSets.
//!
//! Why apart from the preview: it only counts and words the outcomes the preview decided.

use super::{CellChange, Outcome};

/// How many DaemonSet names a summary line lists before "and N more".
const SUMMARY_NAMES: usize = 6;

/// A one-line summary of the changed cells: `3 pods would be evicted (2 nodes): a, b; 1 pod
/// would start (1 node): c`, naming the DaemonSets. Why: the question a person brings ("which
/// agents go away?") wants the count and the names first, the table after.
pub fn summary(changes: &[CellChange]) -> String {
    let count = |f: &dyn Fn(Outcome) -> bool| {
        let cells: Vec<&CellChange> = changes.iter().filter(|c| f(c.outcome)).collect();
        let mut nodes: Vec<&str> = cells.iter().map(|c| c.node.as_str()).collect();
        nodes.sort_unstable();
        nodes.dedup();
        let mut daemonsets: Vec<&str> = cells.iter().map(|c| c.daemonset.as_str()).collect();
        daemonsets.sort_unstable();
        daemonsets.dedup();
        let more = daemonsets.len().saturating_sub(SUMMARY_NAMES);
        let mut names = daemonsets
            .into_iter()
            .take(SUMMARY_NAMES)
            .collect::<Vec<_>>()
            .join(", ");
        if more > 0 {
            names.push_str(&format!(" and {more} more"));
        }
        (cells.len(), nodes.len(), names)
    };
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut parts = Vec::new();
    let groups: [(&dyn Fn(Outcome) -> bool, &str); 7] = [
        (
            &|o| o == Outcome::WouldNotFit,
            "would not fit and stay Pending",
        ),
        (&|o| matches!(o, Outcome::Evicted(_)), "would be evicted"),
        (&|o| o == Outcome::WouldStop, "would stop"),
        (
            &|o| o == Outcome::KeepsRunning,
            "would keep running though no longer scheduled",
        ),
        (&|o| o == Outcome::WouldStart, "would start"),
        (
            &|o| o == Outcome::WouldNotStart,
            "would no longer be created",
        ),
        (
            &|o| o == Outcome::DesiredAgain,
            "would become desired again",
        ),
    ];
    for (f, verb) in groups {
        let (cells, nodes, names) = count(f);
        if cells > 0 {
            parts.push(format!(
                "{} {verb} ({}): {names}",
                plural(cells, "pod", "pods"),
                plural(nodes, "node", "nodes")
            ));
        }
    }
    if parts.is_empty() {
        "No pod would change.".into()
    } else {
        format!("{}.", parts.join("; "))
    }
}
