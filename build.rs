//! Build script: the git commit `daemonscope --version` names (`DAEMONSCOPE_COMMIT`).
//!
//! Why a build script: the release binary is copied away from its checkout, and a user who
//! reports a problem should be able to say which code they ran. Why it never fails: a source
//! tarball has no git, and a version string is not worth a broken build ("unknown" then).
//!
//! Rebuilds stay cheap: the script reruns only when HEAD or the branch it points at moves
//! (`rerun-if-changed` on those files), not on every edit, and not at all for the WASM half,
//! which has no version flag (there it prints nothing but its own path, so it never reruns).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        return;
    }
    println!("cargo:rerun-if-env-changed=DAEMONSCOPE_COMMIT");
    let commit = std::env::var("DAEMONSCOPE_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=DAEMONSCOPE_COMMIT={commit}");
    // The files whose change means a new commit: HEAD itself (a checkout, a detached HEAD
    // moving), the branch it names, and packed-refs (where `git gc` moves branches). In a
    // worktree `--git-path` finds the worktree's HEAD and the shared refs.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            let path = PathBuf::from(path);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
}

/// One line of git's output, or None when git is missing or says no (not a repository).
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let line = text.trim();
    (!line.is_empty()).then(|| line.to_string())
}
