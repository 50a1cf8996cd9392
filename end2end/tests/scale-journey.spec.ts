// Issue 13's "done when", as a person would do it: on a generated 5,000-node cluster, find
// every node that lacks the log agent, grouped by pool, on one screen, with the keyboard only.
//
// The cluster: `--generate nodes=5000,daemonsets=3,seed=1,pools=5,rollouts=0,blocked=0.05`
// (kube-proxy, calico-node and logging/log-collector on five pools; an admission policy rejects
// log-collector's pods on 5% of the spot pool, so those nodes lack it for good). The truth the
// page is checked against comes from the cluster's own API, not from the dashboard: how many
// pods the DaemonSet's status says are short, and which spot nodes hold no log-collector pod
// (a superset: a NotReady node holds none either, and rightly is not "missing", §a.2).
import { test, expect, type Page, type APIRequestContext } from "@playwright/test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type ChildProcess } from "node:child_process";
import { freePort, kill, startDaemonscope, waitForHttp } from "./fixtures/backend";

const SPEC = "nodes=5000,daemonsets=3,seed=1,pools=5,rollouts=0,blocked=0.05";
const DS = "logging/log-collector";

/** The spot nodes on which the API server holds no log-collector pod. */
async function spotNodesWithoutTheAgent(request: APIRequestContext, sim: string): Promise<string[]> {
  const nodes = await request.get(`${sim}/api/v1/nodes?labelSelector=${encodeURIComponent("node.kubernetes.io/pool=spot")}`);
  expect(nodes.status()).toBe(200);
  const spot: string[] = (await nodes.json()).items.map((n: any) => n.metadata.name);
  const pods = await request.get(`${sim}/api/v1/namespaces/logging/pods`);
  expect(pods.status()).toBe(200);
  const covered = new Set(
    (await pods.json()).items
      .filter((p: any) => (p.metadata.ownerReferences ?? []).some((o: any) => o.kind === "DaemonSet" && o.name === "log-collector"))
      .map((p: any) => p.spec.nodeName),
  );
  return spot.filter((n) => !covered.has(n)).sort();
}

/** Waits until the DaemonSets' pod counts hold still for 10 s: every pod the sim can make is
 * made and has started (the pods an admission policy rejects never come, and those on NotReady
 * nodes never turn ready, so neither "desired" nor "all ready" is the sign). */
async function settled(sim: string): Promise<void> {
  const seen: string[] = [];
  await expect
    .poll(
      async () => {
        const res = await fetch(`${sim}/apis/apps/v1/daemonsets`);
        if (res.status !== 200) return false;
        const statuses = (await res.json()).items.map((d: any) => d.status ?? {});
        seen.push(JSON.stringify(statuses.map((s: any) => [s.currentNumberScheduled ?? 0, s.numberReady ?? 0])));
        const last = seen.slice(-3);
        return statuses.length > 0 && last.length === 3 && last.every((v) => v === last[0]) && !last[0].includes("[0,");
      },
      { timeout: 240_000, intervals: [5_000] },
    )
    .toBe(true);
}

/** Presses Tab until `selector` has the focus (at most `max` presses): reachable by keyboard. */
async function tabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`${selector} not reached in ${max} Tab presses`);
}

test.describe("a 5,000-node cluster", () => {
  test.describe.configure({ timeout: 300_000 });
  let cluster: ChildProcess | undefined;
  let dash: ChildProcess | undefined;
  let base = "";
  let sim = "";

  // The person opens the dashboard on a settled cluster: the simulated API server runs on its
  // own first and makes every pod it can, then `daemonscope serve` lists it like any cluster.
  test.beforeAll(async () => {
    test.setTimeout(300_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "daemonscope-e2e-scale-"));
    const kubeconfig = path.join(dir, "sim.kubeconfig");
    const simPort = await freePort();
    sim = `http://127.0.0.1:${simPort}`;
    cluster = startDaemonscope(
      ["sim", "--generate", SPEC, "--listen", `127.0.0.1:${simPort}`, "--write-kubeconfig", kubeconfig],
      path.join(dir, "sim.log"),
    );
    await waitForHttp(`${sim}/api/v1/nodes?limit=1`, 120_000);
    await settled(sim);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dash = startDaemonscope(
      ["serve", "--kubeconfig", kubeconfig, "--listen", `127.0.0.1:${port}`],
      path.join(dir, "serve.log"),
    );
    await waitForHttp(`${base}/readyz`, 120_000);
  });

  test.afterAll(async () => {
    await kill(dash);
    await kill(cluster);
  });

  test("every node lacking the log agent, grouped by pool, found by keyboard on one screen", async ({ page, request }) => {
    await page.goto(`${base}/`);
    await expect(page.locator('main[data-hydrated="true"]')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId("glance-nodes")).toHaveText("5,000 nodes");
    // Above 200 nodes the page opens on the problems, grouped by the pool label.
    await expect(page.getByTestId("group")).toHaveValue("node.kubernetes.io/pool");

    // Keyboard only: Tab to the DaemonSet filter, type, Tab to the state, pick "missing" with
    // the arrow keys, back to the text field and Enter submits the form.
    await tabTo(page, 'form.filter input[name="ds"]');
    await page.keyboard.type(DS);
    await page.keyboard.press("Tab");
    const state = page.locator('form.filter select[name="state"]');
    await expect(state).toBeFocused();
    const options = await state.locator("option").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    const steps = options.indexOf("missing") - options.indexOf(await state.inputValue());
    expect(steps).toBeGreaterThan(0);
    for (let i = 0; i < steps; i++) await page.keyboard.press("ArrowDown");
    await expect(state).toHaveValue("missing");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/ds=logging%2Flog-collector/);
    await expect(page).toHaveURL(/state=missing/);
    await expect(page.locator('main[data-hydrated="true"]')).toBeVisible({ timeout: 60_000 });
    await expect(page.locator('[data-live="live"]')).toBeVisible({ timeout: 60_000 });
    // The header keeps counting the whole cluster while the view shows one column.
    await expect(page.getByTestId("glance-daemonsets")).toHaveText("3 DaemonSets");

    // One group: the spot pool, where the policy rejects the pods.
    const heads = page.locator("tr.group-head");
    await expect
      .poll(() => heads.evaluateAll((hs) => hs.map((h) => h.getAttribute("data-group"))), { timeout: 30_000 })
      .toEqual(["spot"]);

    // Exactly the nodes the cluster's API says lack the pod: as many as the DaemonSet's status
    // counts short (desired − scheduled, the controller's own figure), each of them a spot node
    // without a log-collector pod; all on this one screen.
    const rows = page.locator("table.matrix tr[data-row]");
    await expect(async () => {
      const res = await request.get(`${sim}/apis/apps/v1/namespaces/logging/daemonsets/log-collector`);
      expect(res.status()).toBe(200);
      const status = (await res.json()).status;
      const short = status.desiredNumberScheduled - status.currentNumberScheduled;
      expect(short).toBeGreaterThan(0);
      expect(short).toBeLessThanOrEqual(50);
      const shown = (await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute("data-row") ?? ""))).sort();
      expect(shown).toHaveLength(short);
      const without = await spotNodesWithoutTheAgent(request, sim);
      expect(shown.filter((n) => !without.includes(n)), "shown as missing, yet the API has its pod").toEqual([]);
      await expect(heads.first()).toContainText(`${short} node`);
    }).toPass({ timeout: 60_000 });
    const cells = page.locator("table.matrix button.cell");
    expect(await cells.evaluateAll((cs) => cs.map((c) => c.getAttribute("data-state")))).toEqual(
      Array(await rows.count()).fill("missing"),
    );
    expect(await cells.evaluateAll((cs) => [...new Set(cs.map((c) => c.getAttribute("data-daemonset")))])).toEqual([DS]);
    // One screen: no next page to go to.
    await expect(page.locator(".pager a[rel=next]")).toHaveCount(0);
    // The picture of it in the README (`make screenshots` writes docs/, a test run beside its results).
    const dir = process.env.DOCS_SCREENSHOTS ? "../docs/screenshots" : "screenshots/docs";
    for (const theme of ["light", "dark"] as const) {
      for (const width of [1400, 768]) {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme: theme });
        await page.screenshot({ path: `${dir}/scale-5000-missing-log-agent-${theme}-${width}.png` });
      }
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.emulateMedia({ colorScheme: "light" });

    // Still no mouse: into the grid, Enter explains the first cell, Escape gives the focus back.
    await tabTo(page, "table.matrix button.cell");
    const first = await page.evaluate(() => document.activeElement?.getAttribute("data-node"));
    await page.keyboard.press("Enter");
    const panel = page.getByTestId("explanation");
    await expect(panel).toBeVisible();
    await expect(panel).toContainText(first!);
    await page.keyboard.press("Escape");
    await expect(panel).toHaveCount(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-node"))).toBe(first);
  });
});
