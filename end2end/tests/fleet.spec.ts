// Several clusters in one `serve` and the fleet page (issue 25 items 1 and 2): two simulated
// clusters (the demo, and a generated one) and Kubernetes' own control plane (tools/k8s, the
// demo replayed into it) behind one kubeconfig, shown by one dashboard with
// `--context sim-a --context sim-b --context test`.
//
// What a user would notice: the fleet page lists, per cluster and DaemonSet, exactly the problem
// cells that cluster's matrix shows (each count is checked against the matrix it links to); the
// switcher and the /c/NAME URLs work by keyboard; stopping one API server turns that cluster
// stale on the fleet page and on its own pages while the others stay live.
import { test, expect, Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { backends, freePort, kill, startDaemonscope, waitForHttp } from "./fixtures/backend";

const SHOTS = process.env.FLEET_SHOTS || "";
const CONVERGE = 90_000;

/** Starts `daemonscope sim ARGS` on a free port; resolves with its process and URL. */
async function startSim(args: string[], log: string): Promise<{ child: ChildProcess; url: string }> {
  const addr = `127.0.0.1:${await freePort()}`;
  const child = startDaemonscope(["sim", ...args, "--listen", addr], log);
  await waitForHttp(`http://${addr}/version`);
  return { child, url: `http://${addr}` };
}

function simsKubeconfig(a: string, b: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- {name: sim-a, cluster: {server: "${a}"}}
- {name: sim-b, cluster: {server: "${b}"}}
contexts:
- {name: sim-a, context: {cluster: sim-a, user: sim}}
- {name: sim-b, context: {cluster: sim-b, user: sim}}
current-context: sim-a
users:
- {name: sim, user: {}}
`;
}

async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.locator("[data-hydrated]").first()).toHaveAttribute("data-hydrated", "true");
}

/** The fleet's rows: cluster → DaemonSet → problem cells, and each cluster's total. */
async function fleetRows(page: Page, dash: string) {
  await page.goto(dash + "/fleet");
  const rows = await page.locator("table.fleet-daemonsets tbody tr").evaluateAll((trs) =>
    trs.map((tr) => ({
      cluster: tr.getAttribute("data-cluster") ?? "",
      daemonset: tr.getAttribute("data-daemonset") ?? "",
      cells: Number(tr.getAttribute("data-problem-cells")),
    })),
  );
  const totals = await page.locator("table.fleet-clusters tbody tr").evaluateAll((trs) =>
    trs.map((tr) => ({
      cluster: tr.getAttribute("data-cluster") ?? "",
      health: tr.querySelector(".health")?.getAttribute("data-health") ?? "",
      cells: Number(tr.querySelector('[data-figure="problem-cells"]')?.textContent),
    })),
  );
  return { rows, totals };
}

/** Node rows the matrix of `cluster` shows for one DaemonSet's problem cells (server-rendered). */
async function matrixProblemRows(page: Page, dash: string, cluster: string, daemonset: string): Promise<number> {
  const url = `${dash}/c/${cluster}?ds=${encodeURIComponent(daemonset)}&problems=1&group=none`;
  const html = await (await page.request.get(url)).text();
  return (html.match(/class="node-name"/g) ?? []).length;
}

test.describe("several clusters in one dashboard, and the fleet page", () => {
  test.describe.configure({ mode: "serial" });
  const real = backends()[1];
  let work = "";
  let simA: ChildProcess | undefined;
  let simB: ChildProcess | undefined;
  let serve: ChildProcess | undefined;
  let dash = "";

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    work = fs.mkdtempSync(path.join(os.tmpdir(), "daemonscope-e2e-fleet-"));
    const a = await startSim(["--scenario", "scenarios/demo.yaml"], path.join(work, "sim-a.log"));
    const b = await startSim(["--generate", "nodes=8,daemonsets=3,seed=5,rollouts=1,failing=1,updateAfter=1s"], path.join(work, "sim-b.log"));
    simA = a.child;
    simB = b.child;
    await real.start();
    const sims = path.join(work, "sims.kubeconfig");
    fs.writeFileSync(sims, simsKubeconfig(a.url, b.url));
    dash = `http://127.0.0.1:${await freePort()}`;
    serve = startDaemonscope(
      [
        "serve",
        "--kubeconfig",
        `${sims}:${real.kubeconfig}`,
        "--context", "sim-a", "--context", "sim-b", "--context", "test",
        "--listen", dash.replace("http://", ""),
        "--readyz-every", "1s",
      ],
      path.join(work, "dashboard.log"),
    );
    await waitForHttp(`${dash}/readyz`);
  });

  test.afterAll(async () => {
    test.setTimeout(60_000);
    await kill(serve, "SIGTERM");
    await kill(simA);
    await kill(simB);
    await real.stop();
  });

  test("the fleet page lists exactly the problem cells each cluster's matrix shows", async ({ page }) => {
    test.setTimeout(CONVERGE + 60_000);
    // The real control plane's controllers are still making pods at first: compare until the
    // fleet and every matrix agree (a mismatch that lasts fails the test).
    let last = "";
    await expect
      .poll(
        async () => {
          const { rows, totals } = await fleetRows(page, dash);
          const wrong: string[] = [];
          if (totals.map((t) => `${t.cluster}:${t.health}`).join(" ") !== "sim-a:live sim-b:live test:live") {
            wrong.push(`health ${JSON.stringify(totals)}`);
          }
          for (const t of totals) {
            const sum = rows.filter((r) => r.cluster === t.cluster).reduce((n, r) => n + r.cells, 0);
            if (sum !== t.cells) wrong.push(`${t.cluster}: rows sum ${sum}, total ${t.cells}`);
          }
          for (const r of rows) {
            const shown = await matrixProblemRows(page, dash, r.cluster, r.daemonset);
            if (shown !== r.cells) wrong.push(`${r.cluster} ${r.daemonset}: fleet ${r.cells}, matrix ${shown}`);
          }
          if (rows.length === 0) wrong.push("no problem rows at all");
          last = wrong.join("\n");
          return wrong;
        },
        { timeout: CONVERGE, intervals: [1_000, 2_000, 3_000] },
      )
      .toEqual([]);
    expect(last).toBe("");
    // All three clusters have problems (the demo's, replayed or simulated; the generated one's).
    const { rows } = await fleetRows(page, dash);
    expect(new Set(rows.map((r) => r.cluster))).toEqual(new Set(["sim-a", "sim-b", "test"]));
    // A count links into the matrix filtered to exactly those cells.
    await open(page, dash + "/fleet?state=missing");
    const link = page.locator('table.fleet-daemonsets a.fleet-count[data-state="missing"]').first();
    const count = Number(await link.getAttribute("data-count"));
    await link.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/c\/[^/]+\?ds=[^&]+&state=missing$/);
    await expect(page.locator('button.cell[data-state="missing"]')).toHaveCount(count);
  });

  test("garbage in the fleet's query string gives a note, not an error", async ({ page }) => {
    await open(page, dash + "/fleet?state=%00nonsense&ds=" + "x".repeat(300));
    const notes = page.locator("[data-testid=notes]");
    await expect(notes).toContainText("Unknown state filter");
    await expect(notes).toContainText("DaemonSet filter");
    await expect(page.locator("table.fleet-clusters tbody tr")).toHaveCount(3);
  });

  test("the switcher and the /c/NAME URLs work by keyboard, with no accessibility violation", async ({ page }) => {
    await open(page, dash + "/c/sim-a");
    await expect(page.locator("[data-testid=cluster]")).toContainText("sim-a");
    const summary = page.locator(".switcher summary");
    await expect(summary).toContainText("sim-a");
    await summary.focus();
    await page.keyboard.press("Enter");
    const toB = page.locator('.switcher a[data-cluster="sim-b"]');
    await expect(toB).toBeVisible();
    await expect(page.locator('.switcher a[aria-current="page"]')).toHaveText("sim-a");
    for (const theme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: theme });
      const results = await new AxeBuilder({ page })
        .include(".topbar")
        .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
        .analyze();
      const bad = results.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id} (${v.impact}): ${v.help}`);
      expect(bad, bad.join("\n")).toEqual([]);
      if (SHOTS) {
        for (const width of [1400, 768]) {
          await page.setViewportSize({ width, height: 700 });
          await page.screenshot({ path: path.join(SHOTS, `switcher-${theme}-${width}.png`) });
        }
        await page.setViewportSize({ width: 1400, height: 900 });
      }
    }
    await page.emulateMedia({ colorScheme: "light" });
    // Tab from the summary to the first cluster link, then on to sim-b's.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect(toB).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(dash + "/c/sim-b");
    await expect(page.locator("[data-hydrated]").first()).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("[data-testid=cluster]")).toContainText("sim-b");
    await expect(page.locator(".switcher summary")).toContainText("sim-b");
    // A node link of this cluster keeps its prefix and opens by keyboard.
    const node = page.locator("a.node-name").first();
    const name = (await node.textContent()) ?? "";
    await node.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(`${dash}/c/sim-b/node/${name}`);
    await expect(page.locator("h1")).toContainText(name);
    // The page's live feed is the cluster's own.
    await expect(page.locator(".topbar .live")).toHaveAttribute("data-live", "live");
    const fleetAxe = async () => {
      await open(page, dash + "/fleet");
      const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
      return results.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id} (${v.impact}): ${v.help} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    };
    const bad = await fleetAxe();
    await expect(page.locator(".switcher summary")).toContainText("all (fleet)");
    expect(bad, bad.join("\n")).toEqual([]);
    if (SHOTS) {
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        for (const width of [1400, 768]) {
          await page.setViewportSize({ width, height: 900 });
          await page.screenshot({ path: path.join(SHOTS, `fleet-${theme}-${width}.png`), fullPage: true });
        }
      }
    }
  });

  test("stopping one API server turns that cluster stale and leaves the others live", async ({ page }) => {
    test.setTimeout(90_000);
    await kill(simB);
    simB = undefined;
    await expect
      .poll(async () => (await fleetRows(page, dash)).totals.map((t) => `${t.cluster}:${t.health}`).join(" "), {
        timeout: 30_000,
      })
      .toBe("sim-a:live sim-b:stale test:live");
    await expect(page.locator('tr[data-cluster="sim-b"] .health')).toContainText("stale:");
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "fleet-stale-light-1400.png"), fullPage: true });
    await open(page, dash + "/c/sim-b");
    await expect(page.locator("[data-testid=stale-banner]")).toBeVisible();
    await open(page, dash + "/c/sim-a");
    await expect(page.locator(".topbar .live")).toHaveAttribute("data-live", "live");
    await expect(page.locator("[data-testid=stale-banner]")).toHaveCount(0);
  });
});
