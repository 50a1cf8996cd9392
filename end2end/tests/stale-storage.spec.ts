// "Live" only when it is (issue 26): when the API server loses its storage (kube-apiserver with
// etcd killed; the sim with its storage switched off), its open watches stay open and silent,
// and only its own /readyz says so. Every page must then show the stale banner naming the
// cause and since when, the top bar's mark must say "stale" instead of "live", and the
// dashboard's /readyz must answer 503 with the reason; when the storage returns, all of it
// clears by itself. The same spec runs on both backends (fixtures/backend.ts).
import { test, expect, Page } from "@playwright/test";
import * as fs from "node:fs";
import { backends, Dashboard, type Backend } from "./fixtures/backend";

const CAUSE = "the API server cannot reach its storage (etcd)";
// Issue 26: "within 10 s every page shows the banner". kube-apiserver's own /readyz fails
// within ~4 s of etcd's death; the dashboard reads it every second here.
const SEEN = 10_000;
// Recovery on the real control plane includes the watchers' relists after etcd returns.
const RECOVERY = 60_000;

const PAGES = ["/", "/node/worker-1", "/ds/kube-system/log-collector"];

async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.locator("[data-hydrated]").first()).toHaveAttribute("data-hydrated", "true");
}

for (const backend of backends()) {
  test.describe(`stale when the storage is gone [${backend.name}]`, () => {
    test.describe.configure({ mode: "serial" });

    const dashboard = new Dashboard();
    let dash = "";

    test.beforeAll(async () => {
      test.setTimeout(180_000);
      await backend.start();
      await dashboard.start(backend, ["--readyz-every", "1s"]);
      dash = dashboard.url;
    });

    test.afterAll(async () => {
      test.setTimeout(60_000);
      await dashboard.stop();
      await backend.stop();
    });

    test("every page shows the storage cause and since when, the mark says stale, /readyz is 503; all clears when it returns", async ({
      page,
    }, testInfo) => {
      test.setTimeout(150_000);
      const errors: string[] = [];
      page.on("console", (msg) => {
        if (msg.type() === "error") errors.push(msg.text());
      });
      page.on("pageerror", (err) => errors.push(err.message));
      const banner = page.locator("[data-testid=stale-banner]");
      const mark = page.locator(".topbar .live");

      await open(page, dash + "/");
      await expect(mark).toHaveAttribute("data-live", "live", { timeout: 30_000 });
      await expect(banner).toHaveCount(0);

      await backend.stopStorage();
      const stopped = Date.now();
      await expect(banner).toContainText(CAUSE, { timeout: SEEN });
      await expect(banner).toContainText(/API server: stale since \d\d:\d\d:\d\d UTC/);
      await expect(mark).toHaveAttribute("data-live", "stale");
      await expect(mark).toHaveText("◷ stale");
      console.log(`[${backend.name}] banner after ${Date.now() - stopped} ms`);

      const ready = await fetch(`${dash}/readyz`);
      const text = await ready.text();
      expect(ready.status, text).toBe(503);
      expect(text).toContain(CAUSE);
      expect(await (await fetch(`${dash}/healthz`)).status).toBe(200);
      const metrics = await (await fetch(`${dash}/metrics`)).text();
      expect(metrics).toContain('daemonscope_cluster_reachable{cause="storage_unavailable"} 0');

      // A picture of the banner in both themes (the sim's run only: the real one is the same page).
      if (backend.name === "sim") {
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          const file = testInfo.outputPath(`stale-banner-${scheme}.png`);
          await page.screenshot({ path: file, clip: { x: 0, y: 0, width: 1280, height: 200 } });
          expect(fs.statSync(file).size).toBeGreaterThan(0);
        }
        await page.emulateMedia({ colorScheme: "light" });
      }

      // Every page, freshly loaded (server-rendered, then live), shows it too, at once: what
      // it would read from the API server on demand says why it cannot instead of waiting.
      for (const url of PAGES.slice(1)) {
        await open(page, dash + url);
        await expect(banner, url).toContainText(CAUSE, { timeout: SEEN });
        await expect(mark, url).toHaveAttribute("data-live", "stale");
      }
      await expect(page.locator(".content")).toContainText(CAUSE);

      await backend.startStorage();
      const started = Date.now();
      await expect(banner).toHaveCount(0, { timeout: RECOVERY });
      await expect(mark).toHaveAttribute("data-live", "live");
      console.log(`[${backend.name}] banner gone ${Date.now() - started} ms after the storage returned`);
      await expect.poll(async () => (await fetch(`${dash}/readyz`)).status, { timeout: RECOVERY }).toBe(200);
      // The DaemonSet page's revision history is read on demand; while the cluster cannot be
      // read the server function refuses at once (HTTP 500 with the cause, shown in the panel)
      // instead of waiting out kube-apiserver's timeout. The browser logs that refusal; nothing
      // else may fail.
      const refused = "Failed to load resource: the server responded with a status of 500 (Internal Server Error)";
      expect(errors.filter((e) => e !== refused)).toEqual([]);
      expect(errors.length).toBeLessThanOrEqual(1);
    });
  });
}
