use super::*;
use crate::alerts::MissingCauses;
use crate::coverage::CellState::{self, *};
use crate::rollout::StallCause;
use crate::testing::{view_column, view_row};
use crate::view::RolloutPace;

fn health(resource: &str, synced: bool, error: Option<&str>, stale: Option<i64>) -> ResourceHealth {
    ResourceHealth {
        resource: resource.into(),
        synced,
        error: error.map(str::to_string),
        stale_since: stale,
    }
}

fn stalled_pace(causes: Vec<StallCause>) -> RolloutPace {
    RolloutPace {
        done: 1,
        desired: 3,
        complete: false,
        per_minute_tenths: Some(0),
        eta_seconds: None,
        stalled_since: Some(100),
        stall_after_seconds: 300,
        window_seconds: 300,
        causes,
        in_flight: vec![],
        in_flight_total: 0,
    }
}

fn snapshot(columns: Vec<DaemonSetColumn>, rows: &[(&str, &[CellState])]) -> MatrixSnapshot {
    MatrixSnapshot {
        version: 1,
        cluster: "c".into(),
        daemonsets: columns,
        nodes: rows.iter().map(|(n, cells)| view_row(n, cells)).collect(),
        health: vec![health("nodes", true, None, None)],
    }
}

#[test]
fn a_column_becomes_a_placement_with_the_matrixs_own_counts() {
    let mut log = view_column("kube-system/log");
    log.problem_nodes = 2;
    log.missing_causes = Some(MissingCauses {
        refused: 1,
        ..MissingCauses::default()
    });
    let mut cni = view_column("kube-system/cni");
    cni.pace = Some(stalled_pace(vec![StallCause::Unexplained]));
    let part = cluster_part(
        "east",
        &snapshot(
            vec![log, cni],
            &[
                ("w1", &[Missing, Outdated]),
                ("w2", &[Unready, Ready]),
                ("w3", &[Ready, Ready]),
            ],
        ),
    );
    assert_eq!(part.cluster.name, "east");
    assert_eq!(part.cluster.health, ClusterHealth::Live);
    assert_eq!((part.cluster.nodes, part.cluster.daemonsets), (3, 2));
    assert_eq!(
        part.cluster.problem_cells, 2,
        "the columns' own problem counts"
    );
    let (ns, name, log) = &part.placements[0];
    assert_eq!((ns.as_str(), name.as_str()), ("kube-system", "log"));
    assert_eq!(log.counts.get(Missing), 1);
    assert_eq!(log.counts.get(Unready), 1);
    assert_eq!(log.counts.get(Ready), 1);
    assert_eq!(log.refused, 1);
    assert_eq!(log.stalled, None);
    let cni = &part.placements[1].2;
    assert_eq!(cni.stalled.as_deref(), Some("unexplained"));
    assert_eq!(cni.counts.get(Outdated), 1);
    assert!(cni.has_problem(), "a stalled rollout is a problem");
}

#[test]
fn a_complete_rollout_is_not_stalled_whatever_its_old_stall_time() {
    let mut column = view_column("ns/a");
    let mut pace = stalled_pace(vec![]);
    pace.complete = true;
    column.pace = Some(pace);
    let part = cluster_part("a", &snapshot(vec![column], &[("w1", &[Ready])]));
    assert_eq!(part.placements[0].2.stalled, None);
    assert!(!part.placements[0].2.has_problem());
}

#[test]
fn health_says_live_stale_or_unavailable_as_the_banner_would() {
    let live = [health("nodes", true, None, None)];
    assert_eq!(health_of(&live, true), ClusterHealth::Live);
    let refused = "cannot watch pods: connection refused";
    let lost = [
        health("nodes", true, None, Some(5)),
        health("pods", true, Some(refused), Some(5)),
    ];
    assert_eq!(
        health_of(&lost, true),
        ClusterHealth::Stale {
            reason: refused.into()
        }
    );
    assert_eq!(
        health_of(&[health("nodes", false, None, None)], false),
        ClusterHealth::Stale {
            reason: "nodes: waiting for the first sync".into()
        }
    );
    let no_user = "cannot use context b: no user";
    let not_connected = [
        health("cluster", false, Some(no_user), None),
        health("nodes", false, None, None),
    ];
    assert_eq!(
        health_of(&not_connected, false),
        ClusterHealth::Unavailable {
            reason: no_user.into()
        }
    );
    // An API server that never answered, beside the readiness poll's synced line.
    let never = [
        health("API server", true, None, None),
        health("nodes", false, Some("connect error"), None),
    ];
    assert_eq!(
        health_of(&never, false),
        ClusterHealth::Unavailable {
            reason: "connect error".into()
        }
    );
    // Every watcher says so: the first one's words and how many more, not a paragraph.
    let all_lost = [
        health("nodes", false, Some("nodes: connection lost"), Some(5)),
        health("pods", false, Some("pods: connection lost"), Some(5)),
        health("daemonsets", false, Some("nodes: connection lost"), Some(5)),
    ];
    assert_eq!(
        health_of(&all_lost, true),
        ClusterHealth::Stale {
            reason: "nodes: connection lost (and 1 more)".into()
        }
    );
    // Listed once, then lost: stale, never unavailable.
    let once = [health("nodes", false, Some("connection lost"), None)];
    assert_eq!(
        health_of(&once, true),
        ClusterHealth::Stale {
            reason: "connection lost".into()
        }
    );
}

#[test]
fn the_fleet_joins_daemonsets_by_namespace_and_name_in_cluster_order() {
    let a = cluster_part(
        "a",
        &snapshot(
            vec![view_column("kube-system/log"), view_column("mon/exporter")],
            &[("w1", &[Ready, Missing])],
        ),
    );
    let b = cluster_part(
        "b",
        &snapshot(vec![view_column("kube-system/log")], &[("w1", &[Ready])]),
    );
    let fleet = assemble(vec![a, b]);
    let names: Vec<&str> = fleet.clusters.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let keys: Vec<(String, Vec<&str>)> = fleet
        .daemonsets
        .iter()
        .map(|d| {
            (
                format!("{}/{}", d.namespace, d.name),
                d.placements.iter().map(|p| p.cluster.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("kube-system/log".to_string(), vec!["a", "b"]),
            ("mon/exporter".to_string(), vec!["a"])
        ]
    );
}
