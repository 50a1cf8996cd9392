// Browser-side hardening (issue 23 item 5): every page of the demo loads, hydrates and follows its
// live feed under the Content-Security-Policy the server sends (`src/web/headers.rs`), with no
// CSP violation and no console error; every response the page receives carries the security
// headers. The policy runs no inline script without the response's nonce: an injected one is
// refused, which also proves the violation listener hears what it should.
import { test, expect, takeTheDocument404 } from "./fixtures/matrix-page";
import type { Page, Response } from "@playwright/test";

/** Every route of src/app.rs, with the what-if previews and an open explanation. */
const PAGES: { name: string; path: string; open?: [string, string]; status?: number }[] = [
  { name: "matrix", path: "/" },
  { name: "matrix, a cell explained", path: "/", open: ["worker-3", "security/falco"] },
  { name: "matrix, problems only", path: "/?problems=1&group=none" },
  { name: "daemonset", path: "/ds/monitoring/node-exporter" },
  { name: "daemonset what-if", path: "/ds/kube-system/log-collector?tolerate=node-role.kubernetes.io%2Fcontrol-plane%3ANoSchedule" },
  { name: "node", path: "/node/infra-1" },
  { name: "node what-if", path: "/node/gpu-1?taint=dedicated%3Dml%3ANoExecute" },
  { name: "pod", path: "/pod/kube-system/log-collector-rgts2" },
  { name: "not found", path: "/ds/kube-system/no-such-daemonset", status: 404 },
];

type Violation = { directive: string; blocked: string; sample: string };

/** Records every `securitypolicyviolation` the page's document sees, from its first byte. */
async function listenForViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: Violation[] = [];
    (window as unknown as { __cspViolations: Violation[] }).__cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => {
      seen.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample });
    });
  });
}

async function violations(page: Page): Promise<Violation[]> {
  return page.evaluate(() => (window as unknown as { __cspViolations: Violation[] }).__cspViolations);
}

/** The headers every response must carry; a page's CSP names its nonce and allows the WASM. */
async function expectSecurityHeaders(response: Response): Promise<void> {
  const h = await response.allHeaders();
  const url = response.url();
  expect(h["x-content-type-options"], url).toBe("nosniff");
  expect(h["referrer-policy"], url).toBe("no-referrer");
  expect(h["x-frame-options"], url).toBe("DENY");
  const csp = h["content-security-policy"] ?? "";
  expect(csp, url).toContain("frame-ancestors 'none'");
  expect(csp, url).not.toContain("unsafe-inline");
  expect(csp, url).not.toContain("'unsafe-eval'");
  if ((h["content-type"] ?? "").startsWith("text/html")) {
    expect(csp, url).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9_-]{22}' 'wasm-unsafe-eval'/);
  } else {
    expect(csp, url).toContain("default-src 'none'");
  }
}

test.describe("Content-Security-Policy", () => {
  for (const { name, path, open, status } of PAGES) {
    test(`${name}: hydrates and goes live with no CSP violation, every response with the headers`, async ({ matrix, page, browserErrors, baseURL }) => {
      await listenForViolations(page);
      const responses: Response[] = [];
      page.on("response", (r) => {
        if (baseURL && r.url().startsWith(baseURL)) responses.push(r);
      });
      const document = await page.goto(path);
      expect(document?.status()).toBe(status ?? 200);
      await matrix.waitForHydration();
      if (status === undefined) await matrix.waitForLive();
      if (open) await matrix.explain(open[0], open[1]);

      // The document, the JS, the WASM, the CSS and the live feed were all seen, each with the headers.
      const urls = responses.map((r) => new URL(r.url()).pathname);
      for (const needed of ["/pkg/daemonscope.js", "/pkg/daemonscope_bg.wasm", "/pkg/daemonscope.css"]) {
        expect(urls, `${needed} loaded`).toContain(needed);
      }
      if (status === undefined) expect(urls.some((u) => u.startsWith("/api/")), `a live feed among ${urls}`).toBe(true);
      for (const r of responses) await expectSecurityHeaders(r);

      expect(await violations(page)).toEqual([]);
      if (status === 404) takeTheDocument404(browserErrors);
    });
  }

  test("an injected inline script is refused and reported (the listener hears violations)", async ({ matrix, page, browserErrors }) => {
    await listenForViolations(page);
    await matrix.goto();
    await page.evaluate(() => {
      const s = document.createElement("script");
      s.textContent = "window.__injectedRan = true;";
      document.head.appendChild(s);
    });
    await expect.poll(async () => (await violations(page)).length).toBe(1);
    const [v] = await violations(page);
    expect(v.directive).toBe("script-src-elem");
    expect(v.blocked).toBe("inline");
    expect(await page.evaluate(() => (window as unknown as { __injectedRan?: boolean }).__injectedRan)).toBeUndefined();
    // Chromium also logs the refusal as a console error: that one is expected here.
    const i = browserErrors.findIndex((e) => e.includes("Content Security Policy"));
    expect(i, "the refusal is on the console").toBeGreaterThanOrEqual(0);
    browserErrors.splice(i, 1);
  });

  test("moving between pages in the browser keeps to the policy", async ({ matrix, page }) => {
    await listenForViolations(page);
    await matrix.goto();
    await page.locator('a[href="/ds/monitoring/node-exporter"]').first().click();
    await expect(page).toHaveURL("/ds/monitoring/node-exporter");
    await matrix.waitForLive();
    await page.locator('a[href^="/node/"]').first().click();
    await expect(page).toHaveURL(/\/node\//);
    await matrix.waitForLive();
    expect(await violations(page)).toEqual([]);
  });
});
