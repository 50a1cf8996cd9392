//! events.k8s.io/v1 on the simulated API server: the stored core/v1 Events read through the
//! newer group, as kube-apiserver serves them (kube-rs typed get/list/watch, discovery, and
//! `kubectl get events.events.k8s.io -A` when a kubectl is available).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed
#![cfg(feature = "ssr")]

use daemonscope::sim::{start_with, SimConfig, SimHandle};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Event as CoreEvent;
use k8s_openapi::api::events::v1::Event;
use kube::api::{ListParams, PostParams, WatchEvent, WatchParams};
use kube::{Api, Client};
use serde_json::json;
use std::path::{Path, PathBuf};

type TestResult = Result<(), Box<dyn std::error::Error>>;

async fn sim_with_event() -> Result<(SimHandle, Client), Box<dyn std::error::Error>> {
    let sim = start_with(SimConfig::default()).await?;
    let client = Client::try_from(sim.kube_config())?;
    let core: Api<CoreEvent> = Api::namespaced(client.clone(), "kube-system");
    core.create(
        &PostParams::default(),
        &serde_json::from_value(json!({
            "metadata": {"name": "log.1", "namespace": "kube-system"},
            "involvedObject": {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "log", "namespace": "kube-system", "uid": "d1"},
            "reason": "SuccessfulCreate", "message": "Created pod: log-abcde", "type": "Normal",
            "source": {"component": "daemonset-controller"},
            "firstTimestamp": "2026-12-01T00:00:00Z", "lastTimestamp": "2026-12-01T00:05:00Z", "count": 4,
            "reportingComponent": "daemonset-controller", "reportingInstance": "daemonscope-sim"
        }))?,
    )
    .await?;
    Ok((sim, client))
}

#[tokio::test]
async fn kube_rs_reads_core_events_through_events_k8s_io_v1_converted() -> TestResult {
    let (_sim, client) = sim_with_event().await?;
    let events: Api<Event> = Api::all(client.clone());
    let list = events.list(&ListParams::default()).await?;
    assert_eq!(list.items.len(), 1);
    let e = &list.items[0];
    assert_eq!(
        e.regarding.as_ref().and_then(|r| r.name.as_deref()),
        Some("log")
    );
    assert_eq!(e.note.as_deref(), Some("Created pod: log-abcde"));
    assert_eq!(e.reason.as_deref(), Some("SuccessfulCreate"));
    assert_eq!(
        e.reporting_controller.as_deref(),
        Some("daemonset-controller")
    );
    assert_eq!(e.deprecated_count, Some(4));
    assert!(e.deprecated_last_timestamp.is_some());
    let named: Api<Event> = Api::namespaced(client.clone(), "kube-system");
    let one = named.get("log.1").await?;
    assert_eq!(one.note, e.note);
    // A watch sends the converted object too.
    let mut stream = named
        .watch(&WatchParams::default().timeout(2), "0")
        .await?
        .boxed();
    let first = stream.try_next().await?;
    match first {
        Some(WatchEvent::Added(ev)) => assert_eq!(ev.deprecated_count, Some(4)),
        other => panic!("expected the event ADDED, got {other:?}"),
    }
    // Writes through this group are refused (the sim serves it read-only).
    let refused = named
        .create(&PostParams::default(), &Event::default())
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        refused.contains("405") || refused.contains("not supported"),
        "{refused}"
    );
    Ok(())
}

#[tokio::test]
async fn discovery_lists_the_events_group_in_both_forms() -> TestResult {
    let (sim, client) = sim_with_event().await?;
    let groups = client.list_api_groups().await?;
    assert!(groups.groups.iter().any(|g| g.name == "events.k8s.io"));
    let resources = client.list_api_group_resources("events.k8s.io/v1").await?;
    assert!(resources.resources.iter().any(|r| r.name == "events"));
    let aggregated: serde_json::Value = reqwest_like_get(
        &sim,
        "/apis",
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    )
    .await?;
    let names: Vec<&str> = aggregated["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["metadata"]["name"].as_str())
        .collect();
    assert!(names.contains(&"events.k8s.io"), "{names:?}");
    Ok(())
}

/// A GET with an Accept header, through kube's client (the sim speaks plain HTTP).
async fn reqwest_like_get(
    sim: &SimHandle,
    path: &str,
    accept: &str,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let client = Client::try_from(sim.kube_config())?;
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, accept)
        .body(Vec::new())?;
    Ok(client.request::<serde_json::Value>(request).await?)
}

fn kubectl() -> Option<PathBuf> {
    std::env::var_os("KUBECTL").map(PathBuf::from).or_else(|| {
        let local = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/bin/kubectl");
        local.is_file().then_some(local)
    })
}

#[tokio::test]
async fn kubectl_get_events_events_k8s_io_prints_the_event() -> TestResult {
    let Some(bin) = kubectl() else {
        eprintln!("\n!!!!!!!! SKIPPED: no kubectl found (set KUBECTL or run `make deps-kubectl`) !!!!!!!!\n");
        return Ok(());
    };
    let (sim, _client) = sim_with_event().await?;
    let dir = tempfile::tempdir()?;
    let kubeconfig = dir.path().join("kubeconfig");
    sim.write_kubeconfig(&kubeconfig)?;
    let out = tokio::process::Command::new(bin)
        .args(["get", "events.events.k8s.io", "-A"])
        .env("KUBECONFIG", &kubeconfig)
        .env("KUBECACHEDIR", dir.path().join("cache"))
        .env("HOME", dir.path())
        .output()
        .await?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("SuccessfulCreate"), "{stdout}");
    assert!(stdout.contains("daemonset/log"), "{stdout}");
    assert!(stdout.contains("Created pod: log-abcde"), "{stdout}");
    Ok(())
}
