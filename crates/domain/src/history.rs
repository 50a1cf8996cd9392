//! A DaemonSet's revision history: its ControllerRevisions in `kubectl rollout history`
//! order, what changed in each template, and which nodes still run each one.
//!
//! Why in the domain: the numbering must be kubectl's (controlled revisions keyed by their
//! `revision`, §d.4, §f) and the diff must never show an env value
//! (docs/architecture.md#read-only: no env values). Both are rules, so they live here, tested,
//! away from I/O. The edge turns a ControllerRevision into a [`RevisionRecord`]; the server
//! adds the nodes per hash.

use crate::coverage::bounded_to;
use crate::facts::{Labels, Toleration};
use crate::scheduling::render_toleration;
use crate::view::{RevisionHistory, RevisionRow};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// At most this many node names per revision (5,000 nodes would be a wall of links); the
/// count says how many there are.
pub const MAX_NODES: usize = 50;
/// At most this many change lines per revision; a last line says how many were left out.
pub const MAX_CHANGES: usize = 40;
/// At most this many characters of one line or name (cluster text, shown as text only).
pub const MAX_LINE: usize = 300;

/// One container of a revision's template, reduced to what the history compares. Env
/// *names* only: the values are never read into this type, so they cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ContainerTemplate {
    pub name: String,
    /// An init container (`spec.initContainers`) rather than a regular one.
    pub init: bool,
    pub image: String,
    /// `env[].name`, as listed.
    pub env_names: Vec<String>,
    /// `resources.requests`, quantity as written.
    pub requests: BTreeMap<String, String>,
    /// `resources.limits`, quantity as written.
    pub limits: BTreeMap<String, String>,
}

/// The parts of a revision's pod template the history shows changes of.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RevisionTemplate {
    pub containers: Vec<ContainerTemplate>,
    pub node_selector: Labels,
    /// The template's own tolerations (not the controller's automatic ones, §b: those are
    /// the same for every revision of one DaemonSet unless hostNetwork changes).
    pub tolerations: Vec<Toleration>,
    /// `spec.affinity` as canonical text, compared only, never shown (it can be long); None
    /// when unset.
    pub affinity: Option<String>,
}

/// One ControllerRevision controlled by the DaemonSet (§f), as the edge read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisionRecord {
    pub name: String,
    /// `revision` (kubectl's REVISION column).
    pub revision: i64,
    /// The `controller-revision-hash` its pods carry (§d.4).
    pub hash: String,
    /// creationTimestamp, unix seconds (0 when absent).
    pub created: i64,
    /// `kubernetes.io/change-cause`, empty when unset.
    pub change_cause: String,
    /// The stored template, or why it could not be read (a readable line, never a panic).
    pub template: Result<RevisionTemplate, String>,
}

/// The history as the page shows it, newest first. Like `kubectl rollout history`, revisions
/// are keyed by number (for two with one number, the one listed last wins) and sorted by it;
/// each is compared with the next older one kept. `pods_by_hash` holds, per revision hash, the
/// nodes of the DaemonSet's pods carrying it (one entry per pod).
pub fn revision_history(
    daemonset: &str,
    records: Vec<RevisionRecord>,
    current_hash: &str,
    pods_by_hash: &BTreeMap<String, Vec<String>>,
    now: i64,
) -> RevisionHistory {
    let by_number: BTreeMap<i64, RevisionRecord> =
        records.into_iter().map(|r| (r.revision, r)).collect();
    let mut rows = Vec::with_capacity(by_number.len());
    let mut previous: Option<&RevisionRecord> = None;
    for record in by_number.values() {
        let changes = match (previous, &record.template) {
            (_, Err(why)) => vec![format!(
                "the template of this revision cannot be read: {why}"
            )],
            (None, Ok(_)) => vec!["oldest revision kept: nothing older to compare with".into()],
            (Some(old), Ok(new)) => match &old.template {
                Ok(old_template) => template_changes(old_template, new),
                Err(_) => vec![format!(
                    "cannot compare with revision {}: its template cannot be read",
                    old.revision
                )],
            },
        };
        let pods = pods_by_hash
            .get(&record.hash)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let nodes: BTreeSet<&String> = pods.iter().collect();
        rows.push(RevisionRow {
            revision: record.revision,
            name: bounded_to(&record.name, MAX_LINE),
            hash: bounded_to(&record.hash, MAX_LINE),
            age_seconds: if record.created > 0 {
                now.saturating_sub(record.created).max(0)
            } else {
                0
            },
            current: !current_hash.is_empty() && record.hash == current_hash,
            change_cause: (!record.change_cause.is_empty())
                .then(|| bounded_to(&record.change_cause, MAX_LINE)),
            changes: bounded_lines(changes),
            pod_count: pods.len(),
            node_count: nodes.len(),
            nodes: nodes
                .into_iter()
                .take(MAX_NODES)
                .map(|n| bounded_to(n, MAX_LINE))
                .collect(),
        });
        previous = Some(record);
    }
    rows.reverse();
    RevisionHistory {
        daemonset: daemonset.to_string(),
        revisions: rows,
    }
}

fn bounded_lines(mut lines: Vec<String>) -> Vec<String> {
    let extra = lines.len().saturating_sub(MAX_CHANGES);
    lines.truncate(MAX_CHANGES);
    let mut out: Vec<String> = lines.iter().map(|l| bounded_to(l, MAX_LINE)).collect();
    if extra > 0 {
        out.push(format!("and {extra} more changes"));
    }
    out
}

/// The readable changes from `old` to `new`: images, env names (never values), resources,
/// tolerations, nodeSelector and whether the affinity changed. Equal templates (in these
/// fields) give one line saying so.
pub fn template_changes(old: &RevisionTemplate, new: &RevisionTemplate) -> Vec<String> {
    let mut lines = Vec::new();
    let several = old.containers.len() > 1 || new.containers.len() > 1;
    let key = |c: &ContainerTemplate| (c.init, c.name.clone());
    let olds: BTreeMap<_, &ContainerTemplate> =
        old.containers.iter().map(|c| (key(c), c)).collect();
    let news: BTreeMap<_, &ContainerTemplate> =
        new.containers.iter().map(|c| (key(c), c)).collect();
    for (k, c) in &olds {
        if !news.contains_key(k) {
            lines.push(format!("{} removed: {}", kind(c), c.name));
        }
    }
    for c in &new.containers {
        match olds.get(&key(c)) {
            None => lines.push(format!("{} added: {} ({})", kind(c), c.name, c.image)),
            Some(o) => container_changes(o, c, several, &mut lines),
        }
    }
    let old_tols: Vec<String> = old.tolerations.iter().map(render_toleration).collect();
    let new_tols: Vec<String> = new.tolerations.iter().map(render_toleration).collect();
    for t in multiset_minus(&old_tols, &new_tols) {
        lines.push(format!("toleration removed: {t}"));
    }
    for t in multiset_minus(&new_tols, &old_tols) {
        lines.push(format!("toleration added: {t}"));
    }
    map_changes(
        "nodeSelector",
        &old.node_selector,
        &new.node_selector,
        &mut lines,
    );
    match (&old.affinity, &new.affinity) {
        (None, Some(_)) => lines.push("affinity added".into()),
        (Some(_), None) => lines.push("affinity removed".into()),
        (Some(a), Some(b)) if a != b => lines.push("affinity changed".into()),
        _ => {}
    }
    if lines.is_empty() {
        lines.push(
            "no template change in images, env names, resources, tolerations, nodeSelector or affinity"
                .into(),
        );
    }
    lines
}

fn kind(c: &ContainerTemplate) -> &'static str {
    if c.init {
        "init container"
    } else {
        "container"
    }
}

fn container_changes(
    old: &ContainerTemplate,
    new: &ContainerTemplate,
    several: bool,
    lines: &mut Vec<String>,
) {
    let which = if several {
        format!(" ({} {})", kind(new), new.name)
    } else {
        String::new()
    };
    if old.image != new.image {
        lines.push(format!(
            "image {}: {} -> {}",
            new.name, old.image, new.image
        ));
    }
    for name in multiset_minus(&old.env_names, &new.env_names) {
        lines.push(format!("env removed: {name}{which}"));
    }
    for name in multiset_minus(&new.env_names, &old.env_names) {
        lines.push(format!("env added: {name}{which}"));
    }
    for (field, a, b) in [
        ("requests", &old.requests, &new.requests),
        ("limits", &old.limits, &new.limits),
    ] {
        let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for name in names {
            let (before, after) = (a.get(name), b.get(name));
            if before != after {
                let show = |q: Option<&String>| q.cloned().unwrap_or_else(|| "(none)".into());
                lines.push(format!(
                    "resources.{field}.{name} {} -> {}{which}",
                    show(before),
                    show(after)
                ));
            }
        }
    }
}

/// `nodeSelector disk=ssd added`, `… removed`, `nodeSelector disk: ssd -> nvme`.
fn map_changes(what: &str, old: &Labels, new: &Labels, lines: &mut Vec<String>) {
    for (k, v) in old {
        match new.get(k) {
            None => lines.push(format!("{what} {k}={v} removed")),
            Some(w) if w != v => lines.push(format!("{what} {k}: {v} -> {w}")),
            Some(_) => {}
        }
    }
    for (k, v) in new {
        if !old.contains_key(k) {
            lines.push(format!("{what} {k}={v} added"));
        }
    }
}

/// The items of `a` not matched one-for-one in `b`, in `a`'s order.
fn multiset_minus<'a>(a: &'a [String], b: &[String]) -> Vec<&'a String> {
    let mut left: Vec<&String> = b.iter().collect();
    a.iter()
        .filter(|item| match left.iter().position(|x| x == item) {
            Some(i) => {
                left.swap_remove(i);
                false
            }
            None => true,
        })
        .collect()
}

#[cfg(test)]
mod tests;
