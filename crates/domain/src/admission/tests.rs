//! The classifier on kube-apiserver's own texts (§l), as FailedCreate events carry them, and
//! on hostile or garbled text.

use super::*;

#[test]
fn a_webhook_denial_names_the_webhook_and_its_message_j1() {
    // ToStatusErr: `admission webhook %q denied the request: %s`, inside NewForbidden's
    // `pods "NAME" is forbidden: `; the controller prefixes "Error creating: " (§f).
    let r = classify_refusal(
        "Error creating: pods \"falco-\" is forbidden: admission webhook \"validate.policy.example.com\" denied the request: node worker-3 is reserved for a hardware investigation",
    );
    assert_eq!(r.kind, RefusalKind::Webhook);
    assert_eq!(r.name.as_deref(), Some("validate.policy.example.com"));
    assert_eq!(
        r.reason,
        "node worker-3 is reserved for a hardware investigation"
    );
    assert!(
        r.message.starts_with("pods \"falco-\" is forbidden"),
        "{}",
        r.message
    );
    assert_eq!(
        r.headline(),
        "admission webhook \u{201c}validate.policy.example.com\u{201d}"
    );
}

#[test]
fn a_webhook_without_envelope_or_explanation_is_still_a_webhook_j1() {
    let bare = classify_refusal(
        "Error creating: admission webhook \"validate.policy.example.com\" denied the request: reserved",
    );
    assert_eq!(
        (bare.kind, bare.reason.as_str()),
        (RefusalKind::Webhook, "reserved")
    );
    let silent = classify_refusal(
        "pods \"a-\" is forbidden: admission webhook \"w.example.com\" denied the request without explanation",
    );
    assert_eq!(silent.kind, RefusalKind::Webhook);
    assert_eq!(silent.reason, "");
    let failing = classify_refusal(
        "Internal error occurred: failed calling webhook \"w.example.com\": failed to call webhook: Post \"https://w.svc:443/validate\": dial tcp 10.0.0.1:443: connect: connection refused",
    );
    assert_eq!(failing.kind, RefusalKind::Webhook);
    assert_eq!(failing.name.as_deref(), Some("w.example.com"));
    assert!(
        failing.reason.starts_with("failed to call webhook"),
        "{}",
        failing.reason
    );
}

#[test]
fn a_validating_admission_policy_names_policy_binding_and_message_j2() {
    let r = classify_refusal(
        "Error creating: pods \"agent-\" is forbidden: ValidatingAdmissionPolicy 'no-host-network' with binding 'no-host-network-binding' denied request: hostNetwork is not allowed in this namespace",
    );
    assert_eq!(r.kind, RefusalKind::ValidatingAdmissionPolicy);
    assert_eq!(r.name.as_deref(), Some("no-host-network"));
    assert_eq!(r.binding.as_deref(), Some("no-host-network-binding"));
    assert_eq!(r.reason, "hostNetwork is not allowed in this namespace");
    assert_eq!(
        r.headline(),
        "ValidatingAdmissionPolicy \u{201c}no-host-network\u{201d} (binding \u{201c}no-host-network-binding\u{201d})"
    );
    let unbound = classify_refusal("ValidatingAdmissionPolicy 'p' denied request: no");
    assert_eq!(
        (unbound.kind, unbound.binding),
        (RefusalKind::ValidatingAdmissionPolicy, None)
    );
}

#[test]
fn pod_security_gives_the_level_and_each_violated_check_in_order_j3() {
    // A real event of a node-exporter DaemonSet in an enforce=baseline namespace.
    let r = classify_refusal(
        "Error creating: pods \"monitoring-infra-node-exporter-prometheus-node-exporter-lwdsm\" is forbidden: violates PodSecurity \"baseline:latest\": host namespaces (hostNetwork=true, hostPID=true), hostPath volumes (volumes \"proc\", \"sys\"), hostPort (container \"node-exporter\" uses hostPort 9100)",
    );
    assert_eq!(r.kind, RefusalKind::PodSecurity);
    assert_eq!(r.level.as_deref(), Some("baseline:latest"));
    let got: Vec<(&str, &str)> = r
        .violations
        .iter()
        .map(|v| (v.check.as_str(), v.detail.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("host namespaces", "hostNetwork=true, hostPID=true"),
            ("hostPath volumes", "volumes \"proc\", \"sys\""),
            ("hostPort", "container \"node-exporter\" uses hostPort 9100"),
        ]
    );
    assert_eq!(r.headline(), "Pod Security \u{201c}baseline:latest\u{201d}");
    let privileged = classify_refusal(
        "pods \"bad-pod\" is forbidden: violates PodSecurity \"baseline:latest\": hostPath volumes (volume \"hostmount\"), privileged (container \"bad-pod\" must not set securityContext.privileged=true)",
    );
    assert_eq!(privileged.violations.len(), 2);
    assert_eq!(privileged.violations[1].check, "privileged");
}

#[test]
fn a_check_without_detail_keeps_an_empty_detail_j3() {
    let r = classify_refusal("violates PodSecurity \"restricted:v1.37\": seccompProfile, runAsNonRoot != true (pod or container \"a\" must set securityContext.runAsNonRoot=true)");
    assert_eq!(r.violations[0].check, "seccompProfile");
    assert_eq!(r.violations[0].detail, "");
    assert_eq!(r.violations[1].check, "runAsNonRoot != true");
}

#[test]
fn a_resource_quota_names_the_quota_and_what_is_exceeded_j4() {
    let r = classify_refusal(
        "Error creating: pods \"agent-x\" is forbidden: exceeded quota: agents, requested: pods=1, used: pods=3, limited: pods=3",
    );
    assert_eq!(r.kind, RefusalKind::ResourceQuota);
    assert_eq!(r.name.as_deref(), Some("agents"));
    assert_eq!(
        r.exceeded,
        Some(QuotaExceeded {
            requested: "pods=1".into(),
            used: "pods=3".into(),
            limited: "pods=3".into(),
        })
    );
    let several = classify_refusal("exceeded quota: compute, requested: limits.cpu=2,requests.cpu=1, used: limits.cpu=8,requests.cpu=4, limited: limits.cpu=8,requests.cpu=4");
    assert_eq!(
        several.exceeded.map(|e| e.requested),
        Some("limits.cpu=2,requests.cpu=1".to_string())
    );
    let scoped = classify_refusal(
        "insufficient quota to match these scopes: [{PriorityClass In [system-node-critical]}]",
    );
    assert_eq!(scoped.kind, RefusalKind::ResourceQuota);
    let must = classify_refusal("pods \"a-\" is forbidden: failed quota: compute: must specify limits.cpu for: agent; requests.cpu for: agent");
    assert_eq!(
        (must.kind, must.name.as_deref()),
        (RefusalKind::ResourceQuota, Some("compute"))
    );
}

#[test]
fn a_limit_range_gives_each_constraint_j5() {
    let r = classify_refusal(
        "Error creating: pods \"agent-\" is forbidden: maximum cpu usage per Container is 500m, but limit is 1",
    );
    assert_eq!(r.kind, RefusalKind::LimitRange);
    assert_eq!(r.violations[0].check, "maximum cpu usage per Container");
    assert_eq!(r.violations[0].detail, "is 500m, but limit is 1");
    let aggregate = classify_refusal(
        "pods \"agent-\" is forbidden: [minimum memory usage per Container is 64Mi, but request is 32Mi, maximum cpu usage per Pod is 2, but limit is 4]",
    );
    assert_eq!(aggregate.violations.len(), 2, "{:?}", aggregate.violations);
    assert_eq!(aggregate.violations[1].check, "maximum cpu usage per Pod");
    let unspecified =
        classify_refusal("maximum cpu usage per Container is 500m.  No limit is specified");
    assert_eq!(unspecified.kind, RefusalKind::LimitRange);
}

#[test]
fn hostile_or_garbled_text_is_other_with_the_message_kept_as_text() {
    for text in [
        "",
        "Error creating: ",
        "Error creating: <script>alert(1)</script>",
        "admission webhook \"unterminated",
        "ValidatingAdmissionPolicy 'p",
        "ValidatingAdmissionPolicy 'p' with binding 'b",
        "violates PodSecurity \"baseline:latest\"",
        "exceeded quota: q, requested: pods=1",
        "pods \"x\" is forbidden: maximum, minimum",
        "\u{0}\u{202e}\u{1F4A3}",
    ] {
        let r = classify_refusal(text);
        assert_eq!(r.kind, RefusalKind::Other, "{text:?} → {r:?}");
        assert!(r.name.is_none() && r.violations.is_empty());
    }
    let html = classify_refusal("Error creating: <script>alert(1)</script>");
    assert_eq!(
        html.message, "<script>alert(1)</script>",
        "kept as text; escaping is the renderer's"
    );
}

#[test]
fn huge_messages_and_multibyte_text_are_bounded_without_panicking() {
    let huge = format!(
        "admission webhook \"{}\" denied the request: {}",
        "é".repeat(5_000),
        "ü, (".repeat(10_000)
    );
    let r = classify_refusal(&huge);
    assert_eq!(r.kind, RefusalKind::Webhook);
    assert!(r.message.chars().count() <= MAX_MESSAGE);
    assert!(r
        .name
        .as_ref()
        .is_some_and(|n| n.chars().count() <= MAX_MESSAGE));
    let many = format!(
        "violates PodSecurity \"baseline:latest\": {}",
        vec!["hostPort (container \"a\" uses hostPort 1)"; 100].join(", ")
    );
    assert_eq!(classify_refusal(&many).violations.len(), MAX_VIOLATIONS);
}

#[test]
fn every_kind_has_its_own_metric_label() {
    let labels: std::collections::HashSet<&str> =
        RefusalKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(labels.len(), RefusalKind::ALL.len());
    assert!(labels
        .iter()
        .all(|l| l.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
}

/// §f: the event recorder folds FailedCreate events whose messages differ (each names another
/// generated pod) into one "(combined from similar events): …" event; it is the same refusal.
#[test]
fn a_combined_failed_create_event_is_classified_as_its_message() {
    let plain = "Error creating: pods \"agent-x\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2";
    let combined = classify_refusal(&format!("{COMBINED_PREFIX}{plain}"));
    assert_eq!(combined, classify_refusal(plain));
    assert_eq!(combined.kind, RefusalKind::ResourceQuota);
    assert_eq!(combined.name.as_deref(), Some("q"));
}
