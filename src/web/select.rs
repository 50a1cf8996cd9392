//! `/c/NAME/...`: which cluster a request is about.
//!
//! Why a layer in front of the router: every page and every API path the pages use exists
//! once per cluster (`/c/NAME/node/x`, `/c/NAME/api/view`, `/c/NAME/api/<server fn>`), while
//! the single-cluster URLs keep meaning the first cluster. The layer notes the cluster on the
//! request ([`SelectedCluster`]) and strips the prefix from API paths, so the feeds and
//! server functions are routed once; pages keep their path, since the browser's router
//! matches `/c/:cluster/...` itself. An unknown cluster is a 404 that names the known ones.

use crate::links::SelectedCluster;
use crate::server_fns::context::{Clusters, ServerContext};
use crate::web::AppState;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{request::Parts, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

/// The cluster a handler serves: the request's `/c/NAME`, else the first.
#[derive(Debug, Clone)]
pub struct Selected(pub ServerContext);

impl FromRequestParts<AppState> for Selected {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let selected = parts.extensions.get::<SelectedCluster>();
        state
            .clusters
            .selected(selected)
            .cloned()
            .map(Selected)
            .ok_or_else(|| unknown(&state.clusters, selected.map_or("", |s| s.0.as_str())))
    }
}

/// 404 naming the cluster asked for and the ones this dashboard watches.
fn unknown(clusters: &Clusters, name: &str) -> Response {
    let known: Vec<&str> = clusters.iter().map(|c| c.name.as_str()).collect();
    (
        StatusCode::NOT_FOUND,
        format!(
            "no cluster named {name:?} here; this dashboard watches: {} (all of them: /fleet)\n",
            known.join(", ")
        ),
    )
        .into_response()
}

/// Where `/c/NAME…` leads: the decoded name and the rest of the path (`""`, `/`, `/api/…`).
pub fn split_cluster_path(path: &str) -> Option<(String, &str)> {
    let rest = path.strip_prefix("/c/")?;
    let end = rest.find('/').unwrap_or(rest.len());
    let (raw, tail) = rest.split_at(end);
    let name = percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .ok()?
        .into_owned();
    (!name.is_empty()).then_some((name, tail))
}

/// The layer: notes the cluster of a `/c/NAME/...` request, strips the prefix of its API
/// paths, redirects `/c/NAME/` to `/c/NAME` (the matrix's route), and answers 404 for a cluster not watched.
pub async fn select_cluster(
    State(clusters): State<Clusters>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_string();
    let Some((name, tail)) = split_cluster_path(&path) else {
        if path.starts_with("/c/") {
            return (
                StatusCode::NOT_FOUND,
                "a cluster's URL is /c/NAME/... with a NAME\n",
            )
                .into_response();
        }
        return next.run(request).await;
    };
    if clusters.get(&name).is_none() {
        return unknown(&clusters, &name);
    }
    if tail == "/" {
        let query = request.uri().query().unwrap_or_default();
        return Redirect::permanent(&crate::links::cluster_matrix(&name, query)).into_response();
    }
    if tail.starts_with("/api/") {
        let rewritten = match request.uri().query() {
            Some(query) => format!("{tail}?{query}"),
            None => tail.to_string(),
        };
        match rewritten.parse::<Uri>() {
            Ok(uri) => *request.uri_mut() = uri,
            Err(_) => {
                return (StatusCode::BAD_REQUEST, "malformed path\n").into_response();
            }
        }
    }
    request.extensions_mut().insert(SelectedCluster(name));
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_path_gives_the_decoded_name_and_the_rest() {
        assert_eq!(
            split_cluster_path("/c/kind-a/api/view"),
            Some(("kind-a".to_string(), "/api/view"))
        );
        assert_eq!(
            split_cluster_path("/c/arn%3Aaws%2Fx/"),
            Some(("arn:aws/x".to_string(), "/"))
        );
        assert_eq!(split_cluster_path("/c/b"), Some(("b".to_string(), "")));
        assert_eq!(split_cluster_path("/c//x"), None);
        assert_eq!(split_cluster_path("/c/%FF/"), None);
        assert_eq!(split_cluster_path("/node/c"), None);
    }
}
