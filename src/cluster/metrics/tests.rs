//! Tests of the exported series: refusals, cells per state, escaping.

use super::*;
use crate::domain::admission::classify_refusal;
use crate::domain::view::RefusedCreation;

fn refused(key: &str, message: &str, missing: i64) -> DaemonSetColumn {
    let mut column = crate::domain::testing::view_column(key);
    column.missing = missing;
    column.refused = Some(RefusedCreation {
        refusal: classify_refusal(message),
        last_seen: 1,
    });
    column
}

#[test]
fn a_refused_daemonset_has_one_series_for_its_current_refuser_j() {
    let m = Metrics::new();
    m.set_column(&refused(
        "security/falco",
        "Error creating: admission webhook \"w.example.com\" denied the request: no",
        1,
    ));
    let text = m.encode().expect("encodes");
    assert!(
        text.contains("daemonscope_daemonset_creation_refused{daemonset=\"security/falco\",kind=\"webhook\"} 1\n"),
        "{text}"
    );
    m.set_column(&refused(
        "security/falco",
        "violates PodSecurity \"baseline:latest\": privileged",
        2,
    ));
    let text = m.encode().expect("encodes");
    assert!(
        !text.contains("kind=\"webhook\""),
        "the old kind's series is gone: {text}"
    );
    assert!(text.contains("kind=\"pod_security\"} 2\n"), "{text}");
    m.set_column(&crate::domain::testing::view_column("security/falco"));
    assert!(
        !m.encode().expect("encodes").contains("creation_refused{"),
        "refusal over"
    );
}

#[test]
fn cells_per_state_and_the_node_count_are_served_and_a_deleted_daemonset_leaves_none() {
    let m = Metrics::new();
    let mut column = crate::domain::testing::view_column("security/falco");
    column.cells = crate::domain::view::StateCounts::of(&[
        CellState::Ready,
        CellState::Ready,
        CellState::Missing,
    ]);
    m.set_column(&column);
    m.set_nodes(12);
    let text = m.encode().expect("encodes");
    for line in [
        "daemonscope_daemonset_cells{daemonset=\"security/falco\",state=\"ready\"} 2\n",
        "daemonscope_daemonset_cells{daemonset=\"security/falco\",state=\"missing\"} 1\n",
        "daemonscope_daemonset_cells{daemonset=\"security/falco\",state=\"surge\"} 0\n",
        "daemonscope_nodes 12\n",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    assert_eq!(text.matches("daemonscope_daemonset_cells{").count(), 9);
    m.remove_column("security/falco");
    let text = m.encode().expect("encodes");
    assert!(!text.contains("daemonscope_daemonset_cells{"), "{text}");
}

#[test]
fn label_values_are_escaped_as_the_text_format_asks() {
    let m = Metrics::new();
    m.set_column(&refused("ns/a\"b\\c\nd", "garbled", 1));
    let text = m.encode().expect("encodes");
    assert!(
        text.contains("daemonscope_daemonset_creation_refused{daemonset=\"ns/a\\\"b\\\\c\\nd\",kind=\"other\"} 1\n"),
        "{text}"
    );
}

#[test]
fn unschedulable_pods_are_one_series_per_reason_and_leave_none_behind_k() {
    let m = Metrics::new();
    let mut column = crate::domain::testing::view_column("metallb-system/speaker");
    column.unschedulable = vec![("Unschedulable".into(), 2), ("other".into(), 1)];
    m.set_column(&column);
    let text = m.encode().expect("encodes");
    assert!(
        text.contains("daemonscope_daemonset_unschedulable{daemonset=\"metallb-system/speaker\",reason=\"Unschedulable\"} 2\n"),
        "{text}"
    );
    assert!(text.contains("reason=\"other\"} 1\n"), "{text}");
    // Bound at last: no series is left saying otherwise.
    column.unschedulable = Vec::new();
    m.set_column(&column);
    assert!(!m
        .encode()
        .expect("encodes")
        .contains("daemonset_unschedulable{"));
}
