//! ControllerRevision projection: hash from label or name, owner from the controller ref.
use super::*;
use crate::domain::names;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

fn revision(
    name: &str,
    owner: Option<(&str, bool)>,
    labels: &[(&str, &str)],
    number: i64,
) -> ControllerRevision {
    ControllerRevision {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("kube-system".into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            owner_references: owner.map(|(uid, controller)| {
                vec![OwnerReference {
                    api_version: "apps/v1".into(),
                    kind: "DaemonSet".into(),
                    name: "speaker".into(),
                    uid: uid.into(),
                    controller: Some(controller),
                    ..Default::default()
                }]
            }),
            ..Default::default()
        },
        revision: Some(number),
        data: Default::default(),
    }
}

#[test]
fn a_revision_takes_its_hash_from_the_label_and_its_owner_from_the_controller_ref() {
    let facts = revision_facts(&revision(
        "speaker-abc",
        Some(("u1", true)),
        &[(names::CONTROLLER_REVISION_HASH, "h1")],
        3,
    ));
    assert_eq!(
        facts,
        Some(RevisionFacts {
            namespace: "kube-system".into(),
            name: "speaker-abc".into(),
            owner_uid: "u1".into(),
            revision: 3,
            hash: "h1".into(),
        })
    );
}

#[test]
fn a_revision_without_the_hash_label_takes_the_hash_from_its_name() {
    let facts = revision_facts(&revision("speaker-7f9c", Some(("u1", true)), &[], 1));
    assert_eq!(facts.map(|f| f.hash), Some("7f9c".to_string()));
}

#[test]
fn a_revision_no_daemonset_controls_is_dropped_per_f_ownership() {
    assert_eq!(revision_facts(&revision("x-1", None, &[], 1)), None);
    assert_eq!(
        revision_facts(&revision("x-1", Some(("u1", false)), &[], 1)),
        None
    );
}
