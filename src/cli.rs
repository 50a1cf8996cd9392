//! The offline commands (`explain`, `rollout`) and the binary's shared plumbing.

pub mod explain;
pub mod rollout;

use crate::domain::facts::{DaemonSetFacts, NodeFacts};
use crate::edge::convert::{self, load, ConvertError};
use std::path::Path;

/// How the offline commands print their result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    Json,
}

/// A failure of an offline command: one line naming the file and what is wrong (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{path}: {detail}")]
    Input { path: String, detail: String },
    /// The file itself could not be read (missing, not a regular file, too large, not text).
    #[error(transparent)]
    Read(#[from] crate::edge::files::ReadFileError),
}

/// Largest input file the offline commands read: a Node or DaemonSet dump is kilobytes, so
/// anything bigger is a mistake (a log, a binary) and gets a clear error instead of a slow parse.
const MAX_INPUT_BYTES: u64 = 8 * 1024 * 1024;

/// The text of an input file, or a one-line error naming it (regular files only, read
/// through a bounded reader: issue 15).
fn read_input(path: &Path) -> Result<String, CliError> {
    Ok(crate::edge::files::read_text_limited(
        path,
        MAX_INPUT_BYTES,
        "a Node or DaemonSet dump",
    )?)
}

/// A Node file as domain facts.
pub(crate) fn read_node(path: &Path) -> Result<NodeFacts, CliError> {
    let text = read_input(path)?;
    let node = load::node_from_text(&text).map_err(|e| input_error(path, e))?;
    Ok(convert::node_facts(&node))
}

/// A DaemonSet file as domain facts, defaulted as the API server would (§i.1).
pub(crate) fn read_daemonset(path: &Path) -> Result<DaemonSetFacts, CliError> {
    let text = read_input(path)?;
    let ds = load::daemonset_from_text(&text).map_err(|e| input_error(path, e))?;
    convert::daemonset_facts(&ds).map_err(|e| input_error(path, e))
}

fn input_error(path: &Path, err: ConvertError) -> CliError {
    CliError::Input {
        path: path.display().to_string(),
        detail: err.to_string(),
    }
}

/// The log filter without `RUST_LOG`.
pub const DEFAULT_LOG_FILTER: &str = "info,kube_client::client::builder=off";

/// JSON for people and scripts; serializing plain data cannot fail, but say so if it does.
fn to_json(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value)
        .unwrap_or_else(|e| format!("{{\"error\": \"cannot render JSON: {e}\"}}"))
}

/// Logs go to stderr through `tracing`, filtered by `RUST_LOG` (default `info`, without
/// kube-client's per-request ERROR line: while the API server is down every retry of every
/// watcher printed one, 22 in a 10 s outage; the dashboard logs the outage itself, once when
/// it starts and once with its length when it ends, see `cluster::live::freshness`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG_FILTER));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
