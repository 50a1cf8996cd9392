// Live updates driven by the real kubectl (issue 5): the dashboard runs against a standalone
// simulated cluster that this file starts itself, so a test can change the cluster with
// kubectl, and stop and restart the API server, while the page stays open.
import { test, expect, Page } from "@playwright/test";
import { spawn, execFile, ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "../..");
const BIN = process.env.DAEMONSCOPE_BIN || path.join(ROOT, "target/debug/daemonscope");
const KUBECTL = process.env.KUBECTL || path.join(ROOT, ".tools/bin/kubectl");
const SIM_ADDR = "127.0.0.1:16443";
const DASH_ADDR = "127.0.0.1:3107";
const DASH = `http://${DASH_ADDR}`;

const work = fs.mkdtempSync(path.join(os.tmpdir(), "daemonscope-e2e-"));
const kubeconfig = path.join(work, "sim.kubeconfig");
let sim: ChildProcess | undefined;
let dashboard: ChildProcess | undefined;

function start(args: string[], log: string): ChildProcess {
  const out = fs.openSync(path.join(work, log), "a");
  return spawn(BIN, args, { cwd: ROOT, stdio: ["ignore", out, out] });
}

async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function startSim(): Promise<void> {
  sim = start(
    ["sim", "--scenario", "scenarios/demo.yaml", "--listen", SIM_ADDR, "--write-kubeconfig", kubeconfig],
    "sim.log",
  );
  await waitFor(`http://${SIM_ADDR}/version`);
}

async function stopSim(): Promise<void> {
  if (!sim) return;
  const exited = new Promise((r) => sim!.once("exit", r));
  sim.kill("SIGKILL");
  await exited;
  sim = undefined;
}

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(KUBECTL, ["--kubeconfig", kubeconfig, ...args], { timeout: 120_000 });
  return stdout;
}

function cell(page: Page, node: string, daemonset: string) {
  return page.locator(`button.cell[data-node="${node}"][data-daemonset="${daemonset}"]`);
}

async function openMatrix(page: Page, errors: string[]): Promise<void> {
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(DASH + "/");
  await expect(page.locator("[data-hydrated]").first()).toHaveAttribute("data-hydrated", "true");
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  await startSim();
  dashboard = start(["serve", "--kubeconfig", kubeconfig, "--listen", DASH_ADDR], "dashboard.log");
  await waitFor(`${DASH}/readyz`);
});

test.afterAll(async () => {
  dashboard?.kill("SIGTERM");
  await stopSim();
});

test("a kubectl taint turns a cell excluded without a reload, and the explanation names the taint", async ({ page }) => {
  const errors: string[] = [];
  await openMatrix(page, errors);
  const target = cell(page, "worker-2", "kube-system/log-collector");
  await expect(target).toHaveAttribute("data-state", "ready");
  // Mark the document so a reload would be detected.
  await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));

  // NoExecute, untolerated: shouldContinueRunning is false, so the controller deletes the pod (§a.2).
  await kubectl("taint", "nodes", "worker-2", "e2e-drain=yes:NoExecute");
  await expect(target).toHaveAttribute("data-state", "excluded", { timeout: 20_000 });
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);

  await target.click();
  const panel = page.locator(".explanation");
  await expect(panel).toContainText("e2e-drain");
  await expect(panel).toContainText("NoExecute");

  await kubectl("taint", "nodes", "worker-2", "e2e-drain=yes:NoExecute-");
  await expect(target).not.toHaveAttribute("data-state", "excluded", { timeout: 20_000 });
  expect(errors).toEqual([]);
});

test("a label added with kubectl shows on the open node page, and goes when removed", async ({ page }) => {
  // A label no DaemonSet selects changes no cell: the page's labels section re-reads on its own.
  test.setTimeout(60_000);
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(DASH + "/node/worker-4");
  await expect(page.locator("[data-hydrated]").first()).toHaveAttribute("data-hydrated", "true");
  const label = page.getByTestId("node-labels").locator('tr[data-label="example.com/e2e-team"]');
  await expect(label).toHaveCount(0);
  await kubectl("label", "nodes", "worker-4", "example.com/e2e-team=storage");
  await expect(label.locator(".label-value")).toHaveText("storage", { timeout: 25_000 });
  await kubectl("label", "nodes", "worker-4", "example.com/e2e-team-");
  await expect(label).toHaveCount(0, { timeout: 25_000 });
  expect(errors).toEqual([]);
});

test("a node created with kubectl appears as a new row and gets its daemon pods", async ({ page }) => {
  const errors: string[] = [];
  await openMatrix(page, errors);
  const manifest = path.join(work, "node.yaml");
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
  const newCell = cell(page, "worker-e2e", "kube-system/log-collector");
  await expect(newCell).toHaveCount(1, { timeout: 20_000 });
  await expect(newCell).toHaveAttribute("data-state", "ready", { timeout: 120_000 });

  await kubectl("delete", "node", "worker-e2e");
  await expect(newCell).toHaveCount(0, { timeout: 20_000 });
  expect(errors).toEqual([]);
});

test("kubectl set image moves cells from the old revision to the new one", async ({ page }) => {
  // gpu-monitor runs on the two GPU nodes with maxUnavailable 1: one node at a time (§d.3).
  // (log-collector would stall here, faithfully: its old pod on the NotReady worker-6 is deleted
  // first and stays Terminating, using up the budget, §d.3 and §g.13.)
  test.setTimeout(150_000);
  const errors: string[] = [];
  await openMatrix(page, errors);
  const ds = "monitoring/gpu-monitor";
  await kubectl("-n", "monitoring", "set", "image", "ds/gpu-monitor", "dcgm-exporter=nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.2-ubuntu22.04");
  // While one node is replaced the other still runs the old revision.
  await expect(page.locator(`button.cell[data-daemonset="${ds}"][data-state="outdated"]`).first()).toBeVisible({
    timeout: 20_000,
  });
  const status = await kubectl("-n", "monitoring", "rollout", "status", "ds/gpu-monitor", "--timeout=100s");
  expect(status).toContain('daemon set "gpu-monitor" successfully rolled out');
  for (const node of ["gpu-1", "gpu-2"]) {
    await expect(cell(page, node, ds)).toHaveAttribute("data-state", "ready", { timeout: 20_000 });
  }
  await expect(page.locator(`button.cell[data-daemonset="${ds}"][data-state="outdated"]`)).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("the stale banner shows while the API server is gone and clears when it returns", async ({ page }) => {
  test.setTimeout(150_000);
  const errors: string[] = [];
  await openMatrix(page, errors);
  const banner = page.locator("[data-testid=stale-banner]");
  await expect(banner).toHaveCount(0);
  const before = await cell(page, "cp-1", "metallb-system/speaker").getAttribute("data-state");

  await stopSim();
  await expect(banner).toBeVisible({ timeout: 120_000 });
  await expect(banner).toContainText(/stale since \d\d:\d\d:\d\d/);
  // Degrade, never lie: the last known state stays on screen.
  await expect(cell(page, "cp-1", "metallb-system/speaker")).toHaveAttribute("data-state", before ?? "");

  await startSim();
  await expect(banner).toHaveCount(0, { timeout: 60_000 });
  await page.screenshot({ path: "test-results/live-after-reconnect.png", fullPage: true });
  // Connection errors logged by the browser while the server was away are not app errors.
  expect(errors.filter((e) => !/EventSource|net::ERR|Failed to load resource/.test(e))).toEqual([]);
});
