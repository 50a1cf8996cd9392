use super::*;
use crate::edge::testing::object;
use crate::scenario::settings::FailingImage;
use serde_json::json;

fn pod(value: serde_json::Value) -> Pod {
    object(value)
}

fn pinned(image: &str) -> Pod {
    pod(json!({
        "metadata": {"name": "agent-x", "namespace": "ns"},
        "spec": {
            "containers": [{"name": "agent", "image": image}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}
        },
        "status": {"phase": "Pending"}
    }))
}

fn settings_failing(image: &str, mode: FailureMode) -> SimulationSettings {
    let mut s = SimulationSettings::default();
    s.failing_images.push(FailingImage {
        image: image.into(),
        mode,
        message: None,
    });
    s
}

fn now() -> Timestamp {
    Timestamp::from_second(1_800_000_000).expect("valid")
}

/// Drives a pod through every step the kubelet would take, returning the steps taken.
fn drive(mut p: Pod, settings: &SimulationSettings, max: usize) -> (Pod, Vec<Step>) {
    let mut steps = Vec::new();
    for _ in 0..max {
        let Some((step, _)) = next_step(&p, NodeState::Ready, settings) else {
            break;
        };
        steps.push(step);
        match step {
            Step::Bind => {
                let target = target_node(&p);
                if let Some(spec) = p.spec.as_mut() {
                    spec.node_name = target;
                }
                p.status = Some(bound_status(&p, "10.0.0.1", now()));
            }
            Step::Remove => break,
            other => p.status = Some(advance(&p, other, settings, "10.244.0.5", now())),
        }
    }
    (p, steps)
}

fn ready(p: &Pod) -> bool {
    condition_true(p, "Ready")
}

#[test]
fn a_healthy_pod_is_bound_started_and_becomes_ready_then_settles() {
    let (p, steps) = drive(pinned("busybox:1"), &SimulationSettings::default(), 10);
    assert_eq!(steps, vec![Step::Bind, Step::Start, Step::BecomeReady]);
    assert!(ready(&p));
    assert_eq!(phase(&p), "Running");
    assert_eq!(
        p.spec.as_ref().and_then(|s| s.node_name.as_deref()),
        Some("n1"),
        "bound to its pin (§f)"
    );
    assert_eq!(
        p.status.as_ref().and_then(|s| s.pod_ip.as_deref()),
        Some("10.244.0.5")
    );
}

#[test]
fn a_crash_looping_image_restarts_forever_and_is_never_ready() {
    let s = settings_failing("bad:2", FailureMode::CrashLoopBackOff);
    let (p, steps) = drive(pinned("bad:2"), &s, 6);
    assert_eq!(&steps[..3], &[Step::Bind, Step::Start, Step::Restart]);
    assert!(steps[2..].iter().all(|s| *s == Step::Restart));
    assert!(!ready(&p));
    let restarts = p
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .map(|c| c[0].restart_count);
    assert_eq!(
        restarts,
        Some(5),
        "one restart at start plus one per Restart step"
    );
    assert!(any_waiting(&p, "CrashLoopBackOff"));
}

#[test]
fn an_image_that_cannot_be_pulled_stays_pending() {
    let s = settings_failing("gone:1", FailureMode::ImagePullBackOff);
    let (p, steps) = drive(pinned("gone:1"), &s, 6);
    assert_eq!(steps, vec![Step::Bind, Step::Start]);
    assert_eq!(phase(&p), "Pending");
    assert!(any_waiting(&p, "ImagePullBackOff"));
}

#[test]
fn a_never_ready_image_runs_without_becoming_ready() {
    let s = settings_failing("slow:1", FailureMode::NeverReady);
    let (p, steps) = drive(pinned("slow:1"), &s, 6);
    assert_eq!(steps, vec![Step::Bind, Step::Start]);
    assert_eq!(phase(&p), "Running");
    assert!(!ready(&p));
}

#[test]
fn nothing_progresses_on_a_node_that_is_down_and_terminating_pods_wait_for_it() {
    let s = SimulationSettings::default();
    let (mut p, _) = drive(pinned("busybox:1"), &s, 1);
    assert_eq!(next_step(&p, NodeState::NotReady, &s), None);
    p.metadata.deletion_timestamp = Some(Time(now()));
    assert_eq!(
        next_step(&p, NodeState::NotReady, &s),
        None,
        "Terminating until the node is back"
    );
    assert_eq!(
        next_step(&p, NodeState::Ready, &s).map(|x| x.0),
        Some(Step::Remove)
    );
    assert_eq!(
        next_step(&p, NodeState::Missing, &s).map(|x| x.0),
        Some(Step::Remove)
    );
}

#[test]
fn a_pod_on_a_node_that_went_not_ready_loses_ready_and_regains_it() {
    let s = SimulationSettings::default();
    let (p, _) = drive(pinned("busybox:1"), &s, 10);
    let mut down = p.clone();
    down.status = node_not_ready_status(&p, now());
    assert!(!ready(&down));
    assert_eq!(
        next_step(&down, NodeState::Ready, &s).map(|x| x.0),
        Some(Step::BecomeReady)
    );
    assert_eq!(
        node_not_ready_status(&down, now()),
        None,
        "already not ready: no write"
    );
}

#[test]
fn the_target_node_is_the_node_name_or_the_first_matchfields_pin() {
    assert_eq!(target_node(&pinned("x")), Some("n1".into()));
    let bound =
        pod(json!({"metadata": {"name": "a"}, "spec": {"containers": [], "nodeName": "n9"}}));
    assert_eq!(target_node(&bound), Some("n9".into()));
    let two = pod(
        json!({"metadata": {"name": "a"}, "spec": {"containers": [], "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]}}}}}),
    );
    assert_eq!(target_node(&two), None, "§f: two values: skipped");
}

#[test]
fn ready_keeps_its_transition_time_when_rewritten_with_the_same_status() {
    let s = SimulationSettings::default();
    let (p, _) = drive(pinned("busybox:1"), &s, 10);
    let later = Timestamp::from_second(1_900_000_000).expect("valid");
    let again = advance(&p, Step::BecomeReady, &s, "10.244.0.5", later);
    let ready = again
        .conditions
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.type_ == "Ready");
    assert_eq!(
        ready.and_then(|c| c.last_transition_time),
        Some(Time(now()))
    );
}

#[test]
fn a_slow_image_becomes_ready_after_its_own_delay_and_others_after_the_kubelets() {
    let mut s = SimulationSettings::default();
    s.slow_images.push(crate::scenario::settings::SlowImage {
        image: "slow:2".into(),
        ready_delay: Duration::from_secs(15),
    });
    // Drive to Running (bind, start), then ask for the next step: BecomeReady after the delay.
    let delay_after_start = |image: &str| {
        let (p, steps) = drive(pinned(image), &s, 2);
        assert_eq!(steps, vec![Step::Bind, Step::Start]);
        next_step(&p, NodeState::Ready, &s)
    };
    assert_eq!(
        delay_after_start("slow:2"),
        Some((Step::BecomeReady, Duration::from_secs(15)))
    );
    assert_eq!(
        delay_after_start("busybox:1"),
        Some((Step::BecomeReady, s.kubelet.ready_delay))
    );
}
