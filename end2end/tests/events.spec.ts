// "Recent events" on the DaemonSet and node pages (issue 5: Events for the objects shown), on
// scenarios/demo.yaml: the simulated DaemonSet controller's own Events, newest first.
import { test, expect } from "./fixtures/matrix-page";

test.describe("recent events", () => {
  test("a rolling DaemonSet's page lists the controller's SuccessfulCreate events", async ({ matrix, page }) => {
    await page.goto("/ds/kube-system/ebs-csi-node");
    await matrix.waitForHydration();
    const events = page.getByTestId("events");
    await expect(events).toContainText("Recent events");
    // The surge rollout keeps creating pods: the list is re-read as the page's cells change.
    const created = events.locator('tr[data-reason="SuccessfulCreate"]').first();
    await expect(created).toBeVisible({ timeout: 20_000 });
    await expect(created.locator(".event-type")).toHaveText("Normal");
    await expect(created.locator(".event-message")).toContainText("Created pod: ebs-csi-node-");
  });

  test("a blocked creation shows as a Warning with the admission webhook's message, as text", async ({ matrix, page }) => {
    await page.goto("/ds/security/falco");
    await matrix.waitForHydration();
    const failed = page.getByTestId("events").locator('tr[data-reason="FailedCreate"]');
    await expect(failed).toHaveCount(1);
    await expect(failed).toHaveClass(/event-warning/);
    await expect(failed.locator(".event-message")).toContainText(
      'Error creating: admission webhook "validate.policy.example.com" denied the request',
    );
    await matrix.screenshot("ds-falco-events");
  });

  test("a crash-looping pod's kubelet BackOff warning is on its DaemonSet's page, naming the pod", async ({ matrix, page }) => {
    // The first BackOff comes with the first restart (20 s after the demo starts); the open
    // page re-reads its events every 10 s, since a repeated BackOff changes no cell.
    test.setTimeout(60_000);
    await page.goto("/ds/monitoring/node-exporter");
    await matrix.waitForHydration();
    // worker-1's new-revision pod crash-loops (a failing image in the demo's settings).
    const backoff = page.getByTestId("events").locator('tr[data-reason="BackOff"]');
    await expect(backoff).toHaveCount(1, { timeout: 45_000 });
    await expect(backoff).toHaveClass(/event-warning/);
    await expect(backoff.locator(".event-object")).toHaveText(/^Pod monitoring\/node-exporter-/);
    await expect(backoff.locator(".event-message")).toContainText(
      "Back-off restarting failed container node-exporter in pod node-exporter-",
    );
  });

  test("the crash-looping pod's BackOff is also on its node's page, and not on other nodes'", async ({ matrix, page }) => {
    test.setTimeout(60_000);
    await page.goto("/node/worker-1");
    await matrix.waitForHydration();
    const events = page.getByTestId("events");
    await expect(events).toContainText("Recent events");
    const backoff = events.locator('tr[data-reason="BackOff"]');
    await expect(backoff).toHaveCount(1, { timeout: 45_000 });
    await expect(backoff).toHaveClass(/event-warning/);
    await expect(backoff.locator(".event-object")).toHaveText(/^Pod monitoring\/node-exporter-/);
    await matrix.screenshot("node-worker-1-events");
    // worker-2's node-exporter pod runs the old revision and never restarts.
    await page.goto("/node/worker-2");
    await matrix.waitForHydration();
    const others = page.getByTestId("events");
    await expect(others).toContainText("Recent events");
    // Only once the list is read does "no BackOff row" mean anything: it is either a table or
    // the "No recent events." note, never still loading or unavailable.
    await expect(others.locator("table.events-table").or(others.getByText("No recent events."))).toBeVisible();
    await expect(others).not.toContainText("not available");
    await expect(others.locator('tr[data-reason="BackOff"]')).toHaveCount(0);
  });
});
