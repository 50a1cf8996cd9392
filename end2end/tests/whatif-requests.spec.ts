// Issue 24 item 3: requests in the what-if (§j.6). "If log-collector asked 500m cpu / 256Mi
// memory, on which nodes would it not fit?" In scenarios/demo.yaml worker-4 allocates 4 cores
// and its bound pods request 3920m, of which log-collector's own pod is 50m: 3870m stay, 130m are
// left, so a 500m pod is short by 370m (§j.4). Every other node has room.
import { test, expect } from "./fixtures/matrix-page";

const URL = "/ds/kube-system/log-collector?requests=cpu%3D500m%2Cmemory%3D256Mi";

function row(page: import("@playwright/test").Page, node: string) {
  return page.locator(`[data-testid="whatif-row"][data-node="${node}"][data-daemonset="kube-system/log-collector"]`);
}

test.describe("what-if: requests", () => {
  test("asking 500m cpu marks worker-4, where it would not fit, with the short resource and by how much", async ({ matrix, page }) => {
    await page.goto("/ds/kube-system/log-collector");
    await matrix.waitForHydration();
    await page.getByTestId("whatif-requests").fill("cpu=500m,memory=256Mi");
    await page.getByTestId("whatif-submit").click();
    await expect(page).toHaveURL(URL);
    await matrix.waitForHydration();

    const check = async () => {
      await expect(page.getByTestId("whatif-banner")).toContainText("requests cpu=500m,memory=256Mi");
      await expect(row(page, "worker-4")).toHaveAttribute("data-whatif", "not-fit");
      await expect(row(page, "worker-4")).toContainText("would not fit: the scheduler leaves it Pending");
      await expect(row(page, "worker-4")).toContainText("Insufficient cpu: short by 370m (asks 500m, 130m left)");
      await expect(page.locator('[data-testid="whatif-row"][data-whatif="not-fit"]')).toHaveCount(1);
      await expect(page.getByTestId("whatif-summary")).toHaveText(
        "1 pod would not fit and stay Pending (1 node): kube-system/log-collector.",
      );
    };
    await check();
    // Shared by its URL: a fresh load renders the same preview.
    await page.goto(URL);
    await matrix.waitForHydration();
    await check();
    // 130m is the largest request that fits: asking it marks nothing.
    await page.goto("/ds/kube-system/log-collector?requests=cpu%3D130m");
    await matrix.waitForHydration();
    await expect(page.getByTestId("whatif-summary")).toHaveText("No pod would change.");

    for (const width of [1400, 768]) {
      await page.goto(URL);
      await page.setViewportSize({ width, height: 900 });
      await matrix.waitForHydration();
      await page.getByTestId("whatif").scrollIntoViewIfNeeded();
      for (const theme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: theme });
        await page.getByTestId("whatif").screenshot({ path: `screenshots/whatif-requests-${width}-${theme}.png` });
      }
    }
  });

  test("a quantity Kubernetes refuses gives the quantity parser's words, not a preview", async ({ matrix, page }) => {
    await page.goto("/ds/kube-system/log-collector?requests=cpu%3D1K");
    await matrix.waitForHydration();
    await expect(page.getByTestId("whatif-error")).toContainText(`requests="cpu=1K": cpu="1K": unable to parse quantity's suffix`);
    await expect(page.getByTestId("whatif-banner")).toHaveCount(0);
    await page.goto("/ds/kube-system/log-collector?requests=cpu%3Dlots");
    await matrix.waitForHydration();
    await expect(page.getByTestId("whatif-error")).toContainText("quantities must match the regular expression");
  });
});
