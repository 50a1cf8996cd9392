// Issue 14 item 3: the explanation panel gives the fix as text to paste, with a Copy button.
// Cells from scenarios/demo.yaml; the rules are docs/kubernetes-rules.md §a.2 (placement),
// §a.5 (tolerations), §a.7 and §c/§g.3 (misscheduled pods).
import { test, expect } from "./fixtures/matrix-page";
import type { Locator } from "@playwright/test";

/** The fix options of the open explanation's blocker for `rule` (NodeSelector, Taint, …). */
function blocker(e: Locator, rule: string): Locator {
  return e.locator(`[data-testid="blocker"][data-rule="${rule}"]`);
}

function fixTexts(scope: Locator): Locator {
  return scope.getByTestId("fix-text");
}

test.describe("fixes to paste", () => {
  test.beforeEach(async ({ context, baseURL }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  });

  test("a cell excluded by a taint offers the toleration YAML and the untaint command, and Copy copies it exactly", async ({ matrix, page }) => {
    await matrix.goto();
    const e = await matrix.explain("cp-1", "kube-system/log-collector");
    const fixes = e.getByTestId("fixes");
    // §a.2 step 3: one rule fails.
    await expect(fixes.getByTestId("fix-headline")).toHaveText("One rule keeps the pod off this node: apply one of the options below.");
    const taint = blocker(e, "Taint");
    await expect(taint.locator(".blocker-problem")).toContainText("node-role.kubernetes.io/control-plane:NoSchedule");
    // §a.5: a valueless taint is tolerated by Exists.
    const yaml = "- {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}";
    const command = "kubectl taint nodes cp-1 node-role.kubernetes.io/control-plane:NoSchedule-";
    await expect(fixTexts(taint)).toHaveText([yaml, command]);
    await expect(taint.locator(".fix-where").first()).toHaveText("Add to the DaemonSet under spec.template.spec.tolerations:");
    await expect(fixes).toContainText("read-only");

    const first = taint.getByTestId("fix").first();
    await first.getByTestId("copy").click();
    await expect(first.getByTestId("copy")).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(yaml);
    await expect(first.getByTestId("copy")).toHaveText("Copy", { timeout: 5_000 });

    const second = taint.getByTestId("fix").nth(1);
    await second.getByTestId("copy").click();
    await expect(second.getByTestId("copy")).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
    await fixes.scrollIntoViewIfNeeded();
    await page.screenshot({ path: "/tmp/wt-c-fixes-taint.png" });
  });

  test("a cell excluded by nodeSelector offers the label command and the nodeSelector entry to delete", async ({ matrix, page }) => {
    await matrix.goto();
    const e = await matrix.explain("worker-1", "monitoring/gpu-monitor");
    const selector = blocker(e, "NodeSelector");
    await expect(selector.locator(".blocker-problem")).toHaveText("The nodeSelector asks for workload-type=gpu, which the node lacks.");
    const command = "kubectl label nodes worker-1 workload-type=gpu --overwrite";
    await expect(fixTexts(selector)).toHaveText([command, "workload-type: gpu"]);
    await expect(selector.locator(".fix-where")).toHaveText("Delete from the DaemonSet under spec.template.spec.nodeSelector:");
    await selector.getByTestId("copy").first().click();
    await expect(selector.getByTestId("copy").first()).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
  });

  test("a misscheduled pod says why the controller keeps it and what reconciles it", async ({ matrix, page }) => {
    await matrix.goto();
    // §g.3: the dedicated=infra NoSchedule taint arrived after log-collector's pod was placed.
    const e = await matrix.explain("infra-1", "kube-system/log-collector");
    const fixes = e.getByTestId("fixes");
    await expect(fixes.getByTestId("fix-headline")).toContainText("Misscheduled: the controller keeps this pod because no NoExecute taint forbids it");
    await expect(fixTexts(blocker(e, "Taint")).first()).toHaveText("- {key: dedicated, operator: Equal, value: infra, effect: NoSchedule}");
    const pod = await e.locator("table.pods tbody tr").first().getAttribute("data-pod");
    expect(pod).toMatch(/^log-collector-/);
    await expect(fixTexts(fixes.getByTestId("reconcile"))).toHaveText([`kubectl delete pod -n kube-system ${pod}`]);
    await fixes.scrollIntoViewIfNeeded();
    await page.screenshot({ path: "/tmp/wt-c-fixes-misscheduled.png" });
  });

  test("a missing pod the API server refuses has nothing to change in the rules and points at the refuser", async ({ matrix }) => {
    // Issue 24 item 2: the demo's falco creations on worker-3 are refused by a webhook (§l.1);
    // the plan used to be "kubectl describe daemonset"; now it names who refuses.
    await matrix.goto();
    const e = await matrix.explain("worker-3", "security/falco");
    const fixes = e.getByTestId("fixes");
    await expect(fixes.getByTestId("fix-headline")).toContainText("The placement rules let the pod run here; the API server refuses to create it (admission webhook)");
    await expect(e.getByTestId("blocker")).toHaveCount(0);
    await expect(fixTexts(fixes)).toHaveText([
      "kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o 'custom-columns=NAME:.metadata.name,WEBHOOKS:.webhooks[*].name'",
      "kubectl get events -n security --field-selector involvedObject.kind=DaemonSet,involvedObject.name=falco,reason=FailedCreate",
    ]);
  });

  test("a ready cell shows no fixes", async ({ matrix }) => {
    await matrix.goto();
    const e = await matrix.explain("gpu-1", "monitoring/gpu-monitor");
    await expect(e.locator('[data-flag="shouldRun"]')).toHaveText("true");
    await expect(e.getByTestId("fixes")).toHaveCount(0);
  });
});
