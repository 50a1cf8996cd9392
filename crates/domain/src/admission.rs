//! Who refused a pod creation, read from the FailedCreate event's message as kube-apiserver
//! words it (§l): an admission webhook, a ValidatingAdmissionPolicy, Pod Security admission, a
//! ResourceQuota or a LimitRange.
//!
//! Why a classifier: the DaemonSet controller records the API server's error verbatim
//! ("Error creating: <err>", §f), and that text is all the dashboard holds about the refusal.
//! Naming the refuser (its kind, name, binding, level, the violated fields) turns a `missing`
//! cell's "check the events" into an answer. Pure and total: any text gives a [`Refusal`],
//! and text it does not recognise is [`RefusalKind::Other`] with the message as it came.
//! Every field is cluster text, bounded in length and shown as text only
//! (docs/architecture.md#untrusted-input-is-escaped-and-bounded).

use serde::{Deserialize, Serialize};

mod parse;

pub use parse::{classify_refusal, COMBINED_PREFIX};

/// Which rule of `docs/kubernetes-rules.md` each public function of this module mirrors.
pub const RULES: &[(&str, &str)] = &[(
    "classify_refusal",
    "§f (FailedCreate \"Error creating: <err>\"), §l.1 webhook, §l.2 ValidatingAdmissionPolicy, §l.3 Pod Security, §l.4 ResourceQuota, §l.5 LimitRange",
)];

/// At most this many characters of the message (and of each part) are kept.
pub const MAX_MESSAGE: usize = 1_000;
/// At most this many Pod Security violations or LimitRange constraints are kept.
pub const MAX_VIOLATIONS: usize = 16;

/// Who refused the creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RefusalKind {
    /// §l.1: a validating or mutating admission webhook denied it (or failed, with
    /// `failurePolicy: Fail`).
    Webhook,
    /// §l.2: a ValidatingAdmissionPolicy's validation failed, through a binding.
    ValidatingAdmissionPolicy,
    /// §l.3: the namespace's `pod-security.kubernetes.io/enforce` level forbids the template.
    PodSecurity,
    /// §l.4: a ResourceQuota of the namespace would be exceeded, or asks for requests the
    /// template lacks.
    ResourceQuota,
    /// §l.5: a LimitRange of the namespace bounds a container's or pod's requests or limits.
    LimitRange,
    /// Text none of the above wrote: shown as it came.
    Other,
}

impl RefusalKind {
    /// Every kind, in the order the pages and `/metrics` list them.
    pub const ALL: [RefusalKind; 6] = [
        RefusalKind::Webhook,
        RefusalKind::ValidatingAdmissionPolicy,
        RefusalKind::PodSecurity,
        RefusalKind::ResourceQuota,
        RefusalKind::LimitRange,
        RefusalKind::Other,
    ];

    /// The `kind` label of `daemonscope_daemonset_creation_refused` and the pages'
    /// `data-refusal`: a closed set of snake_case words.
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalKind::Webhook => "webhook",
            RefusalKind::ValidatingAdmissionPolicy => "validating_admission_policy",
            RefusalKind::PodSecurity => "pod_security",
            RefusalKind::ResourceQuota => "resource_quota",
            RefusalKind::LimitRange => "limit_range",
            RefusalKind::Other => "other",
        }
    }

    /// The kind as a person reads it.
    pub fn title(self) -> &'static str {
        match self {
            RefusalKind::Webhook => "admission webhook",
            RefusalKind::ValidatingAdmissionPolicy => "ValidatingAdmissionPolicy",
            RefusalKind::PodSecurity => "Pod Security admission",
            RefusalKind::ResourceQuota => "ResourceQuota",
            RefusalKind::LimitRange => "LimitRange",
            RefusalKind::Other => "the API server",
        }
    }
}

/// One violated check: a Pod Security check with its detail (`host namespaces`,
/// `hostNetwork=true`), or one LimitRange constraint (`maximum cpu usage per Container`,
/// `is 500m, but limit is 1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    pub check: String,
    /// Empty when the check gave none.
    pub detail: String,
}

/// What a ResourceQuota refusal says is exceeded (`exceeded quota: NAME, requested: ...,
/// used: ..., limited: ...`), each as `resource=quantity` pairs the API server printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuotaExceeded {
    pub requested: String,
    pub used: String,
    pub limited: String,
}

/// A refused creation, classified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub kind: RefusalKind,
    /// The webhook's, policy's or quota's name, when the message names it.
    pub name: Option<String>,
    /// The ValidatingAdmissionPolicyBinding's name.
    pub binding: Option<String>,
    /// Pod Security's `level:version` (`baseline:latest`).
    pub level: Option<String>,
    /// Pod Security's violated checks, or the LimitRange's constraints, in the message's order.
    pub violations: Vec<Violation>,
    /// What a ResourceQuota refusal says is exceeded.
    pub exceeded: Option<QuotaExceeded>,
    /// The refuser's own words after the API server's envelope (a webhook's or policy's
    /// message); empty when it gave none.
    pub reason: String,
    /// The whole message as the event carried it (without "Error creating: "), bounded.
    pub message: String,
}

impl Refusal {
    /// One line naming the refuser: `admission webhook "validate.example.com"`,
    /// `ValidatingAdmissionPolicy "p" (binding "b")`, `Pod Security "baseline:latest"`,
    /// `ResourceQuota "q"`, `LimitRange`, or `the API server`.
    pub fn headline(&self) -> String {
        let mut out = match (&self.kind, &self.name, &self.level) {
            (RefusalKind::PodSecurity, _, Some(level)) => {
                format!("Pod Security \u{201c}{level}\u{201d}")
            }
            (kind, Some(name), _) => format!("{} \u{201c}{name}\u{201d}", kind.title()),
            (kind, None, _) => kind.title().to_string(),
        };
        if let Some(binding) = &self.binding {
            out.push_str(&format!(" (binding \u{201c}{binding}\u{201d})"));
        }
        out
    }
}

#[cfg(test)]
mod tests;
