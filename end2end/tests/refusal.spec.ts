// Issue 24 item 2 on scenarios/demo.yaml: falco's pod creation on worker-3 is refused by an
// admission webhook (the scenario's blockedCreations). The missing cell, the DaemonSet page,
// the matrix header and /metrics name the refusal from the FailedCreate event the store keeps
// (docs/kubernetes-rules.md §l.1), instead of "check the DaemonSet's events".
import { test, expect } from "./fixtures/matrix-page";

const WEBHOOK = "validate.policy.example.com";
const WORDS = "node worker-3 is reserved for a hardware investigation";

test.describe("refused creations", () => {
  test("the missing falco cell on worker-3 explains the webhook refusal with its name and message", async ({ matrix }) => {
    await matrix.goto();
    await matrix.expectState("worker-3", "security/falco", "missing");
    const e = await matrix.explain("worker-3", "security/falco");
    await expect(e.locator("p.summary")).toContainText(`admission webhook \u201c${WEBHOOK}\u201d says: ${WORDS}`);
    await expect(e.locator("p.summary")).not.toContainText("check the DaemonSet's events");
    const refusal = e.getByTestId("refusal");
    await expect(refusal).toHaveAttribute("data-refusal", "webhook");
    await expect(refusal.locator('[data-field="kind"]')).toHaveText("admission webhook");
    await expect(refusal.locator('[data-field="name"]')).toHaveText(WEBHOOK);
    await expect(refusal.locator('[data-field="reason"]')).toHaveText(WORDS);
    // Which nodes it hits: the DaemonSet's missing nodes, each a link to its page.
    await expect(refusal.locator('[data-field="nodes"] a.node-name')).toHaveText(["worker-3"]);
    await expect(refusal.locator('[data-field="nodes"] a.node-name')).toHaveAttribute("href", "/node/worker-3");
  });

  test("the DaemonSet page names the refusal and the nodes it keeps bare", async ({ matrix, page }) => {
    await page.goto("/ds/security/falco");
    await matrix.waitForHydration();
    const refusal = page.getByTestId("refusal");
    await expect(refusal).toHaveAttribute("data-refusal", "webhook");
    await expect(refusal.locator("h3")).toHaveText(`Creation refused by admission webhook \u201c${WEBHOOK}\u201d`);
    await expect(refusal.locator('[data-field="reason"]')).toHaveText(WORDS);
    await expect(refusal.locator('[data-field="nodes"] a.node-name')).toHaveText(["worker-3"]);
    await matrix.screenshot("ds-falco-refusal");
  });

  test("the matrix header counts the DaemonSets with refused creations and /metrics exports who refuses", async ({ matrix, page, request }) => {
    await matrix.goto();
    await expect(page.getByTestId("glance-refused")).toHaveText("1 DaemonSet with refused creations");
    const body = await (await request.get("/metrics")).text();
    expect(body).toContain('daemonscope_daemonset_creation_refused{daemonset="security/falco",kind="webhook"} 1\n');
    expect(body.match(/^daemonscope_daemonset_creation_refused\{/gm) ?? [], body).toHaveLength(1);
  });
});
