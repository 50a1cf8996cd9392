//! The simulated API server's `/readyz`, in kube-apiserver's format, over the supervised
//! controller tasks: a controller that panicked and waits to restart makes the cluster unready.

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use super::ApiState;

/// kube-apiserver's `/readyz`: "ok", or with `?verbose` one `[+]`/`[-]` line per check; HTTP
/// 500 ending "readyz check failed" when any fails. Here the checks are the controller tasks:
/// one that panicked and waits to restart fails, with its restart count and panic message.
pub(super) async fn readyz(State(state): State<ApiState>, uri: Uri) -> Response {
    let verbose = uri.query().is_some_and(|q| {
        q.split('&')
            .any(|p| p == "verbose" || p.starts_with("verbose="))
    });
    let (ready, body) = readyz_report(state.settings.storage.is_available(), &state.tasks.report());
    match (ready, verbose) {
        (true, false) => "ok".into_response(),
        (true, true) => body.into_response(),
        (false, _) => (StatusCode::INTERNAL_SERVER_ERROR, body).into_response(),
    }
}

/// The verbose `/readyz` text for the storage and these tasks, and whether all are up. The
/// storage check fails the way kube-apiserver's does without etcd: `[-]etcd failed: reason
/// withheld` (the reason is only given to privileged users, in the server's log).
fn readyz_report(
    storage: bool,
    tasks: &[(String, daemonscope_supervise::TaskHealth)],
) -> (bool, String) {
    let mut body = String::from("[+]ping ok\n[+]log ok\n");
    let mut ready = storage;
    body.push_str(if storage {
        "[+]etcd ok\n[+]etcd-readiness ok\n"
    } else {
        "[-]etcd failed: reason withheld\n[-]etcd-readiness failed: reason withheld\n"
    });
    for (name, health) in tasks {
        if health.running || health.finished {
            body.push_str(&format!("[+]{name} ok (restarts: {})\n", health.restarts));
        } else {
            ready = false;
            body.push_str(&format!(
                "[-]{name} failed: panicked, restarts so far {}: {}\n",
                health.restarts,
                health.last_panic.as_deref().unwrap_or("no message")
            ));
        }
    }
    body.push_str(if ready {
        "readyz check passed\n"
    } else {
        "readyz check failed\n"
    });
    (ready, body)
}

#[cfg(test)]
mod readyz_tests {
    use super::readyz_report;
    use daemonscope_supervise::Supervisor;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn a_controller_task_down_after_a_panic_fails_readyz_with_its_message() {
        let tasks = Supervisor::new();
        let _evictor = tasks.spawn("taint-eviction-controller", || async {
            panic!("overflow when adding duration to instant");
        });
        let _kubelet = tasks.spawn("kubelet", std::future::pending::<()>);
        tokio::time::sleep(Duration::from_millis(10)).await;
        let (ready, body) = readyz_report(true, &tasks.report());
        assert!(!ready);
        assert!(body.contains("[+]kubelet ok (restarts: 0)"), "{body}");
        assert!(
            body.contains("[-]taint-eviction-controller failed: panicked, restarts so far 0: overflow when adding duration to instant"),
            "{body}"
        );
        assert!(body.ends_with("readyz check failed\n"), "{body}");
        assert!(body.contains("[+]etcd ok\n"), "{body}");
        // Started again after the 1 s backoff, it panicked once more: the count says so.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let (_, body) = readyz_report(true, &tasks.report());
        assert!(
            body.contains("[-]taint-eviction-controller failed: panicked, restarts so far 1:"),
            "{body}"
        );
    }

    #[test]
    fn without_its_storage_readyz_fails_the_etcd_check_as_kube_apiserver_words_it() {
        let (ready, body) = readyz_report(false, &[]);
        assert!(!ready);
        assert!(
            body.contains(
                "\n[-]etcd failed: reason withheld\n[-]etcd-readiness failed: reason withheld\n"
            ),
            "{body}"
        );
        assert!(body.ends_with("readyz check failed\n"), "{body}");
        assert!(readyz_report(true, &[]).0);
    }
}
