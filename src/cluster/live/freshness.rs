//! Whether what the page shows is current: the API server's own readiness and watches that
//! went quiet, beside the per-watcher health the watchers report.
//!
//! Why a state of its own: "live" must mean the cluster can be read right now (issue 26). A
//! watch can stay open and healthy-looking while its API server has lost etcd, or while a
//! proxy holds the connection and forwards nothing. This records both causes with since
//! when, for the banner (as the `API server` health line, or the quiet watcher's own line),
//! `/readyz` (503 with the cause), the `daemonscope_cluster_reachable` gauge, and the log (one
//! WARN when an outage starts, one INFO with its length when it ends, instead of an ERROR per
//! retry).

use super::{unix_now, Live};
use crate::cluster::readiness::{self, Readiness};
use crate::cluster::state::Scope;
use crate::domain::view::ResourceHealth;
use std::collections::BTreeMap;
use tokio::time::Instant;

/// The health line the API server's readiness is shown under.
pub const API_SERVER: &str = "API server";

/// Why the cluster cannot be read now; the gauge's `cause` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// No HTTP answer from the API server.
    ApiServerUnreachable,
    /// The API server answers but has lost its storage (etcd).
    StorageUnavailable,
    /// The API server answers but reports another failing readiness check.
    ApiServerNotReady,
    /// A watch delivered neither an event nor a bookmark for the bound.
    WatchSilent,
}

impl Cause {
    /// The `cause` label value.
    pub fn label(self) -> &'static str {
        match self {
            Cause::ApiServerUnreachable => "apiserver_unreachable",
            Cause::StorageUnavailable => "storage_unavailable",
            Cause::ApiServerNotReady => "apiserver_not_ready",
            Cause::WatchSilent => "watch_silent",
        }
    }
}

/// An ongoing outage of the API server.
#[derive(Debug, Clone, PartialEq)]
pub struct Outage {
    /// Which kind.
    pub cause: Cause,
    /// What the page and `/readyz` say.
    pub text: String,
    /// Unix seconds when it began (the banner's "since").
    pub since: i64,
    /// When it began, for the length logged at its end.
    pub started: Instant,
}

/// The freshness state: the API server's outage, if any, and the quiet watches.
#[derive(Debug, Default)]
pub struct Freshness {
    api: Option<Outage>,
    /// Scope label -> unix seconds since it is quiet.
    silent: BTreeMap<String, (i64, String)>,
}

/// What changed with one readiness answer (for the log).
#[derive(Debug, Clone, PartialEq)]
pub enum Transition {
    /// An outage began.
    Started(Outage),
    /// The same outage, another cause (a restarting kube-apiserver is unreachable, then
    /// without etcd, then finishing its post-start hooks): since when stays the outage's.
    Changed(Outage),
    /// An outage ended after `lasted` seconds.
    Ended(Outage, f64),
}

impl Freshness {
    /// Records one readiness answer at `now` (unix `now_unix`); returns what began or ended.
    pub fn set_api(
        &mut self,
        readiness: &Readiness,
        now_unix: i64,
        now: Instant,
    ) -> Vec<Transition> {
        let wanted = match readiness {
            Readiness::Ready => None,
            Readiness::Unreachable(err) => Some((
                Cause::ApiServerUnreachable,
                format!("cannot reach the API server: {err}"),
            )),
            Readiness::NotReady { failing } => Some((
                if readiness::is_storage(failing) {
                    Cause::StorageUnavailable
                } else {
                    Cause::ApiServerNotReady
                },
                readiness::cause(failing),
            )),
        };
        let transition = match (self.api.take(), wanted) {
            (None, None) => None,
            (Some(current), Some((cause, _))) if current.cause == cause => {
                self.api = Some(current);
                None
            }
            (Some(current), Some((cause, text))) => {
                let changed = Outage {
                    cause,
                    text,
                    ..current
                };
                self.api = Some(changed.clone());
                Some(Transition::Changed(changed))
            }
            (None, Some((cause, text))) => {
                let started = Outage {
                    cause,
                    text,
                    since: now_unix,
                    started: now,
                };
                self.api = Some(started.clone());
                Some(Transition::Started(started))
            }
            (Some(ended), None) => {
                let lasted = now.saturating_duration_since(ended.started).as_secs_f64();
                Some(Transition::Ended(ended, lasted))
            }
        };
        transition.into_iter().collect()
    }

    /// The API server's outage, if any.
    pub fn api(&self) -> Option<&Outage> {
        self.api.as_ref()
    }

    /// A watch went quiet (`text` says which and for how long).
    pub fn set_silent(&mut self, scope: &str, text: String, now_unix: i64) {
        self.silent
            .entry(scope.to_string())
            .or_insert((now_unix, text));
    }

    /// A watch delivered again (its relist completed).
    pub fn clear_silent(&mut self, scope: &str) -> bool {
        self.silent.remove(scope).is_some()
    }

    /// The cause that keeps the cluster from being read now, worst first: an unreachable or
    /// unready API server explains every quiet watch, so it wins.
    pub fn cause(&self) -> Option<(Cause, String, i64)> {
        if let Some(api) = &self.api {
            return Some((api.cause, api.text.clone(), api.since));
        }
        self.silent
            .values()
            .next()
            .map(|(since, text)| (Cause::WatchSilent, text.clone(), *since))
    }
}

impl Live {
    fn freshness(&self) -> std::sync::MutexGuard<'_, Freshness> {
        self.freshness
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Why the cluster cannot be read now, with since when (`/readyz`, the gauge).
    pub fn unreadable(&self) -> Option<(Cause, String, i64)> {
        self.freshness().cause()
    }

    fn publish_reachability(&self) {
        let cause = self.freshness().cause().map(|(c, _, _)| c.label());
        self.metrics.set_reachable(cause);
    }

    /// One answer of the API server's `/readyz` (see `cluster::readiness`). A storage or
    /// readiness failure shows as the `API server` health line, stale since it began; an
    /// unreachable API server adds no line (its watchers already say so, as before).
    pub fn api_readiness(&self, readiness: &Readiness) -> Option<u64> {
        let transitions = self
            .freshness()
            .set_api(readiness, unix_now(), Instant::now());
        for transition in &transitions {
            match transition {
                Transition::Started(outage) => {
                    tracing::warn!(cause = outage.cause.label(), "{}", outage.text)
                }
                Transition::Changed(outage) => {
                    tracing::debug!(cause = outage.cause.label(), "still out: {}", outage.text)
                }
                Transition::Ended(outage, lasted) => tracing::info!(
                    cause = outage.cause.label(),
                    "the API server is back after {lasted:.1} s (last cause: {})",
                    outage.text
                ),
            }
        }
        if transitions.is_empty() {
            return None;
        }
        self.publish_reachability();
        let shown = self
            .freshness()
            .api()
            .filter(|o| o.cause != Cause::ApiServerUnreachable)
            .cloned();
        let health = match shown {
            Some(outage) => ResourceHealth {
                resource: API_SERVER.to_string(),
                synced: false,
                error: Some(outage.text),
                stale_since: Some(outage.since),
            },
            None => ResourceHealth {
                resource: API_SERVER.to_string(),
                synced: true,
                error: None,
                stale_since: None,
            },
        };
        let mut inner = self.lock();
        let delta = inner.state.set_health(health)?;
        inner.feed.publish(vec![delta])
    }

    /// A watch that delivered neither an event nor a bookmark for the bound: shown stale
    /// until its restart has listed again (`replace` clears it).
    pub fn watch_silent(&self, scope: &Scope, message: String) -> Option<u64> {
        self.freshness()
            .set_silent(&scope.label(), message.clone(), unix_now());
        self.publish_reachability();
        self.watch_failed(scope, message, true)
    }

    /// A (re)list completed: the scope delivers again.
    pub(super) fn watch_delivering(&self, scope: &Scope) {
        if self.freshness().clear_silent(&scope.label()) {
            self.publish_reachability();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn storage_down() -> Readiness {
        Readiness::NotReady {
            failing: vec!["etcd".into()],
        }
    }

    #[test]
    fn an_outage_starts_once_and_ends_once_with_its_length() {
        let mut f = Freshness::default();
        let t0 = Instant::now();
        assert!(f.set_api(&Readiness::Ready, 100, t0).is_empty());
        let started = f.set_api(&storage_down(), 100, t0);
        assert!(
            matches!(&started[..], [Transition::Started(o)] if o.cause == Cause::StorageUnavailable && o.since == 100)
        );
        // Polled again and again during the outage: nothing new to say.
        for i in 1..10 {
            assert!(f
                .set_api(&storage_down(), 100 + i, t0 + Duration::from_secs(i as u64))
                .is_empty());
        }
        let ended = f.set_api(&Readiness::Ready, 112, t0 + Duration::from_secs(12));
        assert!(
            matches!(&ended[..], [Transition::Ended(o, lasted)] if o.cause == Cause::StorageUnavailable && (*lasted - 12.0).abs() < 0.01)
        );
        assert_eq!(f.cause(), None);
    }

    #[test]
    fn the_api_servers_outage_explains_a_quiet_watch_so_it_is_the_cause_shown() {
        let mut f = Freshness::default();
        f.set_silent("pods", "no event or bookmark from pods for 3 s".into(), 50);
        assert_eq!(f.cause().map(|c| c.0), Some(Cause::WatchSilent));
        f.set_api(&storage_down(), 60, Instant::now());
        let (cause, text, since) = f.cause().unwrap_or((Cause::WatchSilent, String::new(), 0));
        assert_eq!(cause, Cause::StorageUnavailable);
        assert_eq!(text, "the API server cannot reach its storage (etcd)");
        assert_eq!(since, 60);
        f.set_api(&Readiness::Ready, 70, Instant::now());
        assert!(f.clear_silent("pods"));
        assert_eq!(f.cause(), None);
    }

    #[test]
    fn a_restarting_api_server_is_one_outage_through_its_causes_with_one_start_and_one_end() {
        // Measured on kube-apiserver v1.37.2 killed for 10 s: unreachable, then 1 s without
        // etcd, then 2 s of post-start hooks, then ready.
        let mut f = Freshness::default();
        let t0 = Instant::now();
        let steps = [
            Readiness::Unreachable("connection refused".into()),
            storage_down(),
            Readiness::NotReady {
                failing: vec!["poststarthook/rbac/bootstrap-roles".into()],
            },
        ];
        let mut all = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            all.extend(f.set_api(step, 10 + i as i64, t0 + Duration::from_secs(i as u64)));
        }
        assert_eq!(
            f.cause().map(|c| (c.0, c.2)),
            Some((Cause::ApiServerNotReady, 10))
        );
        all.extend(f.set_api(&Readiness::Ready, 20, t0 + Duration::from_secs(10)));
        let kinds: Vec<&str> = all
            .iter()
            .map(|t| match t {
                Transition::Started(_) => "started",
                Transition::Changed(_) => "changed",
                Transition::Ended(..) => "ended",
            })
            .collect();
        assert_eq!(kinds, ["started", "changed", "changed", "ended"]);
        assert!(
            matches!(all.last(), Some(Transition::Ended(_, lasted)) if (*lasted - 10.0).abs() < 0.01)
        );
    }
}
