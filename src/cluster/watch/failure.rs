//! What a failed watcher means: the text the page shows (which verb on which resource was
//! refused, for which user), whether the data is now stale, and which failures are a relist
//! (410) or a streaming-list refusal rather than an error.

use crate::cluster::state::Scope;
use kube::runtime::watcher;

/// What the page shows for a failed watcher, and whether its data is now stale.
pub(super) fn describe(scope: &Scope, user: &str, err: &watcher::Error) -> (String, bool) {
    let resource = scope.resource();
    let (verb, client_err) = match err {
        watcher::Error::InitialListFailed(e) => ("list", Some(e)),
        watcher::Error::WatchStartFailed(e) | watcher::Error::WatchFailed(e) => ("watch", Some(e)),
        watcher::Error::WatchError(status) => {
            if status.code == 403 {
                let verb = refused_verb(&status.message).unwrap_or("watch");
                return (
                    format!("cannot {verb} {resource}: forbidden for user {user}"),
                    false,
                );
            }
            return (
                format!(
                    "watch of {resource} failed: {} ({})",
                    status.message, status.code
                ),
                false,
            );
        }
        watcher::Error::NoResourceVersion => {
            return (
                format!("cannot watch {resource}: the server sent no resourceVersion"),
                false,
            );
        }
    };
    match client_err {
        Some(kube::Error::Api(status)) if status.code == 403 => {
            // A streaming list is a watch request: the server names the verb it refused.
            let verb = refused_verb(&status.message).unwrap_or(verb);
            (
                format!("cannot {verb} {resource}: forbidden for user {user}"),
                false,
            )
        }
        Some(kube::Error::Api(status)) if status.code == 401 => (
            format!("cannot {verb} {resource}: unauthorized (credentials rejected)"),
            true,
        ),
        Some(kube::Error::Api(status)) => (
            format!(
                "cannot {verb} {resource}: {} ({})",
                status.message, status.code
            ),
            false,
        ),
        Some(other) => (
            format!("connection to the API server lost while watching {resource}: {other}"),
            true,
        ),
        None => (format!("cannot {verb} {resource}"), true),
    }
}

/// The user a 403 names: the API server's own wording (`User "x" cannot list ...`) when it
/// gives one, else the configured user.
pub(super) fn forbidden_user(err: &watcher::Error, configured: &str) -> String {
    let message = match err {
        watcher::Error::InitialListFailed(kube::Error::Api(s))
        | watcher::Error::WatchStartFailed(kube::Error::Api(s))
        | watcher::Error::WatchFailed(kube::Error::Api(s)) => s.message.as_str(),
        watcher::Error::WatchError(s) => s.message.as_str(),
        _ => "",
    };
    message
        .split_once("User \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(user, _)| user.to_string())
        .unwrap_or_else(|| configured.to_string())
}

/// The verb kube-apiserver says it refused (`... cannot watch resource "pods" ...`).
fn refused_verb(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("\" cannot ")?;
    let (verb, tail) = rest.split_once(' ')?;
    (tail.starts_with("resource ") && !verb.is_empty()).then_some(verb)
}

pub(super) fn is_streaming_rejection(err: &watcher::Error) -> bool {
    matches!(
        err,
        watcher::Error::WatchStartFailed(kube::Error::Api(s)) | watcher::Error::InitialListFailed(kube::Error::Api(s))
            if s.code == 422 || s.code == 400
    )
}

pub(super) fn is_forbidden(err: &watcher::Error) -> bool {
    match err {
        watcher::Error::InitialListFailed(kube::Error::Api(s))
        | watcher::Error::WatchStartFailed(kube::Error::Api(s))
        | watcher::Error::WatchFailed(kube::Error::Api(s)) => s.code == 403,
        watcher::Error::WatchError(s) => s.code == 403,
        _ => false,
    }
}

/// A failure below HTTP (connection refused, reset, timed out): the API server gave no answer.
pub fn is_transport(err: &watcher::Error) -> bool {
    match err {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => !matches!(e, kube::Error::Api(_)),
        _ => false,
    }
}

pub(super) fn is_expired(err: &watcher::Error) -> bool {
    matches!(err, watcher::Error::WatchError(s) if s.code == 410)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;

    fn api_error(code: u16, message: &str) -> kube::Error {
        let mut status = Status::failure(message, "Forbidden");
        status.code = code;
        kube::Error::Api(Box::new(status))
    }

    #[test]
    fn a_forbidden_list_reads_cannot_list_pods_forbidden_for_the_user_the_server_names() {
        let err = watcher::Error::InitialListFailed(api_error(
            403,
            "pods is forbidden: User \"system:serviceaccount:default:viewer\" cannot list resource \"pods\"",
        ));
        let user = forbidden_user(&err, "kubeconfig-user");
        let (message, lost) = describe(&Scope::Pods(None), &user, &err);
        assert_eq!(
            message,
            "cannot list pods: forbidden for user system:serviceaccount:default:viewer"
        );
        assert!(!lost, "a 403 is an answer, not a lost connection");
    }

    #[test]
    fn a_forbidden_streaming_list_names_the_verb_the_server_refused() {
        let err = watcher::Error::WatchStartFailed(api_error(
            403,
            "pods is forbidden: User \"system:anonymous\" cannot watch resource \"pods\" in API group \"\" at the cluster scope",
        ));
        let user = forbidden_user(&err, "kubeconfig-user");
        let (message, _) = describe(&Scope::Pods(None), &user, &err);
        assert_eq!(
            message,
            "cannot watch pods: forbidden for user system:anonymous"
        );
        let list = watcher::Error::InitialListFailed(api_error(
            403,
            "pods is forbidden: User \"u\" cannot list resource \"pods\" in API group \"\" in the namespace \"a\"",
        ));
        assert_eq!(
            describe(&Scope::Pods(None), "u", &list).0,
            "cannot list pods: forbidden for user u"
        );
    }

    #[test]
    fn a_forbidden_list_without_a_user_in_the_message_names_the_configured_user() {
        let err = watcher::Error::InitialListFailed(api_error(403, "forbidden"));
        assert_eq!(forbidden_user(&err, "alice"), "alice");
    }

    #[test]
    fn an_expired_watch_is_a_relist_not_an_error() {
        let mut status = Status::failure("too old resource version: 1 (5)", "Expired");
        status.code = 410;
        assert!(is_expired(&watcher::Error::WatchError(Box::new(status))));
    }
}
