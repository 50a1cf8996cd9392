//! What the scheduler writes when a daemon pod does not fit (§k.3, §k.4): the pod left pending
//! with its `PodScheduled` condition and a `FailedScheduling` event, the victims of preemption
//! marked, told and deleted, and the pod nominated to its node.
//!
//! Why apart from the verdict: the verdict is arithmetic over the per-node sums; this is the
//! writing, which needs the store, the recorder and the kubelet's queue.

use k8s_openapi::api::core::v1::{Pod, PodStatus};
use k8s_openapi::jiff::Timestamp;

use super::super::{Kubelet, PodKey};
use super::{Verdict, RETRY};
use crate::recorder::{reference, Note};

/// The pod's status with `PodScheduled=False`, reason `Unschedulable`, `message`; None when it
/// already says so (no write, no event).
fn unschedulable_status(
    pod: &Pod,
    message: &str,
    nominated: Option<&str>,
    now: Timestamp,
) -> Option<PodStatus> {
    let mut status = pod.status.clone().unwrap_or_default();
    if nominated.is_some() {
        status.nominated_node_name = nominated.map(str::to_owned);
    }
    let same = nominated.is_none()
        && status.conditions.iter().flatten().any(|c| {
            c.type_ == "PodScheduled"
                && c.status == "False"
                && c.reason.as_deref() == Some("Unschedulable")
                && c.message.as_deref() == Some(message)
        });
    if same {
        return None;
    }
    status.phase = Some("Pending".into());
    super::super::pod::set_condition(
        &mut status,
        super::super::pod::condition(
            "PodScheduled",
            false,
            now,
            Some("Unschedulable"),
            Some(message.to_owned()),
        ),
    );
    Some(status)
}

impl Kubelet {
    /// Leaves a pod that does not fit pending as kube-scheduler does (after evicting the
    /// lower-priority pods preemption chose, nominating the node), and tries it again soon.
    pub(in crate::kubelet) fn unschedulable(
        &mut self,
        key: &PodKey,
        pod: &Pod,
        verdict: Verdict,
        now: Timestamp,
    ) {
        let (message, nominated) = match verdict {
            Verdict::Fits | Verdict::Wait => (None, None),
            Verdict::Pending(message) => (Some(message), None),
            Verdict::Preempt(victims, message) => {
                let node = super::super::target_node(pod);
                for victim in &victims {
                    self.preempt(victim, pod, node.as_deref().unwrap_or_default(), now);
                }
                (Some(message), node)
            }
        };
        if let Some(status) = message
            .as_deref()
            .and_then(|m| unschedulable_status(pod, m, nominated.as_deref(), now))
        {
            let mut next = pod.clone();
            next.status = Some(status);
            match self.store.update_status(next) {
                Ok(written) => {
                    if let Some(message) = message {
                        self.scheduler_events.record(
                            &self.store,
                            &reference(&written),
                            None,
                            Note::warning("FailedScheduling", message),
                            now,
                        );
                    }
                    self.on_pod(&written);
                }
                Err(e) => {
                    tracing::debug!(pod = %key.1, error = %e, "unschedulable status not written")
                }
            }
        }
        let retry = self.settings.kubelet.schedule_delay.max(RETRY);
        self.schedule(key.clone(), super::super::Step::Bind, retry);
    }

    /// Evicts one victim as DefaultPreemption does: a `DisruptionTarget` condition, a
    /// `Preempted` event, then a graceful delete (§k.4).
    fn preempt(&mut self, victim: &PodKey, preemptor: &Pod, node: &str, now: Timestamp) {
        let Some(mut pod) = self.store.get::<Pod>(Some(&victim.0), &victim.1) else {
            return;
        };
        let mut status = pod.status.clone().unwrap_or_default();
        super::super::pod::set_condition(
            &mut status,
            super::super::pod::condition(
                "DisruptionTarget",
                true,
                now,
                Some("PreemptionByScheduler"),
                Some("default-scheduler: preempting to accommodate a higher priority pod".into()),
            ),
        );
        pod.status = Some(status);
        if let Ok(written) = self.store.update_status(pod) {
            self.scheduler_events.record(
                &self.store,
                &reference(&written),
                None,
                Note::normal(
                    "Preempted",
                    format!(
                        "Preempted by pod {} on node {node}",
                        preemptor.metadata.uid.as_deref().unwrap_or_default()
                    ),
                ),
                now,
            );
        }
        if let Err(e) = self.store.delete::<Pod>(Some(&victim.0), &victim.1) {
            tracing::debug!(pod = %victim.1, error = %e, "preemption victim not deleted");
        }
    }
}
