//! One Kubernetes object from text, JSON or YAML, as `kubectl get -o json|yaml` prints it.
//!
//! Why here: the offline commands read files a person hands them, so every way such a file
//! can be wrong (not YAML, two objects, the wrong kind, a field of the wrong type) must end
//! in a [`ConvertError`] that says what is wrong, never a panic. The text is read as a
//! generic document first, so the kind can be checked before the typed parse.

use super::ConvertError;
use crate::domain::names;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Node;
pub use object::{json_type, served_api_version, typed, DocumentError, KubeObject};
use serde_json::Value;

mod object;

/// Longest error detail kept from a parser, so an error stays one readable line.
const MAX_DETAIL: usize = 300;

/// A parser message squeezed onto one bounded line.
fn one_line(message: &str) -> String {
    let joined = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if joined.chars().count() > MAX_DETAIL {
        let cut: String = joined.chars().take(MAX_DETAIL).collect();
        format!("{cut}…")
    } else {
        joined
    }
}

/// serde-saphyr's message is the problem and its location on the first line, then a
/// source snippet over several lines: keep the first line only.
fn yaml_detail(message: &str) -> String {
    let first = message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("unreadable YAML");
    one_line(first.strip_prefix("error: ").unwrap_or(first))
}

/// The documents in the text: JSON when it starts with `{`, YAML otherwise (empty YAML
/// documents, such as a trailing `---`, are skipped).
fn documents(text: &str) -> Result<Vec<Value>, ConvertError> {
    if text.trim_start().starts_with('{') {
        return serde_json::from_str::<Value>(text)
            .map(|v| vec![v])
            .map_err(|e| ConvertError::Syntax {
                format: "JSON",
                detail: one_line(&e.to_string()),
            });
    }
    let docs: Vec<Value> =
        serde_saphyr::from_multiple::<Value>(text).map_err(|e| ConvertError::Syntax {
            format: "YAML",
            detail: yaml_detail(&e.to_string()),
        })?;
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// The one object of the expected kind in the text. A `kind: List` holding exactly one item
/// (what `kubectl get -o yaml` prints for a selector) counts as that item.
fn single_object(
    text: &str,
    kind: &'static str,
    api_version: &'static str,
) -> Result<Value, ConvertError> {
    let mut docs = documents(text)?;
    let mut doc = match docs.len() {
        0 => return Err(ConvertError::Empty { expected: kind }),
        1 => docs.remove(0),
        count => {
            return Err(ConvertError::Multiple {
                count,
                expected: kind,
            })
        }
    };
    if doc.get("kind").and_then(Value::as_str) == Some("List") {
        let mut items = match doc.get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        doc = match items.len() {
            1 => items.remove(0),
            0 => return Err(ConvertError::Empty { expected: kind }),
            count => {
                return Err(ConvertError::Multiple {
                    count,
                    expected: kind,
                })
            }
        };
    }
    let found = match doc.get("kind") {
        Some(Value::String(found)) => found.clone(),
        Some(_) | None if !doc.is_object() => {
            return Err(ConvertError::Syntax {
                format: "manifest",
                detail: format!(
                    "expected a mapping (a {kind} object), found {}",
                    json_type(&doc)
                ),
            })
        }
        _ => return Err(ConvertError::MissingKind { expected: kind }),
    };
    if found != kind {
        return Err(ConvertError::WrongKind {
            expected: kind,
            found,
        });
    }
    match doc.get("apiVersion").and_then(Value::as_str) {
        Some(v) if v != api_version => {
            return Err(ConvertError::WrongApiVersion {
                expected: api_version,
                found: v.to_string(),
            })
        }
        _ => {}
    }
    Ok(doc)
}

fn object_name(doc: &Value) -> String {
    doc.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("(unnamed)")
        .to_string()
}

/// The typed parse ([`typed`]), its error naming the object and bounded to one line.
fn typed_object<T: serde::de::DeserializeOwned>(
    doc: Value,
    kind: &'static str,
) -> Result<T, ConvertError> {
    let name = object_name(&doc);
    typed(doc).map_err(|e| ConvertError::Shape {
        kind,
        name,
        path: e.path,
        detail: one_line(&e.message),
    })
}

/// One Node from `kubectl get node X -o json|yaml` text.
pub fn node_from_text(text: &str) -> Result<Node, ConvertError> {
    let doc = single_object(text, "Node", "v1")?;
    if object_name(&doc) == "(unnamed)" {
        return Err(ConvertError::Missing {
            kind: "Node",
            name: "(unnamed)".into(),
            field: names::METADATA_NAME_FIELD,
        });
    }
    typed_object(doc, "Node")
}

/// One DaemonSet from `kubectl get ds X -o json|yaml` text or a hand-written manifest.
/// A DaemonSet without `spec.template` is rejected here, before the typed parse would give
/// a less helpful "missing field".
pub fn daemonset_from_text(text: &str) -> Result<DaemonSet, ConvertError> {
    let doc = single_object(text, "DaemonSet", "apps/v1")?;
    let name = object_name(&doc);
    let missing = |field| ConvertError::Missing {
        kind: "DaemonSet",
        name: name.clone(),
        field,
    };
    match doc.get("spec") {
        None | Some(Value::Null) => return Err(missing("spec")),
        Some(spec) => match spec.get("template") {
            None | Some(Value::Null) => return Err(missing("spec.template")),
            Some(_) => {}
        },
    }
    typed_object(doc, "DaemonSet")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODE_YAML: &str = "apiVersion: v1\nkind: Node\nmetadata:\n  name: worker-1\n  labels:\n    workload-type: gpu\n";

    #[test]
    fn yaml_and_json_nodes_load() {
        let node = node_from_text(NODE_YAML).expect("yaml node");
        assert_eq!(node.metadata.name.as_deref(), Some("worker-1"));
        let json = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"worker-2"}}"#;
        assert_eq!(
            node_from_text(json)
                .expect("json node")
                .metadata
                .name
                .as_deref(),
            Some("worker-2")
        );
    }

    #[test]
    fn a_list_with_one_item_is_that_item() {
        let text = format!(
            "apiVersion: v1\nkind: List\nitems:\n- {}",
            NODE_YAML.replace('\n', "\n  ")
        );
        assert_eq!(
            node_from_text(&text)
                .expect("list")
                .metadata
                .name
                .as_deref(),
            Some("worker-1")
        );
    }

    /// Recognises the expected error.
    type ErrorCheck = fn(&ConvertError) -> bool;

    #[test]
    fn bad_input_gives_typed_errors() {
        let cases: Vec<(&str, &str, ErrorCheck)> = vec![
            ("empty file", "", |e| {
                matches!(e, ConvertError::Empty { .. })
            }),
            ("only comments", "# nothing\n", |e| {
                matches!(e, ConvertError::Empty { .. })
            }),
            ("broken JSON", "{\"kind\": ", |e| {
                matches!(e, ConvertError::Syntax { format: "JSON", .. })
            }),
            ("broken YAML", "kind: [Node\n  x: :\n", |e| {
                matches!(e, ConvertError::Syntax { .. })
            }),
            ("a scalar", "just some text", |e| {
                matches!(e, ConvertError::Syntax { .. })
            }),
            (
                "two documents",
                "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: b}\n",
                |e| matches!(e, ConvertError::Multiple { count: 2, .. }),
            ),
            ("no kind", "metadata:\n  name: a\n", |e| {
                matches!(e, ConvertError::MissingKind { .. })
            }),
            (
                "wrong kind",
                "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
                |e| matches!(e, ConvertError::WrongKind { found, .. } if found == "Pod"),
            ),
            (
                "wrong apiVersion",
                "apiVersion: v2\nkind: Node\nmetadata: {name: a}\n",
                |e| matches!(e, ConvertError::WrongApiVersion { .. }),
            ),
            (
                "no name",
                "apiVersion: v1\nkind: Node\nmetadata: {}\n",
                |e| matches!(e, ConvertError::Missing { .. }),
            ),
            (
                "wrong field type",
                "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nspec:\n  unschedulable: [1]\n",
                |e| matches!(e, ConvertError::Shape { path, .. } if path == "spec.unschedulable"),
            ),
        ];
        for (name, text, check) in cases {
            let err = node_from_text(text).expect_err(name);
            assert!(check(&err), "{name}: {err:?}");
            assert!(!err.to_string().contains('\n'), "{name}: one line: {err}");
        }
    }

    #[test]
    fn a_daemonset_without_template_is_rejected() {
        let cases = vec![
            ("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\n", "spec"),
            ("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {}\n", "spec.template"),
        ];
        for (text, field) in cases {
            let err = daemonset_from_text(text).expect_err("no template");
            assert_eq!(
                err,
                ConvertError::Missing {
                    kind: "DaemonSet",
                    name: "agent".into(),
                    field
                }
            );
            assert!(err.to_string().contains("DaemonSet agent has no"), "{err}");
        }
    }

    #[test]
    fn a_node_is_not_a_daemonset() {
        let err = daemonset_from_text(NODE_YAML).expect_err("wrong kind");
        assert_eq!(err.to_string(), "is a Node, not a DaemonSet");
    }
}
