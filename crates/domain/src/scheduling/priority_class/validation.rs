//! What kube-apiserver v1.37 refuses in a PriorityClass write (§k.5): the registry strategy's
//! validation (a 422 naming fields, `pkg/apis/scheduling/validation/validation.go`), the
//! Priority admission plugin's second global default (a 403, `plugin/pkg/admission/priority`)
//! and the registry's refusal to delete a built-in class (a 403,
//! `pkg/registry/scheduling/priorityclass/storage/storage.go`).
//!
//! Why here: the simulated API server must refuse the same writes with the same words as the
//! real one (the differential case in `tests/it/k8s_scheduling.rs` compares kubectl's errors),
//! and the rules are pure: a class, the class it replaces, the stored classes.

use super::{
    system_class, ClassInfo, HIGHEST_USER_DEFINABLE_PRIORITY, PREEMPT_LOWER_PRIORITY,
    PREEMPT_NEVER, SYSTEM_CLASSES, SYSTEM_PREFIX,
};
use crate::validation::{field_error, FieldErrorType, Invalid};

/// `IsKnownSystemPriorityClass`: Ok when `class` is a built-in one (its description, labels
/// and annotations are not compared), else why not, in kube-apiserver's words.
fn known_system_class(class: &ClassInfo) -> Result<(), String> {
    let Some(known) = system_class(&class.name) else {
        return Err(format!(
            "{} is not a known system priority class",
            class.name
        ));
    };
    if known.value != class.value {
        return Err(format!(
            "value of {} PriorityClass must be {}",
            known.name, known.value
        ));
    }
    if class.global_default {
        return Err(format!(
            "globalDefault of {} PriorityClass must be false",
            known.name
        ));
    }
    Ok(())
}

/// `ValidatePreemptionPolicy`: the two policies, in the order kube-apiserver lists them.
fn preemption_policy_fields(policy: &str) -> Vec<Invalid> {
    match policy {
        PREEMPT_LOWER_PRIORITY | PREEMPT_NEVER => Vec::new(),
        "" => vec![field_error(
            FieldErrorType::Required,
            "preemptionPolicy",
            "Required value",
        )],
        other => vec![field_error(
            FieldErrorType::NotSupported,
            "preemptionPolicy",
            format!(
                "Unsupported value: {other:?}: supported values: \"{PREEMPT_LOWER_PRIORITY}\", \"{PREEMPT_NEVER}\""
            ),
        )],
    }
}

/// `ValidatePriorityClass` (create) after the object's metadata: a `system-` name must be a
/// built-in class exactly, any other class stays at or below 1,000,000,000, and the policy is
/// one of the two. `class.preemption_policy` is after defaulting (absent is
/// `PreemptLowerPriority`).
pub fn create_fields(class: &ClassInfo) -> Vec<Invalid> {
    let mut out = Vec::new();
    if class.name.starts_with(SYSTEM_PREFIX) {
        if let Err(why) = known_system_class(class) {
            out.push(field_error(
                FieldErrorType::Forbidden,
                "metadata.name",
                format!("Forbidden: priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only. error: {why}"),
            ));
        }
    } else if class.value > HIGHEST_USER_DEFINABLE_PRIORITY {
        out.push(field_error(
            FieldErrorType::Forbidden,
            "value",
            format!(
                "Forbidden: maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
            ),
        ));
    }
    out.extend(preemption_policy_fields(&class.preemption_policy));
    out
}

/// `ValidatePriorityClassUpdate`: `value` and `preemptionPolicy` are immutable. Nothing else of
/// create's rules runs again (a built-in's description may change).
pub fn update_fields(new: &ClassInfo, old: &ClassInfo) -> Vec<Invalid> {
    let mut out = Vec::new();
    if new.value != old.value {
        out.push(field_error(
            FieldErrorType::Forbidden,
            "value",
            "Forbidden: may not be changed in an update.",
        ));
    }
    if new.preemption_policy != old.preemption_policy {
        out.push(field_error(
            FieldErrorType::Invalid,
            "preemptionPolicy",
            format!(
                "Invalid value: {:?}: field is immutable",
                new.preemption_policy
            ),
        ));
    }
    out
}

/// Which write the Priority admission validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// A new class.
    Create,
    /// A replaced class (PUT or PATCH).
    Update,
}

/// The Priority admission's `validatePriorityClass`: a class that sets `globalDefault` while
/// another default exists is refused (on update, unless that default is the class itself).
/// The cause inside `priorityclasses.scheduling.k8s.io "<name>" is forbidden: <cause>`.
pub fn default_refusal(class: &ClassInfo, write: Write, stored: &[ClassInfo]) -> Option<String> {
    if !class.global_default {
        return None;
    }
    // `getDefaultPriorityClass`: the lowest value among the defaults a race may have left.
    let current = stored
        .iter()
        .filter(|c| c.global_default)
        .min_by_key(|c| c.value)?;
    if write == Write::Update && current.name == class.name {
        return None;
    }
    Some(format!(
        "PriorityClass {} is already marked as default. Only one default can exist",
        current.name
    ))
}

/// The registry's refusal to delete a built-in class: the cause inside
/// `priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: <cause>`.
pub fn delete_refusal(name: &str) -> Option<&'static str> {
    SYSTEM_CLASSES
        .iter()
        .any(|c| c.name == name)
        .then_some("this is a system priority class and cannot be deleted")
}

#[cfg(test)]
mod tests {
    use super::super::tests::class;
    use super::*;

    fn texts(fields: &[Invalid]) -> Vec<String> {
        fields
            .iter()
            .map(|f| format!("{}: {}", f.field, f.rule))
            .collect()
    }

    #[test]
    fn a_system_prefix_is_reserved_for_the_built_ins_exactly() {
        let lp = PREEMPT_LOWER_PRIORITY;
        let reserved = "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: ";
        assert_eq!(
            texts(&create_fields(&class("system-mine", 10, false, lp))),
            [format!(
                "{reserved}system-mine is not a known system priority class"
            )]
        );
        assert_eq!(
            texts(&create_fields(&class("system-node-critical", 5, false, lp))),
            [format!(
                "{reserved}value of system-node-critical PriorityClass must be 2000001000"
            )]
        );
        assert_eq!(
            texts(&create_fields(&class(
                "system-cluster-critical",
                2_000_000_000,
                true,
                lp
            ))),
            [format!(
                "{reserved}globalDefault of system-cluster-critical PriorityClass must be false"
            )]
        );
        assert!(create_fields(&class("system-node-critical", 2_000_001_000, false, lp)).is_empty());
        // A system name is not also held to the user maximum.
        assert_eq!(
            create_fields(&class("system-x", 2_000_000_000, false, lp)).len(),
            1
        );
    }

    #[test]
    fn a_user_class_stops_at_one_billion_and_names_a_known_policy() {
        let lp = PREEMPT_LOWER_PRIORITY;
        assert!(create_fields(&class("agents", 1_000_000_000, false, lp)).is_empty());
        assert_eq!(
            texts(&create_fields(&class("agents", 1_000_000_001, false, lp))),
            ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
        );
        let bad = create_fields(&class("agents", 5, false, "Sometimes"));
        assert_eq!(
            texts(&bad),
            ["preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\""]
        );
        assert_eq!(bad[0].kind, FieldErrorType::NotSupported);
        assert_eq!(
            texts(&create_fields(&class("agents", 5, false, ""))),
            ["preemptionPolicy: Required value"]
        );
    }

    #[test]
    fn value_and_policy_are_immutable_on_update() {
        let old = class("plain", 7, false, PREEMPT_LOWER_PRIORITY);
        assert!(update_fields(&class("plain", 7, true, PREEMPT_LOWER_PRIORITY), &old).is_empty());
        assert_eq!(
            texts(&update_fields(
                &class("plain", 8, false, PREEMPT_NEVER),
                &old
            )),
            [
                "value: Forbidden: may not be changed in an update.",
                "preemptionPolicy: Invalid value: \"Never\": field is immutable"
            ]
        );
    }

    #[test]
    fn only_one_global_default_and_the_built_ins_stay() {
        let stored = [
            class("first", 5, true, PREEMPT_LOWER_PRIORITY),
            class("plain", 7, false, PREEMPT_LOWER_PRIORITY),
        ];
        let second = class("second", 6, true, PREEMPT_LOWER_PRIORITY);
        assert_eq!(
            default_refusal(&second, Write::Create, &stored).as_deref(),
            Some("PriorityClass first is already marked as default. Only one default can exist")
        );
        let plain = class("plain", 7, true, PREEMPT_LOWER_PRIORITY);
        assert!(default_refusal(&plain, Write::Update, &stored).is_some());
        let first = class("first", 5, true, PREEMPT_LOWER_PRIORITY);
        assert_eq!(default_refusal(&first, Write::Update, &stored), None);
        assert_eq!(default_refusal(&second, Write::Create, &stored[1..]), None);
        assert_eq!(
            delete_refusal("system-node-critical"),
            Some("this is a system priority class and cannot be deleted")
        );
        assert!(delete_refusal("system-cluster-critical").is_some());
        assert_eq!(delete_refusal("plain"), None);
    }
}
