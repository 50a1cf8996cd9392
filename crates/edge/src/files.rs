//! Reading a file a user named, safely: only regular files, and never more than a limit.
//!
//! Why one helper: `metadata().len()` is 0 for `/dev/zero` and for a FIFO, so a size check on
//! it let `explain --node /dev/zero` read until memory ran out, and a FIFO blocked for ever
//! (issue 15). Every file the program reads on a user's word goes through here: the check is
//! on the file actually opened, and the read itself is bounded (`Read::take`).

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why a file could not be read; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadFileError {
    #[error("{path}: cannot read the file: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: is a directory, not a file")]
    Directory { path: String },
    #[error("{path}: is not a regular file (a device, FIFO or socket); give a file")]
    NotRegular { path: String },
    #[error("{path}: is larger than {limit} bytes; {what} is far smaller")]
    TooLarge {
        path: String,
        limit: u64,
        what: &'static str,
    },
    #[error("{path}: is not UTF-8 text, so neither JSON nor YAML")]
    NotUtf8 { path: String },
}

/// Refuses anything but a regular file (following symlinks), before it is opened: opening a
/// FIFO for reading blocks until a writer comes.
pub fn check_regular_file(path: &Path) -> Result<(), ReadFileError> {
    let name = || path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|source| ReadFileError::Io {
        path: name(),
        source,
    })?;
    if meta.is_dir() {
        return Err(ReadFileError::Directory { path: name() });
    }
    if !meta.is_file() {
        return Err(ReadFileError::NotRegular { path: name() });
    }
    Ok(())
}

/// The text of a regular file of at most `limit` bytes; `what` says what the file should be
/// ("a Node or DaemonSet dump") in the too-large message.
pub fn read_text_limited(
    path: &Path,
    limit: u64,
    what: &'static str,
) -> Result<String, ReadFileError> {
    let name = || path.display().to_string();
    let io = |source| ReadFileError::Io {
        path: name(),
        source,
    };
    check_regular_file(path)?;
    let file = File::open(path).map_err(io)?;
    // Checked again on what was opened, in case the path changed in between.
    if !file.metadata().map_err(io)?.is_file() {
        return Err(ReadFileError::NotRegular { path: name() });
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadFileError::TooLarge {
            path: name(),
            limit,
            what,
        });
    }
    String::from_utf8(bytes).map_err(|_| ReadFileError::NotUtf8 { path: name() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_directories_are_refused_without_reading_them() {
        // Issue 15 reproduction 4: /dev/zero has length 0 and never ends; a FIFO blocks.
        let zero = read_text_limited(Path::new("/dev/zero"), 1024, "a dump");
        assert!(
            matches!(zero, Err(ReadFileError::NotRegular { .. })),
            "{zero:?}"
        );
        assert!(zero.err().is_some_and(|e| e
            .to_string()
            .starts_with("/dev/zero: is not a regular file")));
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let r = read_text_limited(&fifo, 1024, "a dump");
            assert!(matches!(r, Err(ReadFileError::NotRegular { .. })), "{r:?}");
        }
        let r = read_text_limited(dir.path(), 1024, "a dump");
        assert!(matches!(r, Err(ReadFileError::Directory { .. })), "{r:?}");
    }

    #[test]
    fn a_file_over_the_limit_is_an_error_and_one_at_the_limit_is_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f.yaml");
        std::fs::write(&path, "x".repeat(11)).expect("write");
        let r = read_text_limited(&path, 10, "a dump");
        assert!(
            matches!(r, Err(ReadFileError::TooLarge { limit: 10, .. })),
            "{r:?}"
        );
        std::fs::write(&path, "x".repeat(10)).expect("write");
        assert_eq!(
            read_text_limited(&path, 10, "a dump").ok().map(|s| s.len()),
            Some(10)
        );
    }
}
