//! On-demand reads of single objects the live store does not keep (a pod's container states,
//! a DaemonSet's revision templates): one GET or one LIST when a page asks, never a watch.
//!
//! Why not keep them in the live store: at 150,000 pods, container states and templates would
//! multiply the store's memory for pages a person opens one at a time. Why a type of its own
//! around the client: it only offers reads, so a page cannot grow a write by accident (the
//! dashboard is read-only; `tests/it/k8s_rbac.rs` checks the audit log for get/list/watch only).

use kube::api::{Api, ListParams};
use kube::Client;
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;

/// The longest a page waits for one read: a stuck connection or an API server without its
/// storage would otherwise hold the page for kube-apiserver's 60 s timeout times kube-client's
/// retries.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// `read`, or `Unavailable` when it takes longer than [`READ_TIMEOUT`].
async fn bounded<T>(
    what: &str,
    read: impl Future<Output = Result<T, ReadError>>,
) -> Result<T, ReadError> {
    tokio::time::timeout(READ_TIMEOUT, read)
        .await
        .unwrap_or_else(|_| {
            Err(ReadError::Unavailable {
                what: what.to_string(),
                detail: format!("no answer within {} s", READ_TIMEOUT.as_secs()),
            })
        })
}

/// Read-only access to the API server for the pages that show one object in full.
#[derive(Clone)]
pub struct Reader {
    client: Client,
}

impl Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader").finish_non_exhaustive()
    }
}

/// Why an on-demand read failed, said with the object it was for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// 404: the object is not there (any more).
    #[error("{what} not found")]
    NotFound {
        /// e.g. `pod kube-system/log-abc`.
        what: String,
    },
    /// 403: the dashboard's account may not read it.
    #[error("cannot read {what}: {detail}")]
    Forbidden {
        /// e.g. `pod kube-system/log-abc`.
        what: String,
        /// The API server's message.
        detail: String,
    },
    /// Anything else: the API server is gone, timed out or answered garbage.
    #[error("cannot read {what}: {detail}")]
    Unavailable {
        /// e.g. `controllerrevisions in kube-system`.
        what: String,
        /// The client's error.
        detail: String,
    },
}

impl ReadError {
    /// Sorts a kube error by what the page should say about it.
    pub fn from_kube(what: impl Into<String>, err: kube::Error) -> Self {
        let what = what.into();
        match err {
            kube::Error::Api(status) if status.code == 404 => ReadError::NotFound { what },
            kube::Error::Api(status) if status.code == 403 => ReadError::Forbidden {
                what,
                detail: status.message,
            },
            other => ReadError::Unavailable {
                what,
                detail: other.to_string(),
            },
        }
    }
}

impl Reader {
    /// Reads through `client` (the same connection the watchers use).
    pub fn new(client: Client) -> Self {
        Self { client }
    }

    /// GET one namespaced object; `what` names it in the error (`pod ns/name`).
    pub async fn get<K>(&self, namespace: &str, name: &str, what: &str) -> Result<K, ReadError>
    where
        K: kube::Resource<Scope = kube::core::NamespaceResourceScope>
            + Clone
            + DeserializeOwned
            + Debug,
        K::DynamicType: Default,
    {
        let api: Api<K> = Api::namespaced(self.client.clone(), namespace);
        bounded(what, async {
            api.get(name)
                .await
                .map_err(|err| ReadError::from_kube(what, err))
        })
        .await
    }

    /// LIST one namespace's objects of a kind matching `params`; `what` names it in the error.
    pub async fn list<K>(
        &self,
        namespace: &str,
        params: &ListParams,
        what: &str,
    ) -> Result<Vec<K>, ReadError>
    where
        K: kube::Resource<Scope = kube::core::NamespaceResourceScope>
            + Clone
            + DeserializeOwned
            + Debug,
        K::DynamicType: Default,
    {
        let api: Api<K> = Api::namespaced(self.client.clone(), namespace);
        bounded(what, async {
            api.list(params)
                .await
                .map(|list| list.items)
                .map_err(|err| ReadError::from_kube(what, err))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api_error(code: u16, message: &str) -> kube::Error {
        kube::Error::Api(
            kube::core::Status::failure(message, "Reason")
                .with_code(code)
                .boxed(),
        )
    }

    #[test]
    fn a_404_and_a_403_read_differently_and_name_the_object() {
        let missing = ReadError::from_kube("pod ns/p", api_error(404, "pods \"p\" not found"));
        assert_eq!(missing.to_string(), "pod ns/p not found");
        let refused = ReadError::from_kube("pod ns/p", api_error(403, "forbidden: user x"));
        assert!(matches!(refused, ReadError::Forbidden { .. }));
        assert_eq!(
            refused.to_string(),
            "cannot read pod ns/p: forbidden: user x"
        );
        let broken = ReadError::from_kube("pod ns/p", api_error(500, "etcd is down"));
        assert!(matches!(broken, ReadError::Unavailable { .. }));
    }

    #[tokio::test(start_paused = true)]
    async fn a_read_that_never_answers_is_unavailable_after_the_bound_not_minutes_later() {
        let started = tokio::time::Instant::now();
        let read = bounded("pod a/b", std::future::pending::<Result<(), ReadError>>()).await;
        assert_eq!(
            read,
            Err(ReadError::Unavailable {
                what: "pod a/b".into(),
                detail: "no answer within 10 s".into()
            })
        );
        assert_eq!(started.elapsed(), READ_TIMEOUT);
    }
}
