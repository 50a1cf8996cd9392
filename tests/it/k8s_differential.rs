//! Differential tests: the simulated cluster against Kubernetes' own control plane (issue 11).
//!
//! The same scenario goes into the sim and into a real kube-apiserver with the real DaemonSet,
//! garbage-collector, node-lifecycle and taint-eviction controllers, kube-scheduler, and kwok
//! as the kubelets (`tools/k8s/cluster.sh`). The dashboard watches each; once both have
//! settled, the two matrices must agree cell by cell, as must every DaemonSet's status, the
//! output of `kubectl get ds -o wide` and `kubectl rollout status`. Then the same changes
//! (taints of each effect, labels, cordon, node add and delete, `kubectl set image` under
//! three budgets) go to both, and they must agree again. A difference is a bug in the sim or
//! in `src/domain/`, never a tolerance.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test stops where it failed

use crate::support::real_cluster;

use daemonscope::cluster::connect;
use daemonscope::cluster::Live;
use daemonscope::domain::view::MatrixSnapshot;
use daemonscope::sim::replay::{prepare, Replay};
use daemonscope::sim::scenario::{self, Scenario};
use daemonscope::sim::{start_in_process, ScenarioSource, SimHandle};
use real_cluster::{kubectl, RealCluster};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod workloads;
use workloads::{order_free_share, same_scheduling};

/// One backend under test: its dashboard state and a kubeconfig for kubectl.
pub(crate) struct Side {
    name: &'static str,
    pub(crate) live: Arc<Live>,
    pub(crate) kubeconfig: PathBuf,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Side {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Side {
    async fn watch(name: &'static str, config: kube::Config, kubeconfig: PathBuf) -> Side {
        let conn = connect::from_config(config, name.into(), "tester".into())
            .expect("a client for the backend");
        let (live, tasks) = daemonscope::web::start_watching(&conn, &[]).await;
        Side {
            name,
            live,
            kubeconfig,
            tasks,
        }
    }

    /// kubectl against this side; the in-process sim keeps serving meanwhile.
    pub(crate) fn kubectl(&self, args: &[&str]) -> String {
        tokio::task::block_in_place(|| self.run(args))
    }

    /// kubectl against this side from a thread of its own (see [`on_both`]): it must succeed.
    pub(crate) fn run(&self, args: &[&str]) -> String {
        let out = kubectl(&self.kubeconfig, args);
        assert!(
            out.status.success(),
            "{}: kubectl {} failed: {}",
            self.name,
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// Both backends loaded with one scenario.
pub(crate) struct Pair {
    pub(crate) sim: Side,
    pub(crate) real: Side,
    _sim_handle: SimHandle,
    _cluster: RealCluster,
    _dir: tempfile::TempDir,
}

pub(crate) async fn load_both(mut scenario: Scenario, tweak: impl FnOnce(&mut Scenario)) -> Pair {
    tweak(&mut scenario);
    let replay: Replay = prepare(&scenario);
    let cluster = tokio::task::block_in_place(|| RealCluster::start(&replay.failing_images));
    load_both_on(&scenario, replay, cluster).await
}

/// A control plane started in the background for `scenario` (its kubelet stand-in set up for
/// the scenario's failing images), so that a loop over scenarios starts the next one's while
/// the current one settles: a start is ~5 s of mostly waiting on readiness checks, and the
/// comparison of a settled pair is mostly waiting too.
pub(crate) fn start_in_background(scenario: &Scenario) -> std::thread::JoinHandle<RealCluster> {
    let failing_images = prepare(scenario).failing_images;
    std::thread::spawn(move || RealCluster::start(&failing_images))
}

/// Both backends loaded with `scenario`, the real side on `cluster` (fresh, empty).
pub(crate) async fn load_both_on(
    scenario: &Scenario,
    replay: Replay,
    cluster: RealCluster,
) -> Pair {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("scenario.yaml");
    std::fs::write(&file, replay.to_sim_scenario().expect("sim scenario")).expect("write scenario");
    let sim_handle = start_in_process(ScenarioSource::File(file))
        .await
        .expect("the sim starts");
    let sim_kubeconfig = dir.path().join("sim.kubeconfig");
    sim_handle
        .write_kubeconfig(&sim_kubeconfig)
        .expect("sim kubeconfig");
    eprintln!(
        "{}: control plane up in {} ms",
        scenario.source_name, cluster.startup_ms
    );
    replay
        .create_all(&cluster.admin().await)
        .await
        .expect("the scenario replays into kube-apiserver");
    let sim = Side::watch("sim", sim_handle.kube_config(), sim_kubeconfig).await;
    let real = Side::watch(
        "kubernetes",
        cluster.kube_config().await,
        cluster.kubeconfig.clone(),
    )
    .await;
    Pair {
        sim,
        real,
        _sim_handle: sim_handle,
        _cluster: cluster,
        _dir: dir,
    }
}

/// What a user sees of a matrix, one line per fact, in a stable order: every DaemonSet column
/// (status counts, budget, the kubectl verdict), every node (readiness, cordon, taints) and
/// every cell.
fn view(snapshot: &MatrixSnapshot) -> Vec<String> {
    let mut lines = Vec::new();
    for ds in &snapshot.daemonsets {
        lines.push(format!(
            "ds {} desired={} ready={} updated={} available={} misscheduled={} missing={} strategy={} maxUnavailable={:?} maxSurge={:?} done={} verdict={:?}",
            ds.key, ds.desired, ds.ready, ds.updated, ds.available, ds.misscheduled, ds.missing,
            ds.strategy, ds.max_unavailable, ds.max_surge, ds.rollout_done, ds.rollout_message
        ));
    }
    for node in &snapshot.nodes {
        let mut taints = node.taints.clone();
        taints.sort();
        lines.push(format!(
            "node {} ready={:?} cordoned={} taints={taints:?}",
            node.name, node.ready, node.unschedulable
        ));
        for (ds, cell) in snapshot.daemonsets.iter().zip(&node.cells) {
            lines.push(format!("cell {} × {}: {cell:?}", node.name, ds.key));
        }
    }
    lines
}

fn diff(a: &[String], b: &[String]) -> String {
    let only_a: Vec<_> = a.iter().filter(|l| !b.contains(l)).collect();
    let only_b: Vec<_> = b.iter().filter(|l| !a.contains(l)).collect();
    let mut out = String::new();
    for l in only_a {
        out.push_str(&format!("  sim:        {l}\n"));
    }
    for l in only_b {
        out.push_str(&format!("  kubernetes: {l}\n"));
    }
    out
}

/// Waits until both dashboards have been still for a while and then requires them to agree.
/// Still means: the view has not changed for 2.5 s and the dashboard has synced.
async fn settle_and_compare(pair: &Pair, what: &str) {
    let quiet = Duration::from_millis(2500);
    let deadline = Instant::now() + Duration::from_secs(90);
    let (mut last_sim, mut last_real) = (Vec::new(), Vec::new());
    let (mut since_sim, mut since_real) = (Instant::now(), Instant::now());
    loop {
        let (s, r) = (
            view(&pair.sim.live.snapshot()),
            view(&pair.real.live.snapshot()),
        );
        if s != last_sim {
            last_sim = s;
            since_sim = Instant::now();
        }
        if r != last_real {
            last_real = r;
            since_real = Instant::now();
        }
        let still = since_sim.elapsed() > quiet && since_real.elapsed() > quiet;
        let synced = pair.sim.live.is_ready() && pair.real.live.is_ready();
        if synced && still && !last_sim.is_empty() {
            if last_sim == last_real {
                return;
            }
            // Settled but different: one more quiet period in case a slow controller moves.
            if since_sim.elapsed() > quiet * 3 && since_real.elapsed() > quiet * 3 {
                panic!(
                    "{what}: the sim and Kubernetes disagree (lines only one side has):\n{}",
                    diff(&last_sim, &last_real)
                );
            }
        }
        assert!(
            Instant::now() < deadline,
            "{what}: no agreement within 90 s:\n{}",
            diff(&last_sim, &last_real)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `read` on both sides at once, each in a thread of its own (kubectl's process start is most
/// of a read, and a comparison makes several): (sim, kubernetes).
pub(crate) fn on_both<T: Send>(pair: &Pair, read: impl Fn(&Side) -> T + Sync) -> (T, T) {
    tokio::task::block_in_place(|| {
        std::thread::scope(|scope| {
            let sim = scope.spawn(|| read(&pair.sim));
            let real = read(&pair.real);
            (sim.join().expect("the sim side's read"), real)
        })
    })
}

/// Every DaemonSet's status as the API server reports it.
fn ds_status(side: &Side) -> Vec<String> {
    let out = side.run(&[
        "get",
        "ds",
        "-A",
        "-o",
        "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} desired={.status.desiredNumberScheduled} current={.status.currentNumberScheduled} ready={.status.numberReady} updated={.status.updatedNumberScheduled} available={.status.numberAvailable} unavailable={.status.numberUnavailable} misscheduled={.status.numberMisscheduled} observed={.status.observedGeneration}/{.metadata.generation}{\"\\n\"}{end}",
    ]);
    let mut lines: Vec<String> = out.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// `kubectl get ds -A -o wide` without the AGE column.
fn get_ds_wide(side: &Side) -> Vec<String> {
    let out = side.run(&["get", "ds", "-A", "-o", "wide", "--no-headers"]);
    let mut lines: Vec<String> = out
        .lines()
        .map(|l| {
            let mut cols: Vec<&str> = l.split_whitespace().collect();
            if cols.len() > 8 {
                cols.remove(8);
            }
            cols.join(" ")
        })
        .collect();
    lines.sort();
    lines
}

/// `kubectl rollout status --watch=false` of every DaemonSet, the kubectl processes run side by
/// side (each is ~0.1 s of process start and one GET; one after another they were ~3 s a seed).
/// Blocking: called through [`on_both`].
fn rollout_verdicts(side: &Side, daemonsets: &[(String, String)]) -> Vec<String> {
    std::thread::scope(|scope| {
        let runs: Vec<_> = daemonsets
            .iter()
            .map(|(ns, name)| {
                scope.spawn(move || {
                    let out = kubectl(
                        &side.kubeconfig,
                        &[
                            "rollout",
                            "status",
                            "--watch=false",
                            "-n",
                            ns,
                            &format!("ds/{name}"),
                        ],
                    );
                    format!(
                        "{ns}/{name}: {}{}",
                        String::from_utf8_lossy(&out.stdout).trim(),
                        String::from_utf8_lossy(&out.stderr).trim()
                    )
                })
            })
            .collect();
        runs.into_iter()
            .map(|run| run.join().expect("a kubectl run"))
            .collect()
    })
}

/// The whole comparison of a settled pair; returns the real side's scheduling lines (both
/// sides agree on them by then).
pub(crate) async fn compare(pair: &Pair, what: &str) -> Vec<String> {
    settle_and_compare(pair, what).await;
    let lines = same_scheduling(pair, what).await;
    let daemonsets: Vec<(String, String)> = pair
        .real
        .live
        .snapshot()
        .daemonsets
        .iter()
        .map(|d| (d.namespace.clone(), d.name.clone()))
        .collect();
    let (sim, real) = on_both(pair, |side| {
        (
            ds_status(side),
            get_ds_wide(side),
            rollout_verdicts(side, &daemonsets),
        )
    });
    let (a, b) = (sim.0, real.0);
    assert_eq!(
        a,
        b,
        "{what}: DaemonSet status fields differ:\n{}",
        diff(&a, &b)
    );
    let (a, b) = (sim.1, real.1);
    assert_eq!(
        a,
        b,
        "{what}: `kubectl get ds -o wide` differs:\n{}",
        diff(&a, &b)
    );
    let (a, b) = (sim.2, real.2);
    assert_eq!(
        a,
        b,
        "{what}: `kubectl rollout status` differs:\n{}",
        diff(&a, &b)
    );
    lines
}

fn generated(spec: &str) -> Scenario {
    scenario::load(&ScenarioSource::Generate(spec.into())).expect("generated scenario")
}

fn demo() -> Scenario {
    scenario::load(&ScenarioSource::File(
        real_cluster::root().join("scenarios/demo.yaml"),
    ))
    .expect("the demo scenario loads")
}

/// Cordons one worker and turns another NotReady (as a kubelet that reports Ready=False), so
/// every seed has both whatever its dice said: only `spec.unschedulable` and the condition
/// are set, the taints are the node-lifecycle controller's to add (§b).
fn cordon_and_break(scenario: &mut Scenario, seed: usize) {
    let workers: Vec<usize> = (0..scenario.nodes.len())
        .filter(|&i| {
            let taints = scenario.nodes[i]
                .spec
                .as_ref()
                .and_then(|s| s.taints.as_ref())
                .map_or(0, Vec::len);
            taints == 0
        })
        .collect();
    if workers.len() < 2 {
        return;
    }
    let cordon = workers[seed % workers.len()];
    let broken = workers[(seed + 1) % workers.len()];
    if let Some(spec) = scenario.nodes[cordon].spec.as_mut() {
        spec.unschedulable = Some(true);
    }
    if let Some(conditions) = scenario.nodes[broken]
        .status
        .as_mut()
        .and_then(|s| s.conditions.as_mut())
    {
        for c in conditions.iter_mut().filter(|c| c.type_ == "Ready") {
            c.status = "False".into();
        }
    }
}

pub(crate) fn write_temp(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write a manifest");
    path.display().to_string()
}

/// Runs the same kubectl command against both backends.
pub(crate) fn both(pair: &Pair, args: &[&str]) {
    pair.sim.kubectl(args);
    pair.real.kubectl(args);
}

/// Run by a lane of `k8s_lane` (each lane runs one comparison at a time).
pub(crate) async fn generated_clusters_settle_to_the_same_matrix_as_kubernetes() {
    let mut failures = Vec::new();
    let mut full_node_cells = 0;
    // DIFF_SEEDS=N runs the first N seeds only (while chasing one difference).
    let seeds = std::env::var("DIFF_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let scenario_of = |seed: usize| {
        let mut spec = format!("nodes=14,daemonsets=8,seed={seed},rollouts=0,zones=2");
        // Every third seed fills its untainted nodes with workload pods (§j.3, §k.3).
        if seed % 3 == 1 {
            spec.push_str(&format!(",workload={}", order_free_share(&spec)));
        }
        let mut scenario = generated(&spec);
        cordon_and_break(&mut scenario, seed);
        (spec, scenario)
    };
    let mut next = (seeds >= 1).then(|| start_in_background(&scenario_of(1).1));
    for seed in 1..=seeds {
        let (spec, scenario) = scenario_of(seed);
        let cluster = next
            .take()
            .expect("a control plane was started for this seed")
            .join()
            .expect("the control plane starts");
        if seed < seeds {
            next = Some(start_in_background(&scenario_of(seed + 1).1));
        }
        let started = Instant::now();
        let pair = load_both_on(&scenario, prepare(&scenario), cluster).await;
        let result = tokio::spawn({
            let what = format!("seed {seed} ({spec})");
            async move {
                let lines = compare(&pair, &what).await;
                let short = lines
                    .iter()
                    .filter(|l| l.contains(" Insufficient "))
                    .count();
                eprintln!("{what}: {short} agents pending for room on both sides");
                short
            }
        })
        .await;
        eprintln!(
            "seed {seed}: loaded and compared in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        match result {
            Ok(short) => full_node_cells += short,
            Err(err) => failures.push(format!("seed {seed}: {err}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Not a vacuous pass: the workload seeds left agents pending for room on both sides.
    assert!(
        full_node_cells > 0,
        "no agent was pending for cpu or memory in {seeds} seeds"
    );
}

/// Run by a lane of `k8s_lane` (each lane runs one comparison at a time).
pub(crate) async fn the_demo_cluster_and_the_same_changes_agree_with_kubernetes() {
    let pair = load_both(demo(), |_| {}).await;
    compare(&pair, "demo scenario").await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Each change as kubectl sends it, then the whole comparison again.
    let changes: Vec<(&str, Vec<String>)> = vec![
        // §a.2 step 3: an untolerated NoSchedule taint keeps existing pods (shouldContinueRunning).
        (
            "NoSchedule taint",
            args("taint nodes worker-2 example.com/maintenance=true:NoSchedule"),
        ),
        // §a.2 step 3: an untolerated NoExecute taint deletes them (shouldContinueRunning false).
        (
            "NoExecute taint",
            args("taint nodes worker-3 example.com/evict=true:NoExecute"),
        ),
        // §a.2 step 3: PreferNoSchedule does not count.
        (
            "PreferNoSchedule taint",
            args("taint nodes worker-4 example.com/soft=true:PreferNoSchedule"),
        ),
        // §a.2 step 2: nodeSelector workload-type: gpu now matches.
        ("label", args("label nodes worker-5 workload-type=gpu")),
        // §b: unschedulable:NoSchedule is tolerated by every daemon pod.
        ("cordon", args("cordon worker-1")),
        (
            "taint removed",
            args("taint nodes worker-2 example.com/maintenance-"),
        ),
        ("uncordon", args("uncordon worker-1")),
        ("node deleted", args("delete node worker-4")),
    ];
    for (what, change) in &changes {
        let change: Vec<&str> = change.iter().map(String::as_str).collect();
        both(&pair, &change);
        if *what == "node deleted" {
            // The DaemonSet controller ignores node deletions; the pod GC removes the node's
            // pods (after a 40 s quarantine in kube-controller-manager) and that syncs them.
            pods_gone_from(&pair, "worker-4").await;
        }
        compare(
            &pair,
            &format!("demo after {what} (kubectl {})", change.join(" ")),
        )
        .await;
    }
    let node = write_temp(
        dir.path(),
        "worker-7.json",
        r#"{"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "worker-7", "labels": {"kubernetes.io/hostname": "worker-7",
              "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}"#,
    );
    both(&pair, &["apply", "-f", &node]);
    compare(&pair, "demo after node added").await;
}

/// Waits until neither side has a pod bound to `node` (at most 120 s).
async fn pods_gone_from(pair: &Pair, node: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    for side in [&pair.sim, &pair.real] {
        loop {
            let out = side.kubectl(&[
                "get",
                "pods",
                "-A",
                "--no-headers",
                "--field-selector",
                &format!("spec.nodeName={node}"),
            ]);
            if out.trim().is_empty() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{}: pods still bound to deleted node {node}:\n{out}",
                side.name
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

/// Eight Ready workers and one DaemonSet, for rollouts whose budget can be measured.
const ROLLOUT_SCENARIO: &str = r#"
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: 'agent:1'}]}
"#;

fn rollout_scenario() -> Scenario {
    let mut text = String::from(ROLLOUT_SCENARIO);
    for i in 1..=8 {
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: Node\nmetadata: {{name: w{i}, labels: {{kubernetes.io/hostname: w{i}}}}}\nstatus: {{conditions: [{{type: Ready, status: 'True'}}]}}\n"
        ));
    }
    scenario::parse_str(&text, "rollout scenario").expect("rollout scenario parses")
}

/// The most pods the DaemonSet had unavailable, and the most nodes with two pods (surge), seen
/// on one side until both sides settle.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Peak {
    unavailable: i64,
    surge: usize,
}

fn sample(snapshot: &MatrixSnapshot, peak: &mut Peak) {
    use daemonscope::domain::coverage::CellState;
    if let Some((index, ds)) = snapshot.daemonsets.iter().enumerate().next() {
        peak.unavailable = peak.unavailable.max(ds.desired - ds.available);
        let surging = snapshot
            .nodes
            .iter()
            .filter(|n| n.cells.get(index) == Some(&CellState::Surge))
            .count();
        peak.surge = peak.surge.max(surging);
    }
}

/// Run by a lane of `k8s_lane` (each lane runs one comparison at a time).
pub(crate) async fn rollouts_stay_within_the_same_budget_as_kubernetes() {
    let pair = load_both(rollout_scenario(), |_| {}).await;
    compare(&pair, "rollout scenario").await;
    // (strategy patch, image, most unavailable allowed, most surge pods allowed): §d.1, §d.2.
    let budgets = [
        (
            r#"{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}}}}"#,
            "agent:2",
            1,
            0,
        ),
        (
            r#"{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":0}}}}"#,
            "agent:3",
            2,
            0,
        ),
        (
            r#"{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0,"maxSurge":1}}}}"#,
            "agent:4",
            0,
            1,
        ),
    ];
    for (patch, image, max_unavailable, max_surge) in budgets {
        both(
            &pair,
            &[
                "patch",
                "ds",
                "agent",
                "-n",
                "kube-system",
                "--type",
                "merge",
                "-p",
                patch,
            ],
        );
        both(
            &pair,
            &[
                "set",
                "image",
                "ds/agent",
                "-n",
                "kube-system",
                &format!("agent={image}"),
            ],
        );
        let (mut sim, mut real) = (Peak::default(), Peak::default());
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let (s, r) = (pair.sim.live.snapshot(), pair.real.live.snapshot());
            sample(&s, &mut sim);
            sample(&r, &mut real);
            let done = |m: &MatrixSnapshot| {
                m.daemonsets.first().is_some_and(|d| {
                    d.rollout_done && d.updated == d.desired && d.available == d.desired
                })
            };
            if done(&s) && done(&r) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{image}: rollout did not finish in 90 s (sim {sim:?}, kubernetes {real:?})"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        eprintln!("{image}: peak sim {sim:?}, kubernetes {real:?}");
        for (side, peak) in [("sim", sim), ("kubernetes", real)] {
            assert!(
                peak.unavailable <= max_unavailable && peak.surge <= max_surge,
                "{image} on {side}: peak {peak:?} exceeds maxUnavailable {max_unavailable} / maxSurge {max_surge}"
            );
        }
        // The rollout really went through the budget on both sides (not a vacuous pass).
        for (side, peak) in [("sim", sim), ("kubernetes", real)] {
            assert!(
                peak.unavailable > 0 || peak.surge > 0,
                "{image} on {side}: no pod was ever replaced ({peak:?})"
            );
        }
        compare(&pair, &format!("after the {image} rollout")).await;
    }
}
