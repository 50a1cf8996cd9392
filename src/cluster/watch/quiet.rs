//! Watches that go quiet: a watch from which neither an event nor a bookmark (nor any other
//! byte, see `cluster::activity`) arrived for a bound is suspect, and is restarted.
//!
//! Why a bound of a bit over twice the bookmark period: kube-apiserver sends an idle watch that
//! asked for bookmarks one about every minute (its watch cache's `bookmarkFrequency`), and
//! one more 2 s before the watch's `timeoutSeconds` ends. Why each watch also asks for a
//! timeout of half the bound (65 s by default instead of kube-rs' 290 s): the stream then ends
//! within the bound even from a server that sends no bookmarks (an older or API-compatible
//! one), and kube-rs resumes it from its last resourceVersion (no relist), so a healthy idle
//! watch is never taken for a quiet one. That costs one request per watched resource per half
//! bound.

use crate::cluster::state::Scope;
use std::time::Duration;

/// kube-rs' default watch timeout (`timeoutSeconds=290`), the longest asked for.
const KUBE_WATCH_TIMEOUT_SECS: u32 = 290;

/// The default bound: a bit over twice kube-apiserver's one-minute bookmark period.
pub const DEFAULT_QUIET_AFTER: Duration = Duration::from_secs(130);

/// The default period of the API server readiness poll.
pub const DEFAULT_READYZ_EVERY: Duration = Duration::from_secs(2);

/// How the freshness checks are paced (`serve --watch-quiet-after`, `--readyz-every`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Freshness {
    /// A watch silent for this long is restarted and shown stale.
    pub quiet_after: Duration,
    /// How often the API server's `/readyz?verbose` is read.
    pub readyz_every: Duration,
}

impl Default for Freshness {
    fn default() -> Self {
        Freshness {
            quiet_after: DEFAULT_QUIET_AFTER,
            readyz_every: DEFAULT_READYZ_EVERY,
        }
    }
}

/// The `timeoutSeconds` asked of each watch: half the bound, at least 2 s, at most kube-rs'
/// 290 s.
pub fn watch_timeout(quiet_after: Duration) -> u32 {
    let half = u32::try_from(quiet_after.as_secs() / 2).unwrap_or(KUBE_WATCH_TIMEOUT_SECS);
    half.clamp(2, KUBE_WATCH_TIMEOUT_SECS)
}

/// How often a session checks its silence: a tenth of the bound (at least every 100 ms, at
/// most every 10 s), so a quiet watch is restarted within 110 % of the bound.
pub fn check_every(quiet_after: Duration) -> Duration {
    (quiet_after / 10).clamp(Duration::from_millis(100), Duration::from_secs(10))
}

/// The request path of a scope's lists and watches (what `cluster::activity` keys on).
pub fn scope_path(scope: &Scope) -> String {
    let (prefix, plural, namespace) = match scope {
        Scope::Nodes => ("/api/v1", "nodes", None),
        Scope::Pods(ns) => ("/api/v1", "pods", ns.as_deref()),
        Scope::DaemonSets(ns) => ("/apis/apps/v1", "daemonsets", ns.as_deref()),
        Scope::Revisions(ns) => ("/apis/apps/v1", "controllerrevisions", ns.as_deref()),
    };
    match namespace {
        Some(ns) => format!("{prefix}/namespaces/{ns}/{plural}"),
        None => format!("{prefix}/{plural}"),
    }
}

/// What the page says about a quiet watch.
pub fn quiet_message(scope: &Scope, quiet_after: Duration) -> String {
    format!(
        "no event or bookmark from the {} watch for {} s: restarting it",
        scope.resource(),
        quiet_after.as_secs_f64().round()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_watch_ends_within_half_the_bound_so_no_bookmark_is_needed_to_stay_inside_it() {
        assert_eq!(watch_timeout(DEFAULT_QUIET_AFTER), 65);
        assert_eq!(watch_timeout(Duration::from_secs(600)), 290);
        assert_eq!(watch_timeout(Duration::from_secs(3600)), 290);
        assert_eq!(watch_timeout(Duration::from_secs(60)), 30);
        assert_eq!(watch_timeout(Duration::from_secs(3)), 2);
    }

    #[test]
    fn a_quiet_watch_is_noticed_within_a_tenth_of_the_bound() {
        assert_eq!(check_every(DEFAULT_QUIET_AFTER), Duration::from_secs(10));
        assert_eq!(
            check_every(Duration::from_secs(3)),
            Duration::from_millis(300)
        );
        assert_eq!(
            check_every(Duration::from_millis(200)),
            Duration::from_millis(100)
        );
    }

    #[test]
    fn each_scope_is_keyed_by_the_path_kube_rs_requests() {
        assert_eq!(scope_path(&Scope::Nodes), "/api/v1/nodes");
        assert_eq!(scope_path(&Scope::Pods(None)), "/api/v1/pods");
        assert_eq!(
            scope_path(&Scope::DaemonSets(Some("kube-system".into()))),
            "/apis/apps/v1/namespaces/kube-system/daemonsets"
        );
        assert_eq!(
            scope_path(&Scope::Revisions(None)),
            "/apis/apps/v1/controllerrevisions"
        );
    }
}
