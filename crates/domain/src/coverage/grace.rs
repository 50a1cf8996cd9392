//! New-node grace: a node that joined moments ago shows its not-yet-created daemon pods as
//! `starting`, not `missing` (issue 14 item 5).
//!
//! Why: on every scale-up the DaemonSet controller needs a sync, the scheduler a bind and the
//! kubelet an image pull before a new node has its agents (§a.7: shouldRun with no pod means
//! "create one", which takes time). Counting those cells as missing makes alerts and eyes
//! flap on every node added. This is a daemonscope policy, not a Kubernetes rule: Kubernetes
//! places daemon pods on a node of any age (§a.6), so the grace never changes shouldRun, the
//! status counts (§c) or the rollout verdict (§e); it only renames a `missing` cell while the
//! node is young, and ends by the clock alone.

use super::CellState;
use serde::{Deserialize, Serialize};

/// How long after a node's `creationTimestamp` its missing daemon pods count as `starting`.
/// Zero turns the grace off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NewNodeGrace {
    seconds: i64,
}

impl Default for NewNodeGrace {
    /// Two minutes: enough for a controller sync, a bind and an image pull on a healthy
    /// cluster, short enough that a node whose agents never come is soon reported.
    fn default() -> Self {
        Self::from_seconds(Self::DEFAULT_SECONDS)
    }
}

impl NewNodeGrace {
    /// The default grace, in seconds (`--new-node-grace 2m`).
    pub const DEFAULT_SECONDS: i64 = 120;

    /// No grace: a missing pod is missing from the node's first second.
    pub const OFF: NewNodeGrace = NewNodeGrace { seconds: 0 };

    /// A grace of `seconds`; a negative value means off.
    pub fn from_seconds(seconds: i64) -> Self {
        Self {
            seconds: seconds.max(0),
        }
    }

    /// The grace in seconds (0: off).
    pub fn seconds(self) -> i64 {
        self.seconds
    }

    /// The unix second at which a node created at `node_created` leaves the grace: None when
    /// the grace is off or the node's creation time is unknown (then it never applies).
    pub fn ends_at(self, node_created: Option<i64>) -> Option<i64> {
        if self.seconds == 0 {
            return None;
        }
        Some(node_created?.saturating_add(self.seconds))
    }

    /// Whether a node created at `node_created` is still within the grace at `now`: its age is
    /// below the grace (at exactly the grace it is over). A creation time ahead of `now`
    /// (clock skew) is young until `created + grace`, so the grace still ends.
    pub fn covers(self, node_created: Option<i64>, now: i64) -> bool {
        self.ends_at(node_created).is_some_and(|end| now < end)
    }

    /// The state a cell shows: `missing` on a node within the grace becomes `starting`;
    /// every other state is returned unchanged (a pod that exists is judged as it is).
    pub fn apply(self, state: CellState, node_created: Option<i64>, now: i64) -> CellState {
        if state == CellState::Missing && self.covers(node_created, now) {
            CellState::Starting
        } else {
            state
        }
    }

    /// The explanation's sentence for a `starting` cell: how long ago the node joined, how
    /// long the grace is and when the cell turns missing, e.g. "The node joined 40 s ago;
    /// daemon pods get 2 min before they count as missing, so this cell turns missing in
    /// 1 min 20 s if no pod appears."
    pub fn sentence(self, node_created: Option<i64>, now: i64) -> String {
        let age = node_created.map_or(0, |c| now.saturating_sub(c).max(0));
        let left = self
            .ends_at(node_created)
            .map_or(0, |end| end.saturating_sub(now).max(0));
        format!(
            "The node joined {} ago; daemon pods get {} before they count as missing, so this cell turns missing in {} if no pod appears.",
            human_seconds(age),
            human_seconds(self.seconds),
            human_seconds(left),
        )
    }
}

/// `40 s`, `2 min`, `1 min 20 s`, `1 h 5 min`: short, for sentences people read.
pub fn human_seconds(total: i64) -> String {
    let total = total.max(0);
    let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s} s"),
        (0, m, 0) => format!("{m} min"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

#[cfg(test)]
mod tests {
    //! Issue 14 item 5 (new-node grace, a daemonscope policy); the cell it renames is §a.7's
    //! "shouldRun and no pod → create one", which the controller has not done yet.
    use super::*;

    const JOINED: i64 = 1_000;

    #[test]
    fn a_missing_cell_on_a_node_younger_than_the_grace_is_starting() {
        let grace = NewNodeGrace::default();
        assert_eq!(
            grace.apply(CellState::Missing, Some(JOINED), JOINED),
            CellState::Starting
        );
        assert_eq!(
            grace.apply(CellState::Missing, Some(JOINED), JOINED + 40),
            CellState::Starting
        );
        assert_eq!(
            grace.apply(CellState::Missing, Some(JOINED), JOINED + 119),
            CellState::Starting
        );
    }

    #[test]
    fn at_and_past_the_grace_the_cell_is_missing_again() {
        let grace = NewNodeGrace::from_seconds(120);
        assert_eq!(
            grace.apply(CellState::Missing, Some(JOINED), JOINED + 120),
            CellState::Missing
        );
        assert_eq!(
            grace.apply(CellState::Missing, Some(JOINED), JOINED + 121),
            CellState::Missing
        );
        assert_eq!(grace.ends_at(Some(JOINED)), Some(JOINED + 120));
    }

    #[test]
    fn starting_is_not_a_problem_and_sits_beside_pending_in_the_legend() {
        assert!(
            !crate::coverage::is_problem(
                CellState::Starting,
                crate::coverage::RolloutStand::Moving
            ),
            "a scale-up must not raise problems"
        );
        assert!(crate::coverage::is_problem(
            CellState::Missing,
            crate::coverage::RolloutStand::Moving
        ));
        let at = CellState::Starting.index();
        assert_eq!(CellState::ALL[at], CellState::Starting);
        assert_eq!(CellState::ALL[at - 1], CellState::Pending);
        assert_eq!(CellState::ALL[at + 1], CellState::Missing);
        assert_eq!(CellState::Starting.as_str(), "starting");
    }

    #[test]
    fn only_missing_is_renamed_a_pod_that_exists_is_judged_as_it_is() {
        let grace = NewNodeGrace::default();
        for state in CellState::ALL {
            if state != CellState::Missing {
                assert_eq!(
                    grace.apply(state, Some(JOINED), JOINED + 1),
                    state,
                    "{state:?}"
                );
            }
        }
    }

    #[test]
    fn a_grace_of_zero_or_an_unknown_creation_time_never_applies() {
        assert_eq!(
            NewNodeGrace::OFF.apply(CellState::Missing, Some(JOINED), JOINED),
            CellState::Missing
        );
        assert_eq!(NewNodeGrace::from_seconds(-5), NewNodeGrace::OFF);
        assert_eq!(NewNodeGrace::OFF.ends_at(Some(JOINED)), None);
        let grace = NewNodeGrace::default();
        assert_eq!(
            grace.apply(CellState::Missing, None, JOINED),
            CellState::Missing
        );
        assert_eq!(grace.ends_at(None), None);
    }

    #[test]
    fn a_creation_time_ahead_of_the_clock_still_ends_the_grace() {
        let grace = NewNodeGrace::from_seconds(60);
        assert!(grace.covers(Some(JOINED + 30), JOINED));
        assert!(!grace.covers(Some(JOINED + 30), JOINED + 90));
        assert!(
            !grace.covers(Some(i64::MAX), i64::MAX),
            "saturates instead of overflowing"
        );
    }

    #[test]
    fn the_sentence_says_the_age_the_grace_and_when_the_cell_turns_missing() {
        let grace = NewNodeGrace::default();
        assert_eq!(
            grace.sentence(Some(JOINED), JOINED + 40),
            "The node joined 40 s ago; daemon pods get 2 min before they count as missing, so this cell turns missing in 1 min 20 s if no pod appears."
        );
    }

    #[test]
    fn human_seconds_reads_like_a_person_writes_it() {
        for (secs, text) in [
            (0, "0 s"),
            (40, "40 s"),
            (60, "1 min"),
            (90, "1 min 30 s"),
            (3600, "1 h"),
            (3900, "1 h 5 min"),
            (-3, "0 s"),
        ] {
            assert_eq!(human_seconds(secs), text);
        }
    }

    /// Issue 14 item 5 through the whole matrix: only the young node's pod-less cells turn
    /// `starting`, its column counts them apart from `missing`, and Kubernetes' own numbers
    /// (§c desired, §e verdict) are untouched by the grace.
    #[test]
    fn the_snapshot_shows_starting_only_on_the_young_node_and_counts_it_apart() {
        use crate::coverage::build_snapshot;
        use crate::testing::{ds, node, pod, PodExt};
        let now = 10_000;
        let mut young = node("young");
        young.created = Some(now - 40);
        let mut old = node("old");
        old.created = Some(now - 4_000);
        let bare = node("bare");
        let nodes = vec![young, old, bare, node("ok")];
        let pods = vec![pod("p").on("ok")];
        let on = build_snapshot(&nodes, &[ds()], &pods, now, "c", NewNodeGrace::default());
        let cells: Vec<CellState> = on.nodes.iter().map(|r| r.cells[0]).collect();
        assert_eq!(
            cells,
            [
                CellState::Starting,
                CellState::Missing,
                CellState::Missing,
                CellState::Ready
            ]
        );
        let col = &on.daemonsets[0];
        assert_eq!((col.missing, col.starting), (2, 1));
        let off = build_snapshot(&nodes, &[ds()], &pods, now, "c", NewNodeGrace::OFF);
        assert_eq!(
            (off.daemonsets[0].missing, off.daemonsets[0].starting),
            (3, 0)
        );
        assert_eq!(off.daemonsets[0].desired, col.desired, "§c knows no grace");
        assert_eq!(
            off.daemonsets[0].rollout_message, col.rollout_message,
            "§e knows no grace"
        );
        let later = build_snapshot(
            &nodes,
            &[ds()],
            &pods,
            now + 80,
            "c",
            NewNodeGrace::default(),
        );
        assert_eq!(
            later.nodes[0].cells[0],
            CellState::Missing,
            "the grace ends by the clock alone"
        );
    }

    /// The explanation of a `starting` cell says why and until when; past the grace it is the
    /// missing pod of §a.7 again.
    #[test]
    fn the_explanation_says_the_node_is_new_and_when_the_cell_turns_missing() {
        use crate::coverage::explain_cell_in_grace;
        use crate::testing::{ds, node};
        let mut n = node("young");
        n.created = Some(JOINED);
        let grace = NewNodeGrace::default();
        let e = explain_cell_in_grace(&n, &ds(), &[], JOINED + 40, grace);
        assert_eq!(e.state, CellState::Starting);
        assert!(e.summary.contains("joined 40 s ago"), "{}", e.summary);
        assert!(e.summary.contains("get 2 min"), "{}", e.summary);
        assert!(
            e.summary.contains("turns missing in 1 min 20 s"),
            "{}",
            e.summary
        );
        assert!(
            e.fixes.headline.contains("grace ends"),
            "{}",
            e.fixes.headline
        );
        let e = explain_cell_in_grace(&n, &ds(), &[], JOINED + 120, grace);
        assert_eq!(e.state, CellState::Missing, "at the grace: missing (§a.7)");
    }
}
