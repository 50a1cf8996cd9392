//! CONTRACT STUB: `daemonscope explain`.
use super::{CliError, OutputFormat};
use std::path::Path;

/// Explain one node × DaemonSet pair from two files.
pub fn run(_node: &Path, _daemonset: &Path, _output: OutputFormat) -> Result<String, CliError> {
    todo!("contract stub")
}
