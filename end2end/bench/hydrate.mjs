// Time to interactive on the demo (issue 23 item 0): navigation → the matrix hydrated.
//
//   node end2end/bench/hydrate.mjs [--runs 9] [--bin target/debug/daemonscope]
//
// Starts `daemonscope serve --demo` on a free port, then --runs times opens `/` in a fresh
// headless Chromium context (nothing cached) and takes the time from navigation until
// `main[data-hydrated=true]` (the WASM has hydrated the page and a click works). Prints the
// median and the max, and the WASM's bytes on the wire.
import { chromium } from "@playwright/test";
import * as path from "node:path";
import { ROOT, arg, quantile, startDashboard } from "./common.mjs";

const RUNS = Number(arg("runs", "9"));
const BIN = path.resolve(ROOT, arg("bin", "target/debug/daemonscope"));

const { base, server } = await startDashboard(BIN, []);

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
const times = [];
let wasmBytes = 0;
for (let i = 0; i < RUNS; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const wasmIds = new Set();
  let bytes = 0;
  cdp.on("Network.responseReceived", (e) => {
    if (e.response.url.endsWith(".wasm")) wasmIds.add(e.requestId);
  });
  cdp.on("Network.loadingFinished", (e) => {
    if (wasmIds.has(e.requestId)) bytes += e.encodedDataLength;
  });
  const t0 = performance.now();
  await page.goto(`${base}/`);
  await page.locator('main[data-hydrated="true"]').waitFor({ timeout: 60_000 });
  times.push(performance.now() - t0);
  wasmBytes = Math.max(wasmBytes, bytes);
  await context.close();
}
await browser.close();
server.kill("SIGKILL");
console.log(
  `navigation → hydrated (${RUNS} fresh contexts): median ${quantile(times, 0.5).toFixed(0)} ms, ` +
    `max ${Math.max(...times).toFixed(0)} ms; WASM on the wire ${(wasmBytes / 1024 / 1024).toFixed(2)} MiB`,
);
process.exit(0);
