//! Tests of the incremental store: each event touches only its cells, the deltas rebuild the
//! same matrix a fresh snapshot shows, and a relist leaves nothing stale.

use super::*;
use crate::domain::testing::{self, daemonset as ds, node, PodExt};
use crate::domain::view::NodeRow;
use crate::domain::{PodFacts, TaintEffect};

mod causes;
mod events;
mod grace;
mod loads;
mod pace;
mod refused;
mod views;

const NOW: i64 = 1_800_000_000;

fn clock() -> Clock {
    Clock::new(|| NOW)
}

/// A node with one NoSchedule taint.
fn tainted(name: &str, key: &str) -> NodeFacts {
    testing::tainted(name, key, TaintEffect::NoSchedule)
}

/// A Ready pod of `ds_name` on `node` at revision `hash`, ready for ten minutes.
fn pod(ds_name: &str, node: &str, hash: &str) -> PodFacts {
    testing::pod(&format!("{ds_name}-{node}-{hash}"))
        .on(node)
        .hash(hash)
        .owner(&format!("uid-{ds_name}"))
        .with(|p| {
            p.uid = format!("pod-{ds_name}-{node}-{hash}");
            p.ready_since = Some(NOW - 600);
            p.created = NOW - 3600;
        })
}

fn revision(ds_name: &str, number: i64, hash: &str) -> RevisionFacts {
    RevisionFacts {
        namespace: "kube-system".into(),
        name: format!("{ds_name}-{hash}"),
        owner_uid: format!("uid-{ds_name}"),
        revision: number,
        hash: hash.into(),
    }
}

/// A cluster of three nodes (one tainted), two DaemonSets, revision h1, pods everywhere
/// they should run except on `b` for `log`.
fn cluster() -> ClusterState {
    let mut s = ClusterState::with_clock("test", clock());
    s.replace(
        &Scope::Nodes,
        vec![
            node("a"),
            node("b"),
            tainted("cp", "node-role.kubernetes.io/control-plane"),
        ]
        .into_iter()
        .map(Projection::Node)
        .collect(),
    );
    s.replace(
        &Scope::DaemonSets(None),
        vec![
            Projection::DaemonSet(ds("log")),
            Projection::DaemonSet(ds("mon")),
        ],
    );
    s.replace(
        &Scope::Revisions(None),
        vec![
            Projection::Revision(revision("log", 1, "h1")),
            Projection::Revision(revision("mon", 1, "m1")),
        ],
    );
    s.replace(
        &Scope::Pods(None),
        vec![
            pod("log", "a", "h1"),
            pod("mon", "a", "m1"),
            pod("mon", "b", "m1"),
        ]
        .into_iter()
        .map(Projection::Pod)
        .collect(),
    );
    s
}

/// Applies deltas to a snapshot the way a browser would (test-only reference client).
fn apply_deltas(snapshot: &mut MatrixSnapshot, deltas: &[Delta]) {
    fn index(snapshot: &MatrixSnapshot, key: &str) -> Option<usize> {
        snapshot.daemonsets.iter().position(|c| c.key == key)
    }
    for delta in deltas {
        match delta {
            Delta::Cell {
                node,
                daemonset,
                state,
            } => {
                let i = index(snapshot, daemonset).expect("cell of a known column");
                let row = snapshot
                    .nodes
                    .iter_mut()
                    .find(|r| &r.name == node)
                    .expect("cell of a known row");
                row.cells[i] = *state;
            }
            Delta::NodeUpsert(row) => {
                match snapshot.nodes.iter_mut().find(|r| r.name == row.name) {
                    Some(existing) => *existing = row.clone(),
                    None => {
                        snapshot.nodes.push(row.clone());
                        snapshot.nodes.sort_by(|a, b| a.name.cmp(&b.name));
                    }
                }
            }
            Delta::NodeRemoved { name } => snapshot.nodes.retain(|r| &r.name != name),
            Delta::DaemonSetUpsert { column, states } => {
                let i = match index(snapshot, &column.key) {
                    Some(i) => {
                        snapshot.daemonsets[i] = column.clone();
                        i
                    }
                    None => {
                        let i = snapshot.daemonsets.partition_point(|c| c.key < column.key);
                        snapshot.daemonsets.insert(i, column.clone());
                        for row in &mut snapshot.nodes {
                            row.cells.insert(i, CellState::Excluded);
                        }
                        i
                    }
                };
                for (node, state) in states {
                    if let Some(row) = snapshot.nodes.iter_mut().find(|r| &r.name == node) {
                        row.cells[i] = *state;
                    }
                }
            }
            Delta::DaemonSetRemoved { key } => {
                if let Some(i) = index(snapshot, key) {
                    snapshot.daemonsets.remove(i);
                    for row in &mut snapshot.nodes {
                        row.cells.remove(i);
                    }
                }
            }
            Delta::Column(column) => {
                let i = index(snapshot, &column.key).expect("summary of a known column");
                snapshot.daemonsets[i] = column.clone();
            }
            Delta::Health(health) => match snapshot
                .health
                .iter_mut()
                .find(|h| h.resource == health.resource)
            {
                Some(h) => *h = health.clone(),
                None => snapshot.health.push(health.clone()),
            },
        }
    }
}

/// Applies `event` and checks that the deltas turn the old snapshot into the new one.
fn step(s: &mut ClusterState, event: impl FnOnce(&mut ClusterState) -> Vec<Delta>) -> Vec<Delta> {
    let mut before = s.snapshot(0);
    let mut deltas = event(s);
    deltas.extend(s.flush_columns());
    apply_deltas(&mut before, &deltas);
    assert_eq!(
        before,
        s.snapshot(0),
        "deltas {deltas:#?} must rebuild the new snapshot"
    );
    deltas
}

fn row<'a>(snapshot: &'a MatrixSnapshot, name: &str) -> &'a NodeRow {
    snapshot.nodes.iter().find(|r| r.name == name).expect("row")
}

fn state_of(s: &ClusterState, node: &str, ds: &str) -> Option<CellState> {
    s.cell(node, &format!("kube-system/{ds}"))
}

/// The same objects, listed from scratch: what the incremental state must equal.
fn relisted(s: &ClusterState) -> ClusterState {
    let mut fresh = ClusterState::with_clock("test", clock());
    fresh.replace(
        &Scope::Nodes,
        s.nodes.values().cloned().map(Projection::Node).collect(),
    );
    fresh.replace(
        &Scope::DaemonSets(None),
        s.daemonsets
            .values()
            .cloned()
            .map(Projection::DaemonSet)
            .collect(),
    );
    fresh.replace(
        &Scope::Revisions(None),
        s.revisions
            .values()
            .flat_map(|r| r.values().cloned())
            .map(Projection::Revision)
            .collect(),
    );
    let mut pods: Vec<PodFacts> = Vec::new();
    for ds in s.daemonsets.values() {
        pods.extend(s.pods.of_daemonset(&ds.uid).into_iter().cloned());
    }
    fresh.replace(
        &Scope::Pods(None),
        pods.into_iter().map(Projection::Pod).collect(),
    );
    fresh
}
