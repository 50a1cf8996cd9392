//! Decoding a request body the way the API server does: into the kind's Go type (here the
//! k8s-openapi type) and back, which rejects wrong types and, with `fieldValidation=Strict`
//! (kubectl's default for create and apply), unknown fields, with the server's messages.
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::ApiError;
use crate::store::Kind;
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Event, Namespace, Node, Pod};

/// The body decoded as the kind's type and encoded again; serde's error names the field.
fn roundtrip<T: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, serde_json::Error> {
    let typed: T = serde_json::from_value(v.clone())?;
    serde_json::to_value(&typed)
}

/// Paths of fields present (and not null) in `input` but unknown to the type.
pub fn unknown_fields(input: &Value, known: &Value, path: &str, out: &mut Vec<String>) {
    match (input, known) {
        (Value::Object(i), Value::Object(k)) => {
            for (key, v) in i {
                let p = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match k.get(key) {
                    Some(kv) => unknown_fields(v, kv, &p, out),
                    None if !v.is_null() => out.push(p),
                    None => {}
                }
            }
        }
        (Value::Array(i), Value::Array(k)) => {
            for (n, (iv, kv)) in i.iter().zip(k.iter()).enumerate() {
                unknown_fields(iv, kv, &format!("{path}[{n}]"), out);
            }
        }
        _ => {}
    }
}

/// Decode `input` as `kind`; returns the normalized object (unknown fields dropped).
pub fn normalize(kind: Kind, input: &Value, strict: bool) -> Result<Value, ApiError> {
    let result = match kind {
        Kind::Namespace => roundtrip::<Namespace>(input),
        Kind::Node => roundtrip::<Node>(input),
        Kind::Pod => roundtrip::<Pod>(input),
        Kind::Event => roundtrip::<Event>(input),
        Kind::DaemonSet => roundtrip::<DaemonSet>(input),
        Kind::ControllerRevision => roundtrip::<ControllerRevision>(input),
    };
    let prefix = format!(
        "{k} in version \"v1\" cannot be handled as a {k}",
        k = kind.kind_name()
    );
    let known = result.map_err(|e| ApiError::bad_request(format!("{prefix}: {e}")))?;
    if strict {
        let mut unknown = Vec::new();
        unknown_fields(input, &known, "", &mut unknown);
        if !unknown.is_empty() {
            let list: Vec<String> = unknown
                .iter()
                .map(|f| format!("unknown field {f:?}"))
                .collect();
            return Err(ApiError::bad_request(format!(
                "{prefix}: strict decoding error: {}",
                list.join(", ")
            )));
        }
    }
    Ok(known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_decoding_names_each_unknown_field_with_its_path() {
        let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "x"},
            "spec": {"bogusField": 1, "selector": {}, "template": {"spec": {"containers": [{"name": "c", "imagex": "i"}]}}}});
        let err = normalize(Kind::DaemonSet, &ds, true)
            .err()
            .map(|e| e.message)
            .unwrap_or_default();
        assert!(err.contains("unknown field \"spec.bogusField\""), "{err}");
        assert!(
            err.contains("unknown field \"spec.template.spec.containers[0].imagex\""),
            "{err}"
        );
        assert!(normalize(Kind::DaemonSet, &ds, false).is_ok());
    }

    #[test]
    fn wrong_types_are_a_bad_request_even_without_strict_validation() {
        let node = json!({"metadata": {"name": "n"}, "spec": {"unschedulable": "yes"}});
        assert_eq!(
            normalize(Kind::Node, &node, false).err().map(|e| e.code),
            Some(400)
        );
    }
}
