//! The server's windows: every page's view of the cluster, cut on the server from one read
//! model and kept current over `/api/view`.
//!
//! Why a room of its own, beside `cluster`: `cluster` owns the watched state and its feed;
//! this owns what browsers are shown of it: the read model (a replica of the matrix with its
//! own task, [`read_model`]), the parsed queries ([`query`]), the cuts, the stream of diffs
//! ([`stream`]) and the per-version memo of what a cut must read from the watched state
//! ([`memo`]: the watchers' lock is taken once per selector and change, not per browser).
//! `server_fns` and `web` only call it. Layer: imports `cluster`, `views` and `domain`.

pub mod memo;
pub mod query;
pub mod read_model;
pub mod replica;
pub mod stream;

use crate::cluster::{Live, LookupError};
use crate::domain::view::DaemonSetDetail;
use crate::views::daemonset::{cut as cut_daemonset, DaemonSetWindow};
use crate::views::matrix::window::{cut_window_with, MatrixWindow};
use crate::views::node::{node_detail, NodeDetail};
use memo::{CutHistory, VersionMemo};
use query::MatrixCut;
use read_model::ReadModel;
use std::collections::HashSet;
use std::sync::Arc;

/// The read model, the watched state behind it, and the memo of what cuts read from that.
#[derive(Debug)]
pub struct Windows {
    live: Arc<Live>,
    model: Arc<ReadModel>,
    /// The nodes each label selector matches, by the selector's text.
    selected: VersionMemo<String, HashSet<String>>,
    /// Each DaemonSet's detail (every node's progress and pods), by `namespace/name`.
    details: VersionMemo<String, Result<DaemonSetDetail, LookupError>>,
    /// The last cuts of each view, for feeds that start from the view a browser holds.
    matrix_cuts: CutHistory<MatrixWindow>,
    node_cuts: CutHistory<NodeDetail>,
    daemonset_cuts: CutHistory<DaemonSetWindow>,
}

impl Windows {
    /// The windows of `live`, their read model following its feed from now on.
    pub fn start(live: &Arc<Live>) -> Arc<Self> {
        Arc::new(Self {
            live: live.clone(),
            model: ReadModel::start(live),
            selected: VersionMemo::new(memo::MAX_KEYS),
            details: VersionMemo::new(memo::MAX_DETAILS),
            matrix_cuts: CutHistory::new(memo::MAX_KEYS),
            node_cuts: CutHistory::new(memo::MAX_KEYS),
            daemonset_cuts: CutHistory::new(memo::MAX_DETAILS),
        })
    }

    /// Wakes when the read model moved to a newer version.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.model.changes()
    }

    /// This cluster's part of the fleet page (`name` is what the fleet calls it), from the
    /// same matrix every window is cut from, so the fleet lists exactly the problem cells
    /// this cluster's matrix shows.
    pub fn fleet_part(&self, name: &str) -> crate::domain::fleet::ClusterPart {
        self.model
            .with_snapshot(|snapshot| crate::domain::fleet::cluster_part(name, snapshot))
    }

    /// The watched state the windows are cut from.
    pub fn live(&self) -> &Arc<Live> {
        &self.live
    }

    /// The matrix window `cut` asks for, at the read model's latest version. The label
    /// selector is matched against the watched nodes' full labels (a matrix row carries only
    /// a few), once per selector and version whatever the number of browsers.
    pub fn matrix(&self, cut: &MatrixCut) -> MatrixWindow {
        let selected = cut.selector.as_ref().map(|selector| {
            self.selected
                .get_or(&cut.query.selector, self.model.version(), || {
                    self.live.nodes_matching(selector).into_iter().collect()
                })
        });
        // A selector in the query that did not parse matches nothing.
        let nothing = HashSet::new();
        let selected: Option<&HashSet<String>> = match (&selected, cut.query.selector.is_empty()) {
            (Some(names), _) => Some(names),
            (None, false) => Some(&nothing),
            (None, true) => None,
        };
        let window = self
            .model
            .with_snapshot(|snapshot| cut_window_with(snapshot, &cut.query, selected));
        self.matrix_cuts
            .remember(&cut.key(), window.version, &window);
        window
    }

    /// The matrix window `cut` asked for at `version`, if it is still kept.
    pub fn matrix_at(&self, cut: &MatrixCut, version: u64) -> Option<Arc<MatrixWindow>> {
        self.matrix_cuts.at(&cut.key(), version)
    }

    /// The node page's view of `name` at `version`, if it is still kept.
    pub fn node_at(&self, name: &str, version: u64) -> Option<Arc<NodeDetail>> {
        self.node_cuts.at(name, version)
    }

    /// The DaemonSet page's view of `key` at `version`, if it is still kept.
    pub fn daemonset_at(&self, key: &str, version: u64) -> Option<Arc<DaemonSetWindow>> {
        self.daemonset_cuts.at(key, version)
    }

    /// One node's row with its columns' keys (the node page); `None` when the matrix has no
    /// such node.
    pub fn node(&self, name: &str) -> Option<NodeDetail> {
        let columns_at = self.model.columns_at();
        self.model
            .with_snapshot(|snapshot| node_detail(snapshot, name))
            .map(|detail| NodeDetail {
                columns_at,
                ..detail
            })
            .inspect(|detail| self.node_cuts.remember(name, detail.version, detail))
    }

    /// The DaemonSet page's view of `key` (`namespace/name`): its rollout on the nodes worth
    /// a row. The detail is read from the watched state (the read model has no pods) once per
    /// DaemonSet and version, whatever the number of browsers showing it.
    pub fn daemonset(&self, key: &str) -> Result<DaemonSetWindow, LookupError> {
        let detail = self
            .details
            .get_or(&key.to_string(), self.model.version(), || {
                self.live.detail(key)
            });
        let detail = detail.as_ref().clone()?;
        let (cluster, health) = self
            .model
            .with_snapshot(|s| (s.cluster.clone(), s.health.clone()));
        let window = cut_daemonset(detail, cluster, health);
        self.daemonset_cuts.remember(key, window.version, &window);
        Ok(window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::projection::Projection;
    use crate::cluster::state::{ClusterState, Scope};

    #[tokio::test]
    async fn the_windows_follow_the_feed_and_wake_their_readers() {
        let live = Live::new(ClusterState::new("c"), &[]);
        let windows = Windows::start(&live);
        let mut changes = windows.changes();
        let cut = MatrixCut::parse("problems=0").cut;
        assert_eq!(windows.matrix(&cut).total_nodes, 0);
        let node = crate::domain::testing::node("n1");
        live.apply(&Scope::Nodes, Projection::Node(node));
        live.flush().await;
        tokio::time::timeout(std::time::Duration::from_secs(5), changes.changed())
            .await
            .expect("the read model woke")
            .expect("the read model is alive");
        let w = windows.matrix(&cut);
        assert_eq!(w.total_nodes, 1);
        assert_eq!(w.rows[0].name, "n1");
    }

    #[tokio::test]
    async fn a_selector_is_matched_against_every_label_of_the_watched_nodes() {
        let live = Live::new(ClusterState::new("c"), &[]);
        let mut gpu = crate::domain::testing::node("gpu-1");
        gpu.labels.insert("pool".into(), "gpu".into());
        live.apply(&Scope::Nodes, Projection::Node(gpu));
        live.apply(
            &Scope::Nodes,
            Projection::Node(crate::domain::testing::node("cpu-1")),
        );
        live.flush().await;
        let windows = Windows::start(&live);
        let w = windows.matrix(&MatrixCut::parse("problems=0&selector=pool%3Dgpu").cut);
        let names: Vec<&str> = w.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["gpu-1"]);
    }
}
