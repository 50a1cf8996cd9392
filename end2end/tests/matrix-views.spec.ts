// The matrix's views (issue 13 items 1, 2 and 6) on scenarios/demo.yaml: rows grouped by zone
// (the demo has no pool label) with collapsible headers, the Kubernetes label selector, the
// DaemonSet column filter, the header's figures, and keyboard movement across group headers.
// Every choice lives in the URL, so each case starts from a URL a person could share.
import { test, expect } from "./fixtures/matrix-page";
import type { Page } from "@playwright/test";

const ZONES = ["eu-west-1a", "eu-west-1b", "eu-west-1c"];

async function rowNames(page: Page): Promise<string[]> {
  return page.locator("tr[data-row]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-row") ?? ""));
}

async function focused(page: Page): Promise<[string | null, string | null]> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return [el?.getAttribute("data-node") ?? null, el?.getAttribute("data-daemonset") ?? null];
  });
}

test("rows are grouped by zone by default, each header with its size, and a header collapses its rows", async ({ matrix, page }) => {
  await matrix.goto();
  const heads = page.locator("tr.group-head");
  await expect(heads).toHaveCount(3);
  expect(await heads.evaluateAll((hs) => hs.map((h) => h.getAttribute("data-group")))).toEqual(ZONES);
  await expect(heads.first()).toContainText("4 nodes");
  await expect(page.getByTestId("group")).toHaveValue("topology.kubernetes.io/zone");
  // One count (or ✓) per DaemonSet column under each header.
  await expect(heads.first().locator("td.group-cell")).toHaveCount(7);
  await expect(matrix.rows).toHaveCount(12);

  await heads.first().locator("a").click();
  await expect(page).toHaveURL(/collapse=eu-west-1a/);
  await expect(matrix.rows).toHaveCount(8);
  await expect(page.locator('tr.group-head[data-group="eu-west-1a"]')).toHaveAttribute("data-collapsed", "true");
  await expect(matrix.row("cp-1")).toHaveCount(0);

  await page.locator('tr.group-head[data-group="eu-west-1a"] a').click();
  await expect(matrix.rows).toHaveCount(12);

  await matrix.goto("?group=none");
  await expect(heads).toHaveCount(0);
  expect(await rowNames(page)).toEqual([...(await rowNames(page))].sort());
});

test("a label selector keeps the nodes it matches, and a bad one is a note, not an empty page", async ({ matrix, page }) => {
  await matrix.goto("?selector=workload-type%3Dgpu&group=none");
  expect(await rowNames(page)).toEqual(["gpu-1", "gpu-2"]);

  await matrix.goto("?selector=workload-type+in+(gpu)%2C!node-role.kubernetes.io%2Fcontrol-plane");
  expect((await rowNames(page)).sort()).toEqual(["gpu-1", "gpu-2"]);

  await matrix.goto("?selector=a+in+b");
  await expect(page.getByTestId("query-notes")).toContainText("is not valid");
  await expect(matrix.rows).toHaveCount(12);

  // Typed into the form: the URL carries it, so the view can be shared.
  await matrix.goto();
  await page.getByTestId("selector").fill("!workload-type");
  await page.getByTestId("selector").press("Enter");
  await expect(page).toHaveURL(/selector=/);
  await expect(matrix.row("gpu-1")).toHaveCount(0);
  await expect(matrix.row("worker-1")).toHaveCount(1);
  await expect(matrix.row("cp-1")).toHaveCount(1);
});

test("a DaemonSet filter shows its columns only, and with a state answers which nodes miss it", async ({ matrix, page }) => {
  await matrix.goto("?ds=monitoring%2F");
  const columns = await page.locator("th.ds-col").evaluateAll((cs) => cs.map((c) => c.getAttribute("data-daemonset")));
  expect(columns.sort()).toEqual(["monitoring/gpu-monitor", "monitoring/node-exporter"]);
  await expect(page.locator('tr[data-row="cp-1"] button.cell')).toHaveCount(2);

  // falco's pod is blocked on worker-3 (matrix.spec.ts): the one node missing it.
  await matrix.goto("?ds=security%2Ffalco&state=missing");
  expect(await rowNames(page)).toEqual(["worker-3"]);
  await matrix.expectState("worker-3", "security/falco", "missing");
});

test("the header says how many nodes, DaemonSets and nodes with problems, and links to them", async ({ matrix, page }) => {
  await matrix.goto();
  await expect(page.getByTestId("glance-nodes")).toHaveText("12 nodes");
  await expect(page.getByTestId("glance-daemonsets")).toHaveText("7 DaemonSets");
  const problems = page.getByTestId("glance-problems");
  await expect(problems).toContainText("with problems");
  await problems.click();
  await expect(page).toHaveURL(/problems=1/);
  await expect(page.getByTestId("problems")).toHaveValue("1");
  await expect(page.getByTestId("sort")).toHaveValue("problems");
  // Sorted by problems within each zone group: no row has more problem cells than the row
  // above it, and rows with as many are in name order. One read of the table, so a live update
  // cannot land between two rows' counts.
  // Each cell says whether it is a problem (`data-problem`, the one definition in
  // crates/domain/src/coverage/problem.rs: an outdated cell counts only when its rollout stalled).
  const groups = await page.locator("table tbody tr").evaluateAll((trs) => {
    const out: { group: string; rows: { name: string; problems: number }[] }[] = [];
    for (const tr of trs) {
      if (tr.classList.contains("group-head")) {
        out.push({ group: tr.getAttribute("data-group") ?? "", rows: [] });
      } else if (tr.hasAttribute("data-row")) {
        if (out.length === 0) out.push({ group: "(none)", rows: [] });
        const problems = tr.querySelectorAll('button.cell[data-problem="true"]').length;
        out[out.length - 1].rows.push({ name: tr.getAttribute("data-row") ?? "", problems });
      }
    }
    return out;
  });
  const shown = groups.flatMap((g) => g.rows);
  expect(groups.map((g) => g.group), "groups in zone order").toEqual(ZONES.filter((z) => groups.some((g) => g.group === z)));
  // At least worker-3 (falco blocked), worker-1 (node-exporter crash-looping) and worker-6
  // (NotReady) have problem cells in the demo.
  expect(shown.length, JSON.stringify(groups)).toBeGreaterThanOrEqual(3);
  expect(shown.every((r) => r.problems > 0), JSON.stringify(groups)).toBe(true);
  for (const g of groups) {
    const sorted = [...g.rows].sort((a, b) => b.problems - a.problems || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    expect(g.rows, `rows of ${g.group} sorted by problems, then name`).toEqual(sorted);
  }
  // The header's figure counts the rows shown (read together: the demo's rollouts move on).
  await expect
    .poll(() =>
      page.evaluate(() => {
        const text = document.querySelector('[data-testid="glance-problems"]')?.textContent ?? "";
        return text === `${document.querySelectorAll("tr[data-row]").length} nodes with problems`;
      }),
    )
    .toBe(true);
});

test("while node-exporter rolls, a node whose only non-ready cell is outdated is not a problem", async ({ matrix, page }) => {
  // The demo's node-exporter rollout moves for the first `--stall-after` (5 min): its
  // outdated cells are the rollout doing its job (§d.3), so they are not problems.
  await matrix.goto("?problems=0&group=none");
  const badge = page.locator('th.ds-col[data-daemonset="monitoring/node-exporter"] .pace-badge');
  await expect(badge).toHaveCount(1);
  await expect(badge, "the rollout has not stalled yet").not.toHaveAttribute("data-pace", "stalled");
  const rows = await page.locator("tr[data-row]").evaluateAll((trs) =>
    trs.map((tr) => {
      const cells = Array.from(tr.querySelectorAll("button.cell"));
      const other = cells.filter((c) => !["ready", "excluded", "outdated"].includes(c.getAttribute("data-state") ?? ""));
      const outdated = cells.filter((c) => c.getAttribute("data-state") === "outdated");
      return {
        name: tr.getAttribute("data-row") ?? "",
        onlyOutdated: other.length === 0 && outdated.length > 0,
        outdatedProblem: outdated.some((c) => c.getAttribute("data-problem") === "true"),
      };
    }),
  );
  const onlyOutdated = rows.filter((r) => r.onlyOutdated).map((r) => r.name);
  expect(onlyOutdated.length, `some node has only an outdated cell: ${JSON.stringify(rows)}`).toBeGreaterThan(0);
  expect(rows.filter((r) => r.outdatedProblem), "no outdated cell is a problem while the rollout moves").toEqual([]);

  await matrix.goto("?problems=1&group=none");
  const shown = await rowNames(page);
  expect(shown.length, "worker-3's missing falco at least").toBeGreaterThan(0);
  for (const name of onlyOutdated) expect(shown, `${name} is not listed as a problem`).not.toContain(name);
  // The header's figure and the filter agree (read together: the demo moves on).
  await expect
    .poll(() =>
      page.evaluate(() => {
        const text = document.querySelector('[data-testid="glance-problems"]')?.textContent ?? "";
        const n = document.querySelectorAll("tr[data-row]").length;
        return text === `${n} node${n === 1 ? "" : "s"} with problems`;
      }),
    )
    .toBe(true);
});

test("the arrow keys step over group headers", async ({ matrix, page }) => {
  await matrix.goto();
  const names = await rowNames(page);
  const lastOfFirstZone = names[3];
  const firstOfSecondZone = names[4];
  const column = await matrix.row(lastOfFirstZone).locator("button.cell").first().getAttribute("data-daemonset");
  await matrix.cell(lastOfFirstZone, column ?? "").focus();
  await page.keyboard.press("ArrowDown");
  expect(await focused(page)).toEqual([firstOfSecondZone, column]);
  await page.keyboard.press("ArrowUp");
  expect(await focused(page)).toEqual([lastOfFirstZone, column]);
});
