// Shared helpers for the browser and interop tests (node --test e2e/).
// Starts the real mcphost binary on a free loopback port and Debian's
// Chromium through playwright-core (never a downloaded browser).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const binary = process.env.MCPHOST_BIN || path.join(root, "bin", "mcphost");

/**
 * Starts `bin/mcphost -addr 127.0.0.1:0 ...args` and resolves once it prints
 * its URL. Returns { url, wsUrl, proc, stop, logs }.
 */
export async function startMcphost(args = [], { cwd = root, env = {} } = {}) {
  const proc = spawn(binary, ["-addr", "127.0.0.1:0", ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const logs = [];
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("mcphost did not print its URL in 20 s:\n" + logs.join(""))), 20000);
    // The "serving" line, not any URL: -upstream logs its upstream's first.
    const onData = (d) => {
      logs.push(d.toString());
      const m = logs.join("").match(/mcphost: serving (?:http|ws):\/\/(127\.0\.0\.1:\d+)\//);
      if (m) { clearTimeout(timer); resolve(`http://${m[1]}/`); }
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", onData);
    proc.on("exit", (code) => { clearTimeout(timer); reject(new Error(`mcphost exited (${code}):\n${logs.join("")}`)); });
  });
  const wsUrl = url.replace(/^http/, "ws") + "mcp";
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const done = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    const t = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await done;
    clearTimeout(t);
  };
  return { url, wsUrl, proc, stop, logs };
}

/**
 * Launches headless Debian Chromium with the flags this machine needs.
 * Optional: `args`, more command-line flags after those (e.g.
 * `--host-resolver-rules=MAP chat.test 127.0.0.1`), and any other
 * launchPersistentContext option (e.g. `ignoreHTTPSErrors: true`).
 */
export async function launchBrowser({ args = [], ...options } = {}) {
  const userDataDir = mkdtempSync(path.join(tmpdir(), "mcphost-chromium-"));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    ...options,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", ...args],
  });
  const close = async () => { await browser.close(); rmSync(userDataDir, { recursive: true, force: true }); };
  return { context: browser, close };
}

/**
 * Records the page's long tasks as window.longTasks and its long animation
 * frames, which say which scripts ran in a task, as window.frames
 * (buffered: earlier ones are reported too; filter them by time).
 */
export async function observeLongTasks(page) {
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
    window.frames = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) {
        window.frames.push({ start: e.startTime, duration: e.duration, scripts: e.scripts.map((x) => ({ start: x.startTime, duration: x.duration, src: x.sourceURL })) });
      }
    }).observe({ type: "long-animation-frame", buffered: true });
  });
}

/**
 * Over the long tasks longer than over ms that ended after t0 (recorded by
 * observeLongTasks), resolves with { task: the longest, ours: the most time
 * mcphost's scripts took in one }. The rest of a task is the browser's own
 * work (dispatching thousands of WebSocket messages, style and paint) or
 * the machine taking the CPU away; a task no frame reports counts whole.
 */
export function mcphostInLongTasks(page, t0, over = 0) {
  return page.evaluate(([t0, over]) => {
    const ours = /\/(mcphost|socket|wasm_exec|mention|display|render-worker)\.js$/;
    let task = 0;
    let most = 0;
    for (const t of window.longTasks.filter((t) => t.start + t.duration > t0 && t.duration > over)) {
      task = Math.max(task, t.duration);
      let sum = 0;
      for (const f of window.frames) {
        for (const x of f.scripts) {
          if (ours.test(x.src) && x.start < t.start + t.duration && x.start + x.duration > t.start) sum += x.duration;
        }
      }
      const seen = window.frames.some((f) => f.start <= t.start + t.duration && f.start + f.duration >= t.start);
      most = Math.max(most, seen ? sum : t.duration);
    }
    return { task, ours: most };
  }, [t0, over]);
}
