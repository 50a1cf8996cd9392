// What a browser receives (issue 13 item 3): each page opens only the live feed of what it
// shows, a view the server cuts and patches: the matrix page `/api/view?<its query>`, the node
// page `/api/view/node/<name>`, the DaemonSet page `/api/view/ds/<namespace>/<name>`. None of
// them downloads the whole matrix, which at 5,000 nodes is megabytes.
//
// The second test starts its own dashboard on a generated 2,000-node cluster (the shared demo
// has 12 nodes, where a whole matrix and a window weigh the same) and measures the bytes on the
// wire with the Chrome DevTools protocol. Bytes are not timings: the bound is structural (a
// window of 50 rows against a matrix of 40,000 cells), so it holds on any machine.
import { expect, type Page, type CDPSession } from "@playwright/test";
import { test } from "./fixtures/demo";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type ChildProcess } from "node:child_process";
import { freePort, kill, startDaemonscope, waitForHttp } from "./fixtures/backend";

/** Every feed URL (path and query) the page opens from now on, without the version the page
 * starts from (`since=`, which changes with the cluster). */
function recordFeeds(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    u.searchParams.delete("since");
    if (u.pathname.startsWith("/api/live") || u.pathname.startsWith("/api/view") || u.pathname === "/api/matrix") {
      seen.push(u.pathname + u.search);
    }
  });
  return seen;
}

test("each page follows only its own feed, and the feed moves with the page", async ({ page }) => {
  const feeds = recordFeeds(page);
  await page.goto("/?problems=0&group=none");
  await expect(page.locator('main[data-hydrated="true"]')).toBeVisible();
  await expect(page.locator('[data-live="live"]')).toBeVisible();
  expect(feeds).toEqual(["/api/view?problems=0&group=none"]);

  // Through the page's own link, without a reload: the node page's feed replaces the window's.
  await page.locator('tr[data-row="worker-2"] a.node-name').click();
  await expect(page).toHaveURL(/\/node\/worker-2$/);
  await expect(page.locator('[data-live="live"]')).toBeVisible();
  await expect.poll(() => feeds.at(-1)).toBe("/api/view/node/worker-2");

  await page.goto("/ds/kube-system/log-collector");
  await expect(page.locator('[data-live="live"]')).toBeVisible();
  await expect.poll(() => feeds.at(-1)).toBe("/api/view/ds/kube-system/log-collector");
  expect(feeds.filter((f) => f === "/api/live" || f === "/api/matrix"), "no whole-matrix download").toEqual([]);
});

test.describe("a 2,000-node cluster", () => {
  test.describe.configure({ timeout: 240_000 });
  let dash: ChildProcess | undefined;
  let base = "";

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "daemonscope-e2e-feeds-")), "serve.log");
    dash = startDaemonscope(
      ["serve", "--demo", "--generate", "nodes=2000,daemonsets=20,seed=7", "--listen", `127.0.0.1:${port}`],
      log,
    );
    await waitForHttp(`${base}/readyz`, 180_000);
  });

  test.afterAll(async () => {
    await kill(dash);
  });

  /** Bytes received per path, from the DevTools protocol (SSE included, as they arrive). */
  async function meter(page: Page): Promise<{ cdp: CDPSession; bytes: Map<string, number> }> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    const urls = new Map<string, string>();
    const bytes = new Map<string, number>();
    cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, new URL(e.request.url).pathname));
    cdp.on("Network.dataReceived", (e) => {
      const u = urls.get(e.requestId) ?? "?";
      bytes.set(u, (bytes.get(u) ?? 0) + e.encodedDataLength);
    });
    return { cdp, bytes };
  }

  test("the browser receives one window of rows, not the matrix, and can still reach any node", async ({ page }) => {
    const { bytes } = await meter(page);
    await page.goto(`${base}/?problems=0&group=none`);
    await expect(page.locator('main[data-hydrated="true"]')).toBeVisible({ timeout: 60_000 });
    await expect(page.locator('[data-live="live"]')).toBeVisible({ timeout: 60_000 });
    const rows = page.locator("table.matrix tr[data-row]");
    await expect(rows).toHaveCount(50);
    await expect(page.getByTestId("glance-nodes")).toHaveText("2,000 nodes");

    // Let the live feed run while the sim creates pods, then weigh what came.
    await page.waitForTimeout(5_000);
    const feed = bytes.get("/api/view") ?? 0;
    const total = [...bytes.values()].reduce((a, b) => a + b, 0);
    // The whole matrix as /api/live sends it: measured, not guessed.
    const whole = await page.evaluate(async () => {
      const r = await fetch("/api/live");
      const reader = r.body!.getReader();
      const first = await reader.read();
      let text = new TextDecoder().decode(first.value);
      while (!text.includes("\n\n")) {
        const next = await reader.read();
        if (next.done) break;
        text += new TextDecoder().decode(next.value);
      }
      await reader.cancel();
      return text.length;
    });
    test.info().annotations.push({
      type: "bytes",
      description: `window feed ${feed} B, page total ${total} B (with WASM), whole matrix ${whole} B`,
    });
    expect(feed, "the window feed carries 50 rows, not 2,000").toBeLessThan(whole / 10);

    // Any node in one step: a node from page 30 of 40, typed into the name filter, is the row.
    await page.goto(`${base}/?problems=0&group=none&page=30`);
    await expect(page.locator('main[data-hydrated="true"]')).toBeVisible({ timeout: 60_000 });
    const name = (await rows.first().getAttribute("data-row"))!;
    await page.goto(`${base}/`);
    await expect(page.locator('main[data-hydrated="true"]')).toBeVisible({ timeout: 60_000 });
    const search = page.locator('form.filter input[name="q"]');
    await search.fill(name);
    await search.press("Enter");
    await expect(page).toHaveURL(new RegExp(`q=${name}`));
    await expect(page.getByTestId("glance-nodes")).toHaveText("2,000 nodes");
    await expect(rows.first()).toHaveAttribute("data-row", name);
  });
});
