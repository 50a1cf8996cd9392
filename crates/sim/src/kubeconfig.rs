//! Kubeconfigs for the simulated cluster: a file kubectl can use (`--write-kubeconfig`), and
//! a `kube::Config` for in-process kube-rs clients. Plain HTTP on loopback, no credentials:
//! the sim checks none, so it asks for none.
use std::path::Path;

/// The name of the cluster, context and user entries.
pub const CONTEXT: &str = "daemonscope-sim";

/// A kubeconfig YAML pointing at `url`.
pub fn render(url: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: {CONTEXT}\n  cluster:\n    server: {url}\ncontexts:\n- name: {CONTEXT}\n  context:\n    cluster: {CONTEXT}\n    user: {CONTEXT}\n    namespace: default\ncurrent-context: {CONTEXT}\nusers:\n- name: {CONTEXT}\n  user: {{}}\npreferences: {{}}\n"
    )
}

/// Write the kubeconfig for `url` to `path`.
pub fn write(path: &Path, url: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, render(url))
}

/// A kube-rs client configuration for `url`.
pub fn kube_config(url: &str) -> Result<kube::Config, http::uri::InvalidUri> {
    let uri: http::Uri = url.parse()?;
    Ok(kube::Config::new(uri))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kubeconfig_names_the_server_and_selects_its_context() {
        let k = render("http://127.0.0.1:6443");
        assert!(k.contains("server: http://127.0.0.1:6443"));
        assert!(k.contains("current-context: daemonscope-sim"));
    }
}
