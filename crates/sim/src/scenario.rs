//! Scenarios: the initial objects of a simulated cluster and its settings.
//!
//! A scenario is a multi-document YAML file of real manifests (Nodes, Namespaces, DaemonSets,
//! ControllerRevisions, Pods, or a `kubectl get … -o yaml` `List` of them) plus at most one
//! `SimulationSettings` document, or a cluster made by the generator from a one-line spec.
//! Why typed k8s-openapi objects: the store holds exactly what an API server would, and a
//! file that would not deserialize into them is rejected here with the field that is wrong,
//! instead of failing later inside a controller.

mod apply;
mod parse;
mod quantities;
pub mod settings;

pub use apply::{apply, revision_template, ApplyError};
pub use settings::{
    BlockedCreation, ControllerSettings, FailingImage, FailureMode, KubeletSettings,
    SimulationSettings,
};

use super::ScenarioSource;
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::{Namespace, Node, Pod, ResourceQuota};
use k8s_openapi::api::scheduling::v1::PriorityClass;

/// The parsed content of a scenario, ready to be applied to a store.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Where it came from (a path, or `generated: <spec>`), for messages.
    pub source_name: String,
    pub settings: SimulationSettings,
    pub namespaces: Vec<Namespace>,
    pub nodes: Vec<Node>,
    pub daemonsets: Vec<DaemonSet>,
    pub revisions: Vec<ControllerRevision>,
    pub pods: Vec<Pod>,
    /// `scheduling.k8s.io/v1` PriorityClasses, created before any pod (§k.5).
    pub priority_classes: Vec<PriorityClass>,
    /// `v1` ResourceQuotas, created before any pod; their status is the store's (§l.6).
    pub resource_quotas: Vec<ResourceQuota>,
    /// Documents of kinds the simulation does not hold (Services, ConfigMaps, ...), named so
    /// the caller can say what was left out instead of failing a whole `kubectl get` dump.
    pub skipped: Vec<String>,
}

impl Scenario {
    /// A scenario with no objects and default settings.
    pub fn empty(source_name: &str) -> Scenario {
        Scenario {
            source_name: source_name.to_string(),
            settings: SimulationSettings::default(),
            namespaces: Vec::new(),
            nodes: Vec::new(),
            daemonsets: Vec::new(),
            revisions: Vec::new(),
            pods: Vec::new(),
            priority_classes: Vec::new(),
            resource_quotas: Vec::new(),
            skipped: Vec::new(),
        }
    }
}

/// Why a scenario cannot be loaded. Each variant names the file and, where there is one, the
/// document, the object and the field.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("cannot read scenario {0}")]
    Read(#[from] crate::edge::files::ReadFileError),
    #[error("scenario {source_name} is not valid YAML: {message}")]
    Yaml {
        source_name: String,
        message: String,
    },
    #[error("scenario {source_name}, document {document}{}, {what}{}: {message}",
        item.map(|i| format!(" item {i}")).unwrap_or_default(),
        field.as_ref().map(|f| format!(", field {f}")).unwrap_or_default())]
    Document {
        source_name: String,
        /// 1-based, counting non-empty documents.
        document: usize,
        /// 1-based index inside a `List`'s items.
        item: Option<usize>,
        /// `Kind namespace/name` (or just the kind when the name is unknown).
        what: String,
        /// The field path, e.g. `spec.template.spec.tolerations[0].effect`.
        field: Option<String>,
        message: String,
    },
    #[error(transparent)]
    Generate(#[from] super::generator::GenerateError),
}

/// Largest scenario file read: the demo is 0.2 MiB, a 5000-node dump a few tens of MiB.
pub const MAX_SCENARIO_BYTES: u64 = 64 * 1024 * 1024;

/// Loads a scenario from a file or the generator.
pub fn load(source: &ScenarioSource) -> Result<Scenario, ScenarioError> {
    match source {
        ScenarioSource::File(path) => {
            let text = crate::edge::files::read_text_limited(
                path,
                MAX_SCENARIO_BYTES,
                "a scenario (even 5000 generated nodes)",
            )?;
            parse_str(&text, &path.display().to_string())
        }
        ScenarioSource::Generate(spec) => Ok(super::generator::generate_from_str(spec)?),
        ScenarioSource::BuiltInDemo => parse_str(super::DEMO_SCENARIO, super::DEMO_SCENARIO_NAME),
    }
}

/// Parses scenario text; `source_name` is used in error messages.
pub fn parse_str(text: &str, source_name: &str) -> Result<Scenario, ScenarioError> {
    parse::parse_scenario(text, source_name)
}

#[cfg(test)]
mod tests;
