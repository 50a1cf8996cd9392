//! Every citation in the code points at something that exists in `docs/`.
//!
//! Why: the code cites the Kubernetes rules by section label (`§a.2`, `§d.3`, …, about a
//! thousand times), the simulated API server's wire rules as `wire §N`, and the design
//! principles as `docs/architecture.md#anchor`. Those labels used to point at notes outside the
//! repository; now they point at `docs/kubernetes-rules.md`, `docs/kube-api-wire.md` and
//! `docs/architecture.md`. This test fails, naming the file and line, on a citation whose
//! section or heading the document lacks, on a mention of the old out-of-repository notes, and
//! on a `docs/*.md` path that does not exist, so a renamed heading or a typo cannot leave a
//! citation dangling.
//!
//! Rules of the scan (all files under src/, crates/, tests/, benches/, end2end/tests/, docs/,
//! examples/, fuzz/, tools/, scenarios/, deploy/, plus README.md and Makefile):
//! - the section sign followed by a lower-case letter (and `.N` parts) cites
//!   `docs/kubernetes-rules.md`, whose headings define the labels;
//! - the section sign followed by a digit cites `docs/kube-api-wire.md`, unless it follows
//!   `RFC <n>` or `issue <n>` (an external document);
//! - `architecture.md#x` needs a heading of `docs/architecture.md` whose GitHub anchor is `x`.
//!
//! This file is the one file left out of the scan: its examples cite missing sections on
//! purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SECTION: char = '\u{a7}';

/// Folders whose files are scanned, relative to the repository root.
const SCANNED_DIRS: &[&str] = &[
    "src",
    "crates",
    "tests",
    "benches",
    "end2end/tests",
    "end2end/bench",
    "docs",
    "examples",
    "fuzz",
    "tools",
    "scenarios",
    "deploy",
];
/// Single files scanned besides the folders.
const SCANNED_FILES: &[&str] = &["README.md", "Makefile", ".cargo/config.toml", "Dockerfile"];
/// This file: its examples and messages name the old notes and missing sections on purpose.
const THIS_FILE: &str = "tests/it/docs_citations.rs";
/// Never descended into.
const SKIPPED_DIRS: &[&str] = &[
    "target",
    "node_modules",
    ".git",
    "screenshots",
    "corpus",
    "artifacts",
];
/// Notes that live outside the repository; citing them is a broken link for every reader.
const OUTSIDE_NOTES: &[&str] = &[
    "k8s-daemonset-semantics",
    "anchors-style",
    "toolchain.md",
    "design.md",
    "(design",
    "/work/shared",
];

/// What one citation points at.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cite {
    /// A section of docs/kubernetes-rules.md (`a.2`, `d.3` …, without the sign).
    Rules(String),
    /// A section of docs/kube-api-wire.md (`2`, `7.4` …).
    Wire(String),
    /// A heading anchor of docs/architecture.md.
    Architecture(String),
}

/// The labels and anchors the three documents define.
struct Docs {
    rules: BTreeSet<String>,
    wire: BTreeSet<String>,
    architecture: BTreeSet<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The label right after the section sign: a letter or digit run, then `.N` parts (a dot is
/// part of the label only when a digit follows, so a sentence's full stop is not).
fn label_after(rest: &str) -> Option<String> {
    let chars: Vec<char> = rest.chars().collect();
    let first = *chars.first()?;
    let mut label = String::new();
    let mut i;
    if first.is_ascii_lowercase() {
        // One letter; `§ab` is not a label.
        if chars.get(1).is_some_and(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        label.push(first);
        i = 1;
    } else if first.is_ascii_digit() {
        i = 0;
        while chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
            label.push(chars[i]);
            i += 1;
        }
    } else {
        return None;
    }
    while chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit()) {
        label.push('.');
        i += 1;
        while chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
            label.push(chars[i]);
            i += 1;
        }
    }
    Some(label)
}

/// True when the text before a numeric section sign names an external document
/// (`RFC 9110 §15.5.14`, `issue 3 §4`).
fn external_before(before: &str) -> bool {
    let words: Vec<&str> = before.split_whitespace().rev().take(2).collect();
    match words.as_slice() {
        [number, name] => {
            number.chars().all(|c| c.is_ascii_digit())
                && ["RFC", "issue", "Issue"].contains(&name.trim_start_matches('('))
        }
        _ => false,
    }
}

/// Every citation on one line.
fn citations(line: &str) -> Vec<Cite> {
    let mut out = Vec::new();
    for (at, ch) in line.char_indices() {
        if ch != SECTION {
            continue;
        }
        let rest = &line[at + ch.len_utf8()..];
        let Some(label) = label_after(rest) else {
            continue;
        };
        if label.starts_with(|c: char| c.is_ascii_digit()) {
            if !external_before(&line[..at]) {
                out.push(Cite::Wire(label));
            }
        } else {
            out.push(Cite::Rules(label));
        }
    }
    let mut from = 0;
    while let Some(pos) = line[from..].find("architecture.md#") {
        let start = from + pos + "architecture.md#".len();
        let anchor: String = line[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        out.push(Cite::Architecture(anchor));
        from = start;
    }
    out
}

/// The section labels a document's headings define: the first label in each `#` line.
fn heading_labels(doc: &str) -> BTreeSet<String> {
    let mut labels = BTreeSet::new();
    for line in doc.lines().filter(|l| l.starts_with('#')) {
        if let Some(at) = line.find(SECTION) {
            if let Some(label) = label_after(&line[at + SECTION.len_utf8()..]) {
                assert!(
                    labels.insert(label.clone()),
                    "section {label} is defined twice: {line}"
                );
            }
        }
    }
    labels
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn read_docs() -> Docs {
    let read = |name: &str| {
        std::fs::read_to_string(root().join("docs").join(name))
            .unwrap_or_else(|e| panic!("docs/{name} must exist: {e}"))
    };
    Docs {
        rules: heading_labels(&read("kubernetes-rules.md")),
        wire: heading_labels(&read("kube-api-wire.md")),
        architecture: read("architecture.md")
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(slug)
            .collect(),
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_str()) {
                walk(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// Every text file the scan covers, relative path first.
fn scanned_files() -> Vec<(String, String)> {
    let root = root();
    let mut paths = Vec::new();
    for dir in SCANNED_DIRS {
        walk(&root.join(dir), &mut paths);
    }
    paths.extend(SCANNED_FILES.iter().map(|f| root.join(f)));
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?; // binary files are skipped
            let rel = path
                .strip_prefix(&root)
                .ok()?
                .to_string_lossy()
                .into_owned();
            (rel != THIS_FILE).then_some((rel, text))
        })
        .collect()
}

/// `docs/<name>.md` paths a line mentions.
fn doc_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = line[from..].find("docs/") {
        let start = from + pos;
        let path: String = line[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.'))
            .collect();
        if let Some(md) = path.find(".md") {
            out.push(path[..md + 3].to_string());
        }
        from = start + "docs/".len();
    }
    out
}

/// One message per broken citation, `path:line: why`. Also returns how many citations of
/// each kind were checked, so a scan that silently finds nothing is caught.
fn check(files: &[(String, String)], docs: &Docs) -> (Vec<String>, BTreeMap<&'static str, usize>) {
    let mut problems = Vec::new();
    let mut counts = BTreeMap::new();
    for (path, text) in files {
        let in_docs = path.starts_with("docs/");
        for (n, line) in text.lines().enumerate() {
            let at = format!("{path}:{}", n + 1);
            for cite in citations(line) {
                let (kind, ok, label, doc) = match &cite {
                    Cite::Rules(l) => (
                        "rules",
                        docs.rules.contains(l),
                        format!("{SECTION}{l}"),
                        "docs/kubernetes-rules.md",
                    ),
                    Cite::Wire(l) => (
                        "wire",
                        docs.wire.contains(l),
                        format!("wire {SECTION}{l}"),
                        "docs/kube-api-wire.md",
                    ),
                    Cite::Architecture(l) => (
                        "architecture",
                        docs.architecture.contains(l),
                        format!("#{l}"),
                        "docs/architecture.md",
                    ),
                };
                *counts.entry(kind).or_insert(0) += 1;
                if !ok {
                    problems.push(format!(
                        "{at}: cites {label}, which {doc} has no heading for"
                    ));
                }
            }
            if !in_docs {
                for note in OUTSIDE_NOTES {
                    if line.contains(note) {
                        problems.push(format!(
                            "{at}: mentions `{note}`, a note outside the repository; cite \
                             docs/kubernetes-rules.md, docs/kube-api-wire.md or docs/architecture.md"
                        ));
                    }
                }
                if line.contains("kube-api-wire.md") && !line.contains("docs/kube-api-wire.md") {
                    problems.push(format!(
                        "{at}: mentions kube-api-wire.md without its path docs/kube-api-wire.md"
                    ));
                }
            }
            for doc in doc_paths(line) {
                if !root().join(&doc).is_file() {
                    problems.push(format!("{at}: mentions {doc}, which does not exist"));
                }
            }
        }
    }
    (problems, counts)
}

#[test]
fn every_citation_in_the_repository_points_at_an_existing_section() {
    let docs = read_docs();
    let files = scanned_files();
    let (problems, counts) = check(&files, &docs);
    assert!(
        problems.is_empty(),
        "{} broken citation(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    // The scan must have seen the code: about a thousand rule citations, a few dozen of the
    // others. A walker that found nothing would pass the check above vacuously.
    let count = |kind| counts.get(kind).copied().unwrap_or(0);
    assert!(
        count("rules") >= 900,
        "only {} rule citations found: {counts:?}",
        count("rules")
    );
    assert!(
        count("wire") >= 15,
        "only {} wire citations found: {counts:?}",
        count("wire")
    );
    assert!(
        count("architecture") >= 15,
        "only {} architecture citations found: {counts:?}",
        count("architecture")
    );
}

#[test]
fn the_rules_document_labels_every_family_the_code_cites() {
    let docs = read_docs();
    for label in [
        "a", "a.1", "a.2", "a.2.1", "a.2.2", "a.2.3", "a.3", "a.4", "a.5", "a.6", "a.7", "b", "c",
        "d", "d.1", "d.2", "d.3", "d.4", "d.5", "e", "e.1", "e.2", "e.3", "f", "g", "h", "i",
        "i.1", "i.2", "i.3", "i.4",
    ] {
        assert!(
            docs.rules.contains(label),
            "docs/kubernetes-rules.md lacks {SECTION}{label}"
        );
    }
    for trap in 1..=14 {
        assert!(
            docs.rules.contains(&format!("g.{trap}")),
            "docs/kubernetes-rules.md lacks trap {trap}"
        );
    }
}

#[test]
fn a_dangling_citation_is_reported_with_its_file_and_line() {
    let docs = Docs {
        rules: heading_labels(&format!(
            "## {SECTION}a Placement\n### {SECTION}a.2 Checks\nbody {SECTION}q\n"
        )),
        wire: heading_labels(&format!("## {SECTION}2 Lists\n### {SECTION}7.4 Pitfall\n")),
        architecture: ["# Read-only", "## Degrade, never lie"]
            .into_iter()
            .map(slug)
            .collect(),
    };
    assert_eq!(
        docs.rules,
        ["a", "a.2"].into_iter().map(String::from).collect()
    );
    assert!(docs.architecture.contains("degrade-never-lie"));
    let text = format!(
        "ok {SECTION}a.2, {SECTION}a.\nbad {SECTION}a.3 and {SECTION}q\n\
         wire {SECTION}2/{SECTION}7.4 fine, wire {SECTION}7.5 not\n\
         RFC 9110 {SECTION}15.5.14 and issue 3 {SECTION}4 are external\n\
         see docs/architecture.md#read-only and docs/architecture.md#scale\n\
         per the design.md notes\n"
    );
    let files = vec![("src/x.rs".to_string(), text)];
    let (problems, counts) = check(&files, &docs);
    let lines: Vec<&str> = problems
        .iter()
        .map(|p| p.split(": ").next().unwrap_or(""))
        .collect();
    assert_eq!(
        lines,
        [
            "src/x.rs:2",
            "src/x.rs:2",
            "src/x.rs:3",
            "src/x.rs:5",
            "src/x.rs:6"
        ],
        "{problems:#?}"
    );
    assert!(
        problems[0].contains(&format!("{SECTION}a.3")),
        "{problems:#?}"
    );
    assert!(
        problems[1].contains(&format!("{SECTION}q")),
        "{problems:#?}"
    );
    assert!(
        problems[2].contains(&format!("wire {SECTION}7.5")),
        "{problems:#?}"
    );
    assert!(problems[3].contains("#scale"), "{problems:#?}");
    assert!(problems[4].contains("design.md"), "{problems:#?}");
    assert_eq!(counts.get("rules"), Some(&4));
    assert_eq!(counts.get("wire"), Some(&3));
}
