//! Loading scenarios: the demo file, `kubectl get -o yaml` lists, and files that are wrong in
//! the ways people get them wrong.

use super::*;
use std::path::PathBuf;

fn demo_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/demo.yaml")
}

fn err(text: &str) -> String {
    match parse_str(text, "test.yaml") {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// `serve --demo` without a file loads the copy built into the binary (issue 23 item 1): the
/// same objects as the file, named as built in.
#[test]
fn the_built_in_demo_is_the_demo_file() {
    let built_in = load(&ScenarioSource::BuiltInDemo).expect("the built-in demo loads");
    let file = load(&ScenarioSource::File(demo_path())).expect("demo scenario loads");
    assert_eq!(built_in.source_name, crate::DEMO_SCENARIO_NAME);
    assert_eq!(
        std::fs::read_to_string(demo_path()).expect("the demo file"),
        crate::DEMO_SCENARIO
    );
    assert_eq!(
        (
            built_in.nodes.len(),
            built_in.daemonsets.len(),
            built_in.pods.len()
        ),
        (file.nodes.len(), file.daemonsets.len(), file.pods.len())
    );
}

#[test]
fn the_demo_scenario_loads_with_its_settings_and_every_object() {
    let s = load(&ScenarioSource::File(demo_path())).expect("demo scenario loads");
    assert_eq!(s.nodes.len(), 12);
    assert_eq!(s.daemonsets.len(), 7);
    // kube-system, metallb-system, longhorn-system, monitoring, security, and shop (the
    // workload pod that fills worker-4, §j.3).
    assert_eq!(s.namespaces.len(), 6);
    assert!(
        s.revisions.len() >= s.daemonsets.len(),
        "a ControllerRevision per DaemonSet"
    );
    assert!(s.pods.len() > 50);
    assert!(s.skipped.is_empty());
    assert_eq!(s.settings.failing_images.len(), 1);
    assert_eq!(
        s.settings.blocked("security", "falco", "worker-3"),
        Some(s.settings.blocked_creations[0].message.as_str())
    );
    assert_eq!(
        s.settings.kubelet.container_creating_delay,
        std::time::Duration::from_secs(3)
    );
}

#[test]
fn every_demo_daemon_pod_is_owned_by_a_demo_daemonset_through_its_uid() {
    let s = load(&ScenarioSource::File(demo_path())).expect("demo scenario loads");
    // The one workload pod (shop/checkout-0, filling worker-4 for §j.3) has no owner.
    let workload =
        |p: &&k8s_openapi::api::core::v1::Pod| p.metadata.namespace.as_deref() == Some("shop");
    assert_eq!(s.pods.iter().filter(workload).count(), 1);
    for pod in s.pods.iter().filter(|p| !workload(p)) {
        let owner = pod
            .metadata
            .owner_references
            .as_ref()
            .and_then(|o| o.first());
        let owner = owner.expect("demo pods have an owner");
        let ds = s
            .daemonsets
            .iter()
            .find(|d| d.metadata.uid.as_deref() == Some(owner.uid.as_str()))
            .expect("owner uid is a DaemonSet of the file");
        assert_eq!(ds.metadata.namespace, pod.metadata.namespace);
        assert!(pod
            .metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.contains_key("controller-revision-hash")));
    }
}

#[test]
fn a_kubectl_list_dump_is_flattened_into_its_items() {
    let text = r#"
apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {a: b}}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: ds1, namespace: kube-system}
  spec:
    selector: {matchLabels: {app: x}}
    template:
      metadata: {labels: {app: x}}
      spec: {containers: [{name: c, image: busybox}]}
- apiVersion: v1
  kind: Service
  metadata: {name: kubernetes, namespace: default}
"#;
    let s = parse_str(text, "dump.yaml").expect("list parses");
    assert_eq!(s.nodes.len(), 1);
    assert_eq!(s.daemonsets.len(), 1);
    assert_eq!(
        s.skipped.len(),
        1,
        "the Service is named as skipped: {:?}",
        s.skipped
    );
    assert!(s.skipped[0].contains("item 3"));
}

#[test]
fn a_manifest_without_namespace_lands_in_default() {
    let text = r#"
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: x}}
  template: {metadata: {labels: {app: x}}, spec: {containers: [{name: c, image: i}]}}
"#;
    let s = parse_str(text, "t.yaml").expect("parses");
    assert_eq!(
        s.daemonsets[0].metadata.namespace.as_deref(),
        Some("default")
    );
}

#[test]
fn bad_files_get_errors_naming_document_object_and_field() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "yaml syntax",
            "apiVersion: v1\nkind: Node\nmetadata: {name: [unclosed\n",
            &["test.yaml", "not valid YAML", "line"],
        ),
        (
            "wrong field type",
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {unschedulable: maybe}\n",
            &["document 1", "Node n1", "field spec.unschedulable"],
        ),
        (
            "taint effect not a string, second document",
            "apiVersion: v1\nkind: Node\nmetadata: {name: ok}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\nspec:\n  taints: [{key: a, effect: [x]}]\n",
            &["document 2", "Node n2", "spec.taints[0].effect"],
        ),
        ("missing kind", "apiVersion: v1\nmetadata: {name: x}\n", &["document 1", "field kind", "missing"]),
        (
            "a capacity Kubernetes would refuse (§j.1)",
            "apiVersion: v1\nkind: Node\nmetadata: {name: n3}\nstatus: {allocatable: {cpu: 2K}}\n",
            &["Node n3", "field status.allocatable[cpu]", "2K"],
        ),
        (
            "a request Kubernetes would refuse (§j.1)",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: w}\nspec:\n  containers: [{name: c, image: i, resources: {requests: {memory: lots}}}]\n",
            &["Pod w/p", "field spec.containers[0].resources.requests[memory]", "lots"],
        ),
        (
            "wrong apiVersion for a DaemonSet",
            "apiVersion: extensions/v1beta1\nkind: DaemonSet\nmetadata: {name: d, namespace: x}\nspec: {}\n",
            &["DaemonSet x/d", "field apiVersion", "apps/v1"],
        ),
        (
            "duplicate node",
            "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
            &["document 2", "duplicate", "document 1"],
        ),
        ("node without a name", "apiVersion: v1\nkind: Node\nmetadata: {}\n", &["field metadata.name", "missing"]),
        ("a scalar document", "just a string\n", &["document 1", "a string"]),
        (
            "daemonset without spec",
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d, namespace: x}\n",
            &["DaemonSet x/d", "field spec", "missing"],
        ),
        (
            "unknown settings field",
            "apiVersion: daemonscope.dev/v1alpha1\nkind: SimulationSettings\nspec: {sped: 2}\n",
            &["SimulationSettings", "sped"],
        ),
        (
            "bad duration",
            "apiVersion: daemonscope.dev/v1alpha1\nkind: SimulationSettings\nspec: {kubelet: {readyDelay: 5 parsecs}}\n",
            &["field spec.kubelet.readyDelay", "unknown unit"],
        ),
        (
            "zero speed",
            "apiVersion: daemonscope.dev/v1alpha1\nkind: SimulationSettings\nspec: {speed: 0}\n",
            &["spec.speed", "positive"],
        ),
        (
            "blocked creation of an unknown daemonset",
            "apiVersion: daemonscope.dev/v1alpha1\nkind: SimulationSettings\nspec: {blockedCreations: [{daemonSet: a/b, message: no}]}\n",
            &["spec.blockedCreations[0].daemonSet", "no DaemonSet a/b"],
        ),
        (
            "two settings documents",
            "apiVersion: daemonscope.dev/v1alpha1\nkind: SimulationSettings\n---\napiVersion: daemonscope.dev/v1alpha1\nkind: SimulationSettings\n",
            &["document 2", "only one settings document"],
        ),
        (
            // Issue 15 reproduction 1: kube-apiserver refuses it (AV ValidateDaemonSetSpec).
            "a selector that misses its template",
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d, namespace: x}\nspec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: b}}, spec: {containers: [{name: c, image: i}]}}}\n",
            &["DaemonSet x/d", "field spec.template.metadata.labels", "`selector` does not match template `labels`"],
        ),
        (
            // Issue 15 item 6: metav1validation ValidateLabels.
            "a label value with <",
            "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {a: \"x<y\"}}\n",
            &["Node n", "field metadata.labels", "Invalid value: \"x<y\""],
        ),
        (
            "a list without items",
            "apiVersion: v1\nkind: List\n",
            &["List", "field items"],
        ),
    ];
    for (case, text, needles) in cases {
        let message = err(text);
        for needle in *needles {
            assert!(
                message.contains(needle),
                "{case}: {needle:?} not in {message:?}"
            );
        }
        assert!(!message.contains('\n'), "{case}: one line, got {message:?}");
    }
}

#[test]
fn yaml_1_1_booleans_and_zero_padded_numbers_stay_strings() {
    let text =
        "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {enabled: yes, rack: 007}}\n";
    let s = parse_str(text, "t.yaml").expect("parses");
    let labels = s.nodes[0].metadata.labels.clone().unwrap_or_default();
    assert_eq!(s.nodes[0].metadata.name.as_deref(), Some("n"));
    assert_eq!(labels.get("enabled").map(String::as_str), Some("yes"));
    assert_eq!(labels.get("rack").map(String::as_str), Some("007"));
}

#[test]
fn a_missing_file_names_the_path() {
    let e = load(&ScenarioSource::File("/nonexistent/scenario.yaml".into())).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/scenario.yaml"), "{e}");
}

#[test]
fn an_empty_file_is_an_empty_scenario_with_default_settings() {
    let s = parse_str("", "empty.yaml").expect("empty parses");
    assert!(s.nodes.is_empty() && s.daemonsets.is_empty());
    assert_eq!(s.settings, SimulationSettings::default());
}

/// A scenario replays a cluster that already existed: its nodes keep the file's
/// creationTimestamp (the dashboard's new-node grace reads it), while an object created
/// afterwards gets the store's "now", as from an API server.
#[test]
fn scenario_nodes_keep_their_creation_time_and_new_objects_get_now() {
    use k8s_openapi::api::core::v1::Node;
    let scenario = load(&ScenarioSource::File(demo_path())).expect("demo scenario loads");
    let store = crate::store::Store::new(crate::store::StoreSettings::default());
    apply(&scenario, &store).expect("the demo applies");
    let node: Node = store.get(None, "worker-3").expect("worker-3");
    let created = node
        .metadata
        .creation_timestamp
        .clone()
        .expect("a creationTimestamp")
        .0;
    assert_eq!(created.to_string(), "2026-11-30T08:00:00Z");
    let mut fresh: Node = node.clone();
    fresh.metadata = Default::default();
    fresh.metadata.name = Some("worker-new".into());
    fresh.metadata.creation_timestamp = node.metadata.creation_timestamp.clone();
    let made = store.create(fresh).expect("a new node");
    let made_at = made.metadata.creation_timestamp.expect("stamped").0;
    assert!(
        made_at > created,
        "create ignores a creationTimestamp sent by a client"
    );
    let mut future: Node = node;
    future.metadata = Default::default();
    future.metadata.name = Some("worker-future".into());
    future.metadata.creation_timestamp = "2999-01-01T00:00:00Z"
        .parse()
        .ok()
        .map(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time);
    let restored = store.restore(future).expect("restored");
    assert!(
        restored.metadata.creation_timestamp.expect("stamped").0
            < "2999-01-01T00:00:00Z".parse().expect("a time"),
        "a creationTimestamp in the future is not kept"
    );
}

/// §k.5: a scenario's PriorityClass exists before its pods, which get its value; a duplicate
/// is refused by name; the replay for kube-apiserver and the sim both carry it.
#[test]
fn a_scenario_priority_class_gives_its_pods_their_priority_and_replays() {
    use k8s_openapi::api::core::v1::Pod;
    let text = "apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: agents}
value: 1000000
---
apiVersion: v1
kind: Pod
metadata: {name: batch, namespace: default}
spec:
  priorityClassName: agents
  containers: [{name: c, image: 'batch:1'}]
";
    let scenario = parse_str(text, "test.yaml").expect("a scenario with a PriorityClass");
    assert_eq!(scenario.priority_classes.len(), 1);
    let store = crate::store::Store::new(crate::store::StoreSettings::default());
    apply(&scenario, &store).expect("the scenario applies");
    let pod: Pod = store.get(Some("default"), "batch").expect("the pod");
    let spec = pod.spec.expect("a spec");
    assert_eq!(spec.priority, Some(1_000_000));
    assert_eq!(
        spec.preemption_policy.as_deref(),
        Some("PreemptLowerPriority")
    );
    let replay = crate::replay::prepare(&scenario);
    assert_eq!(replay.priority_classes.len(), 1);
    let again = parse_str(
        &replay.to_sim_scenario().expect("serialises"),
        "replay.yaml",
    )
    .expect("the replay parses");
    assert_eq!(again.priority_classes[0].value, Some(1_000_000));
    let twice = format!(
        "{text}---\n{}",
        text.split("---").next().unwrap_or_default()
    );
    assert!(
        err(&twice).contains("duplicate: the same PriorityClass"),
        "{}",
        err(&twice)
    );
}

/// §l.6: a scenario's ResourceQuota is stored before its pods and charged for them; a
/// `spec.hard` kube-apiserver refuses is refused with its words.
#[test]
fn a_scenario_quota_counts_its_pods_and_a_bad_one_is_refused() {
    use k8s_openapi::api::core::v1::ResourceQuota;
    let text = "apiVersion: v1
kind: ResourceQuota
metadata: {name: few, namespace: default}
spec: {hard: {pods: '5', requests.cpu: '1'}}
---
apiVersion: v1
kind: Pod
metadata: {name: batch, namespace: default}
spec:
  containers: [{name: c, image: 'batch:1', resources: {requests: {cpu: 250m}}}]
";
    let scenario = parse_str(text, "test.yaml").expect("a scenario with a quota");
    let store = crate::store::Store::new(crate::store::StoreSettings::default());
    apply(&scenario, &store).expect("the scenario applies");
    let quota: ResourceQuota = store.get(Some("default"), "few").expect("the quota");
    let used = quota.status.and_then(|s| s.used).expect("status.used");
    assert_eq!(used["pods"].0, "1");
    assert_eq!(used["requests.cpu"].0, "250m");
    let bad =
        "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: bad}\nspec: {hard: {pods: '-1'}}\n";
    assert!(
        err(bad).contains("spec.hard[pods]")
            && err(bad).contains("must be greater than or equal to 0"),
        "{}",
        err(bad)
    );
}
