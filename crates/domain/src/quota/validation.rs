//! What kube-apiserver refuses in a ResourceQuota's `spec.hard` on create and update (§l.6):
//! `ValidateResourceQuotaSpec` (`pkg/apis/core/validation/validation.go`).
//!
//! Why: the sim must not store a quota a real API server refuses, and the refusal must read
//! the same (`spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0`).
//! A value that is not a quantity at all is refused earlier, when the body is decoded.

use super::amount::Amount;
use crate::validation::{invalid, Invalid};

/// Resource names without a `/` that Kubernetes knows (`standardResources`).
const STANDARD: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

/// The names of [`STANDARD`] a quota may name (`standardQuotaResources`: all but `storage`).
fn standard_for_quota(name: &str) -> bool {
    (STANDARD.contains(&name) && name != "storage") || hugepages(name)
}

fn hugepages(name: &str) -> bool {
    name.starts_with("hugepages-") || name.starts_with("requests.hugepages-")
}

/// `IsIntegerResourceName`: counts that must be whole numbers (object counts such as
/// `count/pods` and extended resources read as such).
fn integer_resource(name: &str) -> bool {
    matches!(
        name,
        "pods"
            | "resourcequotas"
            | "services"
            | "replicationcontrollers"
            | "secrets"
            | "configmaps"
            | "persistentvolumeclaims"
            | "services.nodeports"
            | "services.loadbalancers"
    ) || (name.contains('/') && !name.contains("kubernetes.io/") && !name.starts_with("requests."))
}

/// Every field of `spec.hard` kube-apiserver refuses, in the order given: a name it does not
/// know as a quota resource, a negative quantity. (The order of several errors differs run to
/// run on kube-apiserver, which walks a map.)
pub fn validate_hard<'a>(hard: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<Invalid> {
    let mut out = Vec::new();
    for (name, text) in hard {
        let field = format!("spec.hard[{name}]");
        if !name.contains('/') {
            if !(STANDARD.contains(&name) || hugepages(name)) {
                out.push(invalid(
                    &field,
                    format!("Invalid value: {name:?}: must be a standard resource type or fully qualified"),
                ));
            }
            if !standard_for_quota(name) {
                out.push(invalid(
                    &field,
                    format!("Invalid value: {name:?}: must be a standard resource for quota"),
                ));
            }
        }
        let Ok(amount) = Amount::parse(text) else {
            continue;
        };
        if amount.quantity.is_negative() {
            out.push(invalid(
                &field,
                format!("Invalid value: \"{amount}\": must be greater than or equal to 0"),
            ));
        } else if integer_resource(name) && amount.quantity.milli_value() % 1000 != 0 {
            out.push(invalid(
                &field,
                format!("Invalid value: \"{amount}\": must be an integer"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(hard: &[(&str, &str)]) -> Vec<String> {
        validate_hard(hard.iter().copied())
            .into_iter()
            .map(|i| format!("{}: {}", i.field, i.rule))
            .collect()
    }

    #[test]
    fn standard_names_and_whole_counts_pass_l6() {
        assert!(rules(&[
            ("pods", "10"),
            ("requests.cpu", "1500m"),
            ("count/pods", "3"),
            ("requests.nvidia.com/gpu", "2"),
            ("hugepages-2Mi", "1Gi"),
        ])
        .is_empty());
    }

    #[test]
    fn a_negative_value_and_an_unknown_name_are_refused_in_kube_apiservers_words_l6() {
        assert_eq!(
            rules(&[("pods", "-1")]),
            ["spec.hard[pods]: Invalid value: \"-1\": must be greater than or equal to 0"]
        );
        assert_eq!(
            rules(&[("foo", "1")]),
            [
                "spec.hard[foo]: Invalid value: \"foo\": must be a standard resource type or fully qualified",
                "spec.hard[foo]: Invalid value: \"foo\": must be a standard resource for quota",
            ]
        );
        assert_eq!(
            rules(&[("storage", "1Gi")]),
            ["spec.hard[storage]: Invalid value: \"storage\": must be a standard resource for quota"]
        );
    }
}
