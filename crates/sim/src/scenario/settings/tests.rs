//! Settings validation and duration parsing: every error names the field and its range.
use super::*;

#[test]
fn durations_accept_units_combinations_and_bare_seconds() {
    let cases = [
        ("2s", 2000),
        ("1500ms", 1500),
        ("1m30s", 90_000),
        ("1h", 3_600_000),
        ("0.5", 500),
        ("3", 3000),
        ("0.25s", 250),
    ];
    for (text, ms) in cases {
        assert_eq!(
            parse_duration(text),
            Ok(Duration::from_millis(ms)),
            "{text}"
        );
    }
}

#[test]
fn durations_reject_unknown_units_missing_units_and_negatives() {
    for text in ["", "2 parsecs", "5x", "-1", "s", "1m30"] {
        assert!(parse_duration(text).is_err(), "{text} should be rejected");
    }
}

#[test]
fn extreme_numbers_are_refused_with_the_field_and_its_range() {
    // Issue 15 reproduction 3: `speed: 1e308`, `speed: 1e20`, `speed: 1e-300`,
    // `readyDelay: 1e19` and `initialBackoff: 1e19` crashed the simulation; `readyDelay:
    // 1e20` made `Duration::from_secs_f64` panic during parsing (exit 101).
    assert!(parse_duration("1e20").is_err_and(|e| e.to_string().contains("too large")));
    assert!(parse_duration("1e400").is_err());
    for speed in [1e308, 1e20, 1e-300, 20_000.0] {
        let s = SimulationSettings {
            speed,
            ..Default::default()
        };
        let err = s
            .validate()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.starts_with("spec.speed: must be between 0.001 and 10000"),
            "{speed}: {err}"
        );
    }
    let mut s = SimulationSettings::default();
    s.kubelet.ready_delay = Duration::from_secs(10_000_000_000_000_000_000);
    let err = s
        .validate()
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.starts_with("spec.kubelet.readyDelay: must be at most 8760h"),
        "{err}"
    );
    let mut s = SimulationSettings::default();
    s.controller.initial_backoff = Duration::from_secs(10_000_000_000_000_000_000);
    let err = s
        .validate()
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.starts_with("spec.controller.initialBackoff"), "{err}");
    assert!(SimulationSettings::default().validate().is_ok());
}

#[test]
fn a_blocked_creation_matches_its_daemonset_on_its_nodes_only() {
    let b = BlockedCreation {
        daemon_set: "security/falco".into(),
        nodes: vec!["worker-3".into()],
        message: "denied".into(),
    };
    assert!(b.blocks("security", "falco", "worker-3"));
    assert!(!b.blocks("security", "falco", "worker-4"));
    assert!(!b.blocks("kube-system", "falco", "worker-3"));
    let everywhere = BlockedCreation { nodes: vec![], ..b };
    assert!(everywhere.blocks("security", "falco", "any-node"));
}

#[test]
fn validation_names_the_field_that_is_wrong() {
    let mut s = SimulationSettings {
        speed: 0.0,
        ..Default::default()
    };
    assert!(s
        .validate()
        .is_err_and(|e| e.to_string().starts_with("spec.speed")));
    s.speed = 2.0;
    s.blocked_creations.push(BlockedCreation {
        daemon_set: "falco".into(),
        nodes: vec![],
        message: "x".into(),
    });
    assert!(s.validate().is_err_and(|e| e
        .to_string()
        .starts_with("spec.blockedCreations[0].daemonSet")));
}

#[test]
fn the_api_server_settings_default_to_kube_apiservers_minute_and_a_zero_interval_is_refused() {
    let defaults = SimulationSettings::default();
    assert_eq!(
        defaults.api_server.bookmark_interval,
        Duration::from_secs(60)
    );
    assert!(!defaults.api_server.storage_unavailable);
    let parsed: SimulationSettings = serde_json::from_value(serde_json::json!({
        "apiServer": {"bookmarkInterval": "2s", "storageUnavailable": true}
    }))
    .unwrap_or_default();
    assert_eq!(parsed.api_server.bookmark_interval, Duration::from_secs(2));
    assert!(parsed.api_server.storage_unavailable);
    let zero = SimulationSettings {
        api_server: ApiServerSettings {
            bookmark_interval: Duration::ZERO,
            storage_unavailable: false,
        },
        ..SimulationSettings::default()
    };
    assert!(zero
        .validate()
        .is_err_and(|e| e.to_string().contains("spec.apiServer.bookmarkInterval")));
}
