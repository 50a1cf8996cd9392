// Nobody in without a login (issue 23, item 4): the chart's oauth2-proxy in front of the demo
// dashboard, with oauth2-proxy's own mockoidc as the OIDC provider (tools/ship/cmd/mockoidc),
// all three as local processes on free loopback ports. oauth2-proxy runs with the arguments the
// chart renders (`helm template`, deploy/helm/daemonscope), only addresses changed, so this is
// the chart's login as installed. Needs `make ship` (helm, oauth2-proxy, mockoidc) and `make build`.
import { test, expect, type APIRequestContext } from "@playwright/test";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ROOT, freePort, kill, startDaemonscope, waitForHttp } from "./fixtures/backend";
import { getNode, setTaints, simUrl } from "./fixtures/sim";

const SHIP = path.join(ROOT, ".tools/ship/bin");
const CLIENT_SECRET = "login-spec-secret";

/** The oauth2-proxy arguments of the chart's Deployment for these values (`helm template`). */
function chartProxyArgs(dir: string, values: string): string[] {
  const file = path.join(dir, "values.yaml");
  fs.writeFileSync(file, values);
  const yaml = execFileSync(
    path.join(SHIP, "helm"),
    ["template", "daemonscope", path.join(ROOT, "deploy/helm/daemonscope"), "-f", file, "--show-only", "templates/deployment.yaml"],
    { env: { ...process.env, HELM_CACHE_HOME: dir, HELM_CONFIG_HOME: dir, HELM_DATA_HOME: dir }, encoding: "utf8" },
  );
  // The container's `args:` list: from "- name: oauth2-proxy" to its `env:`.
  const block = yaml.slice(yaml.indexOf("- name: oauth2-proxy"));
  const args = block.slice(block.indexOf("args:"), block.indexOf("env:"));
  return args
    .split("\n")
    .map((l) => l.match(/^\s+- (--.*)$/)?.[1])
    .filter((a): a is string => !!a)
    .map((a) => a.replace(/^"(.*)"$/, "$1"));
}

function start(bin: string, args: string[], log: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const out = fs.openSync(log, "a");
  const child = spawn(path.join(SHIP, bin), args, { stdio: ["ignore", out, out], env: { ...process.env, ...env } });
  fs.closeSync(out);
  return child;
}

let dir = "";
let proxyURL = "";
let issuer = "";
const children: ChildProcess[] = [];

/** The next login at mockoidc signs in this user. */
async function queueUser(request: APIRequestContext, email: string, groups: string[]): Promise<void> {
  const base = issuer.replace(/\/oidc$/, "");
  const res = await request.post(`${base}/test/queue-user?email=${encodeURIComponent(email)}&groups=${groups.join(",")}`);
  expect(res.status()).toBe(204);
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(90_000);
  for (const bin of ["helm", "oauth2-proxy", "mockoidc"]) {
    expect(fs.existsSync(path.join(SHIP, bin)), `${SHIP}/${bin} (make ship)`).toBe(true);
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "daemonscope-e2e-login-"));
  const [dashPort, oidcPort, proxyPort] = [await freePort(), await freePort(), await freePort()];
  const dashboard = `127.0.0.1:${dashPort}`;
  children.push(startDaemonscope(["serve", "--demo", "--listen", dashboard], path.join(dir, "serve.log")));
  children.push(
    start("mockoidc", ["--listen", `127.0.0.1:${oidcPort}`, "--client-id", "daemonscope", "--client-secret", CLIENT_SECRET], path.join(dir, "mockoidc.log")),
  );
  issuer = `http://127.0.0.1:${oidcPort}/oidc`;
  proxyURL = `http://127.0.0.1:${proxyPort}`;
  // The chart's values as a user would write them for this provider: example.com addresses in
  // the group `sre` get in.
  const args = chartProxyArgs(
    dir,
    [
      "auth:",
      "  oauth2Proxy:",
      `    issuerURL: ${issuer}`,
      "    clientID: daemonscope",
      "    existingSecret: daemonscope-oidc",
      `    redirectURL: ${proxyURL}/oauth2/callback`,
      "    emailDomains: [example.com]",
      "    allowedGroups: [sre]",
      "    cookieSecure: false",
      "",
    ].join("\n"),
  ).map((a) => {
    // The pod's addresses become this machine's free ports; nothing else changes.
    if (a.startsWith("--http-address=")) return `--http-address=127.0.0.1:${proxyPort}`;
    if (a.startsWith("--upstream=")) return `--upstream=http://${dashboard}/`;
    return a;
  });
  expect(args).toContain("--api-route=^/api/");
  await waitForHttp(`${issuer}/.well-known/openid-configuration`, 30_000);
  children.push(
    start("oauth2-proxy", args, path.join(dir, "oauth2-proxy.log"), {
      // The chart passes these from its Secret, as environment variables.
      OAUTH2_PROXY_CLIENT_SECRET: CLIENT_SECRET,
      OAUTH2_PROXY_COOKIE_SECRET: "0123456789abcdef0123456789abcdef",
    }),
  );
  await waitForHttp(`http://${dashboard}/readyz`, 60_000);
  await waitForHttp(`${proxyURL}/readyz`, 30_000);
});

test.afterAll(async () => {
  for (const child of children) await kill(child);
});

test("without a login: the UI redirects to the provider, /api/* answers 401, the probes stay open", async ({ request }) => {
  const ui = await request.get(`${proxyURL}/ds/kube-system/log-collector`, { maxRedirects: 0 });
  expect(ui.status()).toBe(302);
  expect(ui.headers()["location"]).toMatch(new RegExp(`^${issuer}/authorize\\?`));
  for (const api of ["/api/live", "/api/view"]) {
    expect((await request.get(`${proxyURL}${api}`, { maxRedirects: 0 })).status(), api).toBe(401);
  }
  const metrics = await request.get(`${proxyURL}/metrics`, { maxRedirects: 0 });
  expect(metrics.status(), "/metrics needs a login (auth.openMetrics: false)").toBe(302);
  for (const probe of ["/healthz", "/readyz"]) {
    const res = await request.get(`${proxyURL}${probe}`, { maxRedirects: 0 });
    expect(res.status(), probe).toBe(200);
  }
});

test("a signed-in user outside the allowed group gets 403 and no dashboard", async ({ page, request }) => {
  await queueUser(request, "bob@example.com", ["design"]);
  const res = await page.goto(`${proxyURL}/`);
  expect(res?.status()).toBe(403);
  await expect(page.locator("button.cell")).toHaveCount(0);
  // Nor can the API be read with what that login left behind.
  expect((await page.request.get(`${proxyURL}/api/view`, { maxRedirects: 0 })).status()).not.toBe(200);
});

test("a signed-in user of an allowed domain outside example.com is refused too", async ({ page, request }) => {
  await queueUser(request, "eve@example.org", ["sre"]);
  const res = await page.goto(`${proxyURL}/`);
  expect(res?.status()).toBe(403);
  await expect(page.locator("button.cell")).toHaveCount(0);
});

test("an allowed user logs in through the redirect, sees the matrix and a live change", async ({ page, request }) => {
  await queueUser(request, "alice@example.com", ["sre"]);
  const res = await page.goto(`${proxyURL}/`);
  expect(res?.status()).toBe(200);
  expect(page.url()).toBe(`${proxyURL}/`);
  await expect(page.locator("main")).toHaveAttribute("data-hydrated", "true");
  // The live feed comes through the proxy (EventSource /api/live and /api/view, streaming).
  await expect(page.locator("[data-live]")).toHaveAttribute("data-live", "live");
  const cell = page.locator('button.cell[data-node="worker-2"][data-daemonset="kube-system/log-collector"]');
  await expect(cell).toHaveAttribute("data-state", "ready");
  const sim = await simUrl(page);
  const before = (await getNode(request, sim, "worker-2")).spec?.taints ?? [];
  await page.evaluate(() => ((window as unknown as { __noReload: number }).__noReload = 3));
  await setTaints(request, sim, "worker-2", [...before, { key: "example.com/maintenance", value: "true", effect: "NoExecute" }]);
  try {
    await expect(cell).toHaveAttribute("data-state", "excluded", { timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { __noReload?: number }).__noReload)).toBe(3);
  } finally {
    await setTaints(request, sim, "worker-2", before);
  }
  await expect(cell).toHaveAttribute("data-state", "ready", { timeout: 30_000 });
});
