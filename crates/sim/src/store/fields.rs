//! What the store remembers about each object besides its bytes: identity, labels, owners
//! and the field values field selectors read, extracted once per write so that selecting
//! among 150,000 pods never re-parses JSON.
use crate::domain::names;
use std::collections::BTreeMap;

use serde_json::Value;

use super::selector::supported_fields;
use super::Kind;

/// The selectable facts of one stored object.
#[derive(Debug, Clone, Default)]
pub struct ObjectFacts {
    pub namespace: Option<String>,
    pub name: String,
    pub uid: String,
    pub labels: BTreeMap<String, String>,
    pub owner_uids: Vec<String>,
    pub fields: Vec<(&'static str, String)>,
}

fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// Read the value of one selectable field from an object.
fn field_value(kind: Kind, obj: &Value, field: &str) -> String {
    match field {
        // Booleans select as "false" when absent, as the API server's field sets do.
        "spec.unschedulable" | "spec.hostNetwork" => {
            let path = format!("/{}", field.replace('.', "/"));
            obj.pointer(&path)
                .and_then(Value::as_bool)
                .unwrap_or(false)
                .to_string()
        }
        "source" if kind == Kind::Event => text(obj.pointer("/source/component")),
        _ => {
            let path = format!("/{}", field.replace('.', "/"));
            text(obj.pointer(&path))
        }
    }
}

/// Extract the facts of an object about to be stored.
pub fn extract(kind: Kind, obj: &Value) -> ObjectFacts {
    let meta = obj.get("metadata");
    let labels = meta
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), text(Some(v)))).collect())
        .unwrap_or_default();
    let owner_uids = meta
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .map(|r| text(r.get("uid")))
                .filter(|u| !u.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let fields = supported_fields(kind)
        .iter()
        .filter(|f| !f.starts_with("metadata."))
        .map(|f| (*f, field_value(kind, obj, f)))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    let namespace = meta
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
        .map(str::to_string);
    ObjectFacts {
        name: text(meta.and_then(|m| m.get("name"))),
        uid: text(meta.and_then(|m| m.get("uid"))),
        namespace,
        labels,
        owner_uids,
        fields,
    }
}

impl ObjectFacts {
    /// The value of one selectable field (`""` when absent), metadata included.
    pub fn field(&self, field: &str) -> &str {
        match field {
            names::METADATA_NAME_FIELD => &self.name,
            "metadata.namespace" => self.namespace.as_deref().unwrap_or(""),
            _ => self
                .fields
                .iter()
                .find(|(f, _)| *f == field)
                .map(|(_, v)| v.as_str())
                .unwrap_or(""),
        }
    }
}
