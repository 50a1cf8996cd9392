// The pod page (issue 14 item 7), on scenarios/demo.yaml: reached from the explanation panel
// and the DaemonSet page, it shows one daemon pod in full (phase, node, revision, containers
// with restarts and last termination, conditions, events) and never its env values or
// command line. Pod names are read from the links: the sim may rename recreated pods.
import { test, expect } from "./fixtures/matrix-page";

// What log-collector's pod on worker-1 carries in scenarios/demo.yaml and must never be shown.
const SECRETS = ["demo-env-s3cret-token", "LOG_SHIPPER_TOKEN", "demo-cmdline-s3cret", "--http-passwd", "demo-args-s3cret"];

test.describe("pod page", () => {
  test("a pod from the explanation panel shows phase, node, revision and containers, never env or command", async ({ matrix, page, request }) => {
    await matrix.goto();
    const panel = await matrix.explain("worker-1", "kube-system/log-collector");
    const link = panel.locator("a.pod-link").first();
    const name = (await link.innerText()).trim();
    expect(name).toMatch(/^log-collector-/);
    await link.click();
    await expect(page).toHaveURL(`/pod/kube-system/${name}`);
    await matrix.waitForHydration();
    const pod = page.getByTestId("pod-page");
    await expect(pod).toHaveAttribute("data-pod", `kube-system/${name}`);
    await expect(page.getByTestId("pod-phase")).toHaveText("Running");
    await expect(page.getByTestId("pod-node")).toHaveText("worker-1");
    await expect(page.getByTestId("pod-node").locator("a")).toHaveAttribute("href", "/node/worker-1");
    await expect(page.getByTestId("pod-owner").locator("a")).toHaveAttribute("href", "/ds/kube-system/log-collector");
    // §d.4: its controller-revision-hash is the DaemonSet's current revision.
    await expect(page.getByTestId("pod-revision")).toContainText("current");
    const container = page.locator('tr[data-container="fluent-bit"]');
    await expect(container).toHaveAttribute("data-container-state", "Running");
    await expect(container.getByTestId("restarts")).toHaveText("0");
    await expect(container).toContainText("cr.fluentbit.io/fluent/fluent-bit:3.2.4");
    await expect(page.locator('[data-testid="pod-conditions"] tr[data-condition="Ready"]')).toHaveAttribute("data-status", "True");
    // Its events are read and shown: the simulated kubelet writes only warnings about pods, and
    // this pod has none, so the list says so (not "Loading events…" or "not available").
    await expect(page.getByTestId("events")).toContainText("No recent events.");
    // Read-only, nothing secret: neither the page nor the server's HTML (with its hydration
    // data) carries the pod's env value, command line or args.
    const shown = await page.locator("body").innerText();
    const html = await (await request.get(`/pod/kube-system/${name}`)).text();
    for (const secret of SECRETS) {
      expect(shown, "page text").not.toContain(secret);
      expect(html, "server HTML").not.toContain(secret);
    }
    await page.screenshot({ path: "/tmp/pod-log-collector.png", fullPage: true });
  });

  test("a crash-looping pod from the DaemonSet page shows CrashLoopBackOff, its restarts, last termination and BackOff event", async ({ matrix, page }) => {
    test.setTimeout(60_000);
    await page.goto("/ds/monitoring/node-exporter");
    await matrix.waitForHydration();
    const link = page.locator('tr[data-progress-node="worker-1"] a.pod-link').first();
    const name = (await link.innerText()).trim();
    await link.click();
    await expect(page).toHaveURL(`/pod/monitoring/${name}`);
    await matrix.waitForHydration();
    const container = page.locator('tr[data-container="node-exporter"]');
    await expect(container).toHaveAttribute("data-container-state", "CrashLoopBackOff");
    // Stands out: the waiting reason is marked as trouble (the unready state colours).
    await expect(container.locator('.container-state[data-trouble="true"]')).toHaveText("CrashLoopBackOff");
    await expect(container.locator(".container-note")).toContainText(/back-off .*restarting failed container/);
    const restarts = Number(await container.getByTestId("restarts").innerText());
    expect(restarts).toBeGreaterThanOrEqual(1);
    await expect(container.getByTestId("last-termination")).toContainText("exit code 1");
    await expect(page.getByTestId("pod-revision")).toContainText("current");
    await expect(page.locator('[data-testid="pod-conditions"] tr[data-condition="Ready"]')).toHaveAttribute("data-status", "False");
    // The kubelet's BackOff warning about this very pod is among its events (the page re-reads
    // them on a timer; the first BackOff comes with the first restart).
    const backoff = page.getByTestId("events").locator('tr[data-reason="BackOff"]');
    await expect(backoff).toHaveCount(1, { timeout: 45_000 });
    await expect(backoff).toHaveClass(/event-warning/);
    await expect(backoff.locator(".event-object")).toHaveText("Pod");
    await expect(backoff.locator(".event-message")).toContainText(`Back-off restarting failed container node-exporter in pod ${name}_monitoring(`);
    await page.screenshot({ path: "/tmp/pod-crashloop.png", fullPage: true });
  });

  test("an unknown pod is a clear message with status 404", async ({ matrix, page, browserErrors }) => {
    const response = await page.goto("/pod/kube-system/does-not-exist");
    expect(response?.status()).toBe(404);
    await matrix.waitForHydration();
    await expect(page.getByTestId("pod-not-found")).toContainText("kube-system/does-not-exist");
    const i = browserErrors.findIndex((e) => e.includes("status of 404"));
    expect(i, "the 404 of the document itself is on the console").toBeGreaterThanOrEqual(0);
    browserErrors.splice(i, 1);
  });
});
