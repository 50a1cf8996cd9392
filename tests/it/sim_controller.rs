//! The simulated DaemonSet controller and kubelet against an in-process store on a fast clock:
//! placement, reactions to node changes, rolling updates, surge, OnDelete, node deletion,
//! blocked creations and the status block, each checked against the rule it mirrors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![cfg(feature = "ssr")]

use daemonscope::domain::facts::PodFacts;
use daemonscope::domain::rollout::{compute_status, kubectl_rollout_status};
use daemonscope::domain::scheduling::placement;
use daemonscope::edge::convert::{daemonset_facts, node_facts, pod_facts};
use daemonscope::sim::clock::SimClock;
use daemonscope::sim::controller::{self, Controllers};
use daemonscope::sim::kubelet::set_node_ready;
use daemonscope::sim::scenario::{apply, parse_str, settings::ScheduledUpdate};
use daemonscope::sim::store::{Store, StoreSettings};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Event, Node, Pod, Taint};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

const SPEED: f64 = 50.0;
const TIMEOUT: Duration = Duration::from_secs(15);

const SETTINGS: &str = r#"
apiVersion: daemonscope.dev/v1alpha1
kind: SimulationSettings
spec:
  kubelet: {scheduleDelay: 0.2s, containerCreatingDelay: 1s, readyDelay: 1s, terminationGracePeriod: 1s}
  controller: {initialBackoff: 1s, maxBackoff: 4s}
  failingImages: [{image: "agent:broken", mode: CrashLoopBackOff}]
"#;

fn node(name: &str, labels: &str, taints: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{labels}}}}}\nspec: {{taints: [{taints}]}}\n"
    )
}

fn daemonset(name: &str, strategy: &str, extra_spec: &str) -> String {
    format!(
        r#"---
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: {name}, namespace: agents}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  updateStrategy: {strategy}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers: [{{name: agent, image: "agent:1"}}]
{extra_spec}
"#
    )
}

struct Sim {
    store: Store,
    controllers: Controllers,
}

impl Sim {
    fn start(yaml: &str) -> Sim {
        let scenario =
            parse_str(&format!("{SETTINGS}{yaml}"), "test").expect("test scenario parses");
        let clock = SimClock::new(SPEED);
        let store = Store::new(StoreSettings {
            now: clock.now_fn(),
            ..StoreSettings::default()
        });
        apply(&scenario, &store).expect("test scenario applies");
        let controllers = controller::spawn(store.clone(), scenario.settings.clone(), clock);
        Sim { store, controllers }
    }

    fn ds(&self, name: &str) -> DaemonSet {
        self.store
            .get(Some("agents"), name)
            .expect("DaemonSet exists")
    }

    /// Live pods of a DaemonSet by owner uid (§f), as facts.
    fn pods(&self, name: &str) -> Vec<PodFacts> {
        let uid = self.ds(name).metadata.uid.unwrap_or_default();
        self.store
            .list::<Pod>(Some("agents"))
            .iter()
            .map(pod_facts)
            .filter(|p| p.owner_uid.as_deref() == Some(uid.as_str()))
            .collect()
    }

    fn nodes_with_pods(&self, name: &str) -> BTreeSet<String> {
        self.pods(name)
            .into_iter()
            .filter(|p| !p.terminating)
            .filter_map(|p| p.node_name)
            .collect()
    }

    fn hashes(&self, name: &str) -> BTreeSet<String> {
        self.pods(name)
            .into_iter()
            .filter(|p| !p.terminating)
            .map(|p| p.revision_hash)
            .collect()
    }

    fn rollout(&self, name: &str) -> daemonscope::domain::rollout::RolloutVerdict {
        let ds = self.ds(name);
        let mut facts = daemonset_facts(&ds).expect("facts");
        facts.current_revision_hash = String::new();
        kubectl_rollout_status(&facts)
    }

    fn set_image(&self, name: &str, image: &str) {
        let update = ScheduledUpdate {
            daemon_set: format!("agents/{name}"),
            container: None,
            image: image.into(),
            after: Duration::ZERO,
        };
        controller::set_image(&self.store, &update).expect("set image");
    }

    fn patch_node(&self, name: &str, f: impl FnOnce(&mut Node)) {
        let mut node: Node = self.store.get(None, name).expect("node exists");
        f(&mut node);
        self.store.update(node).expect("node update");
    }

    async fn until(&self, what: &str, mut check: impl FnMut(&Sim) -> bool) {
        let start = std::time::Instant::now();
        while start.elapsed() < TIMEOUT {
            if check(self) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("timed out waiting until {what}");
    }

    fn all_ready(&self, name: &str, nodes: usize) -> bool {
        let pods = self.pods(name);
        pods.len() == nodes && pods.iter().all(|p| p.ready && p.bound)
    }
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pods_appear_only_on_nodes_whose_taints_and_labels_match() {
    // §a.2: nodeSelector must match; an untolerated NoSchedule taint keeps the pod off;
    // §a.6: a cordoned node still gets its pod.
    let yaml = [
        node("n1", ", pool: a", ""),
        node(
            "n2",
            ", pool: a",
            "{key: node.kubernetes.io/unschedulable, effect: NoSchedule}",
        ),
        node(
            "n3",
            ", pool: a",
            "{key: dedicated, value: infra, effect: NoSchedule}",
        ),
        node("n4", ", pool: b", ""),
        daemonset(
            "agent",
            "{type: RollingUpdate}",
            "      nodeSelector: {pool: a}",
        ),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("pods run on n1 and n2 and are ready", |s| {
        s.all_ready("agent", 2)
    })
    .await;
    assert_eq!(sim.nodes_with_pods("agent"), set(&["n1", "n2"]));
    let pod = sim
        .store
        .list::<Pod>(Some("agents"))
        .into_iter()
        .next()
        .expect("a pod");
    let labels = pod.metadata.labels.clone().unwrap_or_default();
    assert!(
        labels.contains_key("controller-revision-hash"),
        "§f: pods carry the revision hash"
    );
    sim.until("status counts both", |s| {
        let st = s.ds("agent").status.unwrap_or_default();
        st.desired_number_scheduled == 2 && st.number_ready == 2
    })
    .await;
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn label_and_taint_changes_add_and_remove_pods() {
    let yaml = [
        node("n1", "", ""),
        node("n2", "", ""),
        daemonset(
            "gpu",
            "{type: RollingUpdate}",
            "      nodeSelector: {gpu: \"true\"}",
        ),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.patch_node("n2", |n| {
        n.metadata
            .labels
            .get_or_insert_with(BTreeMap::new)
            .insert("gpu".into(), "true".into());
    });
    sim.until("§a.2: a label that now matches brings a pod", |s| {
        s.nodes_with_pods("gpu") == set(&["n2"])
    })
    .await;
    sim.patch_node("n2", |n| {
        n.spec.get_or_insert_with(Default::default).taints = Some(vec![Taint {
            key: "evict".into(),
            value: None,
            effect: "NoExecute".into(),
            time_added: None,
        }]);
    });
    sim.until(
        "§a.2: an untolerated NoExecute taint removes the pod",
        |s| s.pods("gpu").is_empty(),
    )
    .await;
    sim.patch_node("n2", |n| {
        n.spec.get_or_insert_with(Default::default).taints = Some(vec![Taint {
            key: "late".into(),
            value: None,
            effect: "NoSchedule".into(),
            time_added: None,
        }]);
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        sim.pods("gpu").is_empty(),
        "§a.2: NoSchedule keeps new pods off"
    );
    sim.patch_node("n2", |n| {
        n.spec.get_or_insert_with(Default::default).taints = None;
    });
    sim.until("the pod comes back when the taint goes", |s| {
        s.nodes_with_pods("gpu") == set(&["n2"])
    })
    .await;
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_update_with_max_unavailable_one_replaces_one_node_at_a_time() {
    let yaml = [
        node("n1", "", ""),
        node("n2", "", ""),
        node("n3", "", ""),
        node("n4", "", ""),
        daemonset(
            "agent",
            "{type: RollingUpdate, rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}",
            "",
        ),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("4 ready pods", |s| s.all_ready("agent", 4)).await;
    let old = sim.hashes("agent");
    sim.set_image("agent", "agent:2");
    let mut max_unavailable = 0;
    let start = std::time::Instant::now();
    loop {
        // §d.3 maxSurge 0: never more than maxUnavailable nodes without an available pod.
        let ready_nodes: BTreeSet<String> = sim
            .pods("agent")
            .into_iter()
            .filter(|p| p.ready && !p.terminating)
            .filter_map(|p| p.node_name)
            .collect();
        max_unavailable = max_unavailable.max(4 - ready_nodes.len());
        let verdict = sim.rollout("agent");
        if verdict.done && sim.all_ready("agent", 4) {
            assert_eq!(
                verdict.message, "daemon set \"agent\" successfully rolled out",
                "§e"
            );
            break;
        }
        assert!(
            start.elapsed() < TIMEOUT,
            "rollout did not finish: {verdict:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(max_unavailable, 1, "§d.3: one node at a time");
    let new = sim.hashes("agent");
    assert_eq!(new.len(), 1);
    assert!(new.is_disjoint(&old), "every pod is on the new revision");
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_image_stalls_the_rollout_with_one_unready_new_pod() {
    let yaml = [
        node("n1", "", ""),
        node("n2", "", ""),
        node("n3", "", ""),
        daemonset(
            "agent",
            "{type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}",
            "",
        ),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("3 ready pods", |s| s.all_ready("agent", 3)).await;
    sim.set_image("agent", "agent:broken");
    sim.until("the new pod crash-loops", |s| {
        s.pods("agent").iter().any(|p| p.restart_count >= 2)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pods = sim.pods("agent");
    assert_eq!(
        sim.hashes("agent").len(),
        2,
        "§d.3: old and new revisions side by side"
    );
    assert_eq!(
        pods.iter().filter(|p| !p.ready).count(),
        1,
        "§d.3: the budget of 1 is used by the failing pod"
    );
    let verdict = sim.rollout("agent");
    assert!(!verdict.done);
    assert_eq!(verdict.message, "Waiting for daemon set \"agent\" rollout to finish: 1 out of 3 new pods have been updated...", "§e");
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_surge_starts_the_new_pod_before_the_old_one_goes() {
    let yaml = [
        node("n1", "", ""),
        node("n2", "", ""),
        daemonset(
            "agent",
            "{type: RollingUpdate, rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}",
            "",
        ),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("2 ready pods", |s| s.all_ready("agent", 2)).await;
    sim.set_image("agent", "agent:2");
    let mut saw_two_on_a_node = false;
    let start = std::time::Instant::now();
    loop {
        let pods = sim.pods("agent");
        let mut per_node: BTreeMap<String, usize> = BTreeMap::new();
        for p in pods.iter().filter(|p| !p.terminating) {
            *per_node
                .entry(p.node_name.clone().unwrap_or_default())
                .or_default() += 1;
        }
        saw_two_on_a_node |= per_node.values().any(|n| *n == 2);
        // §d.3 maxUnavailable 0: every node keeps a ready pod throughout.
        let ready_nodes = pods
            .iter()
            .filter(|p| p.ready && !p.terminating)
            .filter_map(|p| p.node_name.clone())
            .collect::<BTreeSet<_>>();
        assert_eq!(
            ready_nodes.len(),
            2,
            "a node lost its ready pod during a surge update"
        );
        if sim.rollout("agent").done && sim.all_ready("agent", 2) {
            break;
        }
        assert!(start.elapsed() < TIMEOUT, "surge rollout did not finish");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(saw_two_on_a_node, "§a.7 surge: old and new pod on one node");
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_delete_replaces_a_pod_only_when_someone_deletes_it() {
    let yaml = [
        node("n1", "", ""),
        node("n2", "", ""),
        daemonset("agent", "{type: OnDelete}", ""),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("2 ready pods", |s| s.all_ready("agent", 2)).await;
    let old = sim.hashes("agent");
    sim.set_image("agent", "agent:2");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        sim.hashes("agent"),
        old,
        "§d.5: no pod is replaced by the controller"
    );
    assert_eq!(
        sim.rollout("agent").error.as_deref(),
        Some("rollout status is only available for RollingUpdate strategy type"),
        "§e.1"
    );
    let victim = sim
        .pods("agent")
        .into_iter()
        .find(|p| p.node_name.as_deref() == Some("n1"))
        .expect("pod on n1");
    sim.store
        .delete::<Pod>(Some("agents"), &victim.name)
        .expect("delete");
    sim.until(
        "§d.5: the deleted pod comes back with the new template",
        |s| s.hashes("agent").len() == 2 && s.all_ready("agent", 2),
    )
    .await;
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_node_removes_its_pods() {
    let yaml = [
        node("n1", "", ""),
        node("n2", "", ""),
        daemonset("agent", "{type: RollingUpdate}", ""),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("2 ready pods", |s| s.all_ready("agent", 2)).await;
    sim.store.delete::<Node>(None, "n2").expect("delete node");
    sim.until("§a.7: the pod of the deleted node is gone", |s| {
        s.pods("agent").len() == 1
    })
    .await;
    sim.until("desired drops to 1", |s| {
        s.ds("agent")
            .status
            .is_some_and(|st| st.desired_number_scheduled == 1)
    })
    .await;
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_creation_leaves_a_gap_with_a_failed_create_event() {
    let settings = "---\napiVersion: daemonscope.dev/v1alpha1\nkind: SimulationSettings\nspec:\n  kubelet: {scheduleDelay: 0.2s, containerCreatingDelay: 0.5s, readyDelay: 0.5s}\n  blockedCreations: [{daemonSet: agents/agent, nodes: [n2], message: 'exceeded quota: pods'}]\n";
    // A scenario may hold only one settings document: replace the default one.
    let yaml = [
        node("n1", "", ""),
        node("n2", "", ""),
        node("n3", "", ""),
        daemonset("agent", "{type: RollingUpdate}", ""),
    ]
    .concat();
    let scenario = parse_str(&format!("{settings}{yaml}"), "t").expect("parses");
    let clock = SimClock::new(SPEED);
    let store = Store::new(StoreSettings {
        now: clock.now_fn(),
        ..StoreSettings::default()
    });
    apply(&scenario, &store).expect("applies");
    let sim = Sim {
        controllers: controller::spawn(store.clone(), scenario.settings.clone(), clock),
        store,
    };
    sim.until("pods on n1 and n3", |s| s.all_ready("agent", 2))
        .await;
    sim.until("a FailedCreate event with the reason", |s| {
        s.store.list::<Event>(Some("agents")).iter().any(|e| {
            e.reason.as_deref() == Some("FailedCreate")
                && e.message.as_deref() == Some("Error creating: exceeded quota: pods")
                && e.count.unwrap_or(0) >= 2
        })
    })
    .await;
    assert_eq!(
        sim.nodes_with_pods("agent"),
        set(&["n1", "n3"]),
        "the gap on n2 persists"
    );
    let status = sim.ds("agent").status.unwrap_or_default();
    assert_eq!(
        (
            status.desired_number_scheduled,
            status.current_number_scheduled
        ),
        (3, 2),
        "§c"
    );
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_not_ready_node_keeps_its_pod_but_gets_no_new_one() {
    // §a.6: the node lifecycle controller's not-ready:NoSchedule is not tolerated automatically.
    let yaml = [
        node("n1", "", ""),
        node("n2", "", ""),
        daemonset("agent", "{type: RollingUpdate}", ""),
        daemonset(
            "late",
            "{type: RollingUpdate}",
            "      nodeSelector: {late: \"yes\"}",
        ),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("2 ready pods", |s| s.all_ready("agent", 2)).await;
    set_node_ready(&sim.store, "n2", false, k8s_openapi::jiff::Timestamp::now())
        .expect("node not ready");
    sim.until("§c: the kept pod counts as misscheduled", |s| {
        s.ds("agent")
            .status
            .is_some_and(|st| st.number_misscheduled == 1 && st.desired_number_scheduled == 1)
    })
    .await;
    assert_eq!(
        sim.nodes_with_pods("agent"),
        set(&["n1", "n2"]),
        "§a.6: shouldContinueRunning keeps it"
    );
    // The node lifecycle controller records the change on the node (Normal) and on the Ready
    // pod it marks not ready (Warning "Node is not ready"), as MarkPodsNotReady does.
    let recorded = |s: &Sim, kind: &str| {
        s.store
            .list::<k8s_openapi::api::core::v1::Event>(None)
            .iter()
            .any(|e| {
                e.involved_object.kind.as_deref() == Some(kind)
                    && e.reason.as_deref() == Some("NodeNotReady")
                    && e.source.as_ref().and_then(|s| s.component.as_deref())
                        == Some("node-controller")
            })
    };
    sim.until("NodeNotReady on the node and on its pod", |s| {
        recorded(s, "Node") && recorded(s, "Pod")
    })
    .await;
    sim.patch_node("n2", |n| {
        n.metadata
            .labels
            .get_or_insert_with(BTreeMap::new)
            .insert("late".into(), "yes".into());
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        sim.pods("late").is_empty(),
        "§a.6: no new pod on a NotReady node"
    );
    set_node_ready(&sim.store, "n2", true, k8s_openapi::jiff::Timestamp::now())
        .expect("node ready");
    sim.until("the node is back: the new DaemonSet's pod arrives", |s| {
        s.all_ready("late", 1)
    })
    .await;
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_written_status_equals_compute_status_over_the_store() {
    let yaml = [
        node("n1", "", ""),
        node(
            "n2",
            "",
            "{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}",
        ),
        node("n3", "", ""),
        daemonset("agent", "{type: RollingUpdate}", ""),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("2 ready pods", |s| s.all_ready("agent", 2)).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let ds = sim.ds("agent");
    let mut facts = daemonset_facts(&ds).expect("facts");
    facts.current_revision_hash = sim.hashes("agent").into_iter().next().unwrap_or_default();
    let nodes: Vec<_> = sim
        .store
        .list::<Node>(None)
        .iter()
        .map(node_facts)
        .collect();
    let placements: Vec<_> = nodes
        .iter()
        .map(|n| placement(n, &facts.template))
        .collect();
    let pairs: Vec<_> = nodes.iter().zip(placements.iter()).collect();
    let pods = sim.pods("agent");
    let want = compute_status(
        &facts,
        &pairs,
        &pods,
        k8s_openapi::jiff::Timestamp::now().as_second(),
    );
    let got = facts.status.clone().expect("status written");
    assert_eq!(
        got, want,
        "§c: the controller writes what compute_status computes"
    );
    assert_eq!((got.desired_number_scheduled, got.number_available), (2, 2));
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_scenario_stays_interesting_while_it_runs() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/demo.yaml");
    let text = std::fs::read_to_string(path).expect("demo scenario");
    let mut scenario = parse_str(&text, path).expect("demo parses");
    scenario.settings.speed = SPEED;
    let clock = SimClock::new(SPEED);
    let store = Store::new(StoreSettings {
        now: clock.now_fn(),
        ..StoreSettings::default()
    });
    apply(&scenario, &store).expect("demo applies");
    let controllers = controller::spawn(store.clone(), scenario.settings.clone(), clock);
    let sim = Sim { store, controllers };
    let ns_pods = |s: &Sim, ns: &str, ds: &str| -> Vec<PodFacts> {
        let uid = s
            .store
            .get::<DaemonSet>(Some(ns), ds)
            .and_then(|d| d.metadata.uid)
            .unwrap_or_default();
        s.store
            .list::<Pod>(Some(ns))
            .iter()
            .map(pod_facts)
            .filter(|p| p.owner_uid.as_deref() == Some(uid.as_str()))
            .collect()
    };
    sim.until("gpu-monitor on gpu-2 becomes ready", |s| {
        ns_pods(s, "monitoring", "gpu-monitor")
            .iter()
            .all(|p| p.ready)
    })
    .await;
    sim.until("falco's creation on worker-3 is rejected", |s| {
        s.store
            .list::<Event>(Some("security"))
            .iter()
            .any(|e| e.reason.as_deref() == Some("FailedCreate"))
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let falco_nodes: BTreeSet<String> = ns_pods(&sim, "security", "falco")
        .into_iter()
        .filter_map(|p| p.node_name)
        .collect();
    assert!(
        !falco_nodes.contains("worker-3"),
        "the missing cell persists"
    );
    let exporter = ns_pods(&sim, "monitoring", "node-exporter");
    let hashes: BTreeSet<_> = exporter.iter().map(|p| p.revision_hash.clone()).collect();
    assert_eq!(
        hashes.len(),
        2,
        "the stalled rollout keeps old and new revisions"
    );
    let ds: DaemonSet = sim
        .store
        .get(Some("monitoring"), "node-exporter")
        .expect("ds");
    assert!(
        !kubectl_rollout_status(&daemonset_facts(&ds).expect("facts")).done,
        "node-exporter stays stalled"
    );
    sim.until("the surge rollout of ebs-csi-node converges", |s| {
        let ds: DaemonSet = s
            .store
            .get(Some("kube-system"), "ebs-csi-node")
            .expect("ds");
        kubectl_rollout_status(&daemonset_facts(&ds).expect("facts")).done
    })
    .await;
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_noexecute_toleration_with_seconds_gives_create_evict_create() {
    // §g.8 (§a.5): the DaemonSet controller ignores tolerationSeconds and places the pod; the
    // taint-eviction controller deletes it when the time is up; the DaemonSet controller
    // creates it again. A toleration without tolerationSeconds keeps its pod for good.
    let yaml = [
        node("n1", "", "{key: maintenance, effect: NoExecute}"),
        daemonset(
            "visitor",
            "{type: RollingUpdate}",
            "      tolerations: [{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 20}]",
        ),
        daemonset(
            "stayer",
            "{type: RollingUpdate}",
            "      tolerations: [{key: maintenance, operator: Exists, effect: NoExecute}]",
        ),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("both pods are ready on n1", |s| {
        s.all_ready("visitor", 1) && s.all_ready("stayer", 1)
    })
    .await;
    let uid = |s: &Sim, name: &str| s.pods(name).first().map(|p| p.uid.clone());
    let first_visitor = uid(&sim, "visitor");
    let stayer = uid(&sim, "stayer");
    sim.until("the visitor's pod is evicted and created again", |s| {
        let evicted = s.store.list::<Event>(Some("agents")).iter().any(|e| {
            e.reason.as_deref() == Some("TaintManagerEviction")
                && e.involved_object.uid == first_visitor
        });
        let again = s
            .pods("visitor")
            .iter()
            .any(|p| Some(&p.uid) != first_visitor.as_ref() && !p.terminating);
        evicted && again
    })
    .await;
    let message = sim
        .store
        .list::<Event>(Some("agents"))
        .into_iter()
        .find(|e| e.reason.as_deref() == Some("TaintManagerEviction"))
        .and_then(|e| e.message)
        .unwrap_or_default();
    assert!(
        message.starts_with("Marking for deletion Pod agents/visitor-"),
        "{message}"
    );
    assert_eq!(
        uid(&sim, "stayer"),
        stayer,
        "§a.5 no tolerationSeconds: never evicted"
    );
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_a_noexecute_taint_in_time_cancels_the_eviction() {
    // §a.5: the countdown belongs to the taint; once it is gone the pod stays.
    let yaml = [
        node("n1", "", "{key: maintenance, effect: NoExecute}"),
        daemonset(
            "visitor",
            "{type: RollingUpdate}",
            "      tolerations: [{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}]",
        ),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    sim.until("the pod is ready", |s| s.all_ready("visitor", 1))
        .await;
    let first = sim.pods("visitor").first().map(|p| p.uid.clone());
    sim.patch_node("n1", |n| {
        if let Some(spec) = n.spec.as_mut() {
            spec.taints = None;
        }
    });
    // 60 simulated seconds are 1.2 s at speed 50: wait twice that.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(sim.pods("visitor").first().map(|p| p.uid.clone()), first);
    assert!(!sim
        .store
        .list::<Event>(Some("agents"))
        .iter()
        .any(|e| e.reason.as_deref() == Some("TaintManagerEviction")));
    sim.controllers.shutdown().await;
}

fn controller_uid(pod: &Pod) -> Option<String> {
    pod.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
        .map(|r| r.uid.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_orphan_the_selector_matches_is_adopted_and_a_relabelled_pod_is_released() {
    // §f: a pod belongs to a DaemonSet through its controller ownerReference; the controller
    // adopts orphans its selector matches and releases owned pods that no longer match.
    let orphan = r#"---
apiVersion: v1
kind: Pod
metadata: {name: leftover, namespace: agents, labels: {app: agent}}
spec: {nodeName: n1, containers: [{name: agent, image: "agent:1"}]}
"#;
    let yaml = [
        node("n1", "", ""),
        node("n2", "", ""),
        orphan.to_string(),
        // OnDelete (§d.5): the adopted pod has no revision hash, so a RollingUpdate would
        // replace it right after adopting it; here it stays for the test to see.
        daemonset("agent", "{type: OnDelete}", ""),
    ]
    .concat();
    let sim = Sim::start(&yaml);
    let ds_uid = sim.ds("agent").metadata.uid;
    sim.until(
        "the orphan is adopted and both nodes run one ready pod",
        |s| {
            let adopted = s
                .store
                .get::<Pod>(Some("agents"), "leftover")
                .is_some_and(|p| controller_uid(&p) == ds_uid);
            adopted && s.all_ready("agent", 2)
        },
    )
    .await;
    assert_eq!(sim.nodes_with_pods("agent"), set(&["n1", "n2"]));

    // Relabel the pod on n2 out of the selection (kubectl label pod … app=debug --overwrite).
    let on_n2 = sim
        .pods("agent")
        .into_iter()
        .find(|p| p.node_name.as_deref() == Some("n2"))
        .map(|p| p.name)
        .expect("a pod on n2");
    let mut pod: Pod = sim.store.get(Some("agents"), &on_n2).expect("pod");
    pod.metadata
        .labels
        .get_or_insert_default()
        .insert("app".into(), "debug".into());
    sim.store.update(pod).expect("relabel");
    sim.until(
        "the relabelled pod is released and n2 gets a new pod",
        |s| {
            let released = s
                .store
                .get::<Pod>(Some("agents"), &on_n2)
                .is_some_and(|p| controller_uid(&p).is_none());
            let replaced = s
                .pods("agent")
                .iter()
                .any(|p| p.node_name.as_deref() == Some("n2") && p.name != on_n2);
            released && replaced
        },
    )
    .await;
    let released: Pod = sim.store.get(Some("agents"), &on_n2).expect("released pod");
    assert!(
        released.metadata.deletion_timestamp.is_none(),
        "§f a released pod keeps running"
    );
    sim.controllers.shutdown().await;
}
