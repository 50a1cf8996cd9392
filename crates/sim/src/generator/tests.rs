use super::catalog::next_version;
use super::*;

fn node_names(s: &Scenario) -> Vec<String> {
    s.nodes
        .iter()
        .filter_map(|n| n.metadata.name.clone())
        .collect()
}

#[test]
fn the_same_spec_gives_the_same_cluster_and_another_seed_a_different_one() {
    let a = generate_from_str("nodes=300,daemonsets=12,seed=7").expect("valid");
    let b = generate_from_str("nodes=300,daemonsets=12,seed=7").expect("valid");
    let c = generate_from_str("nodes=300,daemonsets=12,seed=8").expect("valid");
    let json = |s: &Scenario| {
        serde_json::to_string(&(&s.nodes, &s.daemonsets, &s.settings)).expect("serializes")
    };
    assert_eq!(json(&a), json(&b));
    assert_ne!(json(&a), json(&c));
}

#[test]
fn it_makes_exactly_the_asked_numbers_with_unique_names() {
    let s = generate_from_str("nodes=5000,daemonsets=30,seed=1").expect("valid");
    assert_eq!(s.nodes.len(), 5000);
    assert_eq!(s.daemonsets.len(), 30);
    let mut names = node_names(&s);
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 5000, "node names are unique");
    let mut ds: Vec<String> = s
        .daemonsets
        .iter()
        .map(|d| format!("{:?}/{:?}", d.metadata.namespace, d.metadata.name))
        .collect();
    ds.sort();
    ds.dedup();
    assert_eq!(ds.len(), 30, "DaemonSet names are unique");
}

#[test]
fn nodes_carry_zones_pools_and_the_control_plane_taint() {
    let s = generate_from_str("nodes=200,zones=2,pools=3").expect("valid");
    let zones: std::collections::BTreeSet<_> = s
        .nodes
        .iter()
        .filter_map(|n| {
            n.metadata
                .labels
                .as_ref()?
                .get("topology.kubernetes.io/zone")
                .cloned()
        })
        .collect();
    assert_eq!(zones.len(), 2);
    let cp = s.nodes.iter().filter(|n| {
        n.metadata
            .name
            .as_deref()
            .is_some_and(|x| x.starts_with("cp-"))
    });
    for n in cp {
        let taints = n
            .spec
            .as_ref()
            .and_then(|s| s.taints.clone())
            .unwrap_or_default();
        assert!(taints
            .iter()
            .any(|t| t.key == "node-role.kubernetes.io/control-plane" && t.effect == "NoSchedule"));
    }
    let in_pool = |pool: &str| {
        s.nodes
            .iter()
            .filter(|n| {
                n.metadata
                    .labels
                    .as_ref()
                    .is_some_and(|l| l.get(names::POOL_LABEL).map(String::as_str) == Some(pool))
            })
            .count()
    };
    let gpu = s
        .nodes
        .iter()
        .filter(|n| {
            n.metadata
                .labels
                .as_ref()
                .is_some_and(|l| l.get("workload-type").map(String::as_str) == Some("gpu"))
        })
        .count();
    // pools=3 is general, gpu, infra (weights 60, 8, 6 of 74). 200 nodes are 3 control-plane
    // nodes and 197 workers; each pool gets its whole share, rounded down, and the first pool
    // the remainder: gpu 197*8/74 = 21, infra 197*6/74 = 15, general 159 + 2.
    assert_eq!(
        gpu, 21,
        "pools=3 includes the GPU pool, its whole share of the workers"
    );
    assert_eq!(
        in_pool("gpu"),
        21,
        "every GPU-labelled node is in the gpu pool"
    );
    assert_eq!(in_pool("infra"), 15);
    assert_eq!(
        in_pool("general"),
        161,
        "the first pool takes the remainder"
    );
    assert!(!s.nodes.iter().any(|n| n
        .metadata
        .name
        .as_deref()
        .is_some_and(|x| x.starts_with("highmem-"))));
}

#[test]
fn a_share_of_daemonsets_gets_an_update_and_some_updates_fail() {
    let s = generate_from_str("nodes=50,daemonsets=20,rollouts=0.5,failing=0.5").expect("valid");
    assert_eq!(s.settings.updates.len(), 10);
    assert_eq!(s.settings.failing_images.len(), 5);
    for u in &s.settings.updates {
        assert!(s.daemonsets.iter().any(|d| format!(
            "{}/{}",
            d.metadata.namespace.as_deref().unwrap_or_default(),
            d.metadata.name.as_deref().unwrap_or_default()
        ) == u.daemon_set));
    }
    assert!(s.settings.validate().is_ok());
}

#[test]
fn bad_specs_get_errors_naming_the_key() {
    let cases = [
        ("nodes=abc", "nodes"),
        ("nodes=0", "nodes=0"),
        ("colour=blue", "unknown key \"colour\""),
        ("nodes", "not key=value"),
        ("rollouts=2", "rollouts"),
        ("pools=99", "pools=99"),
        ("updateAfter=soon", "updateAfter"),
    ];
    for (spec, needle) in cases {
        let e = GenerateSpec::parse(spec).expect_err(spec).to_string();
        assert!(e.contains(needle), "{spec}: {e}");
    }
}

#[test]
fn defaults_fill_every_key_left_out() {
    let spec = GenerateSpec::parse("seed=3").expect("valid");
    assert_eq!(
        spec,
        GenerateSpec {
            seed: 3,
            ..GenerateSpec::default()
        }
    );
    assert_eq!(
        GenerateSpec::parse("").expect("empty is all defaults"),
        GenerateSpec::default()
    );
}

#[test]
fn next_version_bumps_the_patch_release() {
    let cases = [
        (
            "quay.io/prometheus/node-exporter:v1.8.2",
            "quay.io/prometheus/node-exporter:v1.8.3",
        ),
        (
            "registry.k8s.io/kube-proxy:v1.37.0",
            "registry.k8s.io/kube-proxy:v1.37.1",
        ),
        ("img:3.3.9-3.6.1-ubuntu22", "img:3.3.9-3.6.2-ubuntu22"),
        ("busybox", "busybox:next"),
        ("localhost:5000/app", "localhost:5000/app:next"),
        ("app:latest", "app:latest-next"),
    ];
    for (image, next) in cases {
        assert_eq!(next_version(image), next, "{image}");
    }
}

#[test]
fn blocked_rejects_the_log_agent_on_a_share_of_the_spot_pool_and_changes_nothing_else() {
    let plain = generate_from_str("nodes=400,daemonsets=12,seed=5,pools=5").expect("valid");
    let blocked =
        generate_from_str("nodes=400,daemonsets=12,seed=5,pools=5,blocked=0.5").expect("valid");
    assert!(plain.settings.blocked_creations.is_empty());
    // Same nodes, DaemonSets and updates: `blocked` draws its randomness last.
    assert_eq!(node_names(&plain), node_names(&blocked));
    assert_eq!(plain.daemonsets, blocked.daemonsets);
    assert_eq!(plain.settings.updates, blocked.settings.updates);

    let [rule] = blocked.settings.blocked_creations.as_slice() else {
        panic!(
            "one rejection rule: {:?}",
            blocked.settings.blocked_creations
        );
    };
    assert_eq!(rule.daemon_set, "logging/log-collector");
    let spot: Vec<String> = node_names(&blocked)
        .into_iter()
        .filter(|n| n.starts_with("spot-"))
        .collect();
    assert!(!spot.is_empty());
    assert_eq!(rule.nodes.len(), (spot.len() as f64 * 0.5).round() as usize);
    assert!(
        rule.nodes.iter().all(|n| spot.contains(n)),
        "{:?}",
        rule.nodes
    );
    assert!(rule.message.contains("spot nodes"), "{}", rule.message);
    assert!(rule.blocks("logging", "log-collector", &rule.nodes[0]));
    assert!(!rule.blocks("monitoring", "node-exporter", &rule.nodes[0]));
}

#[test]
fn without_a_spot_pool_blocked_takes_the_last_pool() {
    let s = generate_from_str("nodes=100,daemonsets=4,seed=2,pools=2,blocked=1").expect("valid");
    let [rule] = s.settings.blocked_creations.as_slice() else {
        panic!("one rule");
    };
    let gpu = node_names(&s)
        .into_iter()
        .filter(|n| n.starts_with("gpu-"))
        .count();
    assert_eq!(rule.nodes.len(), gpu);
    assert!(GenerateSpec::parse("blocked=2").is_err());
}

/// `workload=S`: one pod per untainted node, owned by no DaemonSet, bound there, asking S of
/// its allocatable cpu and memory in the scheduler's units (§j.3); none by default, so the
/// differential seeds keep their clusters.
#[test]
fn workload_pods_fill_each_untainted_node_to_the_chosen_share() {
    assert!(generate_from_str("nodes=40,seed=3")
        .expect("valid")
        .pods
        .is_empty());
    let s = generate_from_str("nodes=40,seed=3,workload=0.5").expect("valid");
    let untainted = s
        .nodes
        .iter()
        .filter(|n| {
            n.spec
                .as_ref()
                .and_then(|p| p.taints.as_ref())
                .is_none_or(Vec::is_empty)
        })
        .count();
    assert!(untainted > 0);
    assert_eq!(s.pods.len(), untainted);
    for pod in &s.pods {
        let spec = pod.spec.as_ref().expect("spec");
        let node = s
            .nodes
            .iter()
            .find(|n| n.metadata.name == spec.node_name)
            .expect("bound to a generated node");
        let alloc = node
            .status
            .as_ref()
            .and_then(|st| st.allocatable.as_ref())
            .expect("alloc");
        let cpu = crate::domain::resources::Quantity::parse(&alloc["cpu"].0).expect("cpu");
        let asked = spec.containers[0]
            .resources
            .as_ref()
            .and_then(|r| r.requests.as_ref())
            .expect("requests");
        assert_eq!(asked["cpu"].0, format!("{}m", cpu.milli_value() / 2));
        assert!(pod.metadata.owner_references.is_none());
        assert_eq!(pod.metadata.namespace.as_deref(), Some("workloads"));
    }
    assert!(s
        .namespaces
        .iter()
        .any(|n| n.metadata.name.as_deref() == Some("workloads")));
    let err = GenerateSpec::parse("workload=1.5").expect_err("a share above 1");
    assert!(err.to_string().contains("workload=1.5"), "{err}");
}

/// §l.6: `quota=SHARE` gives the log agent's namespace a quota of that share of the nodes in
/// pods, which the ResourceQuota admission enforces; without it there is none.
#[test]
fn a_quota_share_caps_the_log_agents_namespace_in_pods() {
    let s = generate_from_str("nodes=20,daemonsets=3,quota=0.5").expect("valid");
    let [q] = s.resource_quotas.as_slice() else {
        panic!("one quota: {:?}", s.resource_quotas);
    };
    assert_eq!(q.metadata.namespace.as_deref(), Some("logging"));
    let hard = q.spec.as_ref().and_then(|s| s.hard.clone()).expect("hard");
    assert_eq!(hard["pods"].0, "10");
    assert!(generate_from_str("nodes=20,daemonsets=3")
        .expect("valid")
        .resource_quotas
        .is_empty());
    assert!(GenerateSpec::parse("quota=2").is_err());
    let store = crate::store::Store::new(crate::store::StoreSettings::default());
    crate::scenario::apply(&s, &store).expect("the generated cluster applies");
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "log-collector-x", "namespace": "logging"},
        "spec": {"containers": [{"name": "c", "image": "i:1"}]}
    }))
    .expect("a pod");
    assert_eq!(
        crate::quota::refusal(&store, "logging", &pod),
        None,
        "room for ten"
    );
}
