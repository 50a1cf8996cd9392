// Light and dark (issue 13 item 5): the page follows the system's colour scheme until the user
// picks one with the toggle; the pick persists across reloads and pages.
import { test, expect } from "./fixtures/matrix-page";

const LIGHT_BG = "rgb(246, 247, 249)";
const DARK_BG = "rgb(13, 17, 23)";

const background = (page: import("@playwright/test").Page) =>
  page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test("the page follows prefers-color-scheme", async ({ matrix, page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await matrix.goto();
  await matrix.waitForHydration();
  expect(await background(page)).toBe(DARK_BG);
  // The state colours switch with it: a missing cell stays red on dark, an excluded one dims.
  await page.emulateMedia({ colorScheme: "light" });
  expect(await background(page)).toBe(LIGHT_BG);
});

test("the toggle switches the theme and the choice survives a reload and another page", async ({ matrix, page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await matrix.goto();
  await matrix.waitForHydration();
  await page.getByTestId("theme-toggle").click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await background(page)).toBe(DARK_BG);
  await page.reload();
  await matrix.waitForHydration();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await background(page)).toBe(DARK_BG);
  await matrix.screenshot("matrix-dark");
  await page.goto("/node/cp-1");
  await matrix.waitForHydration();
  expect(await background(page)).toBe(DARK_BG);
  const e = await matrix.explain("cp-1", "kube-system/log-collector");
  await expect(e).toBeVisible();
  await matrix.screenshot("node-cp-1-dark");
  await page.goto("/ds/monitoring/node-exporter");
  await matrix.waitForHydration();
  await matrix.screenshot("ds-node-exporter-dark");
  // Back to light, still by the toggle: the system says dark now, the choice wins.
  await page.emulateMedia({ colorScheme: "dark" });
  await page.getByTestId("theme-toggle").click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await background(page)).toBe(LIGHT_BG);
  await page.reload();
  await matrix.waitForHydration();
  expect(await background(page)).toBe(LIGHT_BG);
});
