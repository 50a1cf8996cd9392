//! Decoding a request body the way the API server does: into the kind's Go type (here the
//! k8s-openapi type) and back, which rejects wrong types and, with `fieldValidation=Strict`
//! (kubectl's default for create and apply), unknown fields, with the server's messages.
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

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

/// The `fieldValidation` directive of a write (metav1 `FieldValidationIgnore/Warn/Strict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValidation {
    /// Unknown fields are dropped silently.
    Ignore,
    /// Unknown fields are dropped, each named in a `Warning` header (the default).
    Warn,
    /// Unknown fields make the write a 400.
    Strict,
}

impl FieldValidation {
    /// The directive of `value`, the `fieldValidation` query parameter of a write whose
    /// options type is `options_kind` (`CreateOptions`, `UpdateOptions`, `PatchOptions`).
    ///
    /// Why a 422 for an unknown directive: metav1 validation `ValidateFieldValidation`
    /// refuses it before the body is read (apiserver handlers create.go, update.go,
    /// patch.go), with `errors.NewInvalid` on the options kind; a missing or empty one means
    /// Warn (handlers rest.go `fieldValidation`).
    pub fn parse(value: Option<&str>, options_kind: &str) -> Result<FieldValidation, ApiError> {
        match value.unwrap_or("") {
            "" | "Warn" => Ok(FieldValidation::Warn),
            "Ignore" => Ok(FieldValidation::Ignore),
            "Strict" => Ok(FieldValidation::Strict),
            other => {
                let rule = format!(
                    "Unsupported value: {other:?}: supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""
                );
                Err(ApiError {
                    code: 422,
                    reason: "Invalid",
                    message: format!(
                        "{options_kind}.meta.k8s.io \"\" is invalid: fieldValidation: {rule}"
                    ),
                    details: Some(json!({"group": "meta.k8s.io", "kind": options_kind,
                        "causes": [{"reason": "FieldValueNotSupported", "message": rule,
                            "field": "fieldValidation"}]})),
                })
            }
        }
    }
}

/// Decode `input` as `kind`; returns the normalized object (unknown fields dropped) and, with
/// `Warn`, one warning per unknown field (`unknown field "spec.x"`, the strict decoder's words
/// that kube-apiserver sends as `Warning` headers).
pub fn normalize(
    kind: Kind,
    input: &Value,
    directive: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    let result = match kind {
        Kind::Namespace => roundtrip::<Namespace>(input),
        Kind::Node => roundtrip::<Node>(input),
        Kind::Pod => roundtrip::<Pod>(input),
        Kind::Event => roundtrip::<Event>(input),
        Kind::DaemonSet => roundtrip::<DaemonSet>(input),
        Kind::ControllerRevision => roundtrip::<ControllerRevision>(input),
        Kind::PriorityClass => roundtrip::<k8s_openapi::api::scheduling::v1::PriorityClass>(input),
        Kind::ResourceQuota => roundtrip::<k8s_openapi::api::core::v1::ResourceQuota>(input),
    };
    let prefix = format!(
        "{k} in version \"v1\" cannot be handled as a {k}",
        k = kind.kind_name()
    );
    let known = result.map_err(|e| ApiError::bad_request(format!("{prefix}: {e}")))?;
    // A quota's quantities are decoded (`resource.Quantity.UnmarshalJSON`): a value that is not
    // one fails the decoding with the parser's words (§l.6).
    if kind == Kind::ResourceQuota {
        for map in ["/spec/hard", "/status/hard", "/status/used"] {
            for value in known
                .pointer(map)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if let Some(text) = value.1.as_str() {
                    crate::domain::resources::Quantity::parse(text)
                        .map_err(|e| ApiError::bad_request(format!("{prefix}: {e}")))?;
                }
            }
        }
    }
    if directive == FieldValidation::Ignore {
        return Ok((known, Vec::new()));
    }
    let mut unknown = Vec::new();
    unknown_fields(input, &known, "", &mut unknown);
    let list: Vec<String> = unknown
        .iter()
        .map(|f| format!("unknown field {f:?}"))
        .collect();
    if directive == FieldValidation::Strict && !list.is_empty() {
        return Err(ApiError::bad_request(format!(
            "{prefix}: strict decoding error: {}",
            list.join(", ")
        )));
    }
    Ok((known, list))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_decoding_names_each_unknown_field_with_its_path() {
        let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "x"},
            "spec": {"bogusField": 1, "selector": {}, "template": {"spec": {"containers": [{"name": "c", "imagex": "i"}]}}}});
        let err = normalize(Kind::DaemonSet, &ds, FieldValidation::Strict)
            .err()
            .map(|e| e.message)
            .unwrap_or_default();
        assert!(err.contains("unknown field \"spec.bogusField\""), "{err}");
        assert!(
            err.contains("unknown field \"spec.template.spec.containers[0].imagex\""),
            "{err}"
        );
        let (_, warnings) = normalize(Kind::DaemonSet, &ds, FieldValidation::Warn).expect("warned");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        let (_, silent) = normalize(Kind::DaemonSet, &ds, FieldValidation::Ignore).expect("ok");
        assert!(silent.is_empty());
    }

    #[test]
    fn an_unknown_directive_is_a_422_on_the_options_kind() {
        // apimachinery meta/v1/validation `ValidateFieldValidation` via `ValidateCreateOptions`.
        let err = FieldValidation::parse(Some("Sometimes"), "CreateOptions").expect_err("422");
        assert_eq!((err.code, err.reason), (422, "Invalid"));
        assert_eq!(
            err.message,
            "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \
             \"Sometimes\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""
        );
        assert_eq!(
            FieldValidation::parse(None, "PatchOptions").ok(),
            Some(FieldValidation::Warn)
        );
    }

    #[test]
    fn wrong_types_are_a_bad_request_even_without_strict_validation() {
        let node = json!({"metadata": {"name": "n"}, "spec": {"unschedulable": "yes"}});
        assert_eq!(
            normalize(Kind::Node, &node, FieldValidation::Ignore)
                .err()
                .map(|e| e.code),
            Some(400)
        );
    }
}
