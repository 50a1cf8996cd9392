// The DaemonSet rollout page and the node page, on scenarios/demo.yaml.
import { test, expect, takeTheDocument404 } from "./fixtures/matrix-page";

test.describe("DaemonSet page", () => {
  test("a stalled rollout shows its budget, kubectl's verdict and each node's pods", async ({ matrix, page }) => {
    await page.goto("/ds/monitoring/node-exporter");
    await matrix.waitForHydration();
    await expect(page.getByTestId("ds-page")).toHaveAttribute("data-daemonset", "monitoring/node-exporter");
    // §e: not every pod is updated, so kubectl still waits.
    await expect(page.getByTestId("verdict")).toContainText('Waiting for daemon set "node-exporter" rollout to finish');
    await expect(page.locator(".gauge-text").first()).toContainText("maxUnavailable");
    // §c updatedNumberScheduled: only worker-1 runs the current revision. The rollout holds there
    // (§d.3: maxUnavailable 1 is used by worker-1's crash-looping new pod), so it stays at 1.
    await expect(page.getByTestId("updated-count")).toHaveText("1 of 12 nodes updated");
    const current = await page
      .locator("tr[data-progress-node]")
      .evaluateAll((rows) => rows.filter((r) => / · current /.test(r.querySelector(".pod-line")?.textContent ?? "")).map((r) => r.getAttribute("data-progress-node")));
    expect(current).toEqual(["worker-1"]);
    // node-exporter tolerates everything (empty key + Exists, §a.5): every node has a row.
    await expect(page.locator("tr[data-progress-node]")).toHaveCount(12);
    await matrix.expectState("worker-1", "monitoring/node-exporter", "unready");
    await expect(page.locator('tr[data-progress-node="worker-1"] .pod-line')).toContainText("current");
    await matrix.expectState("worker-2", "monitoring/node-exporter", "outdated");
    await expect(page.locator('tr[data-progress-node="worker-2"] .pod-line')).toContainText("old");
    await matrix.waitForLive();
    await expect(matrix.cluster).toContainText("demo");
    await matrix.screenshot("ds-node-exporter");
  });

  test("a nodeSelector DaemonSet lists only its nodes and says how many are left out", async ({ matrix, page }) => {
    await page.goto("/ds/monitoring/gpu-monitor");
    await matrix.waitForHydration();
    await expect(page.locator("tr[data-progress-node]")).toHaveCount(2);
    await expect(page.getByTestId("hidden-nodes")).toContainText("10 nodes where it should not run");
  });

  test("a cell on the DaemonSet page opens its explanation", async ({ matrix, page }) => {
    await page.goto("/ds/security/falco");
    await matrix.waitForHydration();
    const e = await matrix.explain("worker-3", "security/falco");
    await expect(e.locator('[data-flag="shouldRun"]')).toHaveText("true");
  });

  test("the pods' tolerations list the template's and mark the controller's own (issue 14 item 3, §b)", async ({ matrix, page }) => {
    await page.goto("/ds/metallb-system/speaker");
    await matrix.waitForHydration();
    const list = page.getByTestId("tolerations");
    const written = list.locator('li[data-source="template"]');
    await expect(written).toHaveCount(2);
    await expect(written.first()).toContainText("key: node-role.kubernetes.io/control-plane");
    await expect(written.nth(1)).toContainText("key: node-role.kubernetes.io/master");
    // §b: not-ready and unreachable NoExecute, the four NoSchedule pressure/unschedulable ones,
    // and network-unavailable only for hostNetwork pods (speaker is one).
    const automatic = list.locator('li[data-source="automatic"]');
    await expect(automatic).toHaveCount(7);
    await expect(automatic.first()).toContainText("key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute");
    await expect(automatic.filter({ hasText: "network-unavailable" })).toHaveCount(1);
    await expect(list.getByTestId("no-template-tolerations")).toHaveCount(0);
    await list.scrollIntoViewIfNeeded();
    await matrix.screenshot("ds-speaker-tolerations");
    await page.goto("/ds/kube-system/log-collector");
    await matrix.waitForHydration();
    await expect(page.getByTestId("tolerations").getByTestId("no-template-tolerations")).toBeVisible();
  });

  test("an unknown DaemonSet is a clear message with status 404, not an error page", async ({ matrix, page, browserErrors }) => {
    const response = await page.goto("/ds/nowhere/nothing");
    expect(response?.status()).toBe(404);
    await matrix.waitForHydration();
    await expect(page.getByTestId("ds-not-found")).toContainText("nowhere/nothing");
    takeTheDocument404(browserErrors);
  });
});

test.describe("node page", () => {
  test("lists every DaemonSet's cell on the node with its meaning", async ({ matrix, page }) => {
    await page.goto("/node/cp-1");
    await matrix.waitForHydration();
    await expect(page.getByTestId("node-page")).toHaveAttribute("data-node", "cp-1");
    await expect(matrix.cells).toHaveCount(7);
    await matrix.expectState("cp-1", "kube-system/log-collector", "excluded");
    await matrix.expectState("cp-1", "metallb-system/speaker", "ready");
    await expect(page.locator('[data-badge="taint"]')).toContainText("node-role.kubernetes.io/control-plane");
    const e = await matrix.explain("cp-1", "kube-system/log-collector");
    await expect(matrix.failingReasons(e)).toContainText(["node-role.kubernetes.io/control-plane"]);
    // Every label in full, not the shortened few of the matrix row.
    const labels = page.getByTestId("node-labels");
    await expect(labels.locator("tr[data-label]")).toHaveCount(7);
    await expect(labels.locator('tr[data-label="node.kubernetes.io/instance-type"] .label-value')).toHaveText("m6i.large");
    await expect(labels.locator('tr[data-label="node-role.kubernetes.io/control-plane"] .label-value')).toHaveText("");
    await matrix.screenshot("node-cp-1");
  });

  test("each row kept off the node names the deciding rule (issue 14 item 6)", async ({ matrix, page }) => {
    await page.goto("/node/cp-1");
    await matrix.waitForHydration();
    const rule = (ds: string) =>
      page.locator("tr", { has: page.locator(`a[href="/ds/${ds}"]`) }).getByTestId("deciding-rule");
    // §a.2 step 2: gpu-monitor's nodeSelector asks for a label cp-1 does not have.
    await expect(rule("monitoring/gpu-monitor")).toHaveText("nodeSelector workload-type=gpu: the node has no such label");
    // §a.2 step 3: log-collector does not tolerate the control-plane taint.
    await expect(rule("kube-system/log-collector")).toContainText("taint node-role.kubernetes.io/control-plane");
    await expect(rule("kube-system/log-collector")).toContainText("not tolerated");
    // A DaemonSet that runs here has no deciding rule.
    await expect(rule("metallb-system/speaker")).toHaveCount(0);
    await page.goto("/node/gpu-1");
    await matrix.waitForHydration();
    await expect(rule("monitoring/gpu-monitor")).toHaveCount(0);
  });

  test("an unknown node is a clear message with status 404", async ({ matrix, page, browserErrors }) => {
    const response = await page.goto("/node/no-such-node");
    expect(response?.status()).toBe(404);
    await matrix.waitForHydration();
    await expect(page.getByTestId("node-not-found")).toContainText("no-such-node");
    takeTheDocument404(browserErrors);
  });
});
