// The matrix as one keyboard grid (issue 13 item 4): a single tab stop (roving tabindex),
// arrows, Home/End, Ctrl+Home/End, PageUp/PageDown; Enter explains, Escape closes and gives
// the focus back to the cell.
import { test, expect } from "./fixtures/matrix-page";
import type { Page } from "@playwright/test";

/** The (node, daemonset) of the focused element. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const e = document.activeElement;
    return [e?.getAttribute("data-node") ?? "", e?.getAttribute("data-daemonset") ?? ""];
  });

test("the matrix is one tab stop and the arrow keys walk it", async ({ matrix, page }) => {
  await matrix.goto();
  await expect(page.getByRole("grid")).toHaveCount(1);
  const stops = page.locator('table.matrix button.cell[tabindex="0"]');
  await expect(stops).toHaveCount(1);
  await expect(page.locator('table.matrix button.cell[tabindex="-1"]')).toHaveCount((await matrix.cells.count()) - 1);

  const nodes = await matrix.rows.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-row") ?? ""));
  const columns = await matrix.row(nodes[0]).locator("button.cell").evaluateAll((cells) =>
    cells.map((c) => c.getAttribute("data-daemonset") ?? ""),
  );
  // Every node of the demo is on the first page (12 nodes, fewer than a page's 50 rows).
  expect(nodes.length).toBe(12);

  // The grid's one stop is the first cell; Tab from the first row's node link reaches it
  // (the headers and node names are links of their own), Tab again leaves the row's cells.
  await expect(stops).toHaveAttribute("data-node", nodes[0]);
  await expect(stops).toHaveAttribute("data-daemonset", columns[0]);
  await matrix.row(nodes[0]).locator("a.node-name").focus();
  await page.keyboard.press("Tab");
  expect(await focused(page)).toEqual([nodes[0], columns[0]]);
  await page.keyboard.press("ArrowRight");
  expect(await focused(page)).toEqual([nodes[0], columns[1]]);
  await page.keyboard.press("ArrowDown");
  expect(await focused(page)).toEqual([nodes[1], columns[1]]);
  await page.keyboard.press("End");
  expect(await focused(page)).toEqual([nodes[1], columns[columns.length - 1]]);
  await page.keyboard.press("Home");
  expect(await focused(page)).toEqual([nodes[1], columns[0]]);
  await page.keyboard.press("PageDown");
  expect(await focused(page)).toEqual([nodes[Math.min(11, nodes.length - 1)], columns[0]]);
  await page.keyboard.press("Control+End");
  expect(await focused(page)).toEqual([nodes[nodes.length - 1], columns[columns.length - 1]]);
  await page.keyboard.press("ArrowRight"); // the edge: stays
  expect(await focused(page)).toEqual([nodes[nodes.length - 1], columns[columns.length - 1]]);
  await page.keyboard.press("PageUp");
  expect(await focused(page)).toEqual([nodes[Math.max(0, nodes.length - 11)], columns[columns.length - 1]]);
  await page.keyboard.press("Control+Home");
  expect(await focused(page)).toEqual([nodes[0], columns[0]]);
  await page.keyboard.press("ArrowDown");

  // Still one tab stop, and it is the focused cell: Tab leaves the grid, Shift+Tab comes back.
  await expect(stops).toHaveCount(1);
  await expect(stops).toHaveAttribute("data-node", nodes[1]);
  await page.keyboard.press("Tab");
  expect((await focused(page))[1]).toBe("");
  await page.keyboard.press("Shift+Tab");
  expect(await focused(page)).toEqual([nodes[1], columns[0]]);
});

test("the first Tab stop skips to the grid, shown only while focused", async ({ matrix, page }) => {
  await matrix.goto();
  const skip = page.getByRole("link", { name: "Skip to the matrix" });
  // Out of sight until focused (above the viewport's top edge).
  expect((await skip.boundingBox())?.y ?? 0).toBeLessThan(0);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("Tab");
  await expect(skip).toBeFocused();
  const box = await skip.boundingBox();
  expect(box?.y ?? -1, "visible while focused").toBeGreaterThanOrEqual(0);
  await page.keyboard.press("Enter");
  // One key: the focus is on the grid's tab stop, and the arrows walk from there.
  const stop = page.locator('table.matrix button.cell[tabindex="0"]');
  await expect(stop).toBeFocused();
  const first = await focused(page);
  await page.keyboard.press("ArrowDown");
  expect((await focused(page))[1]).toBe(first[1]);
  expect((await focused(page))[0]).not.toBe(first[0]);
});

test("Enter explains the focused cell and Escape closes it, focus back on the cell", async ({ matrix, page }) => {
  await matrix.goto();
  await page.locator('table.matrix button.cell[tabindex="0"]').focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowRight");
  const [node, daemonset] = await focused(page);
  await page.keyboard.press("Enter");
  await expect(matrix.panel.locator(`.explanation[data-node="${node}"][data-daemonset="${daemonset}"]`)).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(matrix.panel.locator(".explanation")).toHaveCount(0);
  expect(await focused(page)).toEqual([node, daemonset]);
  // The walk goes on from there.
  await page.keyboard.press("ArrowLeft");
  expect((await focused(page))[0]).toBe(node);
});
