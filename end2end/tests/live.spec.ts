// Live updates without reload (issue 5): the cluster changes through the sim's API and the
// hydrated page applies the deltas from /api/live to the affected cells only.
import { test, expect } from "./fixtures/matrix-page";
import { createNode, deleteNode, getNode, setTaints, simUrl } from "./fixtures/sim";

test.describe("live updates", () => {
  test("a NoExecute taint turns cells excluded without a reload, with the taint in the explanation", async ({ matrix, page, request }) => {
    await matrix.goto();
    await matrix.waitForLive();
    const sim = await simUrl(page);
    const before = (await getNode(request, sim, "worker-2")).spec?.taints ?? [];
    await page.evaluate(() => ((window as unknown as { __noReload: number }).__noReload = 7));
    await matrix.expectState("worker-2", "kube-system/log-collector", "ready");
    // A cell that must not change: node-exporter tolerates every taint (§a.5 empty key + Exists).
    const untouched = matrix.cell("worker-2", "monitoring/node-exporter");
    const untouchedState = await untouched.getAttribute("data-state");

    // Tag every cell element: a fine-grained update changes attributes in place, so every
    // tag must survive (a re-rendered matrix would replace the elements).
    await page.evaluate(() =>
      document.querySelectorAll("button.cell").forEach((el) => ((el as unknown as { __tag: number }).__tag = 1)),
    );
    const taint = { key: "example.com/maintenance", value: "true", effect: "NoExecute" as const };
    await setTaints(request, sim, "worker-2", [...before, taint]);
    try {
      // §a.2 step 3: an untolerated NoExecute taint makes shouldContinueRunning false, so the
      // controller deletes the pod (§a.7) and the cell ends excluded.
      await expect(matrix.cell("worker-2", "kube-system/log-collector")).toHaveAttribute("data-state", "excluded", {
        timeout: 20_000,
      });
      await expect(matrix.row("worker-2").locator('[data-badge="taint"]')).toContainText("example.com/maintenance");
      await expect(untouched).toHaveAttribute("data-state", untouchedState!);
      const replaced = await page.evaluate(
        () =>
          Array.from(document.querySelectorAll("button.cell")).filter((el) => !(el as unknown as { __tag?: number }).__tag)
            .length,
      );
      expect(replaced, "cell elements re-created by the update").toBe(0);
      const e = await matrix.explain("worker-2", "kube-system/log-collector");
      const failing = matrix.failingReasons(e).filter({ hasText: "example.com/maintenance" });
      await expect(failing).toHaveCount(1);
      await expect(failing.locator(".reason-fix")).toContainText("example.com/maintenance");
      expect(await page.evaluate(() => (window as unknown as { __noReload?: number }).__noReload)).toBe(7);
      await matrix.screenshot("live-taint");
    } finally {
      await setTaints(request, sim, "worker-2", before);
    }
    // Removing the taint brings the pod back (§a.7 manage creates it).
    await expect(matrix.cell("worker-2", "kube-system/log-collector")).toHaveAttribute("data-state", "ready", {
      timeout: 30_000,
    });
  });

  test("a new node appears as a row without a reload", async ({ matrix, page, request }) => {
    await matrix.goto();
    await matrix.waitForLive();
    const sim = await simUrl(page);
    const name = `worker-e2e-${Date.now() % 100000}`;
    await page.evaluate(() => ((window as unknown as { __noReload: number }).__noReload = 9));
    await createNode(request, sim, name);
    try {
      await expect(matrix.row(name)).toBeVisible({ timeout: 20_000 });
      // log-collector has no nodeSelector: it should run on the new node (§a), pod or not yet.
      await expect(matrix.cell(name, "kube-system/log-collector")).not.toHaveAttribute("data-state", "excluded");
      // gpu-monitor's nodeSelector excludes it (§a.2 step 2).
      await expect(matrix.cell(name, "monitoring/gpu-monitor")).toHaveAttribute("data-state", "excluded");
      expect(await page.evaluate(() => (window as unknown as { __noReload?: number }).__noReload)).toBe(9);
    } finally {
      await deleteNode(request, sim, name);
    }
    await expect(matrix.row(name)).toHaveCount(0, { timeout: 20_000 });
  });
});
