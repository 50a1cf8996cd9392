//! Watch streams: newline-delimited JSON events from a resourceVersion, synthetic ADDED
//! events for "" and "0", streaming lists (`sendInitialEvents`) ending in the
//! `k8s.io/initial-events-end` bookmark, periodic BOOKMARKs when asked, selector
//! transitions (an object leaving a selection is DELETED), and an in-stream 410 ERROR event
//! once the requested version has left the history, which makes clients relist; a streaming
//! list from a version the store has not reached waits for it, then fails in-stream with
//! the watch cache's 504 ResourceVersionTooLarge.
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};

use super::list_version::{wait_until_fresh, FRESHNESS_WAIT};
use super::read::{partial_metadata, Selection};
use super::{table, ApiError, ApiState, Params, Rendering, ResourcePath};
use crate::store::{EventType, HistoryEntry, Kind, Store, StoreError, StoredObject};

/// How many history entries a watch takes per lock.
const BATCH: usize = 1000;

struct Encoder {
    kind: Kind,
    render: Rendering,
    params: Params,
    store: Store,
    columns_sent: bool,
    /// Objects go out as events.k8s.io/v1 Events.
    events_v1: bool,
}

impl Encoder {
    fn line(&mut self, event_type: &str, obj: &StoredObject) -> Result<Bytes, ApiError> {
        let mut out = Vec::with_capacity(obj.raw.len() + 32);
        out.extend_from_slice(b"{\"type\":\"");
        out.extend_from_slice(event_type.as_bytes());
        out.extend_from_slice(b"\",\"object\":");
        match self.render {
            Rendering::Json if self.events_v1 => {
                out.extend_from_slice(&super::events_v1::convert_raw(&obj.raw)?)
            }
            Rendering::Json => out.extend_from_slice(&obj.raw),
            Rendering::PartialMetadata => {
                out.extend_from_slice(partial_metadata(obj)?.to_string().as_bytes())
            }
            Rendering::Table => {
                let with_columns = !self.columns_sent;
                self.columns_sent = true;
                let t = table::render(
                    &self.store,
                    self.kind,
                    &[Arc::new(clone_stored(obj))],
                    &self.params,
                    with_columns,
                    Some(obj.resource_version),
                    None,
                )?;
                out.extend_from_slice(t.to_string().as_bytes());
            }
        }
        out.extend_from_slice(b"}\n");
        Ok(Bytes::from(out))
    }

    fn bookmark(&self, rv: u64, initial_end: bool) -> Bytes {
        let mut metadata = json!({"resourceVersion": rv.to_string()});
        if initial_end {
            metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let api_version = if self.events_v1 {
            super::events_v1::API_VERSION
        } else {
            self.kind.api_version()
        };
        let obj =
            json!({"kind": self.kind.kind_name(), "apiVersion": api_version, "metadata": metadata});
        Bytes::from(format!("{}\n", json!({"type": "BOOKMARK", "object": obj})))
    }
}

fn clone_stored(obj: &StoredObject) -> StoredObject {
    StoredObject {
        kind: obj.kind,
        resource_version: obj.resource_version,
        raw: obj.raw.clone(),
        facts: obj.facts.clone(),
    }
}

/// The ERROR event line carrying a Status.
fn error_line(err: &ApiError) -> Bytes {
    Bytes::from(format!(
        "{}\n",
        json!({"type": "ERROR", "object": err.status_json()})
    ))
}

/// `previous` re-stamped with the resourceVersion of the change that moved it out of the
/// selection, as the watch cache sends it.
fn restamp(previous: &StoredObject, rv: u64) -> Option<StoredObject> {
    let mut value: Value = serde_json::from_slice(&previous.raw).ok()?;
    value
        .pointer_mut("/metadata")?
        .as_object_mut()?
        .insert("resourceVersion".into(), json!(rv.to_string()));
    let raw = serde_json::to_vec(&value).ok()?;
    Some(StoredObject {
        kind: previous.kind,
        resource_version: rv,
        raw: Bytes::from(raw),
        facts: previous.facts.clone(),
    })
}

/// The event a selecting watch sends for one history entry, if any.
fn translate(entry: &HistoryEntry, selection: &Selection) -> Option<(&'static str, StoredObject)> {
    let now = selection.matches(&entry.object);
    let before = entry
        .previous
        .as_deref()
        .is_some_and(|p| selection.matches(p));
    match entry.event_type {
        EventType::Added => now.then(|| ("ADDED", clone_stored(&entry.object))),
        EventType::Deleted => (now || before).then(|| ("DELETED", clone_stored(&entry.object))),
        EventType::Modified => match (before, now) {
            (true, true) => Some(("MODIFIED", clone_stored(&entry.object))),
            (false, true) => Some(("ADDED", clone_stored(&entry.object))),
            (true, false) => entry
                .previous
                .as_deref()
                .and_then(|p| restamp(p, entry.resource_version))
                .map(|o| ("DELETED", o)),
            (false, false) => None,
        },
    }
}

/// Start a watch (validation errors are HTTP errors; an expired version is an ERROR event).
pub fn watch(
    state: &ApiState,
    rp: &ResourcePath,
    params: &Params,
    render: Rendering,
) -> Result<Response, ApiError> {
    let mut selection = Selection::from_params(rp, params)?;
    // A watch on a named object (`kubectl get node X -w` uses a field selector; kube-rs may use the path).
    if let Some(name) = &rp.name {
        let extra = format!("metadata.name={name}");
        let combined = if params.field_selector.is_empty() {
            extra
        } else {
            format!("{},{extra}", params.field_selector)
        };
        selection.fields = crate::store::FieldSelector::parse(&combined, rp.kind)
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
    }
    let rv_param = params.resource_version.clone().unwrap_or_default();
    let initial = params
        .send_initial_events
        .unwrap_or(rv_param.is_empty() || rv_param == "0");
    if params.send_initial_events == Some(true) {
        if params.resource_version_match.as_deref() != Some("NotOlderThan") {
            return Err(ApiError::invalid(rp.kind, "", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan"));
        }
        if !params.allow_watch_bookmarks {
            return Err(ApiError::invalid(rp.kind, "", "allowWatchBookmarks: Required value: allowWatchBookmarks must be set to true when sendInitialEvents is true"));
        }
    } else if params.resource_version_match.is_some() && params.send_initial_events.is_none() {
        return Err(ApiError::bad_request(
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ));
    }
    let requested_rv = if rv_param.is_empty() || rv_param == "0" {
        None
    } else {
        Some(rv_param.parse::<u64>().map_err(|_| {
            ApiError::bad_request(format!("invalid resource version: {rv_param:?}"))
        })?)
    };
    // With initial events, a version is the least fresh state to list (the watch cache waits
    // for it, then fails the watch with ResourceVersionTooLarge); without, where to resume.
    let (start_rv, initial_not_older_than) = if initial {
        (None, requested_rv)
    } else {
        (requested_rv, None)
    };
    let store = state.store.clone();
    let timeout = params
        .timeout_seconds
        .map(Duration::from_secs)
        .unwrap_or(state.settings.default_watch_timeout);
    let bookmarks = params.allow_watch_bookmarks;
    let bookmark_interval = state.settings.bookmark_interval;
    let explicit_initial = params.send_initial_events == Some(true);
    let kind = rp.kind;
    let mut shutdown = state.shutdown.clone();
    let storage = state.settings.storage.clone();
    let mut enc = Encoder {
        kind,
        render,
        params: params.clone(),
        store: store.clone(),
        columns_sent: false,
        events_v1: rp.events_v1,
    };
    let stream = async_stream::stream! {
        let deadline = later(timeout);
        let mut latest = store.latest();
        let mut cursor = match start_rv {
            Some(rv) => rv,
            None => {
                // The initial events need a consistent read: without the storage, wait for it.
                tokio::select! {
                    _ = storage.wait_available() => {}
                    _ = tokio::time::sleep_until(deadline) => { return; }
                    _ = shutdown.changed() => { return; }
                }
                if let Some(minimum) = initial_not_older_than {
                    if let Err(e) = wait_until_fresh(&store, minimum, FRESHNESS_WAIT).await {
                        yield Ok(error_line(&e));
                        return;
                    }
                }
                let page = store.list_page(kind, selection.namespace.as_deref(), None, None, &|o| selection.matches(o));
                for obj in &page.items {
                    match enc.line("ADDED", obj) {
                        Ok(line) => yield Ok::<Bytes, Infallible>(line),
                        Err(e) => { yield Ok(error_line(&e)); return; }
                    }
                }
                if explicit_initial {
                    yield Ok(enc.bookmark(page.resource_version, true));
                }
                page.resource_version
            }
        };
        let mut next_bookmark = later(bookmark_interval);
        loop {
            if !storage.is_available() {
                // No event and no error until the storage returns (then on from where it
                // stopped); the watch cache's bookmarks keep coming.
                tokio::select! {
                    _ = storage.wait_available() => {}
                    _ = tokio::time::sleep_until(deadline) => { return; }
                    _ = shutdown.changed() => { return; }
                    _ = tokio::time::sleep_until(next_bookmark), if bookmarks => {
                        next_bookmark = later(bookmark_interval);
                        yield Ok(enc.bookmark(cursor, false));
                    }
                }
                continue;
            }
            match store.history_since(kind, cursor, BATCH) {
                Err(StoreError::Gone { requested, oldest }) => {
                    let err = ApiError::expired(format!("too old resource version: {requested} ({oldest})"));
                    yield Ok(error_line(&err));
                    return;
                }
                Err(other) => { yield Ok(error_line(&ApiError::from(other))); return; }
                Ok((entries, scanned_to)) => {
                    let progressed = scanned_to > cursor;
                    cursor = scanned_to;
                    for entry in &entries {
                        if let Some((t, obj)) = translate(entry, &selection) {
                            match enc.line(t, &obj) {
                                Ok(line) => yield Ok(line),
                                Err(e) => { yield Ok(error_line(&e)); return; }
                            }
                        }
                    }
                    if progressed && cursor < store.resource_version() {
                        continue;
                    }
                }
            }
            tokio::select! {
                changed = latest.changed() => { if changed.is_err() { return; } }
                _ = tokio::time::sleep_until(deadline) => { return; }
                _ = shutdown.changed() => { return; }
                _ = tokio::time::sleep_until(next_bookmark), if bookmarks => {
                    next_bookmark = later(bookmark_interval);
                    yield Ok(enc.bookmark(cursor, false));
                }
            }
        }
    };
    let mut response = Response::new(Body::from_stream(stream));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache, private"),
    );
    Ok(response)
}

/// `now + after`, saturating: `?timeoutSeconds=18446744073709551615` is a valid query and must
/// not overflow `Instant + Duration` (issue 15); too far means "never" for the timer.
fn later(after: std::time::Duration) -> tokio::time::Instant {
    let now = tokio::time::Instant::now();
    now.checked_add(after)
        .unwrap_or_else(|| crate::clock::far_future().into())
}
