//! `/metrics` of several clusters in one process: each cluster's series with a `cluster`
//! label, one family header for all.
//!
//! Why by text and not one registry: each cluster's [`super::Metrics`] is its own registry,
//! kept current by its own watchers (a cluster down must not hold the others' lock); the
//! exposition format lets their encodings be joined family by family. A single cluster's
//! `/metrics` is left exactly as it was (no label), so its dashboards and alert rules keep
//! working.

/// One metric family: its `# HELP`/`# TYPE`/`# UNIT` lines and its samples.
struct Family {
    name: String,
    header: Vec<String>,
    samples: Vec<String>,
}

/// The family name a `# HELP name …`, `# TYPE name …` or `# UNIT name …` line is about.
fn header_name(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("# HELP ")
        .or_else(|| line.strip_prefix("# TYPE "))
        .or_else(|| line.strip_prefix("# UNIT "))?;
    rest.split(' ').next()
}

/// Escapes a label value as the exposition format wants it.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A sample line with `cluster="…"` as its first label.
fn with_cluster(line: &str, cluster: &str) -> String {
    let label = format!("cluster=\"{}\"", escape(cluster));
    let name_end = line.find(['{', ' ']).unwrap_or(line.len());
    let (name, rest) = line.split_at(name_end);
    match rest.strip_prefix('{') {
        Some(labels) if labels.starts_with('}') => format!("{name}{{{label}{labels}"),
        Some(labels) => format!("{name}{{{label},{labels}"),
        None => format!("{name}{{{label}}}{rest}"),
    }
}

/// Joins the OpenMetrics texts of several clusters (`(cluster, text)` in order): every sample
/// gets a `cluster` label, every family is written once with the samples of all clusters, in
/// the order the families first appear, and one `# EOF` ends it.
pub fn join_labelled(parts: &[(String, String)]) -> String {
    let mut families: Vec<Family> = Vec::new();
    for (cluster, text) in parts {
        let mut current: Option<usize> = None;
        for line in text.lines() {
            if line == "# EOF" || line.is_empty() {
                continue;
            }
            if let Some(name) = header_name(line) {
                let index = match families.iter().position(|f| f.name == name) {
                    Some(i) => i,
                    None => {
                        families.push(Family {
                            name: name.to_string(),
                            header: Vec::new(),
                            samples: Vec::new(),
                        });
                        families.len() - 1
                    }
                };
                let family = &mut families[index];
                if !family.header.iter().any(|h| h == line) {
                    family.header.push(line.to_string());
                }
                current = Some(index);
            } else if line.starts_with('#') {
                continue;
            } else if let Some(index) = current {
                families[index].samples.push(with_cluster(line, cluster));
            }
        }
    }
    let mut out = String::new();
    for family in families {
        for line in family.header.iter().chain(family.samples.iter()) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str("# EOF\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "# HELP daemonscope_daemonset_desired Nodes that should run it.\n\
# TYPE daemonscope_daemonset_desired gauge\n\
daemonscope_daemonset_desired{daemonset=\"kube-system/log\"} 3\n\
# HELP daemonscope_up Up.\n\
# TYPE daemonscope_up gauge\n\
daemonscope_up 1\n\
# EOF\n";

    const B: &str = "# HELP daemonscope_daemonset_desired Nodes that should run it.\n\
# TYPE daemonscope_daemonset_desired gauge\n\
daemonscope_daemonset_desired{daemonset=\"kube-system/log\"} 5\n\
# EOF\n";

    #[test]
    fn every_sample_gets_its_cluster_and_every_family_one_header() {
        let joined = join_labelled(&[("a".into(), A.into()), ("b\"x".into(), B.into())]);
        assert_eq!(
            joined,
            "# HELP daemonscope_daemonset_desired Nodes that should run it.\n\
# TYPE daemonscope_daemonset_desired gauge\n\
daemonscope_daemonset_desired{cluster=\"a\",daemonset=\"kube-system/log\"} 3\n\
daemonscope_daemonset_desired{cluster=\"b\\\"x\",daemonset=\"kube-system/log\"} 5\n\
# HELP daemonscope_up Up.\n\
# TYPE daemonscope_up gauge\n\
daemonscope_up{cluster=\"a\"} 1\n\
# EOF\n"
        );
        assert_eq!(joined.matches("# EOF").count(), 1);
    }

    #[test]
    fn a_sample_with_empty_braces_gets_the_label_alone() {
        assert_eq!(with_cluster("m{} 1", "a"), "m{cluster=\"a\"} 1");
    }
}
