// "Revision history" on the DaemonSet page (issue 14, item 2), on scenarios/demo.yaml:
// monitoring/node-exporter has three ControllerRevisions; the rollout to revision 3 stalls on
// worker-1 (its new image crash-loops), so the other eleven nodes still run revision 2.
// Answers "which nodes still run revision 2 and what changed in 3?" from the page alone.
import { test, expect } from "./fixtures/matrix-page";

test.describe("revision history", () => {
  test("numbers the revisions as kubectl rollout history does, newest first, the current marked", async ({ matrix, page }) => {
    await page.goto("/ds/monitoring/node-exporter");
    await matrix.waitForHydration();
    const history = page.getByTestId("revision-history");
    const rows = history.getByTestId("revision");
    // kubectl rollout history ds/node-exporter -n monitoring: REVISION 1, 2, 3 (§d.4).
    await expect(rows).toHaveCount(3);
    const numbers = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute("data-revision")));
    expect(numbers).toEqual(["3", "2", "1"]);
    await expect(history.locator('[data-revision="3"]')).toHaveAttribute("data-current", "true");
    await expect(history.locator('[data-revision="3"]').getByTestId("current-revision")).toHaveText("current");
    await expect(history.locator('[data-revision="2"]')).toHaveAttribute("data-current", "false");
  });

  test("says what changed in each revision: the image in 3, tolerations and resources in 2", async ({ matrix, page }) => {
    await page.goto("/ds/monitoring/node-exporter");
    await matrix.waitForHydration();
    const history = page.getByTestId("revision-history");
    await expect(history.locator('[data-revision="3"]').getByTestId("revision-change")).toHaveText([
      "image node-exporter: quay.io/prometheus/node-exporter:v1.8.2 -> quay.io/prometheus/node-exporter:v1.9.0",
    ]);
    const two = history.locator('[data-revision="2"]').getByTestId("revision-change");
    await expect(two).toContainText([
      "image node-exporter: quay.io/prometheus/node-exporter:v1.8.1 -> quay.io/prometheus/node-exporter:v1.8.2",
      "resources.requests.memory 48Mi -> 64Mi",
      "resources.limits.memory 48Mi -> 64Mi",
      "toleration removed: {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}",
      "toleration added: {operator: Exists}",
    ]);
    await expect(history.locator('[data-revision="1"]').getByTestId("revision-change")).toHaveText([
      "oldest revision kept: nothing older to compare with",
    ]);
    // The template's command line never reaches the page (docs/architecture.md#read-only).
    await expect(history).not.toContainText("--path.rootfs");
    await page.getByTestId("revision-history").scrollIntoViewIfNeeded();
    await page.screenshot({ path: "/tmp/wtb-revisions.png", fullPage: false });
  });

  test("lists the nodes still on revision 2, each a link to its node page", async ({ matrix, page }) => {
    await page.goto("/ds/monitoring/node-exporter");
    await matrix.waitForHydration();
    const history = page.getByTestId("revision-history");
    const two = history.locator('[data-revision="2"]');
    // Eleven of twelve nodes: worker-1 runs the crash-looping revision 3 (§d.3 stalled rollout).
    await expect(two.getByTestId("revision-node-count")).toHaveText("11 nodes (11 pods)");
    await expect(two.locator("a[data-node]")).toHaveCount(11);
    await expect(two.locator('a[data-node="worker-1"]')).toHaveCount(0);
    const three = history.locator('[data-revision="3"]');
    await expect(three.locator("a[data-node]")).toHaveText(["worker-1"]);
    await expect(history.locator('[data-revision="1"]').getByTestId("revision-node-count")).toHaveText("no node");
    await two.locator('a[data-node="worker-2"]').click();
    await expect(page).toHaveURL(/\/node\/worker-2$/);
    await expect(page.getByTestId("node-page")).toHaveAttribute("data-node", "worker-2");
  });
});
