// Playwright against Debian's Chromium (/usr/bin/chromium): never run `npx playwright install`.
// Each worker starts the real binary on the embedded demo cluster (scenarios/demo.yaml,
// tests/fixtures/demo.ts); it must be built first (`make build`). DAEMONSCOPE_URL points the
// specs at a running server instead.
import { defineConfig } from "@playwright/test";

/** Specs that run alone, after the others (see `projects`). */
const SOLO = /scale-journey\.spec\.ts/;

export default defineConfig({
  testDir: "./tests",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Two workers: the machines here have two cores, and most of a spec's time is waiting on
  // the page and the cluster. PW_WORKERS overrides; DAEMONSCOPE_URL needs 1 (one shared server).
  workers: process.env.DAEMONSCOPE_URL ? 1 : Number(process.env.PW_WORKERS ?? 2),
  reporter: [["list"]],
  use: {
    trace: "retain-on-failure",
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  // Each worker tests its own demo server (fixtures/demo.ts), so spec files run side by side;
  // the 5,000-node journey (a CPU-bound sim and dashboard) runs alone after them, so that no
  // other spec's timing shares its two cores. To run it alone:
  // `npx playwright test tests/scale-journey.spec.ts --no-deps`.
  projects: [
    { name: "chromium", testIgnore: SOLO },
    { name: "solo", testMatch: SOLO, dependencies: ["chromium"], workers: 1 },
  ],
});
