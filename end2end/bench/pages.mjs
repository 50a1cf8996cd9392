// Page benchmark (issue 13 item 3): what a browser pays for the matrix of a large cluster.
//
//   node end2end/bench/pages.mjs [--generate nodes=5000,daemonsets=30,seed=1] [--runs 40]
//        [--bin target/release/daemonscope] [--paths "/,/node/{node},/ds/{ds}"]
//
// Starts `daemonscope serve --demo --generate SPEC` on a free port and waits for /readyz, then:
// - SSR: --runs sequential GETs of `/` and `/?problems=1` (after 3 warm-ups), gzip asked as a
//   browser asks; p50/p99/max of the time to the last byte, the HTML's size raw and on the wire;
// - browser: headless Chromium loads each page in a fresh context and reports the time to
//   interactive (navigation → `main[data-hydrated=true]`, the WASM has hydrated), the time until
//   the page's live feed has sent its first message (`data-live=live`), every byte received on
//   the wire (CDP Network.dataReceived, SSE included) until then, and the bytes the live feed
//   sends in the following 10 s (patches of the window while the cluster changes), split by
//   URL so the matrix is seen never to be downloaded whole.
// --paths picks the pages (comma-separated); `{node}` stands for the first node by name and `{ds}`
// for the first DaemonSet by key, read from the server's own window once it has converged.
// Build first: `make release` (release WASM in target/site, release server).
import { chromium } from "@playwright/test";
import * as http from "node:http";
import * as path from "node:path";
import { ROOT, arg, quantile, sleep, startDashboard } from "./common.mjs";

const SPEC = arg("generate", "nodes=5000,daemonsets=30,seed=1");
const RUNS = Number(arg("runs", "40"));
const BIN = path.resolve(ROOT, arg("bin", "target/release/daemonscope"));
const PATH_ARG = arg("paths", "/,/?problems=1");

const ms = (x) => `${x.toFixed(0)} ms`;
const kb = (x) => `${(x / 1024).toFixed(0)} KiB`;

const started = Date.now();
const { base, server, readyAfterMs } = await startDashboard(BIN, ["--generate", SPEC], 300_000);
console.log(`cluster ${SPEC}: server ready after ${ms(readyAfterMs)} (${BIN})`);

// The sim creates the daemon pods after the first sync: measure the converged cluster, i.e.
// once no cell is missing its pod and the ready pods summed over /metrics have not changed
// for 20 s. The count alone is not enough: while the dashboard relists pods after a 410 (the
// sim's watch history overflows during the first creation burst) it stands still for ~20 s.
const metricSum = (text, name) =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`daemonscope_daemonset_${name}{`))
    .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
let [settled, seen, missing, since] = [false, -1, -1, Date.now()];
while (!settled && Date.now() - started < 600_000) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const n = metricSum(text, "ready");
  missing = metricSum(text, "missing");
  if (n !== seen) [seen, since] = [n, Date.now()];
  settled = n > 0 && missing === 0 && Date.now() - since > 20_000;
  await sleep(1000);
}
console.log(
  `${settled ? "converged" : "NOT converged within 10 min"}: ${seen} ready daemon pods, ${missing} missing, after ${ms(Date.now() - started)}`,
);

// The first node and DaemonSet of the matrix, for `{node}` and `{ds}` in --paths.
const firstWindow = async () => {
  const res = await fetch(`${base}/api/view?problems=0&group=none`);
  const reader = res.body.getReader();
  let text = "";
  while (!text.includes("\n\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  const data = text.split("\n").find((l) => l.startsWith("data:"));
  return JSON.parse(data.slice(5)).Window;
};
const first = PATH_ARG.includes("{") ? await firstWindow() : null;
const PATHS = PATH_ARG.split(",").map((p) =>
  p.replace("{node}", first?.rows[0]?.name ?? "").replace("{ds}", first?.daemonsets[0]?.key ?? ""),
);

for (const p of PATHS) {
  const times = [];
  let raw = 0;
  for (let i = 0; i < RUNS + 3; i++) {
    const t0 = performance.now();
    // Node's fetch decompresses; the wire size comes from a separate count below.
    const res = await fetch(base + p, { headers: { "accept-encoding": "gzip" } });
    const body = await res.text();
    if (i >= 3) times.push(performance.now() - t0);
    raw = Buffer.byteLength(body);
  }
  const gz = await new Promise((resolve, reject) => {
    http
      .get(base + p, { headers: { "accept-encoding": "gzip" } }, (res) => {
        let n = 0;
        res.on("data", (c) => (n += c.length));
        res.on("end", () => resolve(n));
      })
      .on("error", reject);
  });
  console.log(
    `SSR ${p}: p50 ${ms(quantile(times, 0.5))}, p99 ${ms(quantile(times, 0.99))}, max ${ms(Math.max(...times))} over ${RUNS} runs; HTML ${kb(raw)} raw, ${kb(gz)} gzip on the wire`,
  );
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
for (const p of PATHS) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  let bytes = 0;
  const urls = new Map();
  const byUrl = new Map();
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, new URL(e.request.url).pathname));
  cdp.on("Network.dataReceived", (e) => {
    bytes += e.encodedDataLength;
    const u = urls.get(e.requestId) ?? "?";
    byUrl.set(u, (byUrl.get(u) ?? 0) + e.encodedDataLength);
  });
  const t0 = Date.now();
  await page.goto(base + p, { waitUntil: "commit", timeout: 120_000 });
  await page.locator('main[data-hydrated="true"]').waitFor({ timeout: 120_000 });
  const tti = Date.now() - t0;
  await page.locator('[data-live="live"]').waitFor({ timeout: 120_000 });
  const live = Date.now() - t0;
  const atLive = bytes;
  const feedAtLive = [...byUrl].filter(([u]) => u.startsWith("/api/view") || u.startsWith("/api/live")).reduce((n, [, b]) => n + b, 0);
  await sleep(10_000);
  const feedAfter = [...byUrl].filter(([u]) => u.startsWith("/api/view") || u.startsWith("/api/live")).reduce((n, [, b]) => n + b, 0);
  const top = [...byUrl].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([u, b]) => `${u} ${kb(b)}`).join(", ");
  console.log(
    `browser ${p}: interactive after ${ms(tti)}, live after ${ms(live)}; ${kb(atLive)} received until live (live feed ${kb(feedAtLive)}), then ${kb(feedAfter - feedAtLive)} of live updates in 10 s; by URL: ${top}`,
  );
  await context.close();
}
await browser.close();
server.kill("SIGKILL");
