//! §b and §a.5: the tolerations a daemon pod gets automatically, and the ones the user writes.
use super::*;
use crate::view::effective_tolerations;

#[test]
fn automatic_tolerations_cover_condition_taints_b() {
    use TaintEffect::*;
    let plain = TemplateFacts::default();
    let host = TemplateFacts {
        host_network: true,
        ..Default::default()
    };
    let cases: Vec<(&str, Taint, &TemplateFacts, (bool, bool))> = vec![
        (
            "§b not-ready:NoExecute tolerated",
            taint("node.kubernetes.io/not-ready", "", NoExecute),
            &plain,
            (true, true),
        ),
        (
            "§b unreachable:NoExecute tolerated",
            taint("node.kubernetes.io/unreachable", "", NoExecute),
            &plain,
            (true, true),
        ),
        (
            "§b disk-pressure tolerated",
            taint("node.kubernetes.io/disk-pressure", "", NoSchedule),
            &plain,
            (true, true),
        ),
        (
            "§b memory-pressure tolerated",
            taint("node.kubernetes.io/memory-pressure", "", NoSchedule),
            &plain,
            (true, true),
        ),
        (
            "§b pid-pressure tolerated",
            taint("node.kubernetes.io/pid-pressure", "", NoSchedule),
            &plain,
            (true, true),
        ),
        (
            "§b unschedulable tolerated",
            taint("node.kubernetes.io/unschedulable", "", NoSchedule),
            &plain,
            (true, true),
        ),
        (
            "§b network-unavailable not tolerated without hostNetwork",
            taint("node.kubernetes.io/network-unavailable", "", NoSchedule),
            &plain,
            (false, true),
        ),
        (
            "§b network-unavailable tolerated with hostNetwork",
            taint("node.kubernetes.io/network-unavailable", "", NoSchedule),
            &host,
            (true, true),
        ),
        (
            "§a.6 trap 4: not-ready:NoSchedule is not tolerated",
            taint("node.kubernetes.io/not-ready", "", NoSchedule),
            &plain,
            (false, true),
        ),
        (
            "§a.6 unreachable:NoSchedule is not tolerated",
            taint("node.kubernetes.io/unreachable", "", NoSchedule),
            &plain,
            (false, true),
        ),
        (
            "§b the control-plane taint is not tolerated",
            taint("node-role.kubernetes.io/control-plane", "", NoSchedule),
            &plain,
            (false, true),
        ),
        (
            "§b uninitialized is not tolerated",
            taint(
                "node.cloudprovider.kubernetes.io/uninitialized",
                "true",
                NoSchedule,
            ),
            &plain,
            (false, true),
        ),
        (
            "§b disk-pressure as NoExecute is not tolerated",
            taint("node.kubernetes.io/disk-pressure", "", NoExecute),
            &plain,
            (false, false),
        ),
    ];
    for (name, t, tmpl, want) in cases {
        assert_eq!(verdict(&tainted("n1", vec![t]), tmpl), want, "{name}");
    }
}

#[test]
fn user_tolerations_decide_custom_taints_a5() {
    use TaintEffect::*;
    let dedicated = || tainted("infra-1", vec![taint("dedicated", "infra", NoSchedule)]);
    let cases: Vec<(&str, Vec<Toleration>, (bool, bool))> = vec![
        (
            "§a.5 Equal with the value",
            vec![tol("dedicated", "Equal", "infra", "NoSchedule")],
            (true, true),
        ),
        (
            "§a.5 Equal with another value",
            vec![tol("dedicated", "Equal", "gpu", "NoSchedule")],
            (false, true),
        ),
        (
            "§a.5 Exists",
            vec![tol("dedicated", "Exists", "", "")],
            (true, true),
        ),
        (
            "§a.5 empty key + Exists tolerates everything",
            vec![tol("", "Exists", "", "")],
            (true, true),
        ),
        (
            "§a.5 empty key + Exists with another effect",
            vec![tol("", "Exists", "", "NoExecute")],
            (false, true),
        ),
        (
            "§a.5 empty key + Equal matches by value",
            vec![tol("", "Equal", "infra", "")],
            (true, true),
        ),
        (
            "§a.5 trap 10: Lt tolerates nothing",
            vec![tol("dedicated", "Lt", "infra", "NoSchedule")],
            (false, true),
        ),
        (
            "§a.5 any toleration is enough",
            vec![
                tol("dedicated", "Equal", "gpu", ""),
                tol("dedicated", "Exists", "", "NoSchedule"),
            ],
            (true, true),
        ),
    ];
    for (name, tols, want) in cases {
        assert_eq!(
            verdict(&dedicated(), &with_tolerations(tols)),
            want,
            "{name}"
        );
    }
}

#[test]
fn an_exactly_equal_toleration_is_replaced_and_loses_its_seconds_b() {
    let mut t = tol("node.kubernetes.io/not-ready", "Exists", "", "NoExecute");
    t.toleration_seconds = Some(300);
    let merged = daemon_pod_tolerations(&with_tolerations(vec![t]));
    let not_ready: Vec<&Toleration> = merged
        .iter()
        .filter(|t| t.key == "node.kubernetes.io/not-ready")
        .collect();
    assert_eq!(not_ready.len(), 1);
    assert_eq!(not_ready[0].toleration_seconds, None);
    assert_eq!(merged.len(), 6);
}

#[test]
fn effective_tolerations_list_the_templates_then_the_controllers_marked_b() {
    let t = TemplateFacts {
        host_network: true,
        tolerations: vec![tol("dedicated", "Equal", "infra", "NoSchedule")],
        ..Default::default()
    };
    let list = effective_tolerations(&t);
    assert_eq!(
        list.len(),
        8,
        "one written, six always, network-unavailable for hostNetwork"
    );
    assert_eq!(
        list[0].yaml,
        "{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}"
    );
    assert!(!list[0].automatic);
    assert!(list[1..].iter().all(|t| t.automatic));
    assert_eq!(
        list[1].yaml,
        "{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute}"
    );
    let plain = effective_tolerations(&TemplateFacts::default());
    assert_eq!(
        plain.len(),
        6,
        "no network-unavailable without hostNetwork (§b)"
    );
}
