// Issue 27 item 10: every page but the matrix is a lazily loaded WASM module (src/app.rs,
// `#[lazy_route]`; split by tools/wasm-split in `make build-wasm`). The matrix's first visit
// downloads the main module only; another page's module comes when that page is first shown,
// by a client-side navigation or a direct visit, and the page hydrates and works either way.
// The what-if preview's code (its rules, the facts' decoders) is a module of its own too
// (src/pages/whatif/preview.rs, `#[lazy]`): fetched when the matrix's what-if section opens or
// a preview is computed, and preloaded by a shared URL that carries edits.
// The release figures (main module and each chunk, gzip -9) come from `make wasm-size`; this
// spec runs the wasm-dev build and checks the structure.
import type { Page, Request } from "@playwright/test";
import { test, expect } from "./fixtures/matrix-page";

/** split name → the chunk files (stems) it needs, from the splitter's manifest. */
type Manifest = Record<string, string[]>;

/** The `.wasm` files a page requests, by file name. */
function wasmRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (r: Request) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith(".wasm")) seen.push(path.split("/").pop() ?? path);
  });
  return seen;
}

/** The files lazy splits need (sorted, once each): their `split_*` modules and the `chunk_*`
 *  ones they share. A split is named after its function: `node_route`, `daemon_set_route`,
 *  `pod_route` (the pages), `lazy_explanation_body` (the explanation panel's body),
 *  `lazy_preview` (the what-if preview). */
function filesOf(manifest: Manifest, ...splits: string[]): string[] {
  const files = new Set<string>();
  for (const split of splits) {
    const keys = Object.keys(manifest).filter((k) => k.includes(split));
    expect(keys, `one split for ${split} in the manifest`).toHaveLength(1);
    for (const stem of manifest[keys[0]]) files.add(`${stem}.wasm`);
  }
  return [...files].sort();
}

test.describe("lazily loaded pages", () => {
  let manifest: Manifest;

  test.beforeEach(async ({ request }) => {
    const res = await request.get("/pkg/__wasm_split_manifest.json");
    expect(res.ok(), "the splitter's manifest is served").toBe(true);
    manifest = await res.json();
    // The three pages are split off: each has at least its own module.
    for (const split of ["node_route", "daemon_set_route", "pod_route", "lazy_explanation_body", "lazy_preview"]) {
      expect(filesOf(manifest, split).length, split).toBeGreaterThan(0);
    }
  });

  test("the matrix's first visit loads the main module only, and a node page's module on the first click", async ({ matrix, page }) => {
    const wasm = wasmRequests(page);
    const html = await (await page.request.get("/")).text();
    expect(html, "no page module is preloaded by the matrix").not.toMatch(/split_|chunk_/);
    await matrix.goto();
    await matrix.waitForLive();
    await matrix.expectState("worker-1", "kube-system/log-collector", "ready");
    expect(wasm).toEqual(["daemonscope_bg.wasm"]);

    // The first click on a cell brings the explanation panel's body.
    await matrix.explain("worker-1", "kube-system/log-collector");
    const explanation = filesOf(manifest, "lazy_explanation_body");
    expect(wasm.slice(1).sort()).toEqual(explanation);

    // A client-side navigation (same document: the marker survives) fetches the node page's
    // module, and the page is live and interactive.
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await page.locator('a.node-name[href="/node/cp-1"]').click();
    await expect(page).toHaveURL("/node/cp-1");
    await expect(page.getByTestId("node-page")).toHaveAttribute("data-node", "cp-1");
    await matrix.expectState("cp-1", "metallb-system/speaker", "ready");
    const e = await matrix.explain("cp-1", "kube-system/log-collector");
    await expect(matrix.failingReasons(e)).toContainText(["node-role.kubernetes.io/control-plane"]);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    const both = filesOf(manifest, "node_route", "lazy_explanation_body");
    expect(wasm.slice(1).sort()).toEqual(both);

    // Back to the matrix: nothing more to load.
    await page.goBack();
    await expect(page).toHaveURL("/");
    await matrix.expectState("worker-1", "kube-system/log-collector", "ready");
    expect(wasm.length).toBe(1 + both.length);
  });

  test("the what-if preview's module comes when the matrix's what-if section opens, and a shared URL with edits preloads it", async ({ matrix, page }) => {
    const wasm = wasmRequests(page);
    await matrix.goto();
    await matrix.waitForLive();
    expect(wasm, "the first view without edits loads no preview code").toEqual(["daemonscope_bg.wasm"]);
    const preview = filesOf(manifest, "lazy_preview");
    await page.getByTestId("whatif-open").click();
    await expect.poll(() => wasm.slice(1).sort(), { message: "opening the section fetches the preview's module" }).toEqual(preview);
    await page.getByTestId("whatif-taint").fill("dedicated=ml:NoExecute");
    await page.getByTestId("whatif-submit").click();
    await expect(page).toHaveURL("/?taint=dedicated%3Dml%3ANoExecute");
    await expect(page.getByTestId("whatif-summary")).toContainText("would be evicted");
    await expect(page.locator('table.matrix tr[data-row="worker-1"] td:has(button.cell[data-daemonset="kube-system/log-collector"])')).toHaveAttribute("data-whatif", "evict");
    expect(wasm.length, "nothing more was fetched for the preview").toBe(1 + preview.length);

    // The same URL shared: the server renders the preview and preloads its module; the page
    // hydrates it, and dropping the edit there leaves the preview without a reload.
    const shared = "/?taint=dedicated%3Dml%3ANoExecute";
    const html = await (await page.request.get(shared)).text();
    expect(html).toContain('data-whatif="evict" data-node="gpu-1" data-daemonset="kube-system/log-collector"');
    for (const file of preview) expect(html, `preload of ${file}`).toContain(`/pkg/${file}`);
    wasm.length = 0;
    await page.goto(shared);
    await matrix.waitForHydration();
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));
    await expect(page.locator('table.matrix tr[data-row="worker-1"] td:has(button.cell[data-daemonset="kube-system/log-collector"])')).toHaveAttribute("data-whatif", "evict");
    await page.getByRole("link", { name: "drop taint dedicated=ml:NoExecute" }).click();
    await expect(page).toHaveURL("/");
    await expect(page.getByTestId("whatif-banner")).toHaveCount(0);
    await expect(page.locator("table.matrix td[data-whatif]")).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
  });

  test("a direct first visit to a node page preloads its module, hydrates and works", async ({ matrix, page }) => {
    const wasm = wasmRequests(page);
    const node = filesOf(manifest, "node_route");
    const html = await (await page.request.get("/node/cp-1")).text();
    for (const file of node) expect(html, `preload of ${file}`).toContain(`/pkg/${file}`);
    await page.goto("/node/cp-1");
    await matrix.waitForHydration();
    await expect(page.getByTestId("node-page")).toHaveAttribute("data-node", "cp-1");
    const e = await matrix.explain("cp-1", "kube-system/log-collector");
    await expect(matrix.failingReasons(e)).toContainText(["node-role.kubernetes.io/control-plane"]);
    await matrix.waitForLive();
    // The main module, the node page's own and the explanation's (clicked), nothing of the
    // DaemonSet or pod pages'.
    expect([...new Set(wasm)].sort()).toEqual(["daemonscope_bg.wasm", ...filesOf(manifest, "node_route", "lazy_explanation_body")].sort());
  });

  test("a direct first visit to a DaemonSet page and to a pod page hydrates and works", async ({ matrix, page }) => {
    const wasm = wasmRequests(page);
    await page.goto("/ds/kube-system/log-collector");
    await matrix.waitForHydration();
    await expect(page.getByTestId("ds-page")).toHaveAttribute("data-daemonset", "kube-system/log-collector");
    await matrix.waitForLive();
    expect([...new Set(wasm)].sort()).toEqual(["daemonscope_bg.wasm", ...filesOf(manifest, "daemon_set_route")].sort());
    const link = page.locator("a.pod-link").first();
    const name = (await link.innerText()).trim();
    await page.goto(`/pod/kube-system/${name}`);
    await matrix.waitForHydration();
    await expect(page.getByTestId("pod-page")).toHaveAttribute("data-pod", `kube-system/${name}`);
    // From the pod page, a client-side step to its node loads the node page's module.
    await page.getByTestId("pod-node").locator("a").click();
    await expect(page.getByTestId("node-page")).toHaveAttribute("data-node", /.+/);
    await matrix.expectState(await page.getByTestId("node-page").getAttribute("data-node") ?? "", "kube-system/log-collector", "ready");
  });
});
