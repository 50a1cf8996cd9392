// New-node grace, live (issue 14 item 5): a node that joined less than `--new-node-grace` ago
// shows its not-yet-created daemon pods as `starting`, and the same cell turns `missing` by the
// clock alone (no watch event) once the grace has passed; the alerting series
// `missing_past_grace{cause="refused"}` counts it only then (issue 25 item 3).
//
// Why this spec starts its own cluster and dashboard: the grace is a flag of `serve` (2 minutes
// by default), and a test that waits two minutes per run is a test nobody runs. So it starts
// `daemonscope sim` with the demo scenario plus one blocked creation (falco on the node this test
// adds, as an admission webhook or a quota would refuse it: the cell can only be missing), and
// `daemonscope serve --kubeconfig … --new-node-grace 20s` on that sim. The shared demo server and
// its 12 nodes are untouched. The dashboard reaches the sim through kubeconfig as it would a real
// cluster, so "now" is wall time, and the sim runs at speed 1, so its creationTimestamps are too.
import { test, expect, type Page } from "@playwright/test";
import { execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ROOT, KUBECTL, freePort, kill, startDaemonscope, waitForHttp } from "./fixtures/backend";

const run = promisify(execFile);

const GRACE_SECONDS = 20;
const NODE = "worker-grace";
/** Its creation is refused on NODE: the cell has no pod, first `starting`, then `missing`. */
const BLOCKED = "security/falco";
/** Created normally on NODE: a new node's pod that does come. */
const FREE = "kube-system/log-collector";

type Seen = { state: string; at: number };
type SeenWindow = Window & { __seen?: Seen[] };

function cell(page: Page, node: string, daemonset: string) {
  return page.locator(`button.cell[data-node="${node}"][data-daemonset="${daemonset}"]`);
}

/** Records in the page every state the cell goes through, with the browser's time. */
async function recordCell(page: Page, node: string, daemonset: string): Promise<void> {
  await page.evaluate(
    ([node, ds]) => {
      const w = window as SeenWindow;
      const seen: Seen[] = [];
      const scan = () => {
        const el = document.querySelector(`button.cell[data-node="${node}"][data-daemonset="${ds}"]`);
        const state = el?.getAttribute("data-state") ?? "(no cell)";
        if (seen[seen.length - 1]?.state !== state) seen.push({ state, at: Date.now() });
      };
      scan();
      new MutationObserver(scan).observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ["data-state"],
      });
      w.__seen = seen;
    },
    [node, daemonset],
  );
}

async function metric(dash: string, name: string, daemonset: string, more = ""): Promise<number | undefined> {
  const body = await (await fetch(`${dash}/metrics`)).text();
  const line = body.split("\n").find((l) => l.startsWith(`${name}{daemonset="${daemonset}"${more}} `));
  return line === undefined ? undefined : Number(line.split(" ").pop());
}

/** `daemonscope_daemonset_missing_past_grace{daemonset,cause}`: what the coverage alert reads. */
async function missingPastGrace(dash: string, daemonset: string, cause: string): Promise<number | undefined> {
  return metric(dash, "daemonscope_daemonset_missing_past_grace", daemonset, `,cause="${cause}"`);
}

test.describe("new-node grace", () => {
  test.describe.configure({ mode: "serial" });

  let workDir = "";
  let kubeconfig = "";
  let dash = "";
  let sim: ChildProcess | undefined;
  let dashboard: ChildProcess | undefined;
  const stopAll = () => {
    dashboard?.kill("SIGKILL");
    sim?.kill("SIGKILL");
  };

  async function kubectl(...args: string[]): Promise<string> {
    const { stdout } = await run(KUBECTL, ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 });
    return stdout;
  }

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), "daemonscope-e2e-grace-"));
    kubeconfig = path.join(workDir, "sim.kubeconfig");
    // The demo, with falco's creation also refused on the node this test adds.
    const demo = fs.readFileSync(path.join(ROOT, "scenarios/demo.yaml"), "utf8");
    const scenario = demo.replace("nodes: [worker-3]", `nodes: [worker-3, ${NODE}]`);
    expect(scenario, "the demo's blockedCreations entry for falco").not.toEqual(demo);
    const scenarioFile = path.join(workDir, "grace.yaml");
    fs.writeFileSync(scenarioFile, scenario);
    process.once("exit", stopAll);
    const simAddr = `127.0.0.1:${await freePort()}`;
    sim = startDaemonscope(
      ["sim", "--scenario", scenarioFile, "--listen", simAddr, "--write-kubeconfig", kubeconfig],
      path.join(workDir, "sim.log"),
    );
    await waitForHttp(`http://${simAddr}/version`);
    dash = `http://127.0.0.1:${await freePort()}`;
    dashboard = startDaemonscope(
      [
        "serve",
        "--kubeconfig",
        kubeconfig,
        "--listen",
        dash.replace("http://", ""),
        "--new-node-grace",
        `${GRACE_SECONDS}s`,
      ],
      path.join(workDir, "dashboard.log"),
    );
    await waitForHttp(`${dash}/readyz`);
  });

  test.afterAll(async () => {
    await kill(dashboard, "SIGTERM");
    await kill(sim, "SIGTERM");
    process.removeListener("exit", stopAll);
  });

  test("a new node's pod-less cell is starting, then missing once the grace has passed", async ({ page }) => {
    test.setTimeout(120_000);
    const errors: string[] = [];
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(msg.text());
    });
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(dash + "/");
    await expect(page.locator("main")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("[data-live]")).toHaveAttribute("data-live", "live");
    await recordCell(page, NODE, BLOCKED);

    // A node joins, as a kubelet registers it: Ready, a plain linux worker.
    const manifest = path.join(workDir, "node.yaml");
    fs.writeFileSync(
      manifest,
      [
        "apiVersion: v1",
        "kind: Node",
        "metadata:",
        `  name: ${NODE}`,
        `  labels: {kubernetes.io/hostname: ${NODE}, kubernetes.io/os: linux, node-role.kubernetes.io/worker: ''}`,
        "spec: {}",
        "status:",
        "  conditions:",
        "  - {type: Ready, status: 'True', reason: KubeletReady, message: kubelet is posting ready status}",
        "",
      ].join("\n"),
    );
    await kubectl("apply", "-f", manifest);
    const created = Date.parse(await kubectl("get", "node", NODE, "-o", "jsonpath={.metadata.creationTimestamp}"));
    expect(Number.isNaN(created)).toBe(false);

    // Within the grace: starting, not a problem, with its own legend entry, count and metric.
    const blocked = cell(page, NODE, BLOCKED);
    await expect(blocked).toHaveAttribute("data-state", "starting", { timeout: 15_000 });
    await expect(blocked).toHaveAttribute("aria-label", /starting/);

    // The explanation says why and until when. Read first, while most of the grace is left: it
    // is checked on every run, never skipped (a run too slow to see it within the grace fails).
    const e = page.getByTestId("explanation").locator(`.explanation[data-node="${NODE}"][data-daemonset="${BLOCKED}"]`);
    await blocked.click();
    await expect(e).toBeVisible();
    await expect(e).toContainText(`get ${GRACE_SECONDS} s before they count as missing`);
    const text = await e.innerText();
    const joined = Number(/The node joined (\d+) s ago/.exec(text)?.[1]);
    const left = Number(/turns missing in (\d+) s/.exec(text)?.[1]);
    const elapsed = (Date.now() - created) / 1000;
    expect(joined, text).toBeGreaterThanOrEqual(0);
    expect(joined, text).toBeLessThanOrEqual(Math.ceil(elapsed) + 1);
    // What is left is the grace minus the node's age (whole seconds: one second of slack).
    expect(Math.abs(joined + left - GRACE_SECONDS), text).toBeLessThanOrEqual(1);
    expect(left, text).toBeGreaterThan(0);
    await page.screenshot({ path: "/tmp/wt-grace-starting.png" });
    await page.getByRole("button", { name: "Close explanation" }).click();

    await expect(page.locator('.legend [data-legend="starting"] .legend-count')).not.toHaveText("0");
    await expect(page.locator(`[data-ds-summary="${BLOCKED}"] [data-count="starting"]`)).toHaveText("1");
    await expect(page.locator(`[data-ds-summary="${BLOCKED}"] [data-count="missing"]`)).toHaveText("1"); // worker-3
    expect(await metric(dash, "daemonscope_daemonset_starting", BLOCKED)).toBe(1);
    expect(await metric(dash, "daemonscope_daemonset_missing", BLOCKED)).toBe(1);
    // The alert's series: only worker-3, refused (the FailedCreate); the young node is not
    // counted, so no coverage alert fires during the grace (deploy/prometheus).
    expect(await missingPastGrace(dash, BLOCKED, "refused")).toBe(1);
    // The DaemonSet page counts it the same way (seen in the dark scheme, for its colours).
    const dsPage = await page.context().newPage();
    await dsPage.emulateMedia({ colorScheme: "dark" });
    await dsPage.goto(`${dash}/ds/${BLOCKED}`);
    await expect(dsPage.locator("main")).toHaveAttribute("data-hydrated", "true");
    await expect(dsPage.getByTestId("ds-counts").locator('[data-count="starting"]')).toHaveText("1");
    await expect(dsPage.getByTestId("ds-counts").locator('[data-count="missing"]')).toHaveText("1");
    await expect(cell(dsPage, NODE, BLOCKED)).toHaveAttribute("data-state", "starting");
    await dsPage.screenshot({ path: "/tmp/wt-grace-ds-dark.png", fullPage: true });
    await dsPage.close();
    // The pod that is not blocked does come, on the same young node.
    await expect(cell(page, NODE, FREE)).toHaveAttribute("data-state", "ready", { timeout: 30_000 });

    // The grace ends: missing, by the clock alone (nothing about the node or its pods changes).
    await expect(blocked).toHaveAttribute("data-state", "missing", { timeout: (GRACE_SECONDS + 15) * 1000 });
    const seen = await page.evaluate(() => (window as SeenWindow).__seen ?? []);
    console.log(`[grace] ${BLOCKED} on ${NODE}: ${seen.map((s) => `${s.state}@${s.at - created}ms`).join(" → ")}`);
    const states = seen.map((s) => s.state).filter((s) => s !== "(no cell)");
    // A node is created with the not-ready taint until it is seen Ready (falco does not tolerate
    // it): excluded may come first. Never missing before starting, and missing last.
    expect(states[states.length - 1]).toBe("missing");
    expect(states.indexOf("starting")).toBeGreaterThanOrEqual(0);
    expect(states.indexOf("missing")).toBeGreaterThan(states.indexOf("starting"));
    const missingAt = seen.find((s) => s.state === "missing")!.at;
    // Not before the grace (timestamps are whole seconds: one second of slack), and soon after
    // (the server re-evaluates once a second).
    expect(missingAt).toBeGreaterThanOrEqual(created + (GRACE_SECONDS - 1) * 1000);
    expect(missingAt).toBeLessThan(created + (GRACE_SECONDS + 10) * 1000);
    await expect(page.locator(`[data-ds-summary="${BLOCKED}"] [data-count="starting"]`)).toHaveText("0");
    await expect(page.locator(`[data-ds-summary="${BLOCKED}"] [data-count="missing"]`)).toHaveText("2");
    await expect.poll(() => metric(dash, "daemonscope_daemonset_missing", BLOCKED)).toBe(2);
    expect(await metric(dash, "daemonscope_daemonset_starting", BLOCKED)).toBe(0);
    // Past the grace the young node counts too, with its cause.
    await expect.poll(() => missingPastGrace(dash, BLOCKED, "refused")).toBe(2);
    expect(await missingPastGrace(dash, BLOCKED, "unexplained")).toBe(0);
    expect(errors).toEqual([]);
  });

  test("?state=starting lists exactly the young nodes with a starting cell", async ({ page }) => {
    test.setTimeout(60_000);
    // NODE again, deleted and re-created: a new creationTimestamp starts a new grace, and its
    // falco pod is still refused, so it is the one node with a starting cell.
    await kubectl("delete", "node", NODE);
    await kubectl("apply", "-f", path.join(workDir, "node.yaml"));
    await page.goto(dash + "/?state=starting");
    await expect(page.locator("main")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator(`tr[data-row="${NODE}"]`)).toBeVisible({ timeout: 15_000 });
    await expect(page.locator("tr[data-row]")).toHaveCount(1);
    await expect(page.locator('select[name="state"]')).toHaveValue("starting");
    // The node page shows the same state.
    await page.goto(`${dash}/node/${NODE}`);
    await expect(page.locator("main")).toHaveAttribute("data-hydrated", "true");
    await expect(cell(page, NODE, BLOCKED)).toHaveAttribute("data-state", "starting");
    await page.screenshot({ path: "/tmp/wt-grace-node.png", fullPage: true });
    await kubectl("delete", "node", NODE);
  });
});
