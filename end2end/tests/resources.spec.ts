// Issue 24 items 1 and 3: a pending agent explained by the scheduler's words and the node's
// arithmetic, and the DaemonSet tax on the node page against a hand sum.
// scenarios/demo.yaml: worker-4 allocates 4 cores; its bound daemon pods request 220m
// (log-collector 50m, engine-image 10m, node-exporter 50m, falco 100m, ebs-csi-node 10m) and the
// workload pod shop/checkout-0 3700m, so 80m are left and metallb's speaker (100m) stays
// pending: short by 20m (docs/kubernetes-rules.md §j.3, §j.4).
import { test, expect } from "./fixtures/matrix-page";

const SCHEDULER =
  "0/12 nodes are available: 1 Insufficient cpu, 11 node(s) didn't satisfy plugin(s) [NodeAffinity].";

test.describe("resources: pending explained and the DaemonSet tax", () => {
  test("the pending speaker on worker-4 quotes the scheduler and says it is 20m short, with the request that fits", async ({ matrix }) => {
    await matrix.goto();
    await matrix.expectState("worker-4", "metallb-system/speaker", "pending");
    const e = await matrix.explain("worker-4", "metallb-system/speaker");
    const pending = e.getByTestId("pending");
    // §j.4: the condition as kube-scheduler wrote it.
    await expect(pending.getByTestId("scheduler-message")).toContainText("Unschedulable");
    await expect(pending.getByTestId("scheduler-message")).toContainText(SCHEDULER);
    // The arithmetic: 4 cores allocatable, 3920m requested by the bound pods, 80m left.
    const cpu = pending.locator('tr[data-resource="cpu"]');
    await expect(cpu.locator("td")).toHaveText(["4", "3920m", "80m", "100m", "20m"]);
    await expect(cpu).toHaveAttribute("data-short", "true");
    await expect(pending.locator('tr[data-resource="memory"]')).toHaveAttribute("data-short", "false");
    await expect(pending.getByTestId("pending-sentence")).toHaveText(
      "The scheduler does not bind this pod: the node is short of cpu by 20m.",
    );
    // The fix: the largest request that fits, and the priority that preempts.
    await expect(pending.getByTestId("fix-text")).toHaveText([
      "kubectl set resources daemonset speaker -n metallb-system --requests=cpu=80m",
      `kubectl patch daemonset speaker -n metallb-system --type=merge -p '{"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}'`,
    ]);
    await matrix.screenshot("explanation-pending-speaker");
  });

  test("the node page shows the pending agent and a DaemonSet tax equal to the hand sum of the templates", async ({ matrix, page }) => {
    await page.goto("/node/worker-4");
    await matrix.waitForHydration();
    const pending = page.getByTestId("node-pending").getByTestId("pending");
    await expect(pending).toHaveAttribute("data-pod", "speaker-j48nz");
    await expect(pending.getByTestId("short-by").first()).toHaveText("20m");

    const tax = page.getByTestId("tax");
    // §j.5: the six DaemonSets that should run on worker-4 (gpu-monitor's nodeSelector rules it
    // out), whether or not their pod runs: the pending speaker counts.
    const expected: Record<string, [number, number]> = {
      "kube-system/log-collector": [50, 64],
      "metallb-system/speaker": [100, 100],
      "longhorn-system/engine-image-ei-db6c2b6f": [10, 32],
      "monitoring/node-exporter": [50, 64],
      "security/falco": [100, 512],
      "kube-system/ebs-csi-node": [10, 40],
    };
    const rows = tax.locator("tbody tr");
    await expect(rows).toHaveCount(Object.keys(expected).length);
    for (const key of await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-daemonset")))) {
      expect(Object.keys(expected)).toContain(key);
    }
    const handCpu = Object.values(expected).reduce((s, [cpu]) => s + cpu, 0);
    const handMemMi = Object.values(expected).reduce((s, [, mem]) => s + mem, 0);
    expect(handCpu).toBe(320);
    await expect(tax.locator('[data-testid="tax-total"][data-resource="cpu"]')).toHaveAttribute("data-value", String(handCpu));
    await expect(tax.locator('[data-testid="tax-total"][data-resource="memory"]')).toHaveAttribute(
      "data-value",
      String(handMemMi * 1024 * 1024),
    );
    await expect(tax.locator('[data-testid="tax-total"][data-resource="cpu"]')).toHaveText("320m");
    // 320m of 4 cores is 8%; 812Mi of 16Gi is 4.96%, truncated to 4% as kubectl prints shares.
    await expect(tax.locator('[data-testid="tax-share"][data-resource="cpu"]')).toHaveText(`${Math.trunc((handCpu * 100) / 4000)}%`);
    await expect(tax.locator('[data-testid="tax-share"][data-resource="memory"]')).toHaveText(
      `${Math.trunc((handMemMi * 100) / (16 * 1024))}%`,
    );
    await matrix.screenshot("node-tax-worker-4");
  });

  test("the DaemonSet page says what one pod and the whole DaemonSet request, and explains its pending pod", async ({ matrix, page }) => {
    await page.goto("/ds/metallb-system/speaker");
    await matrix.waitForHydration();
    const tax = page.getByTestId("ds-tax");
    await expect(tax.getByTestId("ds-tax-line")).toContainText("Each pod requests cpu 100m, memory 100Mi; on the ");
    // Its cluster-wide sum is the per-pod request times the nodes where it should run.
    const line = (await tax.getByTestId("ds-tax-line").textContent()) ?? "";
    const nodes = Number(/on the (\d+) nodes/.exec(line)?.[1]);
    expect(nodes).toBeGreaterThan(0);
    const milli = nodes * 100;
    const cpu = milli % 1000 === 0 ? `${milli / 1000}` : `${milli}m`;
    await expect(tax.getByTestId("ds-tax-line")).toContainText(`that is cpu ${cpu}, memory`);
    const pending = tax.locator('[data-node="worker-4"]').getByTestId("pending");
    await expect(pending.getByTestId("scheduler-message")).toContainText("1 Insufficient cpu");
    await expect(pending.getByTestId("short-by").first()).toHaveText("20m");
  });
});
