//! The stored object's own fields: names and UIDs the API server would generate, the
//! `kind`/`apiVersion` check, metadata access on raw JSON, and serialising at a
//! resourceVersion. Shared by the create, update and delete paths.
use serde_json::{json, Map, Value};

use rand::Rng;

use bytes::Bytes;

use crate::domain::names;
use crate::domain::validation::objects::field_list;
use crate::domain::validation::{invalid, Invalid};
use crate::store::{fields, Kind, StoreError, StoredObject};

const NAME_CHARS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

pub(super) fn random_suffix() -> String {
    let mut rng = rand::rng();
    (0..5)
        .map(|_| NAME_CHARS[rng.random_range(0..NAME_CHARS.len())] as char)
        .collect()
}

pub(super) fn new_uid() -> String {
    let mut b: [u8; 16] = rand::rng().random();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// A 422 for the fields in `causes`, its message in the API server's `field: detail` form
/// (several in brackets, as `errors.NewInvalid` aggregates them).
///
/// Why with causes: kube-apiserver names each field in `details.causes`, and clients (kubectl,
/// the differential admission test) read the field from there, not from the message.
pub(super) fn fields_invalid(kind: Kind, name: &str, causes: Vec<Invalid>) -> StoreError {
    StoreError::Invalid {
        kind,
        name: name.to_string(),
        message: field_list(&causes),
        causes: causes.into_boxed_slice(),
    }
}

pub(super) fn format_time(t: k8s_openapi::jiff::Timestamp) -> String {
    match k8s_openapi::jiff::Timestamp::from_second(t.as_second()) {
        Ok(s) => s.to_string(),
        Err(_) => t.to_string(),
    }
}

pub(super) fn meta_mut(obj: &mut Value) -> Option<&mut Map<String, Value>> {
    let root = obj.as_object_mut()?;
    if !root.get("metadata").is_some_and(Value::is_object) {
        root.insert("metadata".to_string(), Value::Object(Map::new()));
    }
    root.get_mut("metadata").and_then(Value::as_object_mut)
}

pub(super) fn meta_str<'a>(obj: &'a Value, field: &str) -> Option<&'a str> {
    obj.get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

pub(super) fn has_finalizers(obj: &Value) -> bool {
    obj.pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty())
}

/// Check `kind`/`apiVersion` if present, then set them.
pub(super) fn stamp_type(kind: Kind, obj: &mut Value, name: &str) -> Result<(), StoreError> {
    let mismatch =
        |field: &str, rule: String| fields_invalid(kind, name, vec![invalid(field, rule)]);
    let root = obj.as_object_mut().ok_or_else(|| StoreError::Invalid {
        kind,
        name: name.to_string(),
        message: "the object is not a JSON object".to_string(),
        causes: Box::default(),
    })?;
    if let Some(k) = root
        .get("kind")
        .and_then(Value::as_str)
        .filter(|k| !k.is_empty())
    {
        if k != kind.kind_name() {
            return Err(mismatch(
                "kind",
                format!("Invalid value: {k:?}: must be {}", kind.kind_name()),
            ));
        }
    }
    if let Some(v) = root
        .get("apiVersion")
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty())
    {
        if v != kind.api_version() {
            return Err(mismatch(
                "apiVersion",
                format!("Invalid value: {v:?}: must be {}", kind.api_version()),
            ));
        }
    }
    root.insert("kind".to_string(), json!(kind.kind_name()));
    root.insert("apiVersion".to_string(), json!(kind.api_version()));
    Ok(())
}

/// Serialize an object at `rv` into its stored form.
pub(super) fn finalize(kind: Kind, mut obj: Value, rv: u64) -> Result<StoredObject, StoreError> {
    if let Some(meta) = meta_mut(&mut obj) {
        meta.insert("resourceVersion".to_string(), json!(rv.to_string()));
    }
    let facts = fields::extract(kind, &obj);
    let mut raw = serde_json::to_vec(&obj).map_err(|e| StoreError::Invalid {
        kind,
        name: facts.name.clone(),
        message: format!("does not serialize: {e}"),
        causes: Box::default(),
    })?;
    // to_vec grows by doubling: without this a 2 KB pod would hold up to 4 KB for its life.
    raw.shrink_to_fit();
    Ok(StoredObject {
        kind,
        resource_version: rv,
        raw: Bytes::from(raw),
        facts,
    })
}

/// The template generation in `metadata`'s annotation; 0 when absent or not a number (as the
/// conversion to the internal type reads it).
pub(super) fn template_generation(meta: &serde_json::Map<String, Value>) -> i64 {
    meta.get("annotations")
        .and_then(|a| a.get(names::TEMPLATE_GENERATION_ANNOTATION))
        .and_then(Value::as_str)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

pub(super) fn set_template_generation(meta: &mut serde_json::Map<String, Value>, generation: i64) {
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    if !annotations.is_object() {
        *annotations = json!({});
    }
    if let Some(map) = annotations.as_object_mut() {
        map.insert(
            names::TEMPLATE_GENERATION_ANNOTATION.to_string(),
            json!(generation.to_string()),
        );
    }
}
