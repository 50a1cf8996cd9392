//! The name and value syntax Kubernetes checks everywhere (apimachinery
//! `pkg/util/validation`): label keys (qualified names), label values, DNS subdomains.
//!
//! Why shared: the same syntax decides two different things. The API server rejects objects
//! that break it (§i), and the label-selector parser (`labels.NewRequirement`, §a.3) turns a
//! requirement that breaks it into a parse error that fails its node-selector term. Both
//! callers use these functions so the rule is written once.

/// The longest label value and the longest name part of a qualified name.
const MAX_NAME_LEN: usize = 63;
/// The longest DNS-1123 subdomain (a qualified name's prefix, a node name).
const MAX_SUBDOMAIN_LEN: usize = 253;

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`: the shape shared by label values and the
/// name part of a qualified name.
fn is_name_shaped(s: &str) -> bool {
    let bytes = s.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// Why a name or label value breaks the apimachinery syntax. The texts are the API server's,
/// because they end up in validation errors and in selector parse errors a person reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// A DNS subdomain or a label value longer than its limit.
    #[error("must be no more than {max} characters")]
    TooLong {
        /// The limit that was exceeded.
        max: usize,
    },
    /// A DNS subdomain with a character or part shape RFC 1123 refuses.
    #[error(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \
         '-' or '.', and must start and end with an alphanumeric character"
    )]
    NotSubdomain,
    /// A qualified name starting with `/`.
    #[error("prefix part must be non-empty")]
    EmptyPrefix,
    /// A qualified name with two or more `/`.
    #[error("a qualified name may contain at most one '/'")]
    TooManySlashes,
    /// A qualified name whose prefix is not a DNS subdomain.
    #[error("prefix part {0}")]
    Prefix(Box<NameError>),
    /// A qualified name with nothing after the prefix.
    #[error("name part must be non-empty")]
    EmptyName,
    /// A qualified name whose name part is longer than 63 characters.
    #[error("name part must be no more than {max} characters")]
    NameTooLong {
        /// The limit that was exceeded.
        max: usize,
    },
    /// A qualified name whose name part has a character or shape the syntax refuses.
    #[error(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and \
         must start and end with an alphanumeric character"
    )]
    NameShape,
    /// A label value with a character or shape the syntax refuses.
    #[error(
        "a valid label value must be an empty string or consist of alphanumeric \
         characters, '-', '_' or '.', and must start and end with an alphanumeric \
         character"
    )]
    LabelValueShape,
}

/// `IsDNS1123Subdomain`: lowercase alphanumerics, `-` and `.`, each dot-separated part
/// starting and ending with an alphanumeric, at most 253 characters.
pub fn check_dns_subdomain(s: &str) -> Result<(), NameError> {
    if s.len() > MAX_SUBDOMAIN_LEN {
        return Err(NameError::TooLong {
            max: MAX_SUBDOMAIN_LEN,
        });
    }
    if subdomain_shaped(s) {
        Ok(())
    } else {
        Err(NameError::NotSubdomain)
    }
}

/// `IsQualifiedName`: the syntax of a label key (and of a toleration key): an optional
/// DNS-subdomain prefix and `/`, then a name of at most 63 characters.
pub fn check_qualified_name(s: &str) -> Result<(), NameError> {
    let (prefix, name) = match s.split_once('/') {
        None => (None, s),
        Some((prefix, name)) => (Some(prefix), name),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            return Err(NameError::EmptyPrefix);
        }
        if name.contains('/') {
            return Err(NameError::TooManySlashes);
        }
        check_dns_subdomain(prefix).map_err(|e| NameError::Prefix(Box::new(e)))?;
    }
    if name.is_empty() {
        return Err(NameError::EmptyName);
    }
    if name.len() > MAX_NAME_LEN {
        return Err(NameError::NameTooLong { max: MAX_NAME_LEN });
    }
    if !is_name_shaped(name) {
        return Err(NameError::NameShape);
    }
    Ok(())
}

/// apimachinery `content.RegexError` with its examples, word for word (the doubled space
/// after each example's comma is the API server's).
fn regex_error(message: &str, regex: &str, examples: &[&str]) -> String {
    let listed: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{message} (e.g. {}regex used for validation is '{regex}')",
        listed.join(" or ")
    )
}

/// The regex of a label key's name part (`labelKeyFmt`).
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
/// The message of a label key's name part (`labelKeyErrMsg`).
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and \
                             must start and end with an alphanumeric character";
/// The regex of a DNS-1123 subdomain (`dns1123SubdomainFmt`).
const SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

/// apimachinery `content.IsDNS1123Subdomain` with every message, as `ValidateObjectMeta`
/// reports them for `metadata.name` (one field error each).
///
/// Why beside `check_dns_subdomain`: the simulated API server sends these exact words in a
/// 422; the offline reports keep the shorter single message.
pub fn dns_subdomain_errors(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    if s.len() > MAX_SUBDOMAIN_LEN {
        out.push(format!("must be no more than {MAX_SUBDOMAIN_LEN} bytes"));
    }
    if !subdomain_shaped(s) {
        out.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \
             '-' or '.', and must start and end with an alphanumeric character",
            SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    out
}

/// The regex of `dns1123SubdomainFmt`, whatever the length.
fn subdomain_shaped(s: &str) -> bool {
    s.split('.').all(|p| {
        let b = p.as_bytes();
        match (b.first(), b.last()) {
            (Some(f), Some(l)) => {
                (f.is_ascii_lowercase() || f.is_ascii_digit())
                    && (l.is_ascii_lowercase() || l.is_ascii_digit())
                    && b.iter()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
            }
            _ => false,
        }
    })
}

/// apimachinery `content.IsLabelKey` (alias `IsQualifiedName`) with every message, in its
/// order: `ValidateLabelName` turns each into one field error, so an empty taint key gets two
/// ("must be non-empty" and the regex), as kube-apiserver answers.
pub fn qualified_name_errors(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let parts: Vec<&str> = s.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                out.push("prefix part must be non-empty".to_string());
            } else {
                out.extend(
                    dns_subdomain_errors(prefix)
                        .into_iter()
                        .map(|e| format!("prefix part {e}")),
                );
            }
            *name
        }
        _ => {
            out.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. \
                 'example.com/MyName')",
                regex_error(
                    LABEL_KEY_MSG,
                    LABEL_KEY_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            ));
            return out;
        }
    };
    if name.is_empty() {
        out.push("name part must be non-empty".to_string());
    } else if name.len() > MAX_NAME_LEN {
        out.push(format!(
            "name part must be no more than {MAX_NAME_LEN} bytes"
        ));
    }
    if !is_name_shaped(name) {
        out.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    out
}

/// `IsValidLabelValue`: empty, or at most 63 characters shaped like a name.
pub fn check_label_value(s: &str) -> Result<(), NameError> {
    if s.is_empty() {
        return Ok(());
    }
    if s.len() > MAX_NAME_LEN {
        return Err(NameError::TooLong { max: MAX_NAME_LEN });
    }
    if !is_name_shaped(s) {
        return Err(NameError::LabelValueShape);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names_follow_is_qualified_name() {
        let long63 = "a".repeat(63);
        let long64 = "a".repeat(64);
        let cases: &[(&str, bool)] = &[
            ("workload-type", true),
            ("node-role.kubernetes.io/control-plane", true),
            ("kubernetes.io/hostname", true),
            ("A_b.c-D", true),
            (&long63, true),
            (&long64, false),
            ("", false),
            ("/name", false),
            ("prefix/", false),
            ("a/b/c", false),
            ("Upper.Case/name", false),
            ("-leading", false),
            ("trailing-", false),
            ("has space", false),
        ];
        for (input, ok) in cases {
            assert_eq!(
                check_qualified_name(input).is_ok(),
                *ok,
                "qualified name {input:?}"
            );
        }
    }

    #[test]
    fn label_values_follow_is_valid_label_value() {
        let long63 = "v".repeat(63);
        let long64 = "v".repeat(64);
        let cases: &[(&str, bool)] = &[
            ("", true),
            ("gpu", true),
            ("08", true),
            ("a.b_c-d", true),
            (&long63, true),
            (&long64, false),
            ("bad value", false),
            ("-5", false),
            ("+5", false),
            ("x/", false),
        ];
        for (input, ok) in cases {
            assert_eq!(
                check_label_value(input).is_ok(),
                *ok,
                "label value {input:?}"
            );
        }
    }

    #[test]
    fn dns_subdomains_are_lowercase_dot_separated() {
        let cases: &[(&str, bool)] = &[
            ("node-1", true),
            ("ip-10-0-0-1.ec2.internal", true),
            ("Node", false),
            ("a..b", false),
            ("", false),
            ("-a", false),
        ];
        for (input, ok) in cases {
            assert_eq!(
                check_dns_subdomain(input).is_ok(),
                *ok,
                "subdomain {input:?}"
            );
        }
    }

    #[test]
    fn exact_messages_follow_content_is_label_key_and_is_dns1123_subdomain() {
        // apimachinery pkg/api/validate/content/kube.go `IsLabelKey` and dns.go
        // `IsDNS1123Subdomain`: every message, in order, with `RegexError`'s examples.
        assert!(qualified_name_errors("kubernetes.io/hostname").is_empty());
        assert_eq!(qualified_name_errors("").len(), 2);
        assert_eq!(qualified_name_errors("")[0], "name part must be non-empty");
        assert_eq!(
            qualified_name_errors("bad key"),
            vec![
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must \
                  start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  \
                  or '123-abc', regex used for validation is \
                  '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ]
        );
        assert_eq!(
            qualified_name_errors("/x"),
            vec!["prefix part must be non-empty"]
        );
        assert!(dns_subdomain_errors("node-1.example").is_empty());
        assert_eq!(
            dns_subdomain_errors("Bad_Name"),
            vec![
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric \
                  characters, '-' or '.', and must start and end with an alphanumeric character \
                  (e.g. 'example.com', regex used for validation is \
                  '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
        assert_eq!(dns_subdomain_errors(&"a".repeat(254)).len(), 1);
    }
}
