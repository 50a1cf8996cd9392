//! GET of one object and LIST of a collection: JSON, Table or PartialObjectMetadata;
//! label and field selectors; `limit`/`continue` paging over a consistent resourceVersion
//! (later pages read the first page's state).
use std::sync::Arc;

use super::list_version::{self, ListAt};

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Value};

use super::{events_v1, json_response, table, ApiError, ApiState, Params, Rendering, ResourcePath};
use crate::store::{FieldSelector, Key, LabelSelector, StoreError, StoredObject};

/// The selectors of a request, parsed (400 on a bad one).
pub struct Selection {
    pub labels: LabelSelector,
    pub fields: FieldSelector,
    pub namespace: Option<String>,
}

impl Selection {
    /// Parse the request's selectors for its kind.
    pub fn from_params(rp: &ResourcePath, params: &Params) -> Result<Selection, ApiError> {
        let labels = LabelSelector::parse(&params.label_selector)
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let fields = FieldSelector::parse(&params.field_selector, rp.kind)
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        Ok(Selection {
            labels,
            fields,
            namespace: rp.namespace.clone(),
        })
    }

    /// Whether a stored object is selected.
    pub fn matches(&self, obj: &StoredObject) -> bool {
        (self.namespace.is_none() || obj.facts.namespace == self.namespace)
            && self.labels.matches(&obj.facts.labels)
            && (self.fields.is_empty() || self.fields.matches(|f| obj.facts.field(f)))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The revision a continue token reads at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContinueAt {
    /// The first page's resourceVersion: every page shows the state it was read at.
    Revision(u64),
    /// The latest state: the token kube-apiserver hands back with a 410 for an expired one
    /// (resourceVersion -1 in its token), so a client may finish an inconsistent list.
    Latest,
}

/// The message of the 410 for a continue token whose revision was compacted, word for word
/// kube-apiserver's (`inconsistentContinue` in apiserver's storage errors).
pub const INCONSISTENT_CONTINUE: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// A continue token: the list's resourceVersion and the last key returned.
pub fn encode_continue(rv: u64, key: &Key) -> String {
    hex(format!("{rv}\0{}\0{}", key.0, key.1).as_bytes())
}

/// The token that continues after `key` at the latest state.
pub fn encode_continue_latest(key: &Key) -> String {
    hex(format!("-1\0{}\0{}", key.0, key.1).as_bytes())
}

/// Decode a continue token (400 when it is not one of ours).
pub fn decode_continue(token: &str) -> Result<(ContinueAt, Key), ApiError> {
    let bad = || ApiError::bad_request(format!("continue key is not valid: {token:?}"));
    let text = String::from_utf8(unhex(token).ok_or_else(bad)?).map_err(|_| bad())?;
    let mut parts = text.splitn(3, '\0');
    let at = match parts.next().ok_or_else(bad)? {
        "-1" => ContinueAt::Latest,
        rv => ContinueAt::Revision(rv.parse::<u64>().map_err(|_| bad())?),
    };
    let ns = parts.next().ok_or_else(bad)?.to_string();
    let name = parts.next().ok_or_else(bad)?.to_string();
    Ok((at, (ns, name)))
}

/// kube-apiserver's answer to a continue token whose revision was compacted: 410 Expired
/// whose Status carries a token that continues after the same key at the latest state.
fn continue_expired(key: &Key) -> Response {
    let mut status = ApiError::expired(INCONSISTENT_CONTINUE).status_json();
    status["metadata"] = json!({"continue": encode_continue_latest(key)});
    json_response(StatusCode::GONE, status.to_string())
}

/// The PartialObjectMetadata form of an object.
pub fn partial_metadata(obj: &StoredObject) -> Result<Value, ApiError> {
    let value = obj.value()?;
    Ok(
        json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": value.get("metadata").cloned().unwrap_or(json!({}))}),
    )
}

/// GET one object.
pub fn get(
    state: &ApiState,
    rp: &ResourcePath,
    params: &Params,
    render: Rendering,
) -> Result<Response, ApiError> {
    let name = rp.name.as_deref().unwrap_or("");
    let obj = state
        .store
        .get_raw(rp.kind, rp.namespace.as_deref(), name)
        .ok_or_else(|| StoreError::NotFound {
            kind: rp.kind,
            namespace: rp.namespace.clone(),
            name: name.to_string(),
        })?;
    Ok(match render {
        Rendering::Json if rp.events_v1 => {
            json_response(StatusCode::OK, events_v1::convert_raw(&obj.raw)?)
        }
        Rendering::Json => json_response(StatusCode::OK, obj.raw.clone()),
        Rendering::PartialMetadata => {
            json_response(StatusCode::OK, partial_metadata(&obj)?.to_string())
        }
        Rendering::Table => {
            let t = table::render(
                &state.store,
                rp.kind,
                std::slice::from_ref(&obj),
                params,
                true,
                Some(obj.resource_version),
                None,
            )?;
            json_response(StatusCode::OK, t.to_string())
        }
    })
}

/// LIST a collection (one namespace or all).
pub async fn list(
    state: &ApiState,
    rp: &ResourcePath,
    params: &Params,
    render: Rendering,
) -> Result<Response, ApiError> {
    let at = list_version::list_at(params)?;
    if let Some(minimum) = at.minimum() {
        list_version::wait_until_fresh(&state.store, minimum, list_version::FRESHNESS_WAIT).await?;
    }
    let selection = Selection::from_params(rp, params)?;
    let page = match &params.continue_token {
        // A continue page shows the state the first page was read at, as etcd serves it.
        Some(token) => {
            let (at, key) = decode_continue(token)?;
            let filter = |o: &StoredObject| selection.matches(o);
            let ns = rp.namespace.as_deref();
            match at {
                ContinueAt::Latest => {
                    state
                        .store
                        .list_page(rp.kind, ns, Some(&key), params.limit, &filter)
                }
                ContinueAt::Revision(rv) => {
                    match state.store.list_page_at(
                        rp.kind,
                        ns,
                        Some(&key),
                        params.limit,
                        &filter,
                        rv,
                    ) {
                        Ok(page) => page,
                        Err(StoreError::Gone { .. }) => return Ok(continue_expired(&key)),
                        Err(other) => return Err(other.into()),
                    }
                }
            }
        }
        None => match at {
            // The state at exactly that version, as etcd serves it until compaction.
            ListAt::Exact(rv) => state
                .store
                .list_page_at(
                    rp.kind,
                    rp.namespace.as_deref(),
                    None,
                    params.limit,
                    &|o| selection.matches(o),
                    rv,
                )
                .map_err(|_| {
                    ApiError::expired("The resourceVersion for the provided list is too old.")
                })?,
            ListAt::Latest | ListAt::NotOlderThan(_) => {
                state
                    .store
                    .list_page(rp.kind, rp.namespace.as_deref(), None, params.limit, &|o| {
                        selection.matches(o)
                    })
            }
        },
    };
    let rv = page.resource_version;
    let next = page.next_key.as_ref().map(|k| encode_continue(rv, k));
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    if let Some(next) = &next {
        metadata["continue"] = json!(next);
    }
    Ok(match render {
        Rendering::Json if rp.events_v1 => {
            let items = page
                .items
                .iter()
                .map(|o| {
                    events_v1::convert_raw(&o.raw).map(|raw| {
                        Arc::new(StoredObject {
                            kind: o.kind,
                            resource_version: o.resource_version,
                            raw: raw.into(),
                            facts: o.facts.clone(),
                        })
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            json_response(
                StatusCode::OK,
                list_bytes("EventList", events_v1::API_VERSION, &metadata, &items),
            )
        }
        Rendering::Json => json_response(
            StatusCode::OK,
            list_bytes(
                rp.kind.list_kind(),
                rp.kind.api_version(),
                &metadata,
                &page.items,
            ),
        ),
        Rendering::PartialMetadata => {
            let items = page
                .items
                .iter()
                .map(|o| partial_metadata(o))
                .collect::<Result<Vec<_>, _>>()?;
            let body = json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1", "metadata": metadata, "items": items});
            json_response(StatusCode::OK, body.to_string())
        }
        Rendering::Table => {
            let t = table::render(
                &state.store,
                rp.kind,
                &page.items,
                params,
                true,
                Some(rv),
                next,
            )?;
            json_response(StatusCode::OK, t.to_string())
        }
    })
}

/// A list body assembled from stored bytes without re-serializing the items.
pub fn list_bytes(
    kind: &str,
    api_version: &str,
    metadata: &Value,
    items: &[Arc<StoredObject>],
) -> Vec<u8> {
    let total: usize = items.iter().map(|o| o.raw.len() + 1).sum();
    let mut out = Vec::with_capacity(total + 128);
    out.extend_from_slice(format!("{{\"kind\":\"{kind}\",\"apiVersion\":\"{api_version}\",\"metadata\":{metadata},\"items\":[").as_bytes());
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&item.raw);
    }
    out.extend_from_slice(b"]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip_and_garbage_is_a_bad_request() {
        let key = ("kube-system".to_string(), "agent-abc".to_string());
        let token = encode_continue(42, &key);
        let back = decode_continue(&token).expect("decode");
        assert_eq!(back, (ContinueAt::Revision(42), key.clone()));
        let latest = decode_continue(&encode_continue_latest(&key)).expect("decode");
        assert_eq!(latest, (ContinueAt::Latest, key));
        assert_eq!(decode_continue("zz").map_err(|e| e.code).err(), Some(400));
    }
}
