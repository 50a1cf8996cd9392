//! CONTRACT STUB: `daemonscope rollout`.
use super::{CliError, OutputFormat};
use std::path::Path;

/// Budget and kubectl verdict for one DaemonSet file.
pub fn run(_daemonset: &Path, _output: OutputFormat) -> Result<String, CliError> {
    todo!("contract stub")
}
