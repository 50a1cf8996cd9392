//! Which state a LIST reads: `resourceVersion`, `resourceVersionMatch` and `continue` as
//! kube-apiserver validates and serves them (apimachinery's `ValidateListOptions`, the storage
//! layer's `ListReadConsistency`, the watch cache's wait for freshness).
//!
//! Why: clients rely on these rules. kube-rs asks for `resourceVersion=0` (any state) when
//! its watcher is set to, tools replay a list at an exact version with
//! `resourceVersionMatch=Exact`, and a client that asks for a version the server has not seen
//! yet must get the 504 it retries on, not a silently older list.

use std::time::Duration;

use serde_json::json;

use super::status::ApiError;
use super::Params;
use crate::store::Store;

/// How long a list waits for a resourceVersion the store has not reached (the watch cache's
/// `blockTimeout`).
pub const FRESHNESS_WAIT: Duration = Duration::from_secs(3);

/// The state a list reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListAt {
    /// No resourceVersion, or `0` (any): the current state.
    Latest,
    /// At least as new as this version (a bare `resourceVersion`, or `NotOlderThan`).
    NotOlderThan(u64),
    /// Exactly this version (`resourceVersionMatch=Exact`).
    Exact(u64),
}

impl ListAt {
    /// The version the store must have reached before the list is served.
    pub fn minimum(self) -> Option<u64> {
        match self {
            ListAt::Latest => None,
            ListAt::NotOlderThan(rv) | ListAt::Exact(rv) => Some(rv),
        }
    }
}

/// One `field.Error` of `ValidateListOptions`, rendered as upstream renders it.
fn forbidden(detail: &str) -> String {
    format!("resourceVersionMatch: Forbidden: {detail}")
}

/// Validates the list options and says which state to read. A continue page's version comes
/// from its token, not from here.
pub fn list_at(params: &Params) -> Result<ListAt, ApiError> {
    let rv = params.resource_version.as_deref().unwrap_or("");
    let mut errors = Vec::new();
    if let Some(matching) = params.resource_version_match.as_deref() {
        if rv.is_empty() {
            errors.push(forbidden(
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if params.continue_token.is_some() {
            errors.push(forbidden(
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if matching != "Exact" && matching != "NotOlderThan" {
            errors.push(format!(
                "resourceVersionMatch: Unsupported value: {matching:?}: supported values: \"Exact\", \"NotOlderThan\", \"\""
            ));
        }
        if matching == "Exact" && rv == "0" {
            errors.push(forbidden(
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    if !errors.is_empty() {
        let list = if errors.len() == 1 {
            errors.join("")
        } else {
            format!("[{}]", errors.join(", "))
        };
        return Err(ApiError {
            code: 422,
            reason: "Invalid",
            message: format!("ListOptions.meta.k8s.io \"\" is invalid: {list}"),
            details: Some(json!({"name": "", "group": "meta.k8s.io", "kind": "ListOptions"})),
        });
    }
    if params.continue_token.is_some() {
        if !rv.is_empty() && rv != "0" {
            return Err(ApiError::bad_request(
                "specifying resource version is not allowed when using continue",
            ));
        }
        return Ok(ListAt::Latest);
    }
    if rv.is_empty() || rv == "0" {
        return Ok(ListAt::Latest);
    }
    let version: u64 = rv
        .parse()
        .map_err(|_| ApiError::bad_request(format!("invalid resource version: {rv:?}")))?;
    Ok(match params.resource_version_match.as_deref() {
        Some("Exact") => ListAt::Exact(version),
        _ => ListAt::NotOlderThan(version),
    })
}

/// Waits up to `wait` for the store to reach `minimum`; then the watch cache's answer, a 504
/// whose cause tells clients the version is too large and to retry after a second.
pub async fn wait_until_fresh(store: &Store, minimum: u64, wait: Duration) -> Result<(), ApiError> {
    let mut latest = store.latest();
    let reached = tokio::time::timeout(wait, latest.wait_for(|rv| *rv >= minimum)).await;
    if matches!(reached, Ok(Ok(_))) {
        return Ok(());
    }
    let current = store.resource_version();
    Err(ApiError {
        code: 504,
        reason: "Timeout",
        message: format!("Timeout: Too large resource version: {minimum}, current: {current}"),
        details: Some(json!({
            "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
            "retryAfterSeconds": 1
        })),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(rv: Option<&str>, matching: Option<&str>, continue_token: Option<&str>) -> Params {
        Params {
            resource_version: rv.map(str::to_string),
            resource_version_match: matching.map(str::to_string),
            continue_token: continue_token.map(str::to_string),
            ..Params::default()
        }
    }

    fn rejected(p: Params) -> (u16, String) {
        match list_at(&p) {
            Err(e) => (e.code, e.message),
            Ok(at) => panic!("accepted as {at:?}"),
        }
    }

    #[test]
    fn versions_select_latest_not_older_than_or_exact_as_the_api_server_reads_them() {
        assert_eq!(
            list_at(&params(None, None, None)).ok(),
            Some(ListAt::Latest)
        );
        assert_eq!(
            list_at(&params(Some("0"), None, None)).ok(),
            Some(ListAt::Latest)
        );
        assert_eq!(
            list_at(&params(Some("0"), Some("NotOlderThan"), None)).ok(),
            Some(ListAt::Latest)
        );
        assert_eq!(
            list_at(&params(Some("42"), None, None)).ok(),
            Some(ListAt::NotOlderThan(42))
        );
        assert_eq!(
            list_at(&params(Some("42"), Some("Exact"), None)).ok(),
            Some(ListAt::Exact(42))
        );
        assert_eq!(
            list_at(&params(Some("0"), None, Some("token"))).ok(),
            Some(ListAt::Latest)
        );
    }

    #[test]
    fn invalid_combinations_get_upstreams_messages() {
        let (code, message) = rejected(params(None, Some("Exact"), None));
        assert_eq!(code, 422);
        assert_eq!(message, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided");
        let (_, message) = rejected(params(Some("0"), Some("Exact"), None));
        assert!(
            message
                .ends_with("resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""),
            "{message}"
        );
        let (_, message) = rejected(params(Some("5"), Some("Newest"), None));
        assert!(
            message.contains("Unsupported value: \"Newest\""),
            "{message}"
        );
        let (_, message) = rejected(params(Some("5"), Some("Exact"), Some("t")));
        assert!(
            message.contains("forbidden when continue is provided"),
            "{message}"
        );
        assert_eq!(
            rejected(params(Some("5"), None, Some("t"))),
            (
                400,
                "specifying resource version is not allowed when using continue".into()
            )
        );
        assert_eq!(rejected(params(Some("abc"), None, None)).0, 400);
    }

    #[tokio::test]
    async fn a_version_the_store_has_not_reached_is_waited_for_then_a_504() {
        let store = Store::new(crate::store::StoreSettings::default());
        let current = store.resource_version();
        assert!(wait_until_fresh(&store, current, Duration::from_millis(10))
            .await
            .is_ok());
        let err = wait_until_fresh(&store, current + 100, Duration::from_millis(10))
            .await
            .err()
            .map(|e| (e.code, e.reason, e.message));
        assert_eq!(
            err,
            Some((
                504,
                "Timeout",
                format!(
                    "Timeout: Too large resource version: {}, current: {current}",
                    current + 100
                )
            ))
        );
    }
}
