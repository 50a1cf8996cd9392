//! Edits written back: to the query string a preview is shared by, and in words for the banner.
//!
//! Why beside the parser: the two must be inverses (a shared URL reads back as the same
//! edits), and the tests check the round trip.

use super::{Edits, NodeEdit, TemplateEdit};
use crate::facts::{TaintEffect, Toleration};

/// The query string (without `?`) that reproduces `edits`, so a preview can be shared.
pub fn to_query(edits: &Edits) -> String {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    for edit in &edits.node {
        pairs.push(match edit {
            NodeEdit::AddTaint(t) => ("taint", crate::scheduling::render_taint(t)),
            NodeEdit::RemoveTaint { key, effect } => (
                "untaint",
                match effect {
                    Some(e) => format!("{key}:{}", effect_name(e)),
                    None => key.clone(),
                },
            ),
            NodeEdit::SetLabel { key, value } => ("label", format!("{key}={value}")),
            NodeEdit::RemoveLabel { key } => ("unlabel", key.clone()),
            NodeEdit::Cordon => ("cordon", "1".into()),
            NodeEdit::Uncordon => ("uncordon", "1".into()),
        });
    }
    for edit in &edits.template {
        pairs.push(match edit {
            TemplateEdit::AddToleration(t) => ("tolerate", toleration_spec(t)),
            TemplateEdit::SetNodeSelector(s) if s.is_empty() => ("nodeSelector", "-".into()),
            TemplateEdit::SetNodeSelector(s) => (
                "nodeSelector",
                s.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            TemplateEdit::SetRequests(r) => ("requests", requests_spec(r)),
        });
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The `requests=` spelling (the inverse of `requests::parse_requests`).
fn requests_spec(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn effect_name(effect: &TaintEffect) -> &str {
    crate::scheduling::effect_str(effect)
}

/// The `tolerate=` spelling of a toleration (the inverse of `parse::parse_toleration`).
pub fn toleration_spec(t: &Toleration) -> String {
    let key = if t.key.is_empty() { "*" } else { &t.key };
    let mut out = if t.operator == "Exists" {
        key.to_string()
    } else {
        format!("{key}={}", t.value)
    };
    if !t.effect.is_empty() || t.toleration_seconds.is_some() {
        out.push(':');
        out.push_str(&t.effect);
    }
    if let Some(s) = t.toleration_seconds {
        out.push_str(&format!(":{s}"));
    }
    out
}

/// Percent-encoding of a query value: everything but RFC 3986's unreserved characters.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-decoding of a query value (`+` is a space, as forms send it); the inverse of
/// [`encode`]. Invalid escapes are kept as written.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Each edit in words, as the banner and the chips show it (`taint dedicated=ml:NoExecute`).
pub fn describe_edits(edits: &Edits) -> Vec<String> {
    let node = edits.node.iter().map(|e| match e {
        NodeEdit::AddTaint(t) => format!("taint {}", crate::scheduling::render_taint(t)),
        NodeEdit::RemoveTaint { key, effect } => match effect {
            Some(e) => format!("remove taint {key}:{}", crate::scheduling::effect_str(e)),
            None => format!("remove taint {key} (every effect)"),
        },
        NodeEdit::SetLabel { key, value } => format!("label {key}={value}"),
        NodeEdit::RemoveLabel { key } => format!("remove label {key}"),
        NodeEdit::Cordon => "cordon".to_string(),
        NodeEdit::Uncordon => "uncordon".to_string(),
    });
    let template = edits.template.iter().map(|e| match e {
        TemplateEdit::AddToleration(t) => {
            format!("tolerate {}", toleration_spec(t))
        }
        TemplateEdit::SetNodeSelector(s) if s.is_empty() => "no nodeSelector".to_string(),
        TemplateEdit::SetRequests(r) => format!("requests {}", requests_spec(r)),
        TemplateEdit::SetNodeSelector(s) => format!(
            "nodeSelector {}",
            s.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        ),
    });
    node.chain(template).collect()
}
