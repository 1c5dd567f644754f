// Drives the side-by-side browser bench: starts the scripted peer
// (bench/peer), opens the bench page in headless Debian Chromium
// (playwright-core, never a downloaded browser), runs every suite, prints the
// table of figures and ratios (mcphost ÷ JS stack) and writes
// bench/dist/results.{json,md}.
//
// Usage: node bench/run.mjs --peer PATH_TO_PEER_BINARY [--startup-trials 7] [--reps 15]
//        node bench/run.mjs --report bench/dist/results.json   (re-print a saved run's table)
// (scripts/bench-browser.sh builds everything and calls this).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
const peerBin = args.peer || path.join(root, "bin", "bench-peer");
const startupTrials = Number(args["startup-trials"] || 7);
const reps = Number(args.reps || 15);

function startPeer() {
  const proc = spawn(peerBin, ["-addr", "127.0.0.1:0", "-root", root], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("bench peer did not start in 60 s:\n" + log)), 60000);
    const onData = (d) => {
      log += d.toString();
      const m = log.match(/bench peer: (http:\/\/127\.0\.0\.1:\d+\/) \(image (\d+) bytes, doc (\d+) bytes, blob (\d+) bytes\)/);
      if (m) { clearTimeout(timer); resolve({ proc, url: m[1], sizes: { image: +m[2], doc: +m[3], blob: +m[4] } }); }
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", (d) => { log += d.toString(); });
    proc.on("exit", (code) => { clearTimeout(timer); reject(new Error(`bench peer exited (${code}):\n${log}`)); });
  });
}

let peer, browser;
if (!args.report) {
peer = await startPeer();
browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--enable-precise-memory-info", "--js-flags=--expose-gc"],
});
}

// Runs one suite in a fresh browser context (its own renderer process, so no
// compiled wasm or script is shared with an earlier trial).
async function run(query, timeout = 300000) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const logs = [];
  page.on("console", (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => logs.push(`[pageerror] ${e.stack || e}`));
  try {
    await page.goto(`${peer.url}bench/index.html?${query}`);
    return await page.evaluate(() => window.benchResult, undefined, { timeout });
  } catch (e) {
    throw new Error(`suite ?${query} failed: ${e.message}\n${logs.join("\n")}`);
  } finally {
    await ctx.close();
  }
}

const median = (xs) => quantile(xs, 0.5);
function quantile(xs, q) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

let results;
if (args.report) {
  results = JSON.parse(readFileSync(args.report, "utf8")); // re-print a saved run's table
} else try {
  const startup = { mcphost: [], js: [] }, startupParts = { mcphost: [], js: [] };
  for (let i = 0; i < startupTrials; i++) {
    for (const stack of i % 2 ? ["js", "mcphost"] : ["mcphost", "js"]) {
      const r = await run(`suite=startup&stack=${stack}&n=1000&page=100`);
      if (r.count !== 1000) throw new Error(`startup ${stack}: listed ${r.count}, want 1000`);
      startup[stack].push(r.ms);
      startupParts[stack].push(r.parts);
    }
  }
  const main = await run(`suite=main&reps=${reps}&mdreps=5`, 900000);
  const mempng = await run("suite=mempng");
  const memblob = await run("suite=memblob&stack=mcphost");
  const memblobJs = await run("suite=memblob&stack=js");
  results = { when: new Date().toISOString(), loadavg: os.loadavg(), cpus: os.cpus().length, peer: peer.sizes, wasmBytes: statSync(path.join(root, "web", "mcphost.wasm")).size,
    jsBytes: statSync(path.join(here, "dist", "jsstack.js")).size, startup, startupParts, main, mempng, memblob, memblobJs };
} finally {
  await browser.close();
  peer.proc.kill("SIGTERM");
}

// ---------- the table ----------
const ms = (x) => (Number.isFinite(x) ? (x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1)) + " ms" : "n/a");
const MB = (x) => (x / 1e6).toFixed(1) + " MB";
const rows = [];
function row(metric, m, j, target, note = "") {
  const ratio = m / j;
  const ok = target === undefined ? "" : ratio <= target ? "met" : `MISSED (${(ratio / target).toFixed(1)}× over)`;
  rows.push([metric, ms(m), ms(j), Number.isFinite(ratio) ? ratio.toFixed(3) : "n/a", target === undefined ? "" : `≤ ${target}`, ok || note]);
}
const M = results.main;
const img = M.image.samples;
row(`read image ${MB(results.peer.image)} PNG, p50 of ${img.mcphost.length}`, median(img.mcphost), median(img.js), 0.5);
row("  (JS with native Uint8Array.fromBase64 instead of atob)", median(img.mcphost), median(img.jsNative), undefined, "info");
const md = M.markdown.samples;
row(`read Markdown ${MB(results.peer.doc)} → sanitized HTML, p50 of ${md.mcphost.length}`, median(md.mcphost), median(md.js), 1.0);
row("  (first call, not in the median)", md.mcphostFirst, md.jsFirst, undefined, "info");
for (const n of Object.keys(M.mention)) {
  const s = M.mention[n].samples;
  row(`mention ${Number(n).toLocaleString("en")} descriptors, p50 (60 queries)`, median(s.mcphost), median(s.js), undefined, "");
  row(`mention ${Number(n).toLocaleString("en")} descriptors, p99 (60 queries)`, quantile(s.mcphost, 0.99), quantile(s.js, 0.99), 0.1);
}
row(`startup: import → 1,000 descriptors listed (10 pages), p50 of ${startupTrials}`, median(results.startup.mcphost), median(results.startup.js), 1.5);

const lines = [];
const w = [58, 11, 11, 7, 7, 0];
const fmt = (cells) => cells.map((c, i) => (i < 1 ? String(c).padEnd(w[i]) : i < 5 ? String(c).padStart(w[i]) : "  " + c)).join(" ");
lines.push(fmt(["metric", "mcphost", "JS stack", "ratio", "target", "verdict"]));
for (const r of rows) lines.push(fmt(r));

const ks = M.keystroke;
if (ks.available) {
  lines.push(fmt([`<mcp-mention> keystroke → rendered, p50 (${ks.samples.length} keys, 10,000)`, ms(median(ks.samples)), "", "", "", `p99 ${ms(quantile(ks.samples, 0.99))} (no JS-stack counterpart)${ks.missed ? `; ${ks.missed} keystrokes rendered nothing` : ""}`]));
} else {
  lines.push(`<mcp-mention> keystroke → render: not measured (${ks.why})`);
}
const at = results.mempng.at;
const series = Object.entries(at).map(([k, v]) => `${k}:${MB(v)}`).join(" ");
const flat = at[100] === at[50];
lines.push(`memory, wasm linear memory after N PNG reads: ${series} (before ${MB(results.mempng.before)}) → ${flat ? "flat from read 50 to 100: met" : `grew ${MB(at[100] - at[50])} from read 50 to 100: MISSED`}`);
const mb = results.memblob;
const wire = Math.ceil(results.peer.blob / 3) * 4 + 120;
const growth = mb.after - mb.before;
lines.push(`memory, one 10 MB blob read: linear memory ${MB(mb.before)} → ${MB(mb.after)}: the read grew it by ${MB(growth)} = ${(growth / wire).toFixed(2)}× the ${MB(wire)} message → ${growth <= 3 * wire ? "met (≤ 3×)" : "MISSED (> 3×)"} (whole module after the read: ${(mb.after / wire).toFixed(2)}×)${mb.kind !== "binary" ? " [part " + mb.kind + ": " + mb.err + "]" : ""}`);
lines.push(`   (JS stack heap after the same read: ${MB(results.memblobJs.after)}, +${MB(results.memblobJs.after - results.memblobJs.before)})`);
const partsMedian = (trials) => {
  const out = {};
  for (const k of Object.keys(trials[0] || {})) out[k] = median(trials.map((t) => t[k]));
  return Object.entries(out).map(([k, v]) => `${k} ${ms(v)}`).join(", ");
};
lines.push(`startup parts (p50): mcphost: ${partsMedian(results.startupParts.mcphost)}; JS: ${partsMedian(results.startupParts.js)}`);
lines.push(`   (wasm module ${MB(results.wasmBytes)} raw served uncompressed over loopback; JS bundle ${MB(results.jsBytes)} raw)`);
lines.push(`checks: image bytes ${M.image.mcphostBytes} both, sniffed ${M.image.mcphostType} / ${M.image.jsType}; HTML ${M.markdown.mcphostHtml} / ${M.markdown.jsHtml} chars; mention hits (round 1) 10k ${M.mention[10000].hits.mcphost}/${M.mention[10000].hits.js}, 100k ${M.mention[100000].hits.mcphost}/${M.mention[100000].hits.js}; fuzzysort snapshot build 100k ${ms(M.mention[100000].jsIndexMs)}; crossOriginIsolated ${M.crossOriginIsolated}`);
lines.push(`browser: ${M.userAgent}; ${results.cpus ?? "?"} CPUs, load average ${results.loadavg ? results.loadavg.map((x) => x.toFixed(1)).join(" ") : "?"} at the end`);

const table = lines.join("\n");
console.log("\n" + table + "\n");
if (!args.report) {
  mkdirSync(path.join(here, "dist"), { recursive: true });
  writeFileSync(path.join(here, "dist", "results.json"), JSON.stringify(results, null, 1));
  writeFileSync(path.join(here, "dist", "results.txt"), table + "\n");
}
