// Repaint benchmark (issue 27 item 6): how long from a change in the cluster to the changed
// cell repainted in Chromium, on the demo.
//
//   node end2end/bench/repaint.mjs [--runs 40] [--bin target/debug/daemonscope] [--trace [--dump]]
//
// Starts `daemonscope serve --demo` on a free port, opens the matrix in headless Chromium,
// waits for hydration and the live feed, then --runs times: a NoExecute taint on worker-2
// (a JSON merge patch to the demo's API server, as `kubectl taint` sends), timed until the
// log-collector cell of worker-2 shows another state; then the taint is removed and the
// same time is taken back to its first state. Each change is made after a quiet second, so a
// sample is "one change after a quiet period", the case a person sees. Prints p50/p90/max.
import { chromium } from "@playwright/test";
import * as path from "node:path";
import { ROOT, arg, quantile, sleep, startDashboard } from "./common.mjs";

const RUNS = Number(arg("runs", "40"));
const BIN = path.resolve(ROOT, arg("bin", "target/debug/daemonscope"));
const NODE = "worker-2";
const CELL = `button.cell[data-node="${NODE}"][data-daemonset="kube-system/log-collector"]`;


const { base, server } = await startDashboard(BIN, []);

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
// --trace: every live message's arrival in the browser (DevTools' EventSource events), so a
// slow sample says whether the server sent late or the page painted late.
const TRACE = process.argv.includes("--trace");
const DUMP = process.argv.includes("--dump"); // --trace --dump: and each message's JSON
const arrivals = [];
if (TRACE) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  cdp.on("Network.eventSourceMessageReceived", (e) =>
    arrivals.push({ at: performance.now(), event: e.eventName, bytes: e.data.length, data: e.data }),
  );
}
await page.goto(`${base}/?problems=0&group=none`);
await page.locator('main[data-hydrated="true"]').waitFor();
await page.locator('[data-live="live"]').waitFor();
const header = await page.getByTestId("cluster").innerText();
const sim = header.match(/https?:\/\/[\w.\-]+:\d+/)?.[0];
if (!sim) throw new Error(`no API server URL in the header "${header}"`);

const setTaints = async (taints) => {
  const res = await fetch(`${sim}/api/v1/nodes/${NODE}`, {
    method: "PATCH",
    headers: { "Content-Type": "application/merge-patch+json" },
    body: JSON.stringify({ spec: { taints } }),
  });
  if (!res.ok) throw new Error(`PATCH node ${NODE}: ${res.status} ${await res.text()}`);
};
const state = () => page.locator(CELL).getAttribute("data-state");
/** Applies `change` and returns the ms until the cell's data-state is no longer `from`. */
const timeRepaint = async (from, change) => {
  const changed = page.waitForFunction(
    ([sel, old]) => document.querySelector(sel)?.getAttribute("data-state") !== old,
    [CELL, from],
    { polling: "raf", timeout: 10_000 },
  );
  const t0 = performance.now();
  await change();
  await changed;
  const took = performance.now() - t0;
  if (TRACE) {
    const after = arrivals.filter((a) => a.at >= t0 && a.at <= t0 + took + 5);
    const offset = (a) => `+${(a.at - t0).toFixed(0)}ms`;
    if (DUMP) for (const a of after) console.log(`  ${offset(a)} ${a.data}`);
    const shown = after
      .map((a) => `${offset(a)} ${a.event} ${a.bytes}B${a.data.includes(NODE) ? ` (names ${NODE})` : ""}`)
      .join("; ");
    console.log(`${from} -> changed in ${took.toFixed(0)} ms; messages: ${shown || "none"}`);
  }
  return took;
};

const first = await state();
const samples = [];
for (let i = 0; i < RUNS; i++) {
  await sleep(1000);
  samples.push(
    await timeRepaint(first, () =>
      setTaints([{ key: "example.com/maintenance", value: "true", effect: "NoExecute" }]),
    ),
  );
  // The pod evicted (§a.7): the cell settles at excluded before the next quiet second.
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.getAttribute("data-state") === "excluded",
    CELL,
    { timeout: 30_000 },
  );
  await sleep(1000);
  samples.push(await timeRepaint("excluded", () => setTaints([])));
  await page.waitForFunction(
    ([sel, want]) => document.querySelector(sel)?.getAttribute("data-state") === want,
    [CELL, first],
    { timeout: 30_000 },
  );
}
await browser.close();
server.kill("SIGKILL");
const fmt = (x) => `${x.toFixed(0)} ms`;
console.log(
  `repaint after one change (${samples.length} samples): p50 ${fmt(quantile(samples, 0.5))}, ` +
    `p90 ${fmt(quantile(samples, 0.9))}, max ${fmt(Math.max(...samples))}`,
);
// Every sample in the order taken (taint on, off, on, …): an outlier shows whether it is one
// late cut (~200 ms, the coalescing window), the first one, or the machine's load.
console.log(`samples: ${samples.map((x) => x.toFixed(0)).join(" ")} ms`);
process.exit(0);
