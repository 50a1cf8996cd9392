//! The simulated cluster against input a real cluster accepts but that used to break the
//! simulation (issue 15): extreme durations, and objects the controller must not act on.
//! Each test names the reproduction it mirrors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![cfg(feature = "ssr")]

use daemonscope::edge::convert::pod_facts;
use daemonscope::sim::clock::SimClock;
use daemonscope::sim::controller::{self, Controllers};
use daemonscope::sim::scenario::{apply, parse_str};
use daemonscope::sim::store::{Store, StoreSettings};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Event, Pod};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(15);

const SETTINGS: &str = r#"
apiVersion: daemonscope.dev/v1alpha1
kind: SimulationSettings
spec:
  kubelet: {scheduleDelay: 0.2s, containerCreatingDelay: 1s, readyDelay: 1s, terminationGracePeriod: 1s}
"#;

fn tainted_node(name: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\nspec: {{taints: [{{key: maintenance, effect: NoExecute}}]}}\n"
    )
}

fn daemonset(name: &str, tolerations: &str) -> String {
    format!(
        r#"---
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: {name}, namespace: agents}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers: [{{name: agent, image: "agent:1"}}]
      tolerations: {tolerations}
"#
    )
}

struct Sim {
    store: Store,
    controllers: Controllers,
}

impl Sim {
    fn start(yaml: &str, speed: f64) -> Sim {
        let scenario =
            parse_str(&format!("{SETTINGS}{yaml}"), "test").expect("test scenario parses");
        let clock = SimClock::new(speed);
        let store = Store::new(StoreSettings {
            now: clock.now_fn(),
            ..StoreSettings::default()
        });
        apply(&scenario, &store).expect("test scenario applies");
        let controllers = controller::spawn(store.clone(), scenario.settings.clone(), clock);
        Sim { store, controllers }
    }

    /// Live pod uids of a DaemonSet (by owner uid).
    fn pod_uids(&self, name: &str) -> Vec<String> {
        let ds: Option<DaemonSet> = self.store.get(Some("agents"), name);
        let uid = ds.and_then(|d| d.metadata.uid).unwrap_or_default();
        self.store
            .list::<Pod>(Some("agents"))
            .iter()
            .map(pod_facts)
            .filter(|p| p.owner_uid.as_deref() == Some(uid.as_str()) && !p.terminating)
            .map(|p| p.uid)
            .collect()
    }

    fn evicted(&self, uid: &str) -> bool {
        self.store.list::<Event>(Some("agents")).iter().any(|e| {
            e.reason.as_deref() == Some("TaintManagerEviction")
                && e.involved_object.uid.as_deref() == Some(uid)
        })
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
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_toleration_of_i64_max_seconds_does_not_stop_taint_eviction() {
    // Issue 15 reproduction 2: `tolerationSeconds: 9223372036854775807` is a valid int64 (CV
    // `ValidateTolerations` only checks the effect is NoExecute), but `started + seconds`
    // overflowed `Instant + Duration` in the taint-eviction task at speed 1, which panicked
    // and never evicted again. The forever pod must stay (its countdown never ends) and the
    // visitor (1 s) must still go.
    let forever = "[{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 9223372036854775807}]";
    let visitor = "[{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 1}]";
    let yaml = [
        tainted_node("n1"),
        daemonset("forever", forever),
        daemonset("visitor", visitor),
    ]
    .concat();
    let sim = Sim::start(&yaml, 1.0);
    sim.until("both pods exist", |s| {
        s.pod_uids("forever").len() == 1 && s.pod_uids("visitor").len() == 1
    })
    .await;
    let forever_uid = sim.pod_uids("forever").remove(0);
    let visitor_uid = sim.pod_uids("visitor").remove(0);
    sim.until("the visitor is evicted after 1 simulated second", |s| {
        s.evicted(&visitor_uid)
    })
    .await;
    assert!(!sim.evicted(&forever_uid), "i64::MAX seconds never run out");
    assert_eq!(sim.pod_uids("forever"), vec![forever_uid]);
    sim.controllers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemonset_whose_selector_misses_its_template_gets_no_pods() {
    // Issue 15 reproduction 1, defence in depth: the sim's controller created ~480 pods/s for a
    // DaemonSet whose selector does not select its template (no new pod is "its" pod, so the
    // node looks empty again at once). The API now refuses such a DaemonSet; stored past it,
    // the controller must still create nothing: the real controller creates only from the
    // template and claims by selector (§f), so a pod it could not claim is never made.
    let sim = Sim::start(
        &tainted_node("n1").replace("NoExecute", "PreferNoSchedule"),
        50.0,
    );
    let bad: DaemonSet = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "lost", "namespace": "agents"},
        "spec": {"selector": {"matchLabels": {"app": "a"}},
            "template": {"metadata": {"labels": {"app": "b"}},
                "spec": {"containers": [{"name": "c", "image": "agent:1"}]}}}}))
    .expect("ds json");
    sim.store
        .create(bad)
        .expect("stored past the API's validation");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let pods = sim.store.list::<Pod>(Some("agents")).len();
    assert_eq!(pods, 0, "created {pods} pods in 1.5 s");
    sim.controllers.shutdown().await;
}
