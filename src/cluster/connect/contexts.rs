//! Which kubeconfig contexts `serve` shows: the ones named (each checked to exist), every one,
//! or the current one; and a context's user checked to exist, as client-go checks it.
//!
//! Why before connecting: a misspelt `--context` must end the start at once with the known
//! names, and a context whose user is missing must not be connected without credentials.

use super::read_kubeconfig;
use crate::cluster::ConnectError;
use kube::config::Kubeconfig;
use std::path::Path;

/// A context whose user the kubeconfig does not define is refused, as client-go refuses it
/// (`user "x" was not found for context "y"`); kube-rs would connect without credentials.
pub(super) fn check_user_defined(
    kubeconfig: &Kubeconfig,
    context: &str,
) -> Result<(), ConnectError> {
    let user = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone())
        .filter(|u| !u.is_empty());
    match user {
        Some(user) if !kubeconfig.auth_infos.iter().any(|a| a.name == user) => {
            Err(ConnectError::UserNotFound {
                context: context.to_string(),
                user,
            })
        }
        _ => Ok(()),
    }
}

/// The name `/c/NAME/` gives the one cluster of a plain `serve`: the kubeconfig's current
/// context, else `in-cluster` (no kubeconfig: the pod's service account).
pub fn current_context_name(path: Option<&Path>) -> String {
    let kubeconfig = match path {
        Some(path) => read_kubeconfig(path).ok(),
        None => Kubeconfig::read().ok(),
    };
    kubeconfig
        .and_then(|k| k.current_context)
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "in-cluster".to_string())
}

/// The kubeconfig contexts `serve` watches: each of `names` (refused in one line naming it
/// and the contexts the kubeconfig has, when it has no such context), or with `all` every
/// context in the kubeconfig's order. Why before connecting: a misspelt `--context` must end
/// the start at once, not show up as one cluster that never answers.
pub fn choose_contexts(
    path: Option<&Path>,
    names: &[String],
    all: bool,
) -> Result<Vec<String>, ConnectError> {
    let kubeconfig = match path {
        Some(path) => read_kubeconfig(path)?,
        None => Kubeconfig::read().map_err(|source| ConnectError::Kubeconfig {
            path: "KUBECONFIG or ~/.kube/config".to_string(),
            source,
        })?,
    };
    let known: Vec<String> = kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
    if all {
        if known.is_empty() {
            return Err(ConnectError::NoCluster {
                detail: "--all-contexts given but the kubeconfig has no context".to_string(),
            });
        }
        return Ok(known);
    }
    let mut chosen: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        if !known.contains(name) {
            return Err(ConnectError::UnknownContext {
                name: name.clone(),
                known: if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                },
            });
        }
        if !chosen.contains(name) {
            chosen.push(name.clone());
        }
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECONFIG: &str = r#"
apiVersion: v1
kind: Config
current-context: a
clusters:
- {name: c, cluster: {server: "http://127.0.0.1:1"}}
contexts:
- {name: a, context: {cluster: c, user: alice}}
- {name: b, context: {cluster: c, user: alice}}
- {name: ghost, context: {cluster: c, user: nobody}}
users:
- {name: alice, user: {token: "t"}}
"#;

    fn file() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let path = dir.path().join("kubeconfig");
        std::fs::write(&path, KUBECONFIG).unwrap_or_else(|e| panic!("write: {e}"));
        (dir, path)
    }

    #[test]
    fn named_contexts_are_kept_in_order_once_and_all_takes_every_one() {
        let (_dir, path) = file();
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let chosen = choose_contexts(Some(&path), &names(&["b", "a", "b"]), false);
        assert_eq!(chosen.ok(), Some(names(&["b", "a"])));
        let all = choose_contexts(Some(&path), &[], true);
        assert_eq!(all.ok(), Some(names(&["a", "b", "ghost"])));
        assert_eq!(current_context_name(Some(&path)), "a");
    }

    #[test]
    fn an_unknown_context_is_refused_naming_it_and_the_known_ones() {
        let (_dir, path) = file();
        let err = choose_contexts(Some(&path), &["prod".to_string()], false)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            err,
            "no context \"prod\" in the kubeconfig; its contexts: a, b, ghost"
        );
    }

    #[test]
    fn a_context_whose_user_is_not_defined_is_refused_as_client_go_does() {
        let kc = Kubeconfig::from_yaml(KUBECONFIG).unwrap_or_default();
        assert!(check_user_defined(&kc, "a").is_ok());
        let err = check_user_defined(&kc, "ghost")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            err,
            "user \"nobody\" was not found for context \"ghost\" in the kubeconfig"
        );
    }
}
