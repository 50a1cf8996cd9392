//! The offline commands (`explain`, `rollout`) and the binary's shared plumbing.

pub mod explain;
pub mod rollout;

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
}

/// Logs go to stderr through `tracing`, filtered by `RUST_LOG` (default `info`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
