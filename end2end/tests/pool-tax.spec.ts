// Issue 24 item 3: the DaemonSet tax per pool in the matrix's group headers (§j.5).
// scenarios/demo.yaml groups by zone. eu-west-1a holds cp-1, worker-1, worker-4 and gpu-1, by
// hand from the templates and the placement rules (not the pods that run):
//   cp-1 (control-plane NoSchedule): speaker 100m/100Mi, node-exporter 50m/64Mi, falco 100m/512Mi
//        (the three that tolerate the taint)                                  =  250m,  676Mi
//   worker-1, worker-4: log-collector 50m/64Mi, speaker 100m/100Mi (pending on worker-4, still
//        taxed), engine-image 10m/32Mi, node-exporter 50m/64Mi, falco 100m/512Mi,
//        ebs-csi-node 10m/40Mi                                                =  320m,  812Mi each
//   gpu-1: as a worker without engine-image (its affinity keeps it off gpu nodes), with
//        gpu-monitor 100m/128Mi                                               =  410m,  908Mi
// Sum 1300m of 4+4+4+16 = 28 cores (4.6%, printed 4% as kubectl truncates) and 3208Mi of
// 3×16Gi+64Gi = 112Gi (2.8%, printed 2%).
import { test, expect } from "./fixtures/matrix-page";

test.describe("matrix: the DaemonSet tax per pool", () => {
  test("the eu-west-1a group header shows the pool's tax, equal to the hand sum, and spells it out", async ({ matrix, page }) => {
    await matrix.goto();
    const header = page.locator('tr.group-head[data-group="eu-west-1a"]');
    const tax = header.getByTestId("group-tax");
    await expect(tax).toHaveText("tax cpu 4% · memory 2%");
    await expect(tax).toHaveAttribute("data-cpu-share", "4");
    await expect(tax).toHaveAttribute("data-memory-share", "2");
    await expect(tax).toHaveAttribute(
      "title",
      "DaemonSet tax on the 4 nodes of this group: the DaemonSets that should run on each node (by the placement rules, pending and missing agents included) request cpu 1300m of 28 allocatable (4%), memory 3208Mi of 112Gi allocatable (2%).",
    );
    // Each group has its own figure; the page was sent no node's allocatable to compute it.
    await expect(page.getByTestId("group-tax")).toHaveCount(3);
    const html = await (await page.request.get("/")).text();
    expect(html).not.toContain('"allocatable"');

    for (const width of [1400, 768]) {
      await page.setViewportSize({ width, height: 900 });
      // Readable at 768 px: the figure stays inside the sticky name column, not cut off.
      const box = await tax.boundingBox();
      const cell = await header.locator("th.group-name").boundingBox();
      expect(box && cell && box.x + box.width <= cell.x + cell.width + 1).toBeTruthy();
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await matrix.screenshot(`pool-tax-${width}-${theme}`);
      }
    }
  });
});
