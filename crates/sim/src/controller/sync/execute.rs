//! Carrying out one sync's plan against the store: deletes, then creates in slow-start
//! batches, within the burst limit, with events and the create and failed-pod backoffs.

use super::super::cache::PodCache;
use super::super::pods::new_pod;
use super::{Requeue, Syncer};
use crate::domain::facts::DaemonSetFacts;
use crate::domain::scheduling::daemon_pod_tolerations;
use crate::edge::convert::pod_facts;
use crate::recorder::Severity;
use crate::store::StoreError;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;
use rand::seq::SliceRandom;
use std::time::Duration;

/// What carrying out a plan did.
pub(super) struct Outcome {
    /// A pod was created or deleted.
    pub changed: bool,
    /// A create or delete failed.
    pub failed: bool,
}

/// A pod the sync wants gone, and why.
pub(super) struct Doomed {
    pub uid: String,
    pub name: String,
    pub node: String,
    pub kind: DeleteKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum DeleteKind {
    Plain,
    Failed,
    Succeeded,
}

impl Syncer {
    /// Deletes then creates, within the burst limit, with events, backoffs and slow start.
    /// Returns whether anything was created or deleted.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn execute(
        &mut self,
        cache: &mut PodCache,
        ds: &DaemonSet,
        facts: &DaemonSetFacts,
        hash: &str,
        mut creates: Vec<String>,
        doomed: Vec<Doomed>,
        requeue: &mut Requeue,
    ) -> Outcome {
        let burst = self.settings.controller.burst_replicas;
        let elapsed = self.clock.elapsed();
        let mut changed = false;
        let mut any_failed = false;
        let namespace = facts.namespace.as_str();
        let observed = facts.status.as_ref().map_or(0, |s| s.observed_generation);
        let mut deletes = 0;
        for d in doomed {
            if deletes >= burst {
                requeue.at_most(Duration::ZERO);
                break;
            }
            match d.kind {
                DeleteKind::Failed => {
                    let key = (facts.uid.clone(), observed, d.node.clone());
                    if let Some((until, _)) = self
                        .failed_backoff
                        .get(&key)
                        .filter(|(until, _)| *until > elapsed)
                    {
                        requeue.at_most(*until - elapsed);
                        continue;
                    }
                    let delay = self
                        .failed_backoff
                        .get(&key)
                        .map_or(Duration::from_secs(1), |(_, d)| {
                            d.saturating_mul(2).min(Duration::from_secs(900))
                        });
                    self.failed_backoff
                        .insert(key, (elapsed.saturating_add(delay), delay));
                    let msg = format!(
                        "Found failed daemon pod {namespace}/{} on node {}, will try to kill it",
                        d.name, d.node
                    );
                    self.event(ds, Severity::Warning, "FailedDaemonPod", msg);
                }
                DeleteKind::Succeeded => {
                    let msg = format!("Found succeeded daemon pod {namespace}/{} on node {}, will try to delete it", d.name, d.node);
                    self.event(ds, Severity::Normal, "SucceededDaemonPod", msg);
                }
                DeleteKind::Plain => {}
            }
            deletes += 1;
            match self.store.delete::<Pod>(Some(namespace), &d.name) {
                Ok(()) => {
                    changed = true;
                    cache.mark_deleted(&facts.uid, &d.uid);
                    self.event(
                        ds,
                        Severity::Normal,
                        "SuccessfulDelete",
                        format!("Deleted pod: {}", d.name),
                    );
                }
                Err(StoreError::NotFound { .. }) => {}
                Err(e) => self.event(
                    ds,
                    Severity::Warning,
                    "FailedDelete",
                    format!("Error deleting: {e}"),
                ),
            }
        }

        creates.shuffle(&mut self.rng);
        if creates.len() > burst {
            creates.truncate(burst);
            requeue.at_most(Duration::ZERO);
        }
        let tolerations = daemon_pod_tolerations(&facts.template);
        // Slow start (DC `syncNodes`): batches of 1, 2, 4, ...; a batch with a failure ends it.
        let mut batch = 1;
        let mut queue = creates.into_iter().peekable();
        while queue.peek().is_some() {
            let mut failed = false;
            for node in queue.by_ref().take(batch) {
                let key = (facts.uid.clone(), node.clone());
                if let Some((until, _)) = self
                    .create_backoff
                    .get(&key)
                    .filter(|(until, _)| *until > elapsed)
                {
                    requeue.at_most(*until - elapsed);
                    continue;
                }
                let result = match self.settings.blocked(namespace, &facts.name, &node) {
                    Some(message) => Err(message.to_string()),
                    None => {
                        let pod = new_pod(ds, &node, hash, &tolerations);
                        // §l.3: Pod Security admission, as kube-apiserver runs it on the
                        // controller's create.
                        // §k.5 first: the Priority admission is a mutating plugin.
                        // §l.6: ResourceQuota last, as kube-apiserver orders its plugins.
                        let refused = crate::api::priority::refusal(&self.store, &pod)
                            .or_else(|| {
                                crate::api::pod_security::refusal(&self.store, namespace, &pod)
                            })
                            .or_else(|| crate::quota::refusal(&self.store, namespace, &pod));
                        match refused {
                            Some(message) => Err(message),
                            None => self.store.create(pod).map_err(|e| e.to_string()),
                        }
                    }
                };
                match result {
                    Ok(pod) => {
                        changed = true;
                        let rv = pod
                            .metadata
                            .resource_version
                            .as_deref()
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(0);
                        let name = pod.metadata.name.clone().unwrap_or_default();
                        cache.put_pod(rv, pod_facts(&pod));
                        self.create_backoff.remove(&key);
                        self.event(
                            ds,
                            Severity::Normal,
                            "SuccessfulCreate",
                            format!("Created pod: {name}"),
                        );
                    }
                    Err(message) => {
                        failed = true;
                        any_failed = true;
                        let c = &self.settings.controller;
                        let delay = self
                            .create_backoff
                            .get(&key)
                            .map_or(c.initial_backoff, |(_, d)| {
                                d.saturating_mul(2).min(c.max_backoff)
                            });
                        self.create_backoff
                            .insert(key, (elapsed.saturating_add(delay), delay));
                        requeue.at_most(delay);
                        self.event(
                            ds,
                            Severity::Warning,
                            "FailedCreate",
                            format!("Error creating: {message}"),
                        );
                    }
                }
            }
            if failed {
                if queue.peek().is_some() {
                    requeue.at_most(self.settings.controller.initial_backoff);
                }
                break;
            }
            batch *= 2;
        }
        Outcome {
            changed,
            failed: any_failed,
        }
    }
}
