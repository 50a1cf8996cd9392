// The coverage matrix of scenarios/demo.yaml, server-rendered and hydrated (issue 3 §4).
// Expected states come from the scenario's manifests and the rules of
// docs/kubernetes-rules.md (section cited per case). Only states the simulated controllers
// cannot move are asserted (no pending pod that the kubelet will start a second later).
import { test, expect, CELL_STATES } from "./fixtures/matrix-page";

const NODES = [
  "cp-1", "cp-2", "cp-3",
  "worker-1", "worker-2", "worker-3", "worker-4", "worker-5", "worker-6",
  "gpu-1", "gpu-2", "infra-1",
];
const DAEMONSETS = [
  "kube-system/log-collector",
  "metallb-system/speaker",
  "longhorn-system/engine-image-ei-db6c2b6f",
  "monitoring/node-exporter",
  "monitoring/gpu-monitor",
  "security/falco",
  "kube-system/ebs-csi-node",
];

test.describe("coverage matrix", () => {
  test("renders one cell per node × DaemonSet, each with a known state", async ({ matrix }) => {
    await matrix.goto();
    await expect(matrix.cells).toHaveCount(NODES.length * DAEMONSETS.length);
    for (const node of NODES) {
      for (const ds of DAEMONSETS) {
        const state = await matrix.cell(node, ds).getAttribute("data-state");
        expect(CELL_STATES, `${ds} on ${node}`).toContain(state);
      }
    }
    await expect(matrix.cluster).toContainText("demo");
    await matrix.screenshot("matrix");
  });

  const cases: Array<[string, string, (typeof CELL_STATES)[number], string]> = [
    ["worker-1", "monitoring/gpu-monitor", "excluded", "§a.2 step 2: nodeSelector workload-type=gpu, worker-1 has no such label"],
    ["gpu-1", "monitoring/gpu-monitor", "ready", "§a.2 step 2: gpu-1 is labelled workload-type=gpu"],
    ["cp-1", "kube-system/log-collector", "excluded", "§a.2 step 3: control-plane NoSchedule taint, no toleration"],
    ["cp-1", "metallb-system/speaker", "ready", "§a.5: speaker tolerates node-role.kubernetes.io/control-plane (Exists)"],
    ["gpu-1", "longhorn-system/engine-image-ei-db6c2b6f", "excluded", "§a.3: required affinity workload-type NotIn [gpu]"],
    ["worker-3", "security/falco", "missing", "should run (§a), the sim's admission webhook blocks the pod"],
    ["infra-1", "kube-system/log-collector", "misscheduled", "§a.7: dedicated=infra NoSchedule added after placement"],
    ["infra-1", "security/falco", "ready", "§a.5: falco tolerates dedicated=infra:NoSchedule (Equal)"],
    ["worker-2", "monitoring/node-exporter", "outdated", "§d.4: old revision while the rollout is stalled (§d.3)"],
    ["worker-1", "monitoring/node-exporter", "unready", "new revision crash-loops"],
  ];
  for (const [node, ds, state, why] of cases) {
    test(`${ds} on ${node} is ${state} (${why})`, async ({ matrix }) => {
      await matrix.goto();
      await matrix.expectState(node, ds, state);
      await expect(matrix.cell(node, ds)).toHaveAttribute("aria-label", new RegExp(`${ds} on ${node}: `));
    });
  }

  test("node rows carry readiness, cordon and taint badges", async ({ matrix }) => {
    await matrix.goto();
    await expect(matrix.row("worker-5").locator('[data-badge="cordoned"]')).toBeVisible();
    await expect(matrix.row("worker-6").locator('[data-badge="notready"]')).toHaveText("NotReady");
    await expect(matrix.row("worker-2").locator('[data-badge="ready"]')).toHaveText("Ready");
    await expect(matrix.row("cp-1").locator('[data-badge="taint"]')).toContainText("node-role.kubernetes.io/control-plane");
    await expect(matrix.row("infra-1").locator('[data-badge="taint"]')).toContainText("dedicated=infra:NoSchedule");
  });

  test("the legend names every state with its count", async ({ matrix, page }) => {
    await matrix.goto();
    for (const state of CELL_STATES) {
      await expect(page.locator(`.legend [data-legend="${state}"]`)).toContainText(state);
    }
    const excluded = await page.locator('.legend [data-legend="excluded"] .legend-count').innerText();
    expect(Number(excluded)).toBeGreaterThan(0);
    // Each count is the number of cells in that state: every node is on the page, so the legend
    // and the cells must agree (read together, since the demo's rollouts move on).
    await expect
      .poll(() =>
        page.evaluate((states) => {
          const wrong: Record<string, [string, number]> = {};
          for (const state of states) {
            const legend = document.querySelector(`.legend [data-legend="${state}"] .legend-count`)?.textContent ?? "";
            const cells = document.querySelectorAll(`button.cell[data-state="${state}"]`).length;
            if (legend !== String(cells)) wrong[state] = [legend, cells];
          }
          return wrong;
        }, [...CELL_STATES]),
      )
      .toEqual({});
  });

  test("every DaemonSet shows counts, a budget gauge and the kubectl verdict", async ({ matrix, page }) => {
    await matrix.goto();
    for (const ds of DAEMONSETS) {
      const header = page.locator(`th.ds-col[data-daemonset="${ds}"]`);
      await expect(header.locator(".ds-counts")).toHaveText(/^\d+\/\d+$/);
      // §c: desired is the nodes with shouldRun, i.e. every cell of the column but the excluded
      // and misscheduled ones; ready never exceeds it.
      await expect
        .poll(() =>
          page.evaluate((ds) => {
            const [ready, desired] = (document.querySelector(`th.ds-col[data-daemonset="${ds}"] .ds-counts`)?.textContent ?? "")
              .split("/")
              .map(Number);
            const cells = Array.from(document.querySelectorAll(`button.cell[data-daemonset="${ds}"]`));
            const shouldRun = cells.filter((c) => !["excluded", "misscheduled"].includes(c.getAttribute("data-state") ?? ""));
            const ok = desired === shouldRun.length && ready <= desired;
            return ok ? "ok" : JSON.stringify({ ready, desired, shouldRun: shouldRun.length });
          }, ds),
        )
        .toBe("ok");
      await expect(header.locator('[role="meter"]')).toHaveCount(1);
      await expect(page.locator(`[data-ds-summary="${ds}"] [data-testid="verdict"]`)).not.toBeEmpty();
    }
    // §e: the stalled node-exporter rollout is not done; §d.2: maxUnavailable 1.
    const exporter = page.locator('[data-ds-summary="monitoring/node-exporter"]');
    await expect(exporter.getByTestId("verdict")).toContainText('Waiting for daemon set "node-exporter" rollout to finish');
    await expect(exporter.locator(".gauge-text")).toContainText("maxUnavailable");
    // §d.2: ebs-csi-node surges (maxSurge 1, maxUnavailable 0).
    await expect(page.locator('[data-ds-summary="kube-system/ebs-csi-node"] .gauge-text')).toContainText("maxSurge");
  });
});

test.describe("cell explanation", () => {
  test("clicking a cell explains it in the side panel without a page reload", async ({ matrix, page }) => {
    await matrix.goto();
    // A marker on window survives only if the page is not reloaded.
    await page.evaluate(() => ((window as unknown as { __noReload: number }).__noReload = 42));
    const e = await matrix.explain("worker-1", "monitoring/gpu-monitor");
    await expect(e.locator('[data-flag="shouldRun"]')).toHaveText("false");
    await expect(e.locator('[data-flag="shouldContinueRunning"]')).toHaveText("false");
    const failing = matrix.failingReasons(e);
    await expect(failing.first()).toContainText("workload-type");
    await expect(e.locator(".fixes")).toContainText("workload-type");
    expect(await page.evaluate(() => (window as unknown as { __noReload?: number }).__noReload)).toBe(42);
    await expect(matrix.cell("worker-1", "monitoring/gpu-monitor")).toHaveAttribute("aria-pressed", "true");
    await matrix.screenshot("explanation-gpu-monitor");
  });

  test("log-collector on a control-plane node names the taint and the toleration to add", async ({ matrix }) => {
    await matrix.goto();
    const e = await matrix.explain("cp-1", "kube-system/log-collector");
    await expect(e.locator('[data-flag="shouldRun"]')).toHaveText("false");
    const taint = matrix.failingReasons(e).filter({ hasText: "node-role.kubernetes.io/control-plane" });
    await expect(taint).toHaveCount(1);
    await expect(taint.locator(".reason-fix")).toContainText("toleration");
    await expect(taint.locator(".reason-fix")).toContainText("node-role.kubernetes.io/control-plane");
    await matrix.screenshot("explanation-log-collector-cp");
  });

  test("a running cell lists its pod and nothing from the pod spec", async ({ matrix }) => {
    await matrix.goto();
    const e = await matrix.explain("gpu-1", "monitoring/gpu-monitor");
    await expect(e.locator('[data-flag="shouldRun"]')).toHaveText("true");
    await expect(e.locator("table.pods tbody tr")).toHaveCount(1);
    await expect(e.locator("table.pods")).toContainText("gpu-monitor-");
  });

  test("the panel closes and another cell replaces the explanation", async ({ matrix }) => {
    await matrix.goto();
    await matrix.explain("worker-3", "security/falco");
    await matrix.explain("infra-1", "kube-system/log-collector");
    await expect(matrix.panel.locator(".explanation")).toHaveCount(1);
    await matrix.panel.getByRole("button", { name: "Close explanation" }).click();
    await expect(matrix.panel).toHaveCount(0);
  });
});

test.describe("filters and paging", () => {
  test("the state filter keeps only rows with that state", async ({ matrix }) => {
    await matrix.goto("?state=missing");
    await expect(matrix.row("worker-3")).toBeVisible();
    const rows = await matrix.rows.count();
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(NODES.length);
    for (let i = 0; i < rows; i++) {
      await expect(matrix.rows.nth(i).locator('[data-state="missing"]').first()).toBeVisible();
    }
  });

  test("the node filter matches name substrings", async ({ matrix }) => {
    await matrix.goto("?q=GPU");
    await expect(matrix.rows).toHaveCount(2);
    await expect(matrix.row("gpu-1")).toBeVisible();
    await expect(matrix.page.getByTestId("showing")).toContainText("of 12 in the cluster");
  });

  test("garbage in the query string falls back to defaults with a visible note", async ({ matrix }) => {
    await matrix.goto("?page=abc&state=on-fire&q=%00%01");
    const notes = matrix.page.getByTestId("query-notes");
    await expect(notes).toContainText("is not a page number");
    await expect(notes).toContainText("Unknown state filter");
    await expect(matrix.rows).toHaveCount(NODES.length);
  });

  test("a page past the end shows the last page with a note", async ({ matrix }) => {
    await matrix.goto("?page=999");
    await expect(matrix.page.getByTestId("query-notes")).toContainText("past the last page");
    await expect(matrix.rows).toHaveCount(NODES.length);
  });
});
