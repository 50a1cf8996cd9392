// What the benchmarks here share: the repository root, command-line flags, a free loopback
// port, sleeping and quantiles.
import * as net from "node:net";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The value after `--name` on the command line, or `fallback`. */
export const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};

/** A free loopback port (bound and released: the caller binds it right after). */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The q-quantile (0..1) of `xs`, nearest rank. */
export const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

/**
 * Starts `BIN serve --demo ARGS --listen <free port>` from the repository root, kills it when
 * the process exits, and resolves with its base URL and process once `/readyz` answers 200
 * (the first sync is done), or rejects after `timeoutMs`.
 */
export async function startDashboard(bin, args, timeoutMs = 60_000) {
  const { spawn } = await import("node:child_process");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  const server = spawn(bin, ["serve", "--demo", ...args, "--listen", `127.0.0.1:${port}`], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  process.on("exit", () => server.kill("SIGKILL"));
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return { base, server, readyAfterMs: Date.now() - started };
    } catch {
      // not up yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`${bin} was not ready within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}
