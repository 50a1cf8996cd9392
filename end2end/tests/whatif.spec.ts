// What-if previews (issue 14 item 4), on scenarios/demo.yaml: "if I taint the gpu pool with
// dedicated=ml:NoExecute, which agents go away?" answered from the pages alone, without
// touching the cluster. On gpu-1: log-collector, speaker, gpu-monitor and falco tolerate no such
// taint (evicted at once, §a.5), ebs-csi-node tolerates every NoExecute taint for 300 s (evicted
// after 300 s, §g.8), node-exporter tolerates everything (stays).
import { test, expect } from "./fixtures/matrix-page";

const TAINT_URL = "/node/gpu-1?taint=dedicated%3Dml%3ANoExecute";

function row(page: import("@playwright/test").Page, node: string, daemonset: string) {
  return page.locator(`[data-testid="whatif-row"][data-node="${node}"][data-daemonset="${daemonset}"]`);
}

test.describe("what-if previews", () => {
  test("tainting gpu-1 with dedicated=ml:NoExecute previews which agents are evicted and which stay", async ({ matrix, page, request }) => {
    await page.goto("/node/gpu-1");
    await matrix.waitForHydration();
    await expect(page.getByTestId("whatif-banner")).toHaveCount(0);
    await page.getByTestId("whatif-taint").fill("dedicated=ml:NoExecute");
    await page.getByTestId("whatif-submit").click();
    await expect(page).toHaveURL(TAINT_URL);
    await matrix.waitForHydration();

    const check = async () => {
      await expect(page.getByTestId("whatif-banner")).toContainText("Preview — nothing was changed in the cluster.");
      await expect(page.getByTestId("whatif-banner")).toContainText("taint dedicated=ml:NoExecute");
      for (const ds of ["kube-system/log-collector", "metallb-system/speaker", "monitoring/gpu-monitor", "security/falco"]) {
        await expect(row(page, "gpu-1", ds)).toHaveAttribute("data-whatif", "evict");
        await expect(row(page, "gpu-1", ds)).toContainText("evicted at once by a NoExecute taint");
        await expect(row(page, "gpu-1", ds)).toContainText("taint dedicated=ml:NoExecute: not tolerated");
      }
      await expect(row(page, "gpu-1", "kube-system/ebs-csi-node")).toHaveAttribute("data-whatif", "evict");
      await expect(row(page, "gpu-1", "kube-system/ebs-csi-node")).toContainText("after tolerationSeconds 300 s");
      // An Exists toleration with no key tolerates every taint: the agent stays.
      await expect(row(page, "gpu-1", "monitoring/node-exporter")).toHaveAttribute("data-whatif", "unaffected");
      await expect(row(page, "gpu-1", "monitoring/node-exporter")).toContainText("stays");
      await expect(page.getByTestId("whatif-summary")).toHaveText(
        "5 pods would be evicted (1 node): kube-system/ebs-csi-node, kube-system/log-collector, metallb-system/speaker, monitoring/gpu-monitor, security/falco.",
      );
    };
    await check();
    // Nothing was changed: the node's own cells are as before.
    await expect(page.locator('[data-testid="node-page"] button.cell[data-daemonset="kube-system/log-collector"]')).toHaveAttribute("data-state", "ready");

    // The shared URL renders the same preview on first load: in the server's HTML, and after a reload.
    const html = await (await request.get(TAINT_URL)).text();
    expect(html).toContain('data-whatif="evict" data-node="gpu-1" data-daemonset="kube-system/log-collector"');
    await page.goto(TAINT_URL);
    await matrix.waitForHydration();
    await check();
  });

  test("the preview follows the URL in the browser: dropping an edit recomputes it without a reload", async ({ matrix, page }) => {
    await page.goto(`${TAINT_URL}&label=workload-type%3Dcpu`);
    await matrix.waitForHydration();
    await expect(row(page, "gpu-1", "kube-system/log-collector")).toHaveAttribute("data-whatif", "evict");
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));
    await page.getByRole("link", { name: "drop taint dedicated=ml:NoExecute" }).click();
    await expect(page).toHaveURL("/node/gpu-1?label=workload-type%3Dcpu");
    // §a.2 step 2: gpu-monitor's nodeSelector wants workload-type=gpu; engine-image's affinity
    // (workload-type NotIn [gpu]) now matches.
    await expect(row(page, "gpu-1", "monitoring/gpu-monitor")).toHaveAttribute("data-whatif", "stop");
    await expect(row(page, "gpu-1", "longhorn-system/engine-image-ei-db6c2b6f")).toHaveAttribute("data-whatif", "start");
    await expect(row(page, "gpu-1", "kube-system/log-collector")).toHaveAttribute("data-whatif", "unaffected");
    expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
    await page.getByTestId("whatif-reset").click();
    await expect(page).toHaveURL("/node/gpu-1");
    await expect(page.getByTestId("whatif-banner")).toHaveCount(0);
  });

  test("a bad taint string shows an error, not a preview", async ({ matrix, page }) => {
    await page.goto("/node/gpu-1");
    await matrix.waitForHydration();
    await page.getByTestId("whatif-taint").fill("dedicated=ml");
    await page.getByTestId("whatif-submit").click();
    await matrix.waitForHydration();
    await expect(page.getByTestId("whatif-error")).toContainText('taint="dedicated=ml": expected KEY[=VALUE]:EFFECT');
    await expect(page.getByTestId("whatif-banner")).toHaveCount(0);
    await page.goto("/node/gpu-1?taint=dedicated%3Dml%3ASometimes&cordon=maybe");
    await matrix.waitForHydration();
    await expect(page.getByTestId("whatif-error").locator("li")).toHaveCount(2);
    await expect(page.getByTestId("whatif-error")).toContainText('unknown effect "Sometimes"');
  });

  test("a toleration added on a DaemonSet page previews the nodes it would start on", async ({ matrix, page }) => {
    await page.goto("/ds/kube-system/log-collector");
    await matrix.waitForHydration();
    await page.getByTestId("whatif-tolerate").fill("node-role.kubernetes.io/control-plane:NoSchedule");
    await page.getByTestId("whatif-submit").click();
    await expect(page).toHaveURL("/ds/kube-system/log-collector?tolerate=node-role.kubernetes.io%2Fcontrol-plane%3ANoSchedule");
    await matrix.waitForHydration();
    await expect(page.getByTestId("whatif-banner")).toContainText("Preview — nothing was changed in the cluster.");
    for (const node of ["cp-1", "cp-2", "cp-3"]) {
      await expect(row(page, node, "kube-system/log-collector")).toHaveAttribute("data-whatif", "start");
    }
    await expect(row(page, "worker-1", "kube-system/log-collector")).toHaveAttribute("data-whatif", "unaffected");
    await expect(page.getByTestId("whatif-summary")).toHaveText("3 pods would start (3 nodes): kube-system/log-collector.");
  });

  test("on the matrix, the gpu pool (selector workload-type=gpu) tainted dedicated=ml:NoExecute outlines the cells that would change", async ({ matrix, page }) => {
    await page.goto("/?selector=workload-type%3Dgpu");
    await matrix.waitForHydration();
    await expect(page.locator("td[data-whatif]")).toHaveCount(0);
    await page.getByTestId("whatif-open").click();
    await page.getByTestId("whatif-taint").fill("dedicated=ml:NoExecute");
    await page.getByTestId("whatif-submit").click();
    await expect(page).toHaveURL("/?selector=workload-type%3Dgpu&taint=dedicated%3Dml%3ANoExecute");
    await expect(page.getByTestId("whatif-banner")).toContainText("Preview — nothing was changed in the cluster.");
    await expect(page.getByTestId("whatif-summary")).toHaveText(
      "10 pods would be evicted (2 nodes): kube-system/ebs-csi-node, kube-system/log-collector, metallb-system/speaker, monitoring/gpu-monitor, security/falco.",
    );
    const cell = (node: string, ds: string) => page.locator(`table.matrix tr[data-row="${node}"] td:has(button.cell[data-daemonset="${ds}"])`);
    await expect(page.locator("table.matrix td[data-whatif]")).toHaveCount(10);
    for (const node of ["gpu-1", "gpu-2"]) {
      await expect(cell(node, "kube-system/log-collector")).toHaveAttribute("data-whatif", "evict");
      await expect(cell(node, "monitoring/node-exporter")).not.toHaveAttribute("data-whatif", /.*/);
      // The cell itself still shows the cluster's state: nothing was changed.
      await expect(cell(node, "kube-system/log-collector").locator("button.cell")).toHaveAttribute("data-state", "ready");
    }
    // Shared: the same URL loaded afresh shows the same preview.
    await page.reload();
    await matrix.waitForHydration();
    await expect(page.locator("table.matrix td[data-whatif]")).toHaveCount(10);
    await expect(page.getByTestId("whatif-summary")).toContainText("10 pods would be evicted (2 nodes)");

    // Changing a filter keeps the preview: the taint rides along in the filter form. The label
    // selector still picks both gpu nodes; the name filter shows gpu-1's row, 5 cells outlined.
    await page.locator('form.filter input[name="q"]').fill("gpu-1");
    await page.locator("form.filter").getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/[?&]q=gpu-1(&|$)/);
    await expect(page).toHaveURL(/[?&]taint=dedicated%3Dml%3ANoExecute(&|$)/);
    await expect(page.getByTestId("whatif-banner")).toContainText("taint dedicated=ml:NoExecute");
    await expect(page.locator("table.matrix td[data-whatif]")).toHaveCount(5);
    await expect(cell("gpu-1", "kube-system/log-collector")).toHaveAttribute("data-whatif", "evict");
  });
});
