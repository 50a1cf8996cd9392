//! From YAML text to typed k8s-openapi objects, one document (or `List` item) at a time, with
//! errors that name the document, the object and the field.
//!
//! Why two passes (YAML to JSON values, then values to typed objects): the `kind` of a document
//! decides its type, and serde_path_to_error on the second pass gives the exact field path
//! (`spec.updateStrategy.rollingUpdate.maxSurge`) that a person needs to fix a file.

use super::settings::{SimulationSettings, SETTINGS_API_VERSION, SETTINGS_KIND};
use super::{Scenario, ScenarioError};
use crate::edge::convert::load::{json_type, served_api_version, KubeObject};
use serde_json::Value;

mod priority_class;
mod resource_quota;
use std::collections::BTreeMap;

/// Where an object sits in the file, for error messages.
#[derive(Debug, Clone, Copy)]
struct Place {
    /// 1-based index of the YAML document (empty documents are not counted).
    document: usize,
    /// 1-based index inside a `List` document's `items`.
    item: Option<usize>,
}

/// Parses a whole scenario text. `source_name` (a path, or `<generated>`) goes into errors.
pub(super) fn parse_scenario(text: &str, source_name: &str) -> Result<Scenario, ScenarioError> {
    // YAML 1.2 booleans only (a node named `n` or a label value `yes` stays a string), and
    // number-like spellings that YAML 1.2 keeps as text stay text.
    let options = serde_saphyr::options! {
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        underscored_numbers_as_strings: true,
        budget: serde_saphyr::budget! {
            // A `kubectl get -o yaml` dump of a 5,000-node cluster is one large document.
            max_documents: 1_000_000,
            max_nodes: 50_000_000,
            max_events: 100_000_000,
        },
    };
    let docs: Vec<Value> = serde_saphyr::from_multiple_with_options(text, options)
        .map_err(|e| yaml_error(source_name, &e))?;
    let mut builder = Builder {
        source_name,
        scenario: Scenario::empty(source_name),
        seen: BTreeMap::new(),
        settings_seen: None,
    };
    for (i, doc) in docs.into_iter().enumerate() {
        let place = Place {
            document: i + 1,
            item: None,
        };
        builder.document(doc, place)?;
    }
    builder.finish()
}

fn yaml_error(source_name: &str, e: &serde_saphyr::Error) -> ScenarioError {
    let location = e
        .location()
        .map(|l| format!("line {}, column {}: ", l.line(), l.column()))
        .unwrap_or_default();
    let message = e.without_snippet().to_string();
    let first_line = message.lines().next().unwrap_or("invalid YAML").trim();
    ScenarioError::Yaml {
        source_name: source_name.to_string(),
        message: format!("{location}{first_line}"),
    }
}

struct Builder<'a> {
    source_name: &'a str,
    scenario: Scenario,
    /// kind/namespace/name -> where it was first seen, to report duplicates.
    seen: BTreeMap<String, Place>,
    settings_seen: Option<Place>,
}

impl Builder<'_> {
    fn error(
        &self,
        place: Place,
        what: &str,
        field: Option<String>,
        message: String,
    ) -> ScenarioError {
        ScenarioError::Document {
            source_name: self.source_name.to_string(),
            document: place.document,
            item: place.item,
            what: what.to_string(),
            field,
            message,
        }
    }

    fn document(&mut self, doc: Value, place: Place) -> Result<(), ScenarioError> {
        let obj = match &doc {
            Value::Null => return Ok(()),
            Value::Object(map) => map,
            other => {
                return Err(self.error(
                    place,
                    "document",
                    None,
                    format!(
                        "expected a Kubernetes object (a mapping), found {}",
                        json_type(other)
                    ),
                ))
            }
        };
        let kind = obj
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let api_version = obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let name = name_of(&doc);
        let what = if name.is_empty() {
            kind.clone()
        } else {
            format!("{kind} {name}")
        };
        if kind.is_empty() {
            return Err(self.error(place, "document", Some("kind".into()), "missing".into()));
        }
        if api_version.is_empty() {
            return Err(self.error(place, &what, Some("apiVersion".into()), "missing".into()));
        }
        // What kube-apiserver would refuse is refused here too (issue 15), first field first.
        if let Some(stored_kind) = stored_kind(&api_version, &kind) {
            let invalid = crate::validation::invalid_fields(stored_kind, &doc);
            if let Some(first) = invalid.into_iter().next() {
                return Err(self.error(place, &what, Some(first.field), first.rule));
            }
        }
        match (api_version.as_str(), kind.as_str()) {
            ("v1", "List") if place.item.is_none() => {
                let Some(Value::Array(items)) = obj.get("items") else {
                    return Err(self.error(
                        place,
                        "List",
                        Some("items".into()),
                        "missing or not a list".into(),
                    ));
                };
                for (j, item) in items.clone().into_iter().enumerate() {
                    self.document(
                        item,
                        Place {
                            item: Some(j + 1),
                            ..place
                        },
                    )?;
                }
                Ok(())
            }
            (SETTINGS_API_VERSION, SETTINGS_KIND) => self.settings(doc, place),
            (priority_class::API_VERSION, "PriorityClass") => {
                self.priority_class(doc, place, &what)
            }
            ("v1", "ResourceQuota") => self.resource_quota(doc, place, &what),
            (version, kind) if served_api_version(kind) == Some(version) => {
                self.object(doc, place, &what, kind)
            }
            (_, kind) if served_api_version(kind).is_some() || kind == SETTINGS_KIND => Err(self
                .error(
                    place,
                    &what,
                    Some("apiVersion".into()),
                    format!(
                        "{api_version:?} is not served; expected {}",
                        served_api_version(kind).unwrap_or(SETTINGS_API_VERSION)
                    ),
                )),
            _ => {
                let at = match place.item {
                    Some(j) => format!("document {}, item {j}", place.document),
                    None => format!("document {}", place.document),
                };
                self.scenario
                    .skipped
                    .push(format!("{at}: {api_version} {what} (not simulated)"));
                Ok(())
            }
        }
    }

    /// One object of a kind the edge's loader reads (`edge::convert::load`), kept in the
    /// scenario under its namespace (`default` when left out), refused when duplicated.
    fn object(
        &mut self,
        doc: Value,
        place: Place,
        what: &str,
        kind: &str,
    ) -> Result<(), ScenarioError> {
        if kind == "DaemonSet" {
            if !doc.get("spec").is_some_and(Value::is_object) {
                return Err(self.error(place, what, Some("spec".into()), "missing".into()));
            }
            if !doc.pointer("/spec/template").is_some_and(Value::is_object) {
                return Err(self.error(
                    place,
                    what,
                    Some("spec.template".into()),
                    "missing".into(),
                ));
            }
        }
        if let Err((field, message)) = super::quantities::check(kind, &doc) {
            return Err(self.error(place, what, Some(field), message));
        }
        let object = KubeObject::from_document(kind, doc)
            .map_err(|e| self.error(place, what, e.field(), e.message))?;
        match object {
            KubeObject::Node(node) => {
                self.remember(place, what, "Node", None, &node.metadata.name)?;
                self.scenario.nodes.push(node);
            }
            KubeObject::Namespace(ns) => {
                self.remember(place, what, "Namespace", None, &ns.metadata.name)?;
                self.scenario.namespaces.push(ns);
            }
            KubeObject::Pod(mut pod) => {
                default_namespace(&mut pod.metadata.namespace);
                if pod.metadata.name.as_deref().unwrap_or_default().is_empty()
                    && pod
                        .metadata
                        .generate_name
                        .as_deref()
                        .unwrap_or_default()
                        .is_empty()
                {
                    return Err(self.error(
                        place,
                        what,
                        Some("metadata.name".into()),
                        "missing (and no metadata.generateName)".into(),
                    ));
                }
                if pod.metadata.name.as_deref().is_some_and(|n| !n.is_empty()) {
                    let namespace = pod.metadata.namespace.clone();
                    self.remember(place, what, "Pod", namespace, &pod.metadata.name)?;
                }
                self.scenario.pods.push(pod);
            }
            KubeObject::DaemonSet(mut ds) => {
                default_namespace(&mut ds.metadata.namespace);
                let namespace = ds.metadata.namespace.clone();
                self.remember(place, what, "DaemonSet", namespace, &ds.metadata.name)?;
                self.scenario.daemonsets.push(ds);
            }
            KubeObject::ControllerRevision(mut cr) => {
                default_namespace(&mut cr.metadata.namespace);
                let namespace = cr.metadata.namespace.clone();
                self.remember(
                    place,
                    what,
                    "ControllerRevision",
                    namespace,
                    &cr.metadata.name,
                )?;
                self.scenario.revisions.push(cr);
            }
        }
        Ok(())
    }

    fn remember(
        &mut self,
        place: Place,
        what: &str,
        kind: &str,
        namespace: Option<String>,
        name: &Option<String>,
    ) -> Result<(), ScenarioError> {
        let name = name.as_deref().unwrap_or_default();
        if name.is_empty() {
            return Err(self.error(place, what, Some("metadata.name".into()), "missing".into()));
        }
        let key = format!("{kind}/{}/{name}", namespace.unwrap_or_default());
        if let Some(first) = self.seen.get(&key) {
            return Err(self.error(
                place,
                what,
                Some("metadata.name".into()),
                format!(
                    "duplicate: the same {kind} is already defined in document {}",
                    first.document
                ),
            ));
        }
        self.seen.insert(key, place);
        Ok(())
    }

    fn settings(&mut self, doc: Value, place: Place) -> Result<(), ScenarioError> {
        let what = SETTINGS_KIND;
        if let Some(first) = self.settings_seen {
            return Err(self.error(
                place,
                what,
                None,
                format!(
                    "only one settings document is allowed; the first is document {}",
                    first.document
                ),
            ));
        }
        self.settings_seen = Some(place);
        let Value::Object(mut map) = doc else {
            return Err(self.error(place, what, None, "not a mapping".into()));
        };
        for key in map.keys() {
            if !matches!(key.as_str(), "apiVersion" | "kind" | "metadata" | "spec") {
                return Err(self.error(place, what, Some(key.clone()), "unknown field".into()));
            }
        }
        let spec = map
            .remove("spec")
            .unwrap_or(Value::Object(Default::default()));
        let settings: SimulationSettings = serde_path_to_error::deserialize(spec).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." {
                "spec".to_string()
            } else {
                format!("spec.{path}")
            };
            self.error(place, what, Some(field), e.into_inner().to_string())
        })?;
        settings
            .validate()
            .map_err(|e| self.error(place, what, None, e.to_string()))?;
        self.scenario.settings = settings;
        Ok(())
    }

    fn finish(self) -> Result<Scenario, ScenarioError> {
        let scenario = self.scenario;
        let settings = &scenario.settings;
        let references = settings
            .blocked_creations
            .iter()
            .enumerate()
            .map(|(i, b)| {
                (
                    format!("spec.blockedCreations[{i}].daemonSet"),
                    &b.daemon_set,
                )
            })
            .chain(
                settings
                    .updates
                    .iter()
                    .enumerate()
                    .map(|(i, u)| (format!("spec.updates[{i}].daemonSet"), &u.daemon_set)),
            );
        for (field, reference) in references {
            let exists = scenario.daemonsets.iter().any(|ds| {
                let key = format!(
                    "{}/{}",
                    ds.metadata.namespace.as_deref().unwrap_or_default(),
                    ds.metadata.name.as_deref().unwrap_or_default()
                );
                key == *reference
            });
            if !exists {
                return Err(ScenarioError::Document {
                    source_name: self.source_name.to_string(),
                    document: self.settings_seen.map(|p| p.document).unwrap_or_default(),
                    item: None,
                    what: SETTINGS_KIND.to_string(),
                    field: Some(field),
                    message: format!("no DaemonSet {reference} in this scenario"),
                });
            }
        }
        Ok(scenario)
    }
}

/// The store kind of a document this loader keeps, if it is one.
fn stored_kind(api_version: &str, kind: &str) -> Option<crate::store::Kind> {
    use crate::store::Kind;
    match (api_version, kind) {
        ("v1", "Node") => Some(Kind::Node),
        ("v1", "Namespace") => Some(Kind::Namespace),
        ("v1", "Pod") => Some(Kind::Pod),
        ("apps/v1", "DaemonSet") => Some(Kind::DaemonSet),
        (priority_class::API_VERSION, "PriorityClass") => Some(Kind::PriorityClass),
        ("v1", "ResourceQuota") => Some(Kind::ResourceQuota),
        _ => None,
    }
}

fn default_namespace(ns: &mut Option<String>) {
    if ns.as_deref().unwrap_or_default().is_empty() {
        *ns = Some("default".to_string());
    }
}

fn name_of(doc: &Value) -> String {
    let meta = doc.get("metadata");
    let name = meta
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .or_else(|| {
            meta.and_then(|m| m.get("generateName"))
                .and_then(Value::as_str)
        })
        .unwrap_or_default();
    match meta
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
    {
        Some(ns) if !name.is_empty() => format!("{ns}/{name}"),
        _ => name.to_string(),
    }
}
