// Playwright against Debian's Chromium (/usr/bin/chromium): never run `npx playwright install`.
// The server is the real binary on the embedded demo cluster (scenarios/demo.yaml); it must be
// built first (`make build`). Override the address with DAEMONSCOPE_URL to test a running server.
import { defineConfig } from "@playwright/test";

const baseURL = process.env.DAEMONSCOPE_URL ?? "http://127.0.0.1:3000";

export default defineConfig({
  testDir: "./tests",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL,
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
  projects: [{ name: "chromium" }],
  webServer: process.env.DAEMONSCOPE_URL
    ? undefined
    : {
        command: "cd .. && ./target/debug/daemonscope serve --demo",
        // /readyz: the first sync is done, so the first page already shows the whole cluster.
        url: `${baseURL}/readyz`,
        reuseExistingServer: true,
        timeout: 60_000,
        stdout: "pipe",
        stderr: "pipe",
      },
});
