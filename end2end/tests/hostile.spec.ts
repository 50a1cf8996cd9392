// Hostile text end to end (issue 13 item 7): scenarios/hostile.yaml puts names at their legal
// maximum (a 253-character node and DaemonSet, a 63-character namespace, label keys and values
// at their limits) and markup, RTL overrides, emoji sequences and combining marks wherever
// Kubernetes allows free text (annotations, change-cause, a FailedCreate event, a container's
// waiting message). Its own dashboard serves it; on every page nothing executes, the markup
// shows as text, nothing overflows its cell or the window, and the page stays usable.
import * as os from "node:os";
import * as path from "node:path";
import type { ChildProcess } from "node:child_process";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures/matrix-page";
import { freePort, kill, startDaemonscope, waitForHttp } from "./fixtures/backend";

const seg = (prefix: string, n: number) => (prefix + "x".repeat(n)).slice(0, n);
const LONG_NODE = [seg("very-long-node-name-at-the-dns-subdomain-limit-", 63), seg("segment-two-", 63), seg("segment-three-", 63), seg("end-", 60) + "z"].join(".");
const LONG_DS = [seg("agent-with-the-longest-legal-daemonset-name-", 63), seg("b-", 63), seg("c-", 63), seg("d-", 60) + "z"].join(".");
const NS = seg("hostile-namespace-", 62) + "z";
const SCRIPT_TEXT = '<script>window.__pwned = "script"</script>';

let server: ChildProcess | undefined;
let base = "";

test.beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const log = path.join(os.tmpdir(), `daemonscope-hostile-${port}.log`);
  server = startDaemonscope(["serve", "--demo", "scenarios/hostile.yaml", "--listen", `127.0.0.1:${port}`], log);
  await waitForHttp(`${base}/readyz`);
});

test.afterAll(async () => kill(server));

/** Opens a page of the hostile cluster, failing the test on any dialog (alert, confirm). */
async function open(page: Page, route: string): Promise<void> {
  page.on("dialog", (d) => {
    throw new Error(`a dialog opened: ${d.message()}`);
  });
  await page.goto(base + route);
  await expect(page.locator("main")).toHaveAttribute("data-hydrated", "true");
}

/** Nothing ran, nothing was injected, nothing spills out of its box. */
async function expectContained(page: Page): Promise<void> {
  expect(await page.evaluate(() => (window as any).__pwned), "injected script ran").toBeUndefined();
  // No element came from the text: the only images and scripts are the app's own.
  expect(await page.locator('img[src="x"], b:text("bold?")').count(), "markup became elements").toBe(0);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, "the page scrolls sideways").toBeLessThanOrEqual(0);
  // A cell or header whose content overflows and is not clipped paints over its neighbours.
  const spills = await page.evaluate(() =>
    Array.from(document.querySelectorAll("th, td, .topbar > *, .panel"))
      .filter((el) => {
        const e = el as HTMLElement;
        const style = getComputedStyle(e);
        if (style.overflowX !== "visible" || e.offsetParent === null) return false;
        return e.scrollWidth > e.clientWidth + 1;
      })
      .map((el) => `${el.tagName.toLowerCase()}.${(el as HTMLElement).className}: ${el.textContent?.slice(0, 60)}`),
  );
  expect(spills, "content spills out of its cell").toEqual([]);
}

for (const width of [1400, 768]) {
  test(`the matrix at ${width}px shows every hostile name contained and stays usable`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await open(page, "/?group=none");
    await expect(page.locator("tr[data-row]")).toHaveCount(3);
    await expect(page.locator(`tr[data-row="${LONG_NODE}"] a.node-name`)).toHaveAttribute("title", LONG_NODE);
    await expect(page.locator(`th[data-daemonset="${NS}/${LONG_DS}"] .ds-name`)).toBeVisible();
    await expectContained(page);
    // Usable: the refused cell explains itself, the message's markup is text.
    const cell = page.locator(`button.cell[data-node="plain-node"][data-daemonset="${NS}/markup-agent"]`);
    await expect(cell).toHaveAttribute("data-state", "missing");
    await cell.click();
    const panel = page.getByTestId("explanation");
    await expect(panel.locator(".explanation")).toBeVisible();
    await expectContained(page);
    await page.keyboard.press("Escape");
    await expect(cell).toBeFocused();
    await page.keyboard.press("ArrowLeft");
    await expect(page.locator(`button.cell[data-node="plain-node"][data-daemonset="${NS}/crashing-agent"]`)).toBeFocused();
  });
}

test("the DaemonSet page shows the FailedCreate message and change-cause as text", async ({ page }) => {
  await open(page, `/ds/${NS}/markup-agent`);
  // The blocked creation's event, markup and mixed scripts included, as literal text.
  await expect(page.locator("main")).toContainText(SCRIPT_TEXT);
  await expect(page.locator("main")).toContainText("עברית");
  await expect(page.locator("main")).toContainText("👩‍👩‍👧‍👦");
  await expectContained(page);
});

test("the 253-character DaemonSet's page and its pods (names cut to 58 + 5 as the API server does)", async ({ page }) => {
  await open(page, `/ds/${NS}/${LONG_DS}`);
  await expect(page.getByTestId("ds-page")).toHaveAttribute("data-daemonset", `${NS}/${LONG_DS}`);
  const pods = page.locator('a[href^="/pod/"]');
  await expect(pods.first()).toBeVisible();
  const href = (await pods.first().getAttribute("href")) ?? "";
  const podName = decodeURIComponent(href.split("/").pop() ?? "");
  expect(podName.length, podName).toBe(63);
  expect(LONG_DS.startsWith(podName.slice(0, 58))).toBe(true);
  await expectContained(page);
});

test("the node pages of the longest name and of the unicode annotations stay contained", async ({ page }) => {
  await open(page, `/node/${LONG_NODE}`);
  await expect(page.getByTestId("node-page")).toHaveAttribute("data-node", LONG_NODE);
  await expectContained(page);
  await open(page, "/node/unicode-node");
  await expect(page.getByTestId("node-page")).toContainText("dedicated");
  await expectContained(page);
});

test("the crash-looping pod's page shows its hostile waiting message as text", async ({ page }) => {
  await open(page, `/ds/${NS}/crashing-agent`);
  const link = page.locator('a[href^="/pod/"]').first();
  await expect(link).toBeVisible();
  await link.click();
  await expect(page.getByTestId("pod-page")).toBeVisible();
  await expect(page.getByTestId("pod-page")).toContainText("CrashLoopBackOff");
  await expectContained(page);
});
