//! The Priority admission plugin's resolution of a new pod's priority (§k.5): which class, which
//! `spec.priority`, which `spec.preemptionPolicy`, or kube-apiserver's refusal.
//!
//! Why here: a pod's priority decides what it may preempt (§k.4), and it is fixed once, when
//! the API server admits the pod. The sim must resolve it as kube-apiserver v1.37 does
//! (`plugin/pkg/admission/priority/admission.go`, `admitPod` and `getDefaultPriorityClass`)
//! both for pods created through its API and for the DaemonSet controller's pods, so the rule
//! lives once, here.

pub mod validation;

/// `PreemptLowerPriority`, the policy of a class that sets none and of a pod without a class.
pub const PREEMPT_LOWER_PRIORITY: &str = "PreemptLowerPriority";

/// `Never`, the policy of a class whose pods wait rather than evict (§k.4).
pub const PREEMPT_NEVER: &str = "Never";

/// A built-in PriorityClass, as kube-apiserver's post-start hook creates it
/// (`pkg/apis/scheduling/v1/helpers.go`, `systemPriorityClasses`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemClass {
    /// `metadata.name`.
    pub name: &'static str,
    /// `value`.
    pub value: i32,
    /// `description`, word for word.
    pub description: &'static str,
}

/// The two classes every cluster has from its start (§k.5), in kube-apiserver's order. The one
/// table of their values: the sim stores them as objects at start and resolves pods against
/// the store; the dashboard reads a value from here only where it has no object to read.
pub const SYSTEM_CLASSES: [SystemClass; 2] = [
    SystemClass {
        name: "system-node-critical",
        value: SYSTEM_CRITICAL_PRIORITY + 1000,
        description: "Used for system critical pods that must not be moved from their current node.",
    },
    SystemClass {
        name: "system-cluster-critical",
        value: SYSTEM_CRITICAL_PRIORITY,
        description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    },
];

/// `HighestUserDefinablePriority`: a class not named `system-...` may not go above it.
pub const HIGHEST_USER_DEFINABLE_PRIORITY: i32 = 1_000_000_000;

/// `SystemCriticalPriority`, the start of the built-in classes' range.
const SYSTEM_CRITICAL_PRIORITY: i32 = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;

/// `SystemPriorityClassPrefix`: names with it are reserved for [`SYSTEM_CLASSES`].
pub const SYSTEM_PREFIX: &str = "system-";

/// The built-in class named `name`, if it is one.
pub fn system_class(name: &str) -> Option<&'static SystemClass> {
    SYSTEM_CLASSES.iter().find(|c| c.name == name)
}

/// One PriorityClass object, as the admission reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassInfo {
    /// `metadata.name`.
    pub name: String,
    /// `value`.
    pub value: i32,
    /// `globalDefault`.
    pub global_default: bool,
    /// `preemptionPolicy` (defaulted to `PreemptLowerPriority` by the API server).
    pub preemption_policy: String,
}

/// What the admission writes into a new pod's spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// `spec.priorityClassName`: the pod's own, or the global default's name, or None.
    pub class_name: Option<String>,
    /// `spec.priority`.
    pub priority: i32,
    /// `spec.preemptionPolicy`.
    pub preemption_policy: String,
}

/// The cause of `admitPod`'s refusal, worded as kube-apiserver words it (inside
/// `pods "<name>" is forbidden: <cause>`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The pod names a class that is not stored (the built-ins are stored objects too).
    #[error("no PriorityClass with name {0} was found")]
    UnknownClass(String),
    /// The pod set `spec.priority` to another value than its class's.
    #[error("the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {computed} from the given PriorityClass name")]
    PriorityGiven {
        /// The pod's `spec.priority`.
        given: i32,
        /// The class's value.
        computed: i32,
    },
    /// The pod set `spec.preemptionPolicy` to another policy than its class's.
    #[error("the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority admission controller computed {computed} from the given PriorityClass name")]
    PolicyGiven {
        /// The pod's `spec.preemptionPolicy`.
        given: String,
        /// The class's policy.
        computed: String,
    },
}

/// The global default class: of the classes with `globalDefault`, the lowest value (a race may
/// leave several, `getDefaultPriorityClass`).
fn global_default(classes: &[ClassInfo]) -> Option<&ClassInfo> {
    classes
        .iter()
        .filter(|c| c.global_default)
        .min_by_key(|c| c.value)
}

/// Resolve a new pod's class (`class_name`, empty meaning none) against the stored `classes`,
/// the built-ins among them: kube-apiserver v1.37 reads its lister only (`resolvePriorityClass`),
/// so a deleted or never-created built-in is refused like any other name. `given_priority` and
/// `given_policy` are what the pod already set: a different value is refused.
pub fn resolve(
    class_name: Option<&str>,
    given_priority: Option<i32>,
    given_policy: Option<&str>,
    classes: &[ClassInfo],
) -> Result<Resolved, Refusal> {
    let resolved = match class_name.filter(|n| !n.is_empty()) {
        None => match global_default(classes) {
            Some(c) => Resolved {
                class_name: Some(c.name.clone()),
                priority: c.value,
                preemption_policy: c.preemption_policy.clone(),
            },
            None => Resolved {
                class_name: None,
                priority: 0,
                preemption_policy: PREEMPT_LOWER_PRIORITY.into(),
            },
        },
        Some(name) => {
            let (priority, policy) = classes
                .iter()
                .find(|c| c.name == name)
                .map(|c| (c.value, c.preemption_policy.clone()))
                .ok_or_else(|| Refusal::UnknownClass(name.to_string()))?;
            Resolved {
                class_name: Some(name.to_string()),
                priority,
                preemption_policy: policy,
            }
        }
    };
    if let Some(given) = given_priority.filter(|g| *g != resolved.priority) {
        return Err(Refusal::PriorityGiven {
            given,
            computed: resolved.priority,
        });
    }
    if let Some(given) = given_policy.filter(|g| *g != resolved.preemption_policy) {
        return Err(Refusal::PolicyGiven {
            given: given.to_string(),
            computed: resolved.preemption_policy,
        });
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A class as the store hands it to the rules (also `validation`'s tests' builder).
    pub(super) fn class(name: &str, value: i32, global_default: bool, policy: &str) -> ClassInfo {
        ClassInfo {
            name: name.into(),
            value,
            global_default,
            preemption_policy: policy.into(),
        }
    }

    #[test]
    fn a_stored_class_gives_its_value_and_policy() {
        let classes = [class("agents", 1_000_000, false, "Never")];
        let r = resolve(Some("agents"), None, None, &classes).unwrap();
        assert_eq!(r.priority, 1_000_000);
        assert_eq!(r.preemption_policy, "Never");
        assert_eq!(r.class_name.as_deref(), Some("agents"));
    }

    #[test]
    fn built_in_classes_resolve_from_the_stored_objects_only() {
        let stored: Vec<ClassInfo> = SYSTEM_CLASSES
            .iter()
            .map(|c| class(c.name, c.value, false, PREEMPT_LOWER_PRIORITY))
            .collect();
        let r = resolve(Some("system-node-critical"), None, None, &stored).unwrap();
        assert_eq!(r.priority, 2_000_001_000);
        assert_eq!(r.preemption_policy, PREEMPT_LOWER_PRIORITY);
        let cluster = resolve(Some("system-cluster-critical"), None, None, &stored).unwrap();
        assert_eq!(cluster.priority, 2_000_000_000);
        // Without the object, kube-apiserver v1.37 has no fallback table.
        assert_eq!(
            resolve(Some("system-node-critical"), None, None, &[]),
            Err(Refusal::UnknownClass("system-node-critical".into()))
        );
    }

    #[test]
    fn an_unknown_class_is_refused_in_kube_apiservers_words() {
        let err = resolve(Some("missing"), None, None, &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no PriorityClass with name missing was found"
        );
    }

    #[test]
    fn a_pod_without_class_takes_the_lowest_global_default_else_zero() {
        let none = resolve(None, None, None, &[]).unwrap();
        assert_eq!((none.class_name, none.priority), (None, 0));
        assert_eq!(none.preemption_policy, PREEMPT_LOWER_PRIORITY);
        let classes = [
            class("high", 500, true, PREEMPT_LOWER_PRIORITY),
            class("low", 100, true, "Never"),
            class("other", 1, false, PREEMPT_LOWER_PRIORITY),
        ];
        let r = resolve(Some(""), None, None, &classes).unwrap();
        assert_eq!(r.class_name.as_deref(), Some("low"));
        assert_eq!((r.priority, r.preemption_policy.as_str()), (100, "Never"));
    }

    #[test]
    fn a_given_priority_or_policy_must_match_the_class() {
        let classes = [class("agents", 1000, false, PREEMPT_LOWER_PRIORITY)];
        assert!(resolve(
            Some("agents"),
            Some(1000),
            Some(PREEMPT_LOWER_PRIORITY),
            &classes
        )
        .is_ok());
        assert_eq!(
            resolve(Some("agents"), Some(5), None, &classes).unwrap_err().to_string(),
            "the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name"
        );
        assert_eq!(
            resolve(Some("agents"), None, Some("Never"), &classes).unwrap_err().to_string(),
            "the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name"
        );
    }
}
