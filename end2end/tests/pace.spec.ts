// Rollout pace and stall, with the cause (issue 14 item 1). This spec starts its own dashboard on
// the demo (`serve --demo FILE --stall-after 30s`), because both things it checks depend on time
// since the start: the demo's ebs-csi-node rollout starts when the simulated cluster does and
// completes one node at a time, each once its new image turns ready, and node-exporter's stalled
// rollout is only called stalled once nothing moved for the threshold. FILE is the demo with that
// image ready 6 s after start instead of 15 s (`READY_DELAY`): the rollout then takes under a
// minute, not two, and the pace it shows still has seven nodes to fall over.
import { test, expect, type Page } from "@playwright/test";
import { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ROOT, freePort, kill, startDaemonscope, waitForHttp } from "./fixtures/backend";

const STALL_AFTER_SECONDS = 30;
/** The slow image's readiness delay in this spec's copy of the demo (scenarios/demo.yaml: 15s). */
const READY_DELAY = "6s";

/** scenarios/demo.yaml with ebs-csi-node's new image ready after READY_DELAY, written to `dir`. */
function fasterDemo(dir: string): string {
  const demo = fs.readFileSync(path.join(ROOT, "scenarios/demo.yaml"), "utf8");
  const slow = "{image: 'public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.38.1', readyDelay: 15s}";
  if (!demo.includes(slow)) throw new Error(`scenarios/demo.yaml no longer has ${slow}: update this spec`);
  const file = path.join(dir, "demo-faster.yaml");
  fs.writeFileSync(file, demo.replace(slow, slow.replace("15s", READY_DELAY)));
  return file;
}

let dashboard: ChildProcess | undefined;
let dash = "";
const stopDashboard = () => dashboard?.kill("SIGKILL");

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  return errors;
}

async function hydrated(page: Page): Promise<void> {
  await expect(page.locator("[data-hydrated]").first()).toHaveAttribute("data-hydrated", "true");
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(60_000);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "daemonscope-e2e-pace-"));
  dash = `http://127.0.0.1:${await freePort()}`;
  process.once("exit", stopDashboard);
  dashboard = startDaemonscope(
    ["serve", "--demo", fasterDemo(workDir), "--stall-after", `${STALL_AFTER_SECONDS}s`, "--listen", dash.replace("http://", "")],
    path.join(workDir, "dashboard.log"),
  );
  await waitForHttp(`${dash}/readyz`);
});

test.afterAll(async () => {
  await kill(dashboard, "SIGTERM");
  process.removeListener("exit", stopDashboard);
});

type PaceWindow = Window & { __pace?: { eta: string | null; rate: string; state: string }[] };

test("the slow rollout shows a rate and an ETA that go down, then completes live", async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  await page.goto(`${dash}/ds/kube-system/ebs-csi-node`);
  await hydrated(page);
  const panel = page.getByTestId("pace-panel");
  await expect(panel).toHaveAttribute("data-pace", "rolling");
  // Record every value the panel shows, in the page, without reloading it (a reload would
  // drop the recording, so the completion below proves the live update).
  await page.evaluate(() => {
    const w = window as PaceWindow;
    w.__pace = [];
    const scan = () => {
      const p = document.querySelector('[data-testid="pace-panel"]');
      if (!p) return;
      const entry = {
        eta: document.querySelector('[data-testid="pace-eta"]')?.getAttribute("data-eta") ?? null,
        rate: document.querySelector('[data-testid="pace-rate"]')?.textContent ?? "",
        state: p.getAttribute("data-pace") ?? "",
      };
      const last = w.__pace![w.__pace!.length - 1];
      if (!last || last.eta !== entry.eta || last.rate !== entry.rate || last.state !== entry.state) {
        w.__pace!.push(entry);
      }
    };
    scan();
    new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  // A node done gives a rate (nodes per minute) and an ETA.
  await expect(page.getByTestId("pace-rate")).toContainText(/[1-9]\d*\.\d nodes\/min|0\.[1-9] nodes\/min/, { timeout: 90_000 });
  await expect(page.getByTestId("pace-eta")).toHaveAttribute("data-eta", /\d+/);
  // The matrix header says the same in its badge, with the rate and counts in its title.
  const matrix = await page.context().newPage();
  const matrixErrors = watchErrors(matrix);
  await matrix.goto(`${dash}/`);
  await hydrated(matrix);
  const badge = matrix.locator('th.ds-col[data-daemonset="kube-system/ebs-csi-node"] .pace-badge');
  await expect(badge).toHaveText(/min left|rolling/);
  await expect(badge).toHaveAttribute("title", /of 7 nodes updated and available/);
  await matrix.close();
  expect(matrixErrors).toEqual([]);
  await expect(panel).toHaveAttribute("data-pace", "complete", { timeout: 180_000 });
  await expect(page.getByTestId("pace-done")).toHaveText("7 of 7 nodes updated and available");
  await expect(page.getByTestId("pace-eta")).toHaveText("done");
  const seen = await page.evaluate(() => (window as PaceWindow).__pace ?? []);
  const etas = seen.map((s) => s.eta).filter((e): e is string => e !== null).map(Number);
  expect(etas.length, JSON.stringify(seen)).toBeGreaterThanOrEqual(2);
  const fell = etas.some((e, i) => i > 0 && e < etas[i - 1]);
  expect(fell, `the ETA went down at least once: ${etas.join(", ")}`).toBe(true);
  expect(seen.map((s) => s.state)).toContain("rolling");
  expect(seen[seen.length - 1].state).toBe("complete");
  expect(errors).toEqual([]);
});

test("the stalled rollout names its causes, nodes and pods, and what would unblock it", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await page.goto(`${dash}/ds/monitoring/node-exporter`);
  await hydrated(page);
  const warning = page.getByTestId("stall-warning");
  await expect(warning).toBeVisible({ timeout: (STALL_AFTER_SECONDS + 30) * 1000 });
  await expect(page.getByTestId("pace-panel")).toHaveAttribute("data-pace", "stalled");
  await expect(warning).toContainText("no node finished for");
  // §d.4 + §c: the new image crash-loops on worker-1.
  const failing = warning.locator('[data-cause="NewPodsFailing"]');
  await expect(failing).toContainText("on worker-1 (CrashLoopBackOff");
  await expect(failing.locator('a[href="/node/worker-1"]')).toBeVisible();
  await expect(failing.locator('a[href^="/pod/monitoring/node-exporter-"]')).toBeVisible();
  await expect(failing).toContainText("kubectl -n monitoring rollout undo daemonset/node-exporter");
  // §d.3: NotReady worker-6 keeps a pod it cannot remove, holding maxUnavailable.
  const holding = warning.locator('[data-cause="NotReadyNodesHoldBudget"]');
  await expect(holding).toContainText("NotReady node worker-6 holds the budget");
  await expect(holding).toContainText("maxUnavailable 1");
  await expect(holding.locator('a[href="/node/worker-6"]')).toBeVisible();
  await expect(holding).toContainText("kubectl delete node worker-6");
  // The pods in flight, by node, with their age.
  const flight = page.locator("table.in-flight");
  await expect(flight.locator("tr", { hasText: "worker-1" })).toContainText("CrashLoopBackOff");
  await expect(flight.locator("tr", { hasText: "worker-6" })).toContainText("Terminating");
  await expect(flight.locator("td.age").first()).toHaveText(/\d+[smhd]/);

  // The matrix header's badge says "stalled", its title names the cause and the node.
  await page.goto(`${dash}/`);
  await hydrated(page);
  const badge = page.locator('th.ds-col[data-daemonset="monitoring/node-exporter"] .pace-badge');
  await expect(badge).toHaveText("stalled");
  await expect(badge).toHaveAttribute("title", /new pods fail: node-exporter-\w+ on worker-1 \(CrashLoopBackOff/);
  // The completed rollout carries no badge.
  await expect(page.locator('th.ds-col[data-daemonset="kube-system/ebs-csi-node"] .pace-badge')).toHaveCount(0);
  expect(errors).toEqual([]);
});
