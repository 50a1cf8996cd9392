// Playwright against Debian's Chromium (/usr/bin/chromium): never run `npx playwright install`.
// Each worker starts the real binary on the embedded demo cluster (scenarios/demo.yaml,
// tests/fixtures/demo.ts); it must be built first (`make build`). DAEMONSCOPE_URL points the
// specs at a running server instead.
import { defineConfig } from "@playwright/test";

/** Specs that run alone, after the others (see `projects`). */
const SOLO = /scale-journey\.spec\.ts/;
/** Specs that mostly wait on a cluster's clock (a rollout's pace, a new node's grace, kubectl
 * changes reaching Kubernetes' own control plane, an API server losing its storage), each with
 * its own servers: they run in a worker of their own beside the others (see `projects`). */
const WAITS = /(pace|grace|live-kubectl|stale-storage)\.spec\.ts/;

export default defineConfig({
  testDir: "./tests",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Three workers: two for the specs that keep both cores busy (the machines here have two),
  // one for the specs that mostly wait (`WAITS`). PW_WORKERS overrides; DAEMONSCOPE_URL needs 1
  // (one shared server).
  workers: process.env.DAEMONSCOPE_URL ? 1 : Number(process.env.PW_WORKERS ?? 3),
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
  // Each worker tests its own demo server (fixtures/demo.ts), so spec files run side by side.
  // The specs that wait (`WAITS`) spent most of their ~4 minutes idle at the end of the run when
  // they shared the two workers with the rest (the run's last two minutes left the cores ~70 %
  // idle); in a third worker of their own they wait while the others compute. The 5,000-node
  // journey (a CPU-bound sim and dashboard) runs alone after them all, so that no other spec's
  // timing shares its two cores. To run it alone:
  // `npx playwright test tests/scale-journey.spec.ts --no-deps`.
  projects: [
    { name: "chromium", testIgnore: [SOLO, WAITS], workers: 2 },
    { name: "waits", testMatch: WAITS, workers: 1 },
    { name: "solo", testMatch: SOLO, dependencies: ["chromium", "waits"], workers: 1 },
  ],
});
