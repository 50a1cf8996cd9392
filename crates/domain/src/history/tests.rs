use super::*;

fn container(name: &str, image: &str) -> ContainerTemplate {
    ContainerTemplate {
        name: name.into(),
        image: image.into(),
        ..Default::default()
    }
}

fn template(containers: Vec<ContainerTemplate>) -> RevisionTemplate {
    RevisionTemplate {
        containers,
        ..Default::default()
    }
}

fn record(revision: i64, hash: &str, template: Result<RevisionTemplate, String>) -> RevisionRecord {
    RevisionRecord {
        name: format!("log-agent-{hash}"),
        revision,
        hash: hash.into(),
        created: 1_000,
        change_cause: String::new(),
        template,
    }
}

fn agent(image: &str) -> RevisionTemplate {
    template(vec![container("log-agent", image)])
}

#[test]
fn an_image_change_reads_old_to_new_by_container_d4() {
    let lines = template_changes(&agent("fluent-bit:2.1"), &agent("fluent-bit:2.2"));
    assert_eq!(lines, ["image log-agent: fluent-bit:2.1 -> fluent-bit:2.2"]);
}

#[test]
fn env_changes_name_the_variable_and_never_its_value_d4() {
    // The value is not even part of the type: the edge drops it. The names alone are shown.
    let mut old = agent("a:1");
    old.containers[0].env_names = vec!["NODE_NAME".into()];
    let mut new = agent("a:1");
    new.containers[0].env_names = vec!["NODE_NAME".into(), "LOG_LEVEL".into()];
    assert_eq!(template_changes(&old, &new), ["env added: LOG_LEVEL"]);
    assert_eq!(template_changes(&new, &old), ["env removed: LOG_LEVEL"]);
}

#[test]
fn a_toleration_change_is_pasteable_yaml_d4() {
    let old = agent("a:1");
    let mut new = agent("a:1");
    new.tolerations = vec![Toleration {
        key: "dedicated".into(),
        operator: "Exists".into(),
        effect: "NoSchedule".into(),
        ..Default::default()
    }];
    assert_eq!(
        template_changes(&old, &new),
        ["toleration added: {key: dedicated, operator: Exists, effect: NoSchedule}"]
    );
    assert_eq!(
        template_changes(&new, &old),
        ["toleration removed: {key: dedicated, operator: Exists, effect: NoSchedule}"]
    );
}

#[test]
fn node_selector_entries_added_removed_and_changed_d4() {
    let mut old = agent("a:1");
    old.node_selector = [
        ("disk".to_string(), "ssd".to_string()),
        ("zone".into(), "a".into()),
    ]
    .into_iter()
    .collect();
    let mut new = agent("a:1");
    new.node_selector = [
        ("zone".to_string(), "b".to_string()),
        ("gpu".into(), "yes".into()),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        template_changes(&old, &new),
        [
            "nodeSelector disk=ssd removed",
            "nodeSelector zone: a -> b",
            "nodeSelector gpu=yes added"
        ]
    );
}

#[test]
fn resource_quantities_read_before_and_after_d4() {
    let mut old = agent("a:1");
    old.containers[0].limits = [("memory".to_string(), "200Mi".to_string())].into();
    let mut new = agent("a:1");
    new.containers[0].limits = [("memory".to_string(), "300Mi".to_string())].into();
    new.containers[0].requests = [("cpu".to_string(), "50m".to_string())].into();
    assert_eq!(
        template_changes(&old, &new),
        [
            "resources.requests.cpu (none) -> 50m",
            "resources.limits.memory 200Mi -> 300Mi"
        ]
    );
}

#[test]
fn with_several_containers_each_line_says_which_and_added_ones_show_their_image() {
    let mut old = template(vec![container("agent", "a:1"), container("sidecar", "s:1")]);
    old.containers[1].env_names = vec!["X".into()];
    let new = template(vec![
        container("agent", "a:1"),
        container("sidecar", "s:1"),
        container("exporter", "e:1"),
    ]);
    assert_eq!(
        template_changes(&old, &new),
        [
            "env removed: X (container sidecar)",
            "container added: exporter (e:1)"
        ]
    );
    assert_eq!(
        template_changes(&new, &old)[0],
        "container removed: exporter"
    );
}

#[test]
fn only_whether_the_affinity_changed_is_said_d4() {
    let old = agent("a:1");
    let mut new = agent("a:1");
    new.affinity = Some("{\"nodeAffinity\":{}}".into());
    assert_eq!(template_changes(&old, &new), ["affinity added"]);
    let mut newer = new.clone();
    newer.affinity = Some("{\"nodeAffinity\":{\"x\":1}}".into());
    assert_eq!(template_changes(&new, &newer), ["affinity changed"]);
}

#[test]
fn an_unchanged_template_says_no_template_change() {
    let lines = template_changes(&agent("a:1"), &agent("a:1"));
    assert_eq!(lines.len(), 1);
    assert!(lines[0].starts_with("no template change"), "{lines:?}");
}

#[test]
fn numbering_is_kubectls_revision_newest_first_with_the_current_marked_d4() {
    // Listed out of order, as a LIST may return them; kubectl sorts by `revision`.
    let records = vec![
        record(3, "ccc", Ok(agent("a:3"))),
        record(1, "aaa", Ok(agent("a:1"))),
        record(2, "bbb", Ok(agent("a:2"))),
    ];
    let history = revision_history("ns/log-agent", records, "ccc", &BTreeMap::new(), 1_060);
    let numbers: Vec<i64> = history.revisions.iter().map(|r| r.revision).collect();
    assert_eq!(numbers, [3, 2, 1]);
    assert!(history.revisions[0].current);
    assert!(!history.revisions[1].current);
    assert_eq!(
        history.revisions[0].changes,
        ["image log-agent: a:2 -> a:3"]
    );
    assert!(history.revisions[2].changes[0].starts_with("oldest revision kept"));
    assert_eq!(history.revisions[0].age_seconds, 60);
}

#[test]
fn two_revisions_with_one_number_show_once_as_kubectls_map_does_d4() {
    let records = vec![
        record(1, "aaa", Ok(agent("a:1"))),
        record(1, "bbb", Ok(agent("a:2"))),
    ];
    let history = revision_history("ns/d", records, "bbb", &BTreeMap::new(), 0);
    assert_eq!(history.revisions.len(), 1);
    assert_eq!(history.revisions[0].hash, "bbb");
}

#[test]
fn unreadable_revision_data_gives_a_line_not_a_panic() {
    let records = vec![
        record(1, "aaa", Ok(agent("a:1"))),
        record(2, "bbb", Err("data.spec.template: invalid type".into())),
        record(3, "ccc", Ok(agent("a:3"))),
    ];
    let history = revision_history("ns/d", records, "ccc", &BTreeMap::new(), 0);
    assert_eq!(
        history.revisions[1].changes,
        ["the template of this revision cannot be read: data.spec.template: invalid type"]
    );
    assert_eq!(
        history.revisions[0].changes,
        ["cannot compare with revision 2: its template cannot be read"]
    );
}

#[test]
fn nodes_per_revision_come_from_pod_hashes_sorted_and_bounded_f() {
    // §f: pods carry `controller-revision-hash`; a node with two pods of one revision
    // (surge) counts once.
    let mut pods = BTreeMap::new();
    let mut old_nodes: Vec<String> = (0..120).map(|i| format!("node-{i:04}")).collect();
    old_nodes.push("node-0000".into());
    pods.insert("aaa".to_string(), old_nodes);
    pods.insert("bbb".to_string(), vec!["node-9999".to_string()]);
    let records = vec![
        record(1, "aaa", Ok(agent("a:1"))),
        record(2, "bbb", Ok(agent("a:2"))),
    ];
    let history = revision_history("ns/d", records, "bbb", &pods, 0);
    let old = &history.revisions[1];
    assert_eq!(old.pod_count, 121);
    assert_eq!(old.node_count, 120);
    assert_eq!(old.nodes.len(), MAX_NODES);
    assert_eq!(old.nodes[0], "node-0000");
    assert_eq!(history.revisions[0].nodes, ["node-9999"]);
}

#[test]
fn cluster_text_is_bounded_and_long_diffs_say_how_much_was_left_out() {
    let long = "r/".repeat(400);
    let many: Vec<ContainerTemplate> = (0..60)
        .map(|i| container(&format!("c{i}"), "a:1"))
        .collect();
    let mut records = vec![
        record(1, "aaa", Ok(template(vec![]))),
        record(2, "bbb", Ok(template(many))),
    ];
    records[1].change_cause = long.clone();
    let history = revision_history("ns/d", records, "bbb", &BTreeMap::new(), 0);
    let newest = &history.revisions[0];
    assert_eq!(newest.changes.len(), MAX_CHANGES + 1);
    assert_eq!(newest.changes[MAX_CHANGES], "and 20 more changes");
    let cause = newest.change_cause.clone().unwrap_or_default();
    assert_eq!(cause.chars().count(), MAX_LINE);
    assert!(cause.ends_with('…'));
}
