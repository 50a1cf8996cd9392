//! What a replay keeps of a scenario, and that the sim reads its own replay back.
use super::*;
use crate::scenario::parse_str;

const SCENARIO: &str = r#"
apiVersion: daemonscope.dev/v1alpha1
kind: SimulationSettings
metadata: {name: t}
spec:
  failingImages:
  - {image: 'agent:2'}
  - {image: 'agent:3', mode: ImagePullBackOff}
---
apiVersion: v1
kind: Node
metadata: {name: up, uid: u1, resourceVersion: "7", labels: {a: b}}
status: {conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Node
metadata: {name: down, uid: u2}
status: {conditions: [{type: Ready, status: "False"}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system, uid: d1, generation: 3,
  annotations: {deprecated.daemonset.template.generation: "3"}}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: 'agent:1'}]}
status: {desiredNumberScheduled: 2, currentNumberScheduled: 2, numberMisscheduled: 0, numberReady: 2}
"#;

#[test]
fn server_set_fields_are_dropped_and_not_ready_nodes_get_no_kubelet() {
    let scenario = parse_str(SCENARIO, "t").expect("test scenario parses");
    let replay = prepare(&scenario);
    let up = &replay.nodes[0];
    assert_eq!(up.metadata.uid, None);
    assert_eq!(up.metadata.resource_version, None);
    assert!(!up
        .metadata
        .labels
        .as_ref()
        .is_some_and(|l| l.contains_key(NO_KUBELET_LABEL)));
    let down = &replay.nodes[1];
    assert_eq!(
        down.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(NO_KUBELET_LABEL))
            .map(String::as_str),
        Some("true")
    );
    let ds = &replay.daemonsets[0];
    assert_eq!(ds.status, None);
    assert_eq!(ds.metadata.generation, None);
    assert_eq!(ds.metadata.annotations, None);
    // Only crash-looping images: kwok cannot make an image fail to pull.
    assert_eq!(replay.failing_images, vec!["agent:2".to_string()]);
}

#[test]
fn the_sim_scenario_parses_back_to_the_same_objects() {
    let scenario = parse_str(SCENARIO, "t").expect("test scenario parses");
    let replay = prepare(&scenario);
    let text = replay.to_sim_scenario().expect("serializes");
    let again = parse_str(&text, "replayed").expect("replayed scenario parses");
    assert_eq!(again.nodes.len(), 2);
    assert_eq!(again.daemonsets[0].spec, scenario.daemonsets[0].spec);
    assert_eq!(again.settings.failing_images.len(), 1);
    assert_eq!(again.settings.failing_images[0].image, "agent:2");
}

const WITH_PODS: &str = r#"
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-node-critical}
value: 2000001000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: 10
---
apiVersion: v1
kind: Node
metadata: {name: up}
status: {conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Pod
metadata: {name: filler, namespace: default, uid: p1, resourceVersion: "9"}
spec:
  nodeName: up
  priorityClassName: batch
  priority: 10
  preemptionPolicy: PreemptLowerPriority
  containers: [{name: c, image: 'batch:1', resources: {requests: {cpu: '3'}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: waiting, namespace: default}
spec: {containers: [{name: c, image: 'batch:1'}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-x
  namespace: default
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: d1, controller: true}]
spec: {nodeName: up, containers: [{name: c, image: 'agent:1'}]}
"#;

/// §k.5, §j.3: bound workload pods are replayed without what admission computes; daemon
/// pods, unbound pods and the built-in classes (both sides have them) are not.
#[test]
fn bound_workload_pods_are_replayed_and_built_in_classes_are_not() {
    let scenario = parse_str(WITH_PODS, "t").expect("test scenario parses");
    let replay = prepare(&scenario);
    let names: Vec<_> = replay
        .priority_classes
        .iter()
        .filter_map(|c| c.metadata.name.as_deref())
        .collect();
    assert_eq!(names, ["batch"]);
    assert_eq!(replay.pods.len(), 1, "{:?}", replay.pods);
    let pod = &replay.pods[0];
    assert_eq!(pod.metadata.name.as_deref(), Some("filler"));
    assert_eq!(
        (pod.metadata.uid.as_deref(), pod.status.as_ref()),
        (None, None)
    );
    let spec = pod.spec.as_ref().expect("a spec");
    assert_eq!(spec.node_name.as_deref(), Some("up"));
    assert_eq!(
        (spec.priority, spec.preemption_policy.as_deref()),
        (None, None)
    );
    assert_eq!(spec.priority_class_name.as_deref(), Some("batch"));
    let again = parse_str(&replay.to_sim_scenario().expect("serializes"), "replayed")
        .expect("replayed scenario parses");
    assert_eq!(again.pods.len(), 1);
    assert_eq!(again.pods[0].spec, pod.spec);
}
