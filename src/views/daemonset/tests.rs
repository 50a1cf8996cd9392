//! The DaemonSet page's view: which rows it keeps, and patches that bring one view to the next.

use super::*;
use crate::domain::testing::view_column;
use crate::domain::PodPhase;

fn pod(node: &str, age: i64) -> PodSummary {
    PodSummary {
        name: format!("p-{node}"),
        phase: PodPhase::Running,
        ready: true,
        updated: true,
        revision_hash: "h".into(),
        restart_count: 0,
        waiting_reason: None,
        terminating: false,
        age_seconds: age,
    }
}

fn progress(node: &str, state: CellState, should_run: bool, pods: usize) -> NodeProgress {
    NodeProgress {
        node: node.into(),
        state,
        should_run,
        pods: (0..pods).map(|_| pod(node, 10)).collect(),
    }
}

fn detail(nodes: Vec<NodeProgress>) -> DaemonSetDetail {
    DaemonSetDetail {
        version: 3,
        column: view_column("kube-system/log"),
        current_revision: "abc".into(),
        generation: 2,
        observed_generation: Some(2),
        nodes,
        tolerations: vec![],
    }
}

fn window(nodes: Vec<NodeProgress>) -> DaemonSetWindow {
    cut(detail(nodes), "demo".into(), vec![])
}

#[test]
fn only_nodes_where_it_runs_or_should_run_get_a_row_and_the_rest_are_counted() {
    let w = window(vec![
        progress("a", CellState::Ready, true, 1),
        progress("b", CellState::Excluded, false, 0),
        progress("c", CellState::Misscheduled, false, 1),
        progress("d", CellState::Missing, true, 0),
    ]);
    let names: Vec<&str> = w.nodes.iter().map(|n| n.node.as_str()).collect();
    assert_eq!(names, ["a", "c", "d"]);
    assert_eq!(w.hidden, 1);
    assert_eq!(w.revision.current, "abc");
}

#[test]
fn nothing_changed_is_no_message_and_an_age_alone_is_nothing() {
    let old = window(vec![progress("a", CellState::Ready, true, 1)]);
    let mut new = old.clone();
    new.version = 4;
    assert_eq!(diff(&old, &new), None);
    new.nodes[0].pods[0].age_seconds = 99;
    assert_eq!(diff(&old, &new), None, "ages move with the clock alone");
}

#[test]
fn a_changed_row_travels_alone_and_applies_back_to_the_new_view() {
    let old = window(vec![
        progress("a", CellState::Ready, true, 1),
        progress("b", CellState::Ready, true, 1),
    ]);
    let mut new = old.clone();
    new.version = 4;
    new.nodes[1].state = CellState::Outdated;
    new.column.updated = 1;
    let Some(DaemonSetMessage::Patch(patch)) = diff(&old, &new) else {
        panic!("a patch")
    };
    let sent: Vec<&str> = patch.nodes.iter().map(|n| n.node.as_str()).collect();
    assert_eq!(sent, ["b"]);
    assert!(patch.order.is_none(), "same rows, same order");
    assert!(patch.column.is_some());
    let mut held = Some(old);
    apply(&mut held, DaemonSetMessage::Patch(patch)).expect("fits");
    assert_eq!(held, Some(new));
}

#[test]
fn rows_that_enter_or_leave_send_the_order() {
    let old = window(vec![
        progress("a", CellState::Ready, true, 1),
        progress("b", CellState::Ready, true, 1),
    ]);
    let new = window(vec![
        progress("b", CellState::Ready, true, 1),
        progress("c", CellState::Missing, true, 0),
        progress("d", CellState::Excluded, false, 0),
    ]);
    let message = diff(&old, &new).expect("changed");
    let DaemonSetMessage::Patch(patch) = &message else {
        panic!("a patch")
    };
    assert_eq!(
        patch.order.as_deref(),
        Some(&["b".to_string(), "c".to_string()][..])
    );
    assert_eq!(patch.hidden, Some(1));
    let mut held = Some(old);
    apply(&mut held, message).expect("fits");
    assert_eq!(held, Some(new));
}

#[test]
fn a_patch_that_does_not_fit_is_an_error_the_page_recovers_from() {
    let mut held = Some(window(vec![progress("a", CellState::Ready, true, 1)]));
    let stray = DaemonSetPatch {
        version: 9,
        nodes: vec![progress("zz", CellState::Ready, true, 1)],
        ..DaemonSetPatch::default()
    };
    assert!(matches!(
        apply(&mut held, DaemonSetMessage::Patch(stray)),
        Err(DaemonSetPatchError::StrayRow { .. })
    ));
    let unknown = DaemonSetPatch {
        version: 9,
        order: Some(vec!["ghost".into()]),
        ..DaemonSetPatch::default()
    };
    assert!(matches!(
        apply(&mut held, DaemonSetMessage::Patch(unknown)),
        Err(DaemonSetPatchError::UnknownRow { .. })
    ));
}
