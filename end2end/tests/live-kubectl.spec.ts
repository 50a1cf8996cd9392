// Live updates driven by the real kubectl (issue 5), against both backends (issue 11 item 4):
// daemonscope's simulated cluster and Kubernetes' own control plane (fixtures/backend.ts). Each
// describe block starts its cluster and a dashboard on it, so a test can change the cluster with
// kubectl, and stop and restart the API server, while the page stays open.
//
// The two backends start from the same demo scenario but not from the same state: the sim loads
// the demo's pre-made pods and stalled rollouts, the real control plane gets only its Namespaces,
// Nodes and DaemonSets and lets the controllers make the pods. The tests therefore use nodes and
// DaemonSets that behave alike on both (log-collector on worker-2, gpu-monitor on the GPU nodes,
// speaker on cp-1); where an expectation depends on the backend, a comment says why.
import { test, expect, Page } from "@playwright/test";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as fs from "node:fs";
import * as path from "node:path";
import { backends, Dashboard, KUBECTL, type Backend } from "./fixtures/backend";

const run = promisify(execFile);

// Generous: the real control plane converges in seconds, not milliseconds (watch, controller
// sync, scheduler bind, kwok's status), and a busy 2-core machine stretches that. A passing test
// waits only as long as it needs.
const CHANGE = 30_000;
const ROLLOUT = 60_000;

function cell(page: Page, node: string, daemonset: string) {
  return page.locator(`button.cell[data-node="${node}"][data-daemonset="${daemonset}"]`);
}

async function openMatrix(page: Page, url: string, errors: string[]): Promise<void> {
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(url + "/");
  await expect(page.locator("[data-hydrated]").first()).toHaveAttribute("data-hydrated", "true");
}

type Snapshot = Record<string, string>;
type StateWindow = Window & { __states?: Snapshot[] };

/**
 * Records, in the page, every combination of states the cells of `daemonset` go through (one
 * snapshot per DOM change that changed one): states too brief for a polling expect are kept.
 */
async function recordStates(page: Page, daemonset: string): Promise<void> {
  await page.evaluate((ds) => {
    const w = window as StateWindow;
    const snapshots: Snapshot[] = [];
    let last = "";
    const scan = () => {
      const now: Snapshot = {};
      for (const el of document.querySelectorAll(`button.cell[data-daemonset="${ds}"]`)) {
        now[el.getAttribute("data-node") ?? "?"] = el.getAttribute("data-state") ?? "?";
      }
      const key = JSON.stringify(now);
      if (key !== last) snapshots.push(now);
      last = key;
    };
    scan();
    new MutationObserver(scan).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["data-state"],
    });
    w.__states = snapshots;
  }, daemonset);
}

async function recorded(page: Page): Promise<Snapshot[]> {
  return page.evaluate(() => (window as StateWindow).__states ?? []);
}

/** One node's states in order, repeats dropped: "ready → outdated → missing → pending → ready". */
function sequence(snapshots: Snapshot[], node: string): string {
  const states: string[] = [];
  for (const s of snapshots) {
    const state = s[node] ?? "(no cell)";
    if (states[states.length - 1] !== state) states.push(state);
  }
  return states.join(" → ");
}

/** Prints the states a test saw, per backend, for comparing the two in the test output. */
function report(backend: Backend, what: string, snapshots: Snapshot[], nodes: string[]): void {
  const lines = nodes.map((n) => `  ${n}: ${sequence(snapshots, n)}`);
  console.log(`[${backend.name}] ${what}\n${lines.join("\n")}`);
}

for (const backend of backends()) {
  test.describe(`live kubectl [${backend.name}]`, () => {
    test.describe.configure({ mode: "serial" });

    const dashboard = new Dashboard();
    let dash = "";

    async function kubectl(...args: string[]): Promise<string> {
      const { stdout } = await run(KUBECTL, ["--kubeconfig", backend.kubeconfig, ...args], { timeout: 120_000 });
      return stdout;
    }

    test.beforeAll(async () => {
      test.setTimeout(180_000);
      await backend.start();
      // /readyz: the first sync is done (on the real backend the controllers may still be
      // creating pods: the tests wait for the states they start from).
      await dashboard.start(backend);
      dash = dashboard.url;
    });

    test.afterAll(async () => {
      test.setTimeout(60_000);
      await dashboard.stop();
      await backend.stop();
    });

    test("a kubectl taint turns a cell excluded without a reload, and the explanation names the taint", async ({
      page,
    }) => {
      test.setTimeout(90_000);
      const errors: string[] = [];
      await openMatrix(page, dash, errors);
      const ds = "kube-system/log-collector";
      const target = cell(page, "worker-2", ds);
      await expect(target).toHaveAttribute("data-state", "ready", { timeout: CHANGE });
      await recordStates(page, ds);
      // Mark the document so a reload would be detected.
      await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));

      // NoExecute, untolerated: shouldContinueRunning is false, so the pod goes (§a.2): the sim's
      // controller deletes it, on Kubernetes the taint-eviction controller evicts it.
      await kubectl("taint", "nodes", "worker-2", "e2e-drain=yes:NoExecute");
      await expect(target).toHaveAttribute("data-state", "excluded", { timeout: CHANGE });
      expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);

      await target.click();
      const panel = page.locator(".explanation");
      await expect(panel).toContainText("e2e-drain");
      await expect(panel).toContainText("NoExecute");

      await kubectl("taint", "nodes", "worker-2", "e2e-drain=yes:NoExecute-");
      // Back to a pod of its own, on both backends: the DaemonSet controller creates it again.
      await expect(target).toHaveAttribute("data-state", "ready", { timeout: CHANGE });
      report(backend, "log-collector on worker-2, taint NoExecute and untaint", await recorded(page), ["worker-2"]);
      expect(errors).toEqual([]);
    });

    test("a label added with kubectl shows on the open node page, and goes when removed", async ({ page }) => {
      // A label no DaemonSet selects changes no cell: the page's labels section re-reads on its own.
      test.setTimeout(90_000);
      const errors: string[] = [];
      page.on("pageerror", (err) => errors.push(err.message));
      await page.goto(dash + "/node/worker-4");
      await expect(page.locator("[data-hydrated]").first()).toHaveAttribute("data-hydrated", "true");
      const label = page.getByTestId("node-labels").locator('tr[data-label="example.com/e2e-team"]');
      await expect(label).toHaveCount(0);
      await kubectl("label", "nodes", "worker-4", "example.com/e2e-team=storage");
      await expect(label.locator(".label-value")).toHaveText("storage", { timeout: CHANGE });
      await kubectl("label", "nodes", "worker-4", "example.com/e2e-team-");
      await expect(label).toHaveCount(0, { timeout: CHANGE });
      expect(errors).toEqual([]);
    });

    test("a node created with kubectl appears as a new row and gets its daemon pods", async ({ page }) => {
      test.setTimeout(180_000);
      const errors: string[] = [];
      await openMatrix(page, dash, errors);
      const ds = "kube-system/log-collector";
      await recordStates(page, ds);
      // Created as a kubelet registers it: Ready. Without the label daemonscope.dev/no-kubelet, so
      // on the real backend kwok takes the node over (heartbeats, node info) and runs its pods.
      const manifest = path.join(backend.workDir, "node.yaml");
      fs.writeFileSync(
        manifest,
        [
          "apiVersion: v1",
          "kind: Node",
          "metadata:",
          "  name: worker-e2e",
          "  labels: {kubernetes.io/hostname: worker-e2e, kubernetes.io/os: linux, node-role.kubernetes.io/worker: ''}",
          "spec: {}",
          "status:",
          "  conditions:",
          "  - {type: Ready, status: 'True', reason: KubeletReady, message: kubelet is posting ready status}",
          "",
        ].join("\n"),
      );
      await kubectl("apply", "-f", manifest);
      const newCell = cell(page, "worker-e2e", ds);
      await expect(newCell).toHaveCount(1, { timeout: CHANGE });
      await expect(newCell).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
      const ready = () =>
        kubectl("get", "node", "worker-e2e", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`);
      expect(await ready()).toBe("True");
      if (backend.name === "real") {
        // Only kwok reports this kubelet version: the node is managed, not just created Ready.
        // (The sim's kubelet stand-in manages every node and reports no node info.)
        await expect
          .poll(() => kubectl("get", "node", "worker-e2e", "-o", "jsonpath={.status.nodeInfo.kubeletVersion}"), {
            timeout: CHANGE,
          })
          .toBe("kwok");
      }

      await kubectl("delete", "node", "worker-e2e");
      await expect(newCell).toHaveCount(0, { timeout: CHANGE });
      report(backend, "log-collector on a node created and deleted", await recorded(page), ["worker-e2e"]);
      expect(errors).toEqual([]);
    });

    test("kubectl set image moves cells from the old revision to the new one", async ({ page }) => {
      // gpu-monitor runs on the two GPU nodes with maxUnavailable 1: one node at a time (§d.3).
      // (On the sim, log-collector would stall here, faithfully: its old pod on the NotReady
      // worker-6 is deleted first and stays Terminating, using up the budget, §d.3 and §g.13.
      // The real backend has no such pod: the demo's pods are not replayed.)
      test.setTimeout(240_000);
      const errors: string[] = [];
      await openMatrix(page, dash, errors);
      const ds = "monitoring/gpu-monitor";
      const nodes = ["gpu-1", "gpu-2"];
      // Both start settled (the sim's demo has gpu-2's container still being created).
      for (const node of nodes) {
        await expect(cell(page, node, ds)).toHaveAttribute("data-state", "ready", { timeout: CHANGE });
      }
      await recordStates(page, ds);
      await kubectl(
        "-n",
        "monitoring",
        "set",
        "image",
        "ds/gpu-monitor",
        "dcgm-exporter=nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.2-ubuntu22.04",
      );
      // While one node is replaced the other still runs the old revision. Recorded in the page:
      // on the real backend that lasts about a second, too short to catch by polling.
      await expect
        .poll(async () => (await recorded(page)).some((s) => Object.values(s).includes("outdated")), {
          message: "a gpu-monitor cell showed the old revision",
          timeout: ROLLOUT,
        })
        .toBe(true);
      const status = await kubectl("-n", "monitoring", "rollout", "status", "ds/gpu-monitor", "--timeout=100s");
      expect(status).toContain('daemon set "gpu-monitor" successfully rolled out');
      for (const node of nodes) {
        await expect(cell(page, node, ds)).toHaveAttribute("data-state", "ready", { timeout: CHANGE });
      }
      await expect(page.locator(`button.cell[data-daemonset="${ds}"][data-state="outdated"]`)).toHaveCount(0);

      const snapshots = await recorded(page);
      report(backend, "gpu-monitor, kubectl set image", snapshots, nodes);
      // maxUnavailable 1: never both GPU nodes without an available pod at once (an old pod that
      // is Ready, `outdated`, is available).
      const unavailable = ["missing", "starting", "pending", "unready"];
      const overBudget = snapshots.filter((s) => nodes.every((n) => unavailable.includes(s[n])));
      expect(overBudget, "snapshots with both GPU nodes unavailable").toEqual([]);
      expect(errors).toEqual([]);
    });

    test("the stale banner shows while the API server is gone and clears when it returns", async ({ page }) => {
      test.setTimeout(240_000);
      const errors: string[] = [];
      await openMatrix(page, dash, errors);
      const banner = page.locator("[data-testid=stale-banner]");
      await expect(banner).toHaveCount(0);
      const speaker = cell(page, "cp-1", "metallb-system/speaker");
      await expect(speaker).toHaveAttribute("data-state", "ready", { timeout: CHANGE });

      await backend.stopApiServer();
      await expect(banner).toBeVisible({ timeout: 120_000 });
      await expect(banner).toContainText(/stale since \d\d:\d\d:\d\d/);
      // Degrade, never lie: the last known state stays on screen.
      await expect(speaker).toHaveAttribute("data-state", "ready");

      await backend.startApiServer();
      await expect(banner).toHaveCount(0, { timeout: 60_000 });
      await expect(speaker).toHaveAttribute("data-state", "ready", { timeout: CHANGE });
      await page.screenshot({ path: `test-results/live-${backend.name}-after-reconnect.png`, fullPage: true });
      // Connection errors logged by the browser while the server was away are not app errors.
      expect(errors.filter((e) => !/EventSource|net::ERR|Failed to load resource/.test(e))).toEqual([]);
    });
  });
}
