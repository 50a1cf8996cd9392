//! The `SimulationSettings` document of a scenario: what the simulated cluster does that no
//! Kubernetes object describes (kubelet delays, images that fail, pod creations that an
//! admission webhook would reject, the speed of time).
//!
//! Why a document of its own: a scenario stays a file of real manifests that `kubectl apply`
//! would also accept, and everything that is simulation-only is in one place a reader can find.

use serde::{Deserialize, Serialize};
use std::time::Duration;

mod api_server;
mod duration;
mod error;
pub use api_server::{ApiServerSettings, DEFAULT_BOOKMARK_INTERVAL};
pub use duration::parse_duration;
use duration::{de_duration, ser_duration};
pub use error::{DurationError, SettingsError, SettingsProblem};

/// `apiVersion` of the settings document.
pub const SETTINGS_API_VERSION: &str = "daemonscope.dev/v1alpha1";
/// `kind` of the settings document.
pub const SETTINGS_KIND: &str = "SimulationSettings";

/// Slowest accepted `speed`: a thousandth of real time.
pub const MIN_SPEED: f64 = 0.001;
/// Fastest accepted `speed`: ten thousand simulated seconds per real second.
pub const MAX_SPEED: f64 = 10_000.0;
/// Longest accepted delay, backoff or update time: one year of simulated time.
pub const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// Everything the simulated cluster needs besides the objects. Every field has a default, so a
/// scenario without a settings document (a plain `kubectl get -o yaml` dump) runs as is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct SimulationSettings {
    /// Simulated seconds per real second: 10 runs a rollout ten times faster.
    pub speed: f64,
    /// Delays of the kubelet stand-in.
    pub kubelet: KubeletSettings,
    /// The DaemonSet controller's knobs.
    pub controller: ControllerSettings,
    /// Images whose containers never become ready, so a rollout can stall.
    pub failing_images: Vec<FailingImage>,
    /// Images whose containers take longer to become ready (a slow readiness probe), so a
    /// rollout completes slowly enough to watch its pace.
    pub slow_images: Vec<SlowImage>,
    /// Pod creations rejected for a DaemonSet on chosen nodes, so a gap can persist.
    pub blocked_creations: Vec<BlockedCreation>,
    /// Template changes made while the simulation runs (as `kubectl set image` would), so a
    /// generated cluster has rollouts in progress.
    pub updates: Vec<ScheduledUpdate>,
    /// Requests the API server refuses with 403, as RBAC would for a user lacking a verb, so
    /// the dashboard's "cannot list pods: forbidden for user X" can be seen and tested.
    pub forbidden: Vec<ForbiddenRule>,
    /// The API server's own behaviour over time: bookmarks, storage reachability.
    pub api_server: ApiServerSettings,
}

impl Default for SimulationSettings {
    fn default() -> Self {
        SimulationSettings {
            speed: 1.0,
            kubelet: KubeletSettings::default(),
            controller: ControllerSettings::default(),
            failing_images: Vec::new(),
            slow_images: Vec::new(),
            blocked_creations: Vec::new(),
            updates: Vec::new(),
            forbidden: Vec::new(),
            api_server: ApiServerSettings::default(),
        }
    }
}

/// One refusal: every request for `resource` with one of `verbs` gets 403 Forbidden, exactly
/// as kube-apiserver answers a user whose roles do not grant the verb.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForbiddenRule {
    /// Plural resource name as in RBAC rules (`pods`, `daemonsets`, `events`), or `*`.
    pub resource: String,
    /// Verbs refused (`get`, `list`, `watch`, `create`, ...); empty or `*` refuses all.
    #[serde(default)]
    pub verbs: Vec<String>,
}

impl ForbiddenRule {
    /// Whether this rule refuses `verb` on `resource`.
    pub fn refuses(&self, resource: &str, verb: &str) -> bool {
        (self.resource == "*" || self.resource == resource)
            && (self.verbs.is_empty() || self.verbs.iter().any(|v| v == "*" || v == verb))
    }
}

/// How long the kubelet stand-in takes for each step of a pod's life (simulated time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct KubeletSettings {
    /// From creation to `spec.nodeName` being set (the scheduler's bind).
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub schedule_delay: Duration,
    /// From bind to the containers running (image pull, sandbox): `ContainerCreating`.
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub container_creating_delay: Duration,
    /// From running to the Ready condition turning True (readiness probe).
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub ready_delay: Duration,
    /// From a pod's deletionTimestamp to its removal.
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub termination_grace_period: Duration,
    /// Time between two restarts of a crash-looping container.
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub crash_loop_restart_interval: Duration,
}

impl Default for KubeletSettings {
    fn default() -> Self {
        KubeletSettings {
            schedule_delay: Duration::from_millis(500),
            container_creating_delay: Duration::from_secs(2),
            ready_delay: Duration::from_secs(1),
            termination_grace_period: Duration::from_secs(2),
            crash_loop_restart_interval: Duration::from_secs(20),
        }
    }
}

/// The DaemonSet controller's tunables; the defaults are the real controller's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ControllerSettings {
    /// At most this many creates and this many deletes per sync (`BurstReplicas`, §a.7).
    pub burst_replicas: usize,
    /// First retry delay after a rejected pod creation; doubles up to `max_backoff`.
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub initial_backoff: Duration,
    /// Ceiling of the creation retry delay.
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub max_backoff: Duration,
}

impl Default for ControllerSettings {
    fn default() -> Self {
        ControllerSettings {
            burst_replicas: 250,
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(60),
        }
    }
}

/// How a failing image fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailureMode {
    /// The container starts, exits, and is restarted with a growing restart count.
    CrashLoopBackOff,
    /// The image cannot be pulled: the pod stays Pending.
    ImagePullBackOff,
    /// The container runs but its readiness probe never passes.
    NeverReady,
}

/// An image whose containers never become ready.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FailingImage {
    /// The exact image reference as written in the pod template.
    pub image: String,
    /// Defaults to CrashLoopBackOff.
    #[serde(default = "default_failure_mode")]
    pub mode: FailureMode,
    /// The waiting message shown on the container; a default is derived from the mode.
    #[serde(default)]
    pub message: Option<String>,
}

/// An image whose containers become ready only after `readyDelay` (instead of the kubelet's
/// `readyDelay`): a readiness probe that passes late.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SlowImage {
    /// The exact image reference as written in the pod template.
    pub image: String,
    /// From running to Ready, simulated time.
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub ready_delay: Duration,
}

fn default_failure_mode() -> FailureMode {
    FailureMode::CrashLoopBackOff
}

/// Pod creation for one DaemonSet rejected on some nodes, as a ResourceQuota or an admission
/// webhook would reject it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockedCreation {
    /// `namespace/name` of the DaemonSet.
    pub daemon_set: String,
    /// Node names; empty means every node.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// The rejection the API server returns (the FailedCreate event says "Error creating: …").
    pub message: String,
}

/// A `kubectl set image` the simulation performs by itself after some simulated time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScheduledUpdate {
    /// `namespace/name` of the DaemonSet.
    pub daemon_set: String,
    /// The container to change; the first one when left out.
    #[serde(default)]
    pub container: Option<String>,
    /// The new image.
    pub image: String,
    /// Simulated time after start.
    #[serde(deserialize_with = "de_duration", serialize_with = "ser_duration")]
    pub after: Duration,
}

impl BlockedCreation {
    /// Whether a creation for this DaemonSet on this node is rejected.
    pub fn blocks(&self, namespace: &str, name: &str, node: &str) -> bool {
        let matches_ds = self
            .daemon_set
            .split_once('/')
            .is_some_and(|(ns, n)| ns == namespace && n == name);
        matches_ds && (self.nodes.is_empty() || self.nodes.iter().any(|n| n == node))
    }
}

impl SimulationSettings {
    /// Checks what serde cannot: a speed and durations in a range the clock can represent,
    /// `namespace/name` references. Why the ranges: speed 1e20 or a delay of 1e19 s used to
    /// overflow the simulated clock and kill the API, the kubelet or the controller (issue 15).
    pub fn validate(&self) -> Result<(), SettingsError> {
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err(SettingsError::new(
                "spec.speed",
                SettingsProblem::NotPositive(self.speed),
            ));
        }
        if !(MIN_SPEED..=MAX_SPEED).contains(&self.speed) {
            return Err(SettingsError::new(
                "spec.speed",
                SettingsProblem::SpeedOutOfRange(self.speed),
            ));
        }
        let k = &self.kubelet;
        let c = &self.controller;
        let mut durations = vec![
            ("spec.kubelet.scheduleDelay".to_string(), k.schedule_delay),
            (
                "spec.kubelet.containerCreatingDelay".to_string(),
                k.container_creating_delay,
            ),
            ("spec.kubelet.readyDelay".to_string(), k.ready_delay),
            (
                "spec.kubelet.terminationGracePeriod".to_string(),
                k.termination_grace_period,
            ),
            (
                "spec.kubelet.crashLoopRestartInterval".to_string(),
                k.crash_loop_restart_interval,
            ),
            (
                "spec.controller.initialBackoff".to_string(),
                c.initial_backoff,
            ),
            ("spec.controller.maxBackoff".to_string(), c.max_backoff),
            (
                "spec.apiServer.bookmarkInterval".to_string(),
                self.api_server.bookmark_interval,
            ),
        ];
        for (i, u) in self.updates.iter().enumerate() {
            durations.push((format!("spec.updates[{i}].after"), u.after));
        }
        for (i, slow) in self.slow_images.iter().enumerate() {
            durations.push((format!("spec.slowImages[{i}].readyDelay"), slow.ready_delay));
        }
        for (field, value) in durations {
            if value > MAX_DURATION {
                return Err(SettingsError::new(
                    field,
                    SettingsProblem::DurationTooLong {
                        secs: value.as_secs(),
                    },
                ));
            }
        }
        if self.api_server.bookmark_interval.is_zero() {
            return Err(SettingsError::new(
                "spec.apiServer.bookmarkInterval",
                SettingsProblem::Zero,
            ));
        }
        if self.controller.burst_replicas == 0 {
            return Err(SettingsError::new(
                "spec.controller.burstReplicas",
                SettingsProblem::Zero,
            ));
        }
        for (i, b) in self.blocked_creations.iter().enumerate() {
            if !is_namespaced_name(&b.daemon_set) {
                return Err(SettingsError::new(
                    format!("spec.blockedCreations[{i}].daemonSet"),
                    SettingsProblem::NotNamespacedName(b.daemon_set.clone()),
                ));
            }
        }
        for (i, u) in self.updates.iter().enumerate() {
            if !is_namespaced_name(&u.daemon_set) {
                return Err(SettingsError::new(
                    format!("spec.updates[{i}].daemonSet"),
                    SettingsProblem::NotNamespacedName(u.daemon_set.clone()),
                ));
            }
            if u.image.trim().is_empty() {
                return Err(SettingsError::new(
                    format!("spec.updates[{i}].image"),
                    SettingsProblem::Empty,
                ));
            }
        }
        for (i, f) in self.forbidden.iter().enumerate() {
            if f.resource.trim().is_empty() {
                return Err(SettingsError::new(
                    format!("spec.forbidden[{i}].resource"),
                    SettingsProblem::Empty,
                ));
            }
        }
        for (i, f) in self.failing_images.iter().enumerate() {
            if f.image.trim().is_empty() {
                return Err(SettingsError::new(
                    format!("spec.failingImages[{i}].image"),
                    SettingsProblem::Empty,
                ));
            }
        }
        Ok(())
    }

    /// The failure configured for an image, if any.
    pub fn failure_for(&self, image: &str) -> Option<&FailingImage> {
        self.failing_images.iter().find(|f| f.image == image)
    }

    /// How long a pod with these images takes from running to Ready: the slowest configured
    /// slow image among them, else the kubelet's `readyDelay`.
    pub fn ready_delay_for<'a>(&self, images: impl IntoIterator<Item = &'a str>) -> Duration {
        images
            .into_iter()
            .filter_map(|image| self.slow_images.iter().find(|s| s.image == image))
            .map(|s| s.ready_delay)
            .max()
            .unwrap_or(self.kubelet.ready_delay)
    }

    /// The rejection message for a creation, if one is configured.
    pub fn blocked(&self, namespace: &str, name: &str, node: &str) -> Option<&str> {
        self.blocked_creations
            .iter()
            .find(|b| b.blocks(namespace, name, node))
            .map(|b| b.message.as_str())
    }
}

fn is_namespaced_name(text: &str) -> bool {
    text.split_once('/')
        .is_some_and(|(ns, n)| !ns.is_empty() && !n.is_empty() && !n.contains('/'))
}

#[cfg(test)]
mod tests;
