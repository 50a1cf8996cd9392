//! The API server's own readiness, read the way a load balancer reads it: `GET
//! /readyz?verbose` every few seconds.
//!
//! Why: kube-apiserver without etcd keeps every open watch alive from its watch cache, with
//! no event and no error, so the watchers alone would call a cluster "live" whose storage is
//! gone (issue 26). Its `/readyz` says so within seconds (`[-]etcd failed`). The path is a
//! non-resource GET that default RBAC grants to everyone (`system:public-info-viewer`), so
//! reading it needs no new permission and stays read-only. A 401/403/404 (a hardened cluster,
//! an API server without the endpoint) is "unknown", never an outage: the watchers still
//! report what they can.

use crate::cluster::live::Live;
use kube::client::Body;
use std::sync::Arc;
use std::time::Duration;

/// What one poll of `/readyz?verbose` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// 200, or an answer that says nothing about readiness (401, 403, 404).
    Ready,
    /// Answered but not ready: the names of the failing checks (`etcd`, `informer-sync`).
    NotReady {
        /// Check names from the `[-]NAME failed...` lines.
        failing: Vec<String>,
    },
    /// No HTTP answer at all (connection refused, timeout): what the client said.
    Unreachable(String),
}

/// Reads an HTTP answer of `/readyz?verbose`.
pub fn classify(status: u16, body: &str) -> Readiness {
    match status {
        200..=299 | 401 | 403 | 404 => Readiness::Ready,
        _ => Readiness::NotReady {
            failing: failing_checks(body),
        },
    }
}

/// The names of the failing checks in kube-apiserver's verbose format (`[-]etcd failed:
/// reason withheld` gives `etcd`).
pub fn failing_checks(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|line| line.trim().strip_prefix("[-]"))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// What the page says for a not-ready API server: storage first, because without it nothing
/// else the API server says is current.
pub fn cause(failing: &[String]) -> String {
    if failing
        .iter()
        .any(|c| c == "etcd" || c.starts_with("etcd-"))
    {
        "the API server cannot reach its storage (etcd)".to_string()
    } else if failing.is_empty() {
        "the API server reports it is not ready".to_string()
    } else {
        format!(
            "the API server reports it is not ready (failing checks: {})",
            failing.join(", ")
        )
    }
}

/// Whether the failing checks mean the storage is gone (the gauge's `cause` label).
pub fn is_storage(failing: &[String]) -> bool {
    failing
        .iter()
        .any(|c| c == "etcd" || c.starts_with("etcd-"))
}

/// How long one poll may take before it counts as no answer: kube-apiserver without etcd
/// answers `/readyz` only after its etcd check timed out (4 s measured on v1.37.2), so a
/// shorter wait would call a storage outage "unreachable".
fn poll_timeout(every: Duration) -> Duration {
    every.max(Duration::from_secs(10))
}

/// One `GET /readyz?verbose`.
async fn poll_once(client: &kube::Client, every: Duration) -> Readiness {
    let request = match http::Request::get("/readyz?verbose").body(Body::empty()) {
        Ok(request) => request,
        Err(err) => return Readiness::Unreachable(err.to_string()),
    };
    let answer = tokio::time::timeout(poll_timeout(every), async {
        let response = client.send(request).await?;
        let status = response.status().as_u16();
        let bytes = response.into_body().collect_bytes().await?;
        // The verbose list is a few hundred bytes; only its `[-]` lines matter.
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64 * 1024)]).into_owned();
        Ok::<_, kube::Error>((status, text))
    })
    .await;
    match answer {
        Ok(Ok((status, body))) => classify(status, &body),
        Ok(Err(err)) => Readiness::Unreachable(err.to_string()),
        Err(_) => Readiness::Unreachable(format!(
            "no answer to /readyz within {} s",
            poll_timeout(every).as_secs()
        )),
    }
}

/// Polls the API server's readiness every `every` for ever, reporting each answer to `live`
/// (which logs one line when an outage starts and one when it ends).
pub async fn run(client: kube::Client, live: Arc<Live>, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let readiness = poll_once(&client, every).await;
        live.api_readiness(&readiness);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kube-apiserver v1.37.2's answer 4 s after etcd was killed (500; abridged: 31 more
    /// `[+]poststarthook/...` lines).
    const ETCD_DOWN: &str = "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[-]etcd-readiness failed: reason withheld\n[+]informer-sync ok\n[+]poststarthook/start-apiserver-admission-initializer ok\n[+]autoregister-completion ok\n[+]shutdown ok\nreadyz check failed\n";

    #[test]
    fn an_api_server_without_etcd_cannot_reach_its_storage() {
        let readiness = classify(500, ETCD_DOWN);
        assert_eq!(
            readiness,
            Readiness::NotReady {
                failing: vec!["etcd".into(), "etcd-readiness".into()]
            }
        );
        let Readiness::NotReady { failing } = readiness else {
            return;
        };
        assert_eq!(
            cause(&failing),
            "the API server cannot reach its storage (etcd)"
        );
        assert!(is_storage(&failing));
    }

    #[test]
    fn other_failing_checks_are_named() {
        let failing = failing_checks("[+]ping ok\n[-]informer-sync failed: reason withheld\n[-]shutdown failed: reason withheld\nreadyz check failed\n");
        assert_eq!(failing, vec!["informer-sync", "shutdown"]);
        assert_eq!(
            cause(&failing),
            "the API server reports it is not ready (failing checks: informer-sync, shutdown)"
        );
        assert!(!is_storage(&failing));
    }

    #[test]
    fn ready_and_answers_without_a_verdict_are_not_an_outage() {
        assert_eq!(
            classify(200, "[+]ping ok\nreadyz check passed\n"),
            Readiness::Ready
        );
        // RBAC without system:public-info-viewer, or a server without /readyz.
        assert_eq!(classify(403, "forbidden"), Readiness::Ready);
        assert_eq!(classify(404, ""), Readiness::Ready);
        assert!(matches!(
            classify(503, "not ready"),
            Readiness::NotReady { .. }
        ));
    }
}
