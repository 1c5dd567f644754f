// Drives the side-by-side browser bench of issue 18: starts the scripted peer
// (bench/peer), opens the bench page in headless Debian Chromium
// (playwright-core, never a downloaded browser) in interleaved rounds, prints
// the target table (per-round ratios, their median, met in ≥ 4 of 5 rounds)
// and the figures behind it, and writes bench/dist/results.{json,md}.
//
// Usage: node bench/run.mjs --peer PATH_TO_PEER_BINARY [--rounds 5] [--quick]
//          [--startup-trials 3] [--reps 15] [--md-reps 5] [--mention-samples 300]
//          [--keystroke-samples 300] [--png-reads 100]
//        node bench/run.mjs --report bench/dist/results.json   (re-print a saved run's table)
// Each round also runs one cold startup trial per stack over an emulated
// network (NETWORK below) against a second peer started with -compress: an
// info row, beside the loopback row the target is set on.
// --startup-only runs the cold startup trials (and the traced one) alone: a
// quick way to measure a startup change; the other rows print as n/a and the
// title says so.
// --js-flags "FLAGS" adds V8 flags to Chromium's (an experiment, e.g.
// --no-wasm-lazy-compilation to see what the module's first calls cost): no
// page can set them, so the title says the run is not a verdict.
// --quick lowers every sample size (startup 1 trial, 5 image reads, 2 Markdown
// reads, 40 mention and keystroke samples, 30 PNG reads): a smoke run whose
// verdicts mean little. Explicit flags win over --quick.
// (scripts/bench-browser.sh builds everything and calls this.)
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const BOOLEAN = new Set(["quick", "startup-only", "main-only"]);
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (!a.startsWith("--")) throw new Error(`bench: unexpected argument ${JSON.stringify(a)}`);
  const [k, inline] = a.slice(2).split("=", 2);
  if (BOOLEAN.has(k)) args[k] = true;
  else if (inline !== undefined) args[k] = inline;
  else if (i + 1 < process.argv.length) args[k] = process.argv[++i];
  else throw new Error(`bench: --${k} needs a value`);
}
const KNOWN = ["peer", "report", "rounds", "quick", "startup-trials", "reps", "md-reps", "mention-samples", "keystroke-samples", "png-reads", "startup-only", "main-only", "js-flags"];
for (const k of Object.keys(args)) if (!KNOWN.includes(k)) throw new Error(`bench: unknown flag --${k} (known: ${KNOWN.map((x) => "--" + x).join(" ")})`);
const quick = !!args.quick;
const intArg = (name, full, q) => {
  const v = args[name] !== undefined ? Number(args[name]) : quick ? q : full;
  if (!Number.isInteger(v) || v < 1) throw new Error(`bench: --${name} must be a positive integer, got ${args[name]}`);
  return v;
};
const config = {
  rounds: intArg("rounds", 5, 1),
  startupTrials: intArg("startup-trials", 3, 1),
  reps: intArg("reps", 15, 5),
  mdReps: intArg("md-reps", 5, 2),
  mentionSamples: intArg("mention-samples", 300, 40),
  keystrokeSamples: intArg("keystroke-samples", 300, 40),
  pngReads: intArg("png-reads", 100, 30),
  quick,
  startupOnly: !!args["startup-only"],
  // Only the main suite (reads, Markdown, mention, keystrokes): for A/B runs
  // of the read path, ~5 times shorter than a full run; not a verdict.
  mainOnly: !!args["main-only"],
  jsFlags: args["js-flags"] ? String(args["js-flags"]).trim() : "",
};
if (config.startupOnly && config.mainOnly) throw new Error("bench: --startup-only and --main-only exclude each other");
if (/\s--js-flags|^--js-flags/.test(config.jsFlags)) throw new Error("bench: --js-flags takes V8's flags themselves, e.g. --js-flags=--no-wasm-lazy-compilation");
const peerBin = args.peer || path.join(root, "bin", "bench-peer");

function startPeer(extra = []) {
  const proc = spawn(peerBin, ["-addr", "127.0.0.1:0", "-root", root, ...extra], { stdio: ["ignore", "pipe", "pipe"] });
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

// ---------- the browser ----------

let peer, netPeer, browser, browserCDP;

// The emulated network of the startup-over-a-network row (info): DevTools'
// throttling (latency per request and per WebSocket message, throughput on
// the bytes as transferred), with both stacks served compressed as
// cmd/mcphost serves them (netPeer is the peer with -compress). On loopback
// the JS stack's ten sequential list round trips cost almost nothing and
// the 7.5 MB module comes uncompressed; a user's network charges both.
const NETWORK = { latencyMs: 20, downMbps: 50, upMbps: 10 };

// Renderer processes (CDP SystemInfo), for the resident-memory figure.
async function rendererPids() {
  try {
    const { processInfo } = await browserCDP.send("SystemInfo.getProcessInfo");
    return new Set(processInfo.filter((p) => p.type === "renderer").map((p) => p.id));
  } catch { return new Set(); }
}
function rssAnon(pids) {
  let kb = 0, any = false;
  for (const pid of pids) {
    try {
      const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/^RssAnon:\s+(\d+) kB/m);
      if (m) { kb += +m[1]; any = true; }
    } catch { /* exited */ }
  }
  return any ? kb * 1024 : NaN;
}

// Runs one suite in a fresh browser context: its own renderer process, so no
// compiled wasm or script is shared with an earlier suite. cold also disables
// the HTTP cache (the peer sends no-store as well).
async function run(query, { timeout = 900000, cold = false, trace = null, network = null, base = null } = {}) {
  const before = await rendererPids();
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  let mine = null;
  // window.benchRss(): anonymous resident memory of the renderer processes this
  // context started (the page's, and possibly a spare one: deltas are what count).
  await page.exposeFunction("benchRss", async () => {
    if (!mine) mine = new Set([...(await rendererPids())].filter((p) => !before.has(p)));
    return rssAnon(mine);
  });
  let cdp = null;
  if (cold || trace) cdp = await ctx.newCDPSession(page);
  if (cold) {
    // The Network domain is on only to turn the HTTP cache off. By default it
    // also keeps a copy of each response body for DevTools, made on the
    // page's main thread as the body ends: for the 7.5 MB module, Blink's
    // ResponseBodyLoader::DidFinishLoadingBody took 38–50 ms with the copy and
    // 20 ms without it (4 traced trials), against ~1 ms for the JS stack's
    // 0.4 MB bundle. That is the harness's cost, not a stack's: no buffers.
    await cdp.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    if (network) {
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: network.latencyMs,
        downloadThroughput: (network.downMbps * 1e6) / 8, uploadThroughput: (network.upMbps * 1e6) / 8 });
    }
  }
  const events = [];
  if (trace) {
    cdp.on("Tracing.dataCollected", (e) => events.push(...e.value));
    await cdp.send("Tracing.start", { traceConfig: { includedCategories: TRACE_CATEGORIES }, transferMode: "ReportEvents" });
  }
  const logs = [];
  page.on("console", (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => logs.push(`[pageerror] ${e.stack || e}`));
  try {
    await page.goto(`${base || peer.url}bench/index.html?${query}`);
    const res = await page.evaluate(() => window.benchResult, undefined, { timeout });
    if (trace) {
      const done = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
      await cdp.send("Tracing.end");
      await done;
      trace.summary = traceSummary(events);
    }
    return res;
  } catch (e) {
    throw new Error(`suite ?${query} failed: ${e.message}\n${logs.join("\n")}`);
  } finally {
    const started = cold ? new Set([...(await rendererPids())].filter((p) => !before.has(p))) : null;
    await ctx.close();
    if (cold && process.env.BENCH_SETTLE_COLD !== "0") await settleAfter(started);
  }
}

// settleAfter waits, after a cold trial's context closed, until the renderer
// processes it started have exited (at most 3 s), then 100 ms more: a
// renderer goes on running for a while after its context is closed (V8's
// optimizing tier recompiles a cold mcphost's hot functions on background
// threads, ~500 ms of CPU in a traced trial), and on 2 cores that work
// slowed whichever trial came next, which was the JS stack's more often
// than mcphost's (the order in round()).
async function settleAfter(pids) {
  const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
  for (const end = Date.now() + 3000; Date.now() < end && [...pids].some(alive); ) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 100));
}

// The traced startup trial (after the rounds, not in any ratio: tracing
// slows the page): where the main thread's time goes that no stage shows.
// V8 compiles each wasm function on its first call (wasm.CompileLazy, on the
// thread that calls it) and recompiles hot ones with its optimizing tier on
// background threads (wasm.TopTierCompilation), which on a 2-core machine
// compete with the main thread.
const TRACE_CATEGORIES = ["v8.wasm", "v8", "devtools.timeline", "disabled-by-default-v8.compile", "disabled-by-default-v8.gc", "blink.user_timing"];
function traceSummary(events) {
  const names = new Map();
  for (const e of events) if (e.ph === "M" && e.name === "thread_name") names.set(`${e.pid}:${e.tid}`, e.args.name);
  const sum = (pred) => {
    let ms = 0, n = 0;
    for (const e of events) if (e.ph === "X" && e.dur && pred(e, names.get(`${e.pid}:${e.tid}`) || "")) { ms += e.dur / 1000; n++; }
    return { ms: +ms.toFixed(1), n };
  };
  const main = (t) => t === "CrRendererMain";
  // bench.js marks go.run's start and end (the page's user timing).
  const mark = (name) => events.find((e) => e.name === name && /user_timing/.test(e.cat || ""))?.ts;
  const runStart = mark("bench:go.run") ?? NaN, runEnd = mark("bench:go.run end") ?? NaN;
  const lazy = (e, t) => main(t) && e.name === "wasm.CompileLazy";
  return {
    mainLazyCompile: sum(lazy),
    // the same, split: during go.run (the runtime's start, package init,
    // main) and after it (connect, listing)
    mainLazyCompileGoRun: sum((e, t) => lazy(e, t) && e.ts >= runStart && e.ts < runEnd),
    mainLazyCompileAfter: sum((e, t) => lazy(e, t) && e.ts >= runEnd),
    mainFlushICache: sum((e, t) => main(t) && e.name === "FlushInstructionCache"),
    mainGC: sum((e, t) => main(t) && (e.name === "MinorGC" || e.name === "MajorGC")),
    backgroundTopTier: sum((e, t) => !main(t) && e.name === "wasm.TopTierCompilation"),
    backgroundCompileUnits: sum((e, t) => !main(t) && e.name === "wasm.ExecuteCompilationUnits"),
  };
}

// One round: cold startup trials (stacks alternating), then the main suite
// (reads with the floor, mention, keystroke), then memory.
// A suite that fails (a stack's error, a lost response) is run again, at most
// ATTEMPTS times in all; every failure is kept in the round's failures and
// printed with the table, so a flaky stack shows instead of vanishing.
const ATTEMPTS = 3;
async function round(r) {
  const failures = [];
  const attempt = async (query, opts, check = () => "") => {
    for (let a = 1; ; a++) {
      try {
        const res = await run(query, opts);
        const bad = check(res);
        if (bad) throw new Error(bad);
        return res;
      } catch (e) {
        failures.push({ query, attempt: a, error: String(e.message).split("\n").slice(0, 2).join(" ").slice(0, 300) });
        process.stderr.write(`bench: ?${query} failed (attempt ${a} of ${ATTEMPTS}): ${failures.at(-1).error}\n`);
        if (a >= ATTEMPTS) return null; // the round's rows that need it are n/a (not met)
      }
    }
  };
  const startup = { mcphost: [], js: [], gofloor: [], golist: [] };
  for (let i = 0; i < (config.mainOnly ? 0 : config.startupTrials); i++) {
    for (const stack of (r + i) % 2 ? ["js", "mcphost", "gofloor", "golist"] : ["golist", "gofloor", "mcphost", "js"]) {
      const want = stack === "gofloor" ? 1 : 1000;
      const res = await attempt(`suite=startup&stack=${stack}&n=1000&page=100`, { cold: true },
        (x) => (x.count !== want ? (stack === "gofloor" ? "startup gofloor: its export did not answer" : `startup ${stack}: listed ${x.count}, want 1000`) : ""));
      if (res) startup[stack].push({ ms: res.ms, parts: res.parts, longTasks: res.longTasks });
    }
  }
  // One more cold trial per stack over the emulated network (info row).
  const startupNet = { mcphost: [], js: [] };
  for (const stack of config.mainOnly ? [] : r % 2 ? ["js", "mcphost"] : ["mcphost", "js"]) {
    const res = await attempt(`suite=startup&stack=${stack}&n=1000&page=100`, { cold: true, network: NETWORK, base: netPeer.url },
      (x) => (x.count !== 1000 ? `startup ${stack} over the emulated network: listed ${x.count}, want 1000` : ""));
    if (res) startupNet[stack].push({ ms: res.ms, parts: res.parts });
  }
  if (config.startupOnly) return { startup, startupNet, main: null, mempng: null, memblob: null, memblobJs: null, failures, loadavg: os.loadavg() };
  const main = await attempt(`suite=main&reps=${config.reps}&mdreps=${config.mdReps}&msamples=${config.mentionSamples}&ksamples=${config.keystrokeSamples}`);
  if (config.mainOnly) return { startup, startupNet, main, mempng: null, memblob: null, memblobJs: null, failures, loadavg: os.loadavg() };
  const mempng = await attempt(`suite=mempng&reads=${config.pngReads}`);
  const blobs = {};
  for (const stack of r % 2 ? ["js", "mcphost"] : ["mcphost", "js"]) blobs[stack] = await attempt(`suite=memblob&stack=${stack}`);
  return { startup, startupNet, main, mempng, memblob: blobs.mcphost, memblobJs: blobs.js, failures, loadavg: os.loadavg() };
}

// Brotli (quality 11, 16 MiB window: what `brotli -q 11` and scripts/size.sh
// give) of web/mcphost.wasm, cached by content hash: it takes ~20–40 s of CPU.
async function brotliSize(file) {
  const data = readFileSync(file);
  const sha = createHash("sha256").update(data).digest("hex");
  const cacheFile = path.join(here, "dist", "size-cache.json");
  try {
    const c = JSON.parse(readFileSync(cacheFile, "utf8"));
    if (c.sha256 === sha) return c.brotli;
  } catch { /* none yet */ }
  const out = await promisify(zlib.brotliCompress)(data, { params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 24, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
  mkdirSync(path.dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, JSON.stringify({ sha256: sha, brotli: out.length }));
  return out.length;
}

let results, startupTrace = null;
if (args.report) {
  results = JSON.parse(readFileSync(args.report, "utf8")); // re-print a saved run's table
} else {
  peer = await startPeer();
  netPeer = await startPeer(["-compress"]);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--enable-precise-memory-info", `--js-flags=--expose-gc${config.jsFlags ? " " + config.jsFlags : ""}`,
      // measureUserAgentSpecificMemory answers at once instead of at the next GC (up to 20 s later)
      "--enable-blink-features=ForceEagerMeasureMemory"],
  });
  browserCDP = await browser.newBrowserCDPSession();
  const rounds = [];
  try {
    for (let r = 0; r < config.rounds; r++) {
      process.stderr.write(`bench: round ${r + 1} of ${config.rounds}…\n`);
      rounds.push(await round(r));
    }
    startupTrace = { summary: null };
    if (config.mainOnly) startupTrace.error = "not run (--main-only)";
    else try {
      process.stderr.write("bench: one traced startup trial…\n");
      const res = await run("suite=startup&stack=mcphost&n=1000&page=100", { cold: true, trace: startupTrace });
      startupTrace.ms = res.ms;
    } catch (e) {
      startupTrace.error = String(e.message).split("\n")[0].slice(0, 200);
    }
  } finally {
    await browser.close();
    peer.proc.kill("SIGTERM");
    netPeer.proc.kill("SIGTERM");
  }
  const wasmFile = path.join(root, "web", "mcphost.wasm");
  results = { when: new Date().toISOString(), config, cpus: os.cpus().length, loadavg: os.loadavg(), peer: peer.sizes,
    wasmBytes: statSync(wasmFile).size, wasmBrotli: await brotliSize(wasmFile),
    jsBytes: statSync(path.join(here, "dist", "jsstack.js")).size, rounds, startupTrace };
}

// ---------- per-round rows ----------

const median = (xs) => quantile(xs, 0.5);
function quantile(xs, q) { // nearest rank over the finite values
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
const finite = (xs) => xs.filter(Number.isFinite);
const IMAGE_TARGET = 1.15, MD_TARGET = 0.6, STARTUP_TARGET = 1.5, MENTION_TARGET = 0.1, KEY_TARGET_MS = 16, BLOB_TARGET = 2, SIZE_TARGET = 1_450_000;
const wireBytes = (n) => Math.ceil(n / 3) * 4 + 120; // the read's frame: base64 plus the JSON around it
const readFootprint = () => wireBytes(results.peer.image) + results.peer.image; // one PNG read's frame and bytes

// The startup stages: mcphost's, and the JS stack's counterpart of each
// (module fetch ↔ the bundle's import; Go start + connect ↔ connect). The
// issue allows resolving startup by these: every stage but compile +
// instantiate at or below the JS stack's.
function stages(trial, stack) {
  const p = trial.parts;
  if (stack === "js") return { fetch: p.import, compile: NaN, connect: p.connect, listing: p.listing };
  return { fetch: p.at.fetchEnd, compile: p.compileInstantiate, connect: p.goStartConnect, listing: p.listing };
}
const STAGES = [
  ["fetch", "startup stage: import + module fetch (JS: bundle import)"],
  ["compile", "startup stage: compile + instantiate (exempt)"],
  ["connect", "startup stage: Go start + connect (JS: connect)"],
  ["listing", "startup stage: listing 10 pages"],
];

// rowsOf(R) gives every row's value for one round (and the figures behind
// it). A section whose suite failed (after its retries) leaves its rows NaN:
// n/a, not met.
function rowsOf(R) {
  const fig = { failed: [] };
  const v = {};
  const section = (name, f) => {
    try { f(); } catch (e) {
      fig.failed.push(`${name}: ${e instanceof TypeError ? "its suite did not finish (see the failed suite runs)" : e.message}`);
    }
  };
  const M = R.main;
  section("read image", () => {
    const img = M.image.samples;
    fig.imgM = median(img.mcphost); fig.imgJ = median(img.js); fig.imgF = median(img.floor); fig.imgN = median(img.jsNative);
    v.imageFloor = fig.imgM / fig.imgF;
    v.imageJs = fig.imgM / fig.imgJ;
    v.jsFloor = fig.imgJ / fig.imgF;
    const fr = M.image.fresh;
    if (fr) {
      fig.imgFreshM = median(fr.mcphost); fig.imgFreshF = median(fr.floor);
      v.imageFresh = fig.imgFreshM / fig.imgFreshF;
    }
  });
  section("read Markdown", () => {
    const md = M.markdown.samples;
    fig.mdM = median(md.mcphost); fig.mdJ = median(md.js); fig.mdValid = finite(md.mcphost).length; fig.mdAll = md.mcphost.length;
    fig.mdFirstM = md.mcphostFirst; fig.mdFirstJ = md.jsFirst; fig.mdInvalid = md.invalid;
    v.markdown = fig.mdM / fig.mdJ; // NaN (not met) when no sample was rendered
  });
  section("startup", () => {
    if (!R.startup.mcphost.length || !R.startup.js.length) throw new Error("no trial finished");
    fig.startM = median(R.startup.mcphost.map((t) => t.ms)); fig.startJ = median(R.startup.js.map((t) => t.ms));
    fig.cold = R.startup.mcphost.every((t) => t.parts.cold) && R.startup.js.every((t) => t.parts.cold);
    v.startup = fig.cold ? fig.startM / fig.startJ : NaN;
    fig.stages = {};
    for (const [k] of STAGES) {
      const m = median(R.startup.mcphost.map((t) => stages(t, "mcphost")[k]));
      const j = median(R.startup.js.map((t) => stages(t, "js")[k]));
      fig.stages[k] = { m, j };
      v["stage_" + k] = k === "compile" ? m : m / j;
    }
    fig.marks = R.startup.mcphost[0].parts.at;
    // Inside "Go start + connect": go.run, against the Go runtime's floor
    // (bench/gofloor: a Go program that only exports one function, started
    // cold the same way) and the JS stack's whole connect.
    fig.goRun = median(R.startup.mcphost.map((t) => t.parts.goRun));
    fig.afterGoRun = median(R.startup.mcphost.map((t) => t.parts.connectAfterGoRun));
    fig.goFloor = median((R.startup.gofloor || []).map((t) => t.parts.goRun));
    fig.goFloorCold = (R.startup.gofloor || []).every((t) => t.parts.cold);
    fig.goFloorBytes = (R.startup.gofloor || [])[0]?.parts.moduleBytes;
    v.goRun = fig.goRun;
    v.goFloor = fig.goFloor;
    v.goFloorJs = fig.goFloor / fig.stages.connect.j;
    v.afterGoRunJs = fig.afterGoRun / fig.stages.connect.j;
    // What no Go module of this size can go below here, whatever it does
    // after its runtime started: the module instantiated (fetch, compile,
    // instantiate: the exempt stage, but inside the startup time) plus the
    // Go runtime's floor, over the JS stack's whole startup.
    fig.instantiated = median(R.startup.mcphost.map((t) => t.parts.at.instantiated));
    v.startupFloor = (fig.instantiated + fig.goFloor) / fig.startJ;
    // The whole task in Go and nothing else (bench/golist: the pages listed
    // by the page's own socket while the module loads, then decoded by Go
    // into a slice): its own import → listed over the JS stack's, and what it
    // took after its instantiation (go.run, the frames, the decode) added to
    // mcphost's instantiation: what a Go implementation with mcphost's module
    // could reach at best if it did nothing but list.
    const gl = R.startup.golist || [];
    if (gl.length) {
      fig.goList = median(gl.map((t) => t.ms));
      fig.goListAfter = median(gl.map((t) => t.parts.afterInstantiated));
      fig.goListRun = median(gl.map((t) => t.parts.goRun));
      fig.goListDecode = median(gl.map((t) => t.parts.decode));
      fig.goListInstantiated = median(gl.map((t) => t.parts.instantiated));
      fig.goListCold = gl.every((t) => t.parts.cold);
      fig.goListBytes = gl[0].parts.moduleBytes;
      v.goListJs = fig.goList / fig.startJ;
      v.goListFloor = (fig.instantiated + fig.goListAfter) / fig.startJ;
    }
    const lt = R.startup.mcphost.map((t) => t.longTasks);
    fig.longSupported = lt.every((l) => l.supported);
    fig.long = lt.flatMap((l) => l.over50);
    fig.longJs = R.startup.js.flatMap((t) => t.longTasks.over50);
    v.longTasks = fig.longSupported ? fig.long.length : NaN;
  });
  section("startup over a network", () => {
    const N = R.startupNet;
    if (!N) return; // a report saved before the row existed
    if (!N.mcphost.length || !N.js.length) throw new Error("no trial finished");
    const m = N.mcphost[0], j = N.js[0];
    // Cold and compressed: each stack's big file came over the wire in fewer
    // bytes than it has (the module as brotli, the bundle as brotli or gzip).
    fig.netOk = m.parts.cold && j.parts.cold && m.parts.wasmTransferBytes < m.parts.wasmDecodedBytes && j.parts.bundleTransferBytes < j.parts.bundleBytes;
    // DevTools' throttling is approximate: the figures give the rate the
    // module's body actually came at (first byte to last).
    fig.net = { m: m.ms, j: j.ms, sm: stages(m, "mcphost"), sj: stages(j, "js"), wasm: m.parts.wasmTransferBytes, bundle: j.parts.bundleTransferBytes,
      wasmMbps: (m.parts.wasmTransferBytes * 8) / (m.parts.wasmResponseMs * 1000) };
    v.startupNet = fig.netOk ? m.ms / j.ms : NaN;
  });
  for (const n of ["10000", "100000"]) section(`mention ${n}`, () => {
    if (M.mention[n].failed) throw new Error(M.mention[n].failed);
    const s = M.mention[n].samples;
    fig["m50_" + n] = [median(s.mcphost), median(s.js)];
    fig["m99_" + n] = [quantile(s.mcphost, 0.99), quantile(s.js, 0.99)];
    fig["mN_" + n] = Math.min(s.mcphost.length, s.js.length);
    v["mention" + n] = quantile(s.mcphost, 0.99) / quantile(s.js, 0.99);
  });
  section("keystroke", () => {
    const ks = M.keystroke;
    if (!ks.available) { fig.key = { why: ks.why }; throw new Error(ks.why); }
    fig.key = { n: ks.samples.rendered.length, missed: ks.missed,
      rendered: [median(ks.samples.rendered), quantile(ks.samples.rendered, 0.99)],
      frame: [median(ks.samples.frame), quantile(ks.samples.frame, 0.99)],
      hook: [median(ks.samples.hook), quantile(ks.samples.hook, 0.99)] };
    // The row is input event → list in the DOM with style and layout done.
    // "→ next animation frame" waits for the display's next vsync as well:
    // with keys arriving at any phase of the 16.7 ms frame, its p99 is about
    // one frame period even for a component that takes no time, so a 16 ms
    // target on it cannot be met by any implementation. It is printed as
    // information beside the row.
    v.keystroke = ks.missed ? NaN : fig.key.rendered[1];
  });
  section("memory, PNG reads", () => {
    const png = R.mempng, marks = Object.keys(png.at).map(Number).sort((a, b) => a - b);
    // Flat: the median of the last three checkpoints (reads 8/10 to 10/10)
    // against that of the middle three (4/10 to 6/10). One read's footprint
    // (its frame and its bytes) comes and goes with GC timing; a leak of one
    // read per read would show as 40 of them.
    const at = (lo, hi) => median(marks.filter((k) => k >= lo * png.reads && k <= hi * png.reads).map((k) => png.at[k].total));
    fig.png = { marks: marks.map((k) => [k, png.at[k]]), before: png.before };
    v.memFlat = at(0.75, 1) - at(0.35, 0.65);
  });
  section("memory, 10 MB read", () => {
    const b = R.memblob, wire = wireBytes(results.peer.blob);
    fig.blob = { wire, ok: b.kind === "binary" && b.len === results.peer.blob, kind: b.kind, err: b.err,
      api: b.after.api - b.before.api, linear: b.after.linear - b.before.linear, total: b.after.total - b.before.total, rss: b.after.rss - b.before.rss };
    v.memBlob = fig.blob.ok ? fig.blob.total / wire : NaN;
    const bj = R.memblobJs;
    if (bj) { fig.blob.jsTotal = bj.after.total - bj.before.total; fig.blob.jsRss = bj.after.rss - bj.before.rss; }
  });
  v.size = results.wasmBrotli;
  return { v, fig };
}

// The rows of the final table: id, label, target text, test, format.
const x3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : "n/a");
const MB = (x) => (Number.isFinite(x) ? (x / 1e6).toFixed(1) + " MB" : "n/a");
const sMB = (x) => (Number.isFinite(x) ? (x >= 0 ? "+" : "") + (x / 1e6).toFixed(1) + " MB" : "n/a");
const ms = (x) => (Number.isFinite(x) ? (x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1)) + " ms" : "n/a");
const ROWS = [
  { id: "imageFloor", label: "read image 1.8 MB PNG → bytes + sniffed type: mcphost ÷ floor", target: `≤ ${IMAGE_TARGET}`, ok: (x) => x <= IMAGE_TARGET, fmt: x3 },
  { id: "imageJs", label: "  read image: mcphost ÷ JS stack", target: "< 1", ok: (x) => x < 1, fmt: x3 },
  { id: "jsFloor", label: "  read image: JS stack ÷ floor", target: "info", fmt: x3 },
  { id: "imageFresh", label: "  read image, new bytes every read: mcphost ÷ floor", target: "info", fmt: x3 },
  { id: "markdown", label: "read 1 MB Markdown → sanitized HTML: mcphost ÷ JS (rendered only)", target: `≤ ${MD_TARGET}`, ok: (x) => x <= MD_TARGET, fmt: x3 },
  { id: "startup", label: "startup cold, import → 1,000 listed (10 pages): mcphost ÷ JS", target: `≤ ${STARTUP_TARGET}`, ok: (x) => x <= STARTUP_TARGET, fmt: x3 },
  ...STAGES.map(([k, label]) => k === "compile"
    ? { id: "stage_" + k, label: "  " + label, target: "info (ms)", fmt: ms }
    : { id: "stage_" + k, label: "  " + label + ": mcphost ÷ JS", target: "≤ 1 (alt.)", ok: (x) => x <= 1, fmt: x3 }),
  { id: "goRun", label: "    within it: go.run (Go runtime start, package init, main) (ms)", target: "info (ms)", fmt: ms },
  { id: "afterGoRunJs", label: "    within it: go.run's end → connected ÷ JS connect", target: "info", fmt: x3 },
  { id: "goFloor", label: "  the Go runtime's floor: go.run of a Go program exporting one function", target: "info (ms)", fmt: ms },
  { id: "goFloorJs", label: "  the Go runtime's floor ÷ the JS stack's whole connect", target: "info", fmt: x3 },
  { id: "startupFloor", label: "  startup floor: module instantiated + Go runtime floor, ÷ JS", target: "info", fmt: x3 },
  { id: "goListJs", label: "  the task in Go alone (bench/golist: list 10 pages, decode into a slice) ÷ JS", target: "info", fmt: x3 },
  { id: "goListFloor", label: "  mcphost's module instantiated + golist's work after its instantiation, ÷ JS", target: "info", fmt: x3 },
  { id: "startupNet", label: `  startup over an emulated network (${NETWORK.latencyMs} ms, ${NETWORK.downMbps} Mbps): mcphost ÷ JS`, target: "info", fmt: x3 },
  { id: "longTasks", label: "main-thread long tasks > 50 ms during mcphost startup (count)", target: "0 (report)", ok: (x) => x === 0, fmt: (x) => (Number.isFinite(x) ? String(x) : "n/a") },
  { id: "mention10000", label: "mention p99, 10,000 descriptors: mcphost ÷ JS", target: `≤ ${MENTION_TARGET}`, ok: (x) => x <= MENTION_TARGET, fmt: x3 },
  { id: "mention100000", label: "mention p99, 100,000 descriptors: mcphost ÷ JS", target: `≤ ${MENTION_TARGET}`, ok: (x) => x <= MENTION_TARGET, fmt: x3 },
  { id: "keystroke", label: "<mcp-mention> keystroke → rendered (style + layout) p99, 10,000 (ms)", target: `≤ ${KEY_TARGET_MS} ms`, ok: (x) => x <= KEY_TARGET_MS, fmt: (x) => (Number.isFinite(x) ? x.toFixed(1) : "n/a") },
  { id: "memFlat", label: `memory over ${results.config.pngReads} PNG reads: last checkpoints − middle ones`, target: "< 1 read", ok: (x) => x < readFootprint(), fmt: sMB },
  { id: "memBlob", label: "memory, one 10 MB blob read: page growth ÷ message", target: `≤ ${BLOB_TARGET}`, ok: (x) => x <= BLOB_TARGET, fmt: x3 },
  { id: "size", label: "module size, web/mcphost.wasm brotli (bytes)", target: "≤ 1,450,000", ok: (x) => x <= SIZE_TARGET, fmt: (x) => x.toLocaleString("en") },
];

const per = results.rounds.map(rowsOf);
const N = per.length, need = Math.ceil((4 * N) / 5); // 4 of 5; all of fewer than 5
const table = ROWS.map((row) => {
  const vals = per.map((p) => p.v[row.id]);
  const med = median(vals);
  let verdict = "info";
  if (row.ok) {
    const held = vals.filter((x) => Number.isFinite(x) && row.ok(x)).length;
    verdict = `${held >= need ? "met" : "NOT MET"} (${held}/${N})`;
    if (row.id === "longTasks") verdict = `report-only: ${held}/${N} rounds had none`;
    if (row.id.startsWith("stage_")) verdict = `${held >= need ? "at or below JS" : "above JS"} (${held}/${N})`;
  }
  if (results.config.startupOnly && vals.every((x) => !Number.isFinite(x))) verdict = "not run (--startup-only)";
  if (results.config.mainOnly && vals.every((x) => !Number.isFinite(x))) verdict = "not run (--main-only)";
  return { row, vals, med, verdict };
});

// ---------- printing ----------

const lines = [];
const title = `mcphost ÷ JS stack ÷ floor — ${N} round(s), a row is met when it holds in ≥ ${need} of ${N}` +
  (N < 5 ? " (fewer than the 5 rounds the method asks: not a verdict)" : "") + (results.config.quick ? "; --quick sample sizes" : "") +
  (results.config.startupOnly ? "; --startup-only: every row but startup's is n/a, not a verdict" : "") +
  (results.config.mainOnly ? "; --main-only: startup and memory rows not run, not a verdict" : "") +
  (results.config.jsFlags ? `; V8 flags ${results.config.jsFlags} (no page can set them): an experiment, not a verdict` : "");
lines.push(title, "");
const w0 = 70, wt = 12, wv = 9;
const fmtRow = (cells) => cells[0].padEnd(w0) + " " + cells[1].padStart(wt) + " " + cells.slice(2, 2 + N).map((c) => c.padStart(wv)).join(" ") + " " + cells[2 + N].padStart(wv) + "  " + cells[3 + N];
lines.push(fmtRow(["row", "target", ...per.map((_, i) => `r${i + 1}`), "median", "verdict"]));
for (const t of table) lines.push(fmtRow([t.row.label, t.row.target, ...t.vals.map(t.row.fmt), t.row.fmt(t.med), t.verdict]));

// The figures behind the ratios: per-round medians, their median over rounds.
const over = (f) => median(per.map((p) => { try { return f(p.fig); } catch { return NaN; } }));
const fl = [];
fl.push("", "figures (median over rounds of each round's median; p99 = nearest rank)");
fl.push(`read image:    mcphost ${ms(over((f) => f.imgM))}   JS stack ${ms(over((f) => f.imgJ))}   floor ${ms(over((f) => f.imgF))}   (JS with native Uint8Array.fromBase64: ${ms(over((f) => f.imgN))}); ${results.config.reps} reads per stack per round; new bytes every read: mcphost ${ms(over((f) => f.imgFreshM))}, floor ${ms(over((f) => f.imgFreshF))}`);
fl.push(`read Markdown: mcphost ${ms(over((f) => f.mdM))}   JS stack ${ms(over((f) => f.mdJ))}; first call (render Worker start, heap growth): mcphost ${ms(over((f) => f.mdFirstM))}, JS ${ms(over((f) => f.mdFirstJ))}; rendered samples ${per.map((p) => `${p.fig.mdValid ?? "-"}/${p.fig.mdAll ?? "-"}`).join(", ")}`);
const invalid = per.flatMap((p, i) => (p.fig.mdInvalid || []).map((x) => `r${i + 1} call ${x.call}: ${x.why}`));
if (invalid.length) fl.push(`   INVALID Markdown samples (not counted): ${invalid.join("; ")}`);
fl.push(`startup cold:  mcphost ${ms(over((f) => f.startM))}   JS stack ${ms(over((f) => f.startJ))}; ${results.config.startupTrials} trial(s) per stack per round, each in a fresh context, HTTP cache disabled; cold verified: ${per.every((p) => p.fig.cold)}`);
fl.push("  stages:       " + STAGES.map(([k]) => `${k} ${ms(over((f) => f.stages[k].m))}` + (k === "compile" ? "" : ` (JS ${ms(over((f) => f.stages[k].j))})`)).join(", "));
fl.push(`  Go's start:   go.run ${ms(over((f) => f.goRun))} (then ${ms(over((f) => f.afterGoRun))} to connected); the Go runtime's floor (bench/gofloor, ${Number.isFinite(per[0]?.fig.goFloorBytes) ? (per[0].fig.goFloorBytes / 1e6).toFixed(1) + " MB, " : ""}cold: ${per.every((p) => p.fig.goFloorCold)}): go.run ${ms(over((f) => f.goFloor))}; the JS stack's whole connect ${ms(over((f) => f.stages.connect.j))}; module instantiated at ${ms(over((f) => f.instantiated))}`);
if (per.some((p) => Number.isFinite(p.fig.goList))) fl.push(`  Go alone:     bench/golist (${Number.isFinite(per[0]?.fig.goListBytes) ? (per[0].fig.goListBytes / 1e6).toFixed(1) + " MB, " : ""}cold: ${per.every((p) => p.fig.goListCold)}): import → listed ${ms(over((f) => f.goList))}; instantiated at ${ms(over((f) => f.goListInstantiated))}, then go.run ${ms(over((f) => f.goListRun))}, decode ${ms(over((f) => f.goListDecode))}; after instantiation ${ms(over((f) => f.goListAfter))}`);
if (per.some((p) => p.fig.net)) {
  const st = (k, w) => ms(over((f) => f.net?.[w][k]));
  fl.push(`  over the emulated network (${NETWORK.latencyMs} ms latency per request and message, ${NETWORK.downMbps} Mbps down, ${NETWORK.upMbps} up; both stacks served as cmd/mcphost serves them, 1 cold trial per stack per round): ` +
    `mcphost ${ms(over((f) => f.net?.m))}   JS stack ${ms(over((f) => f.net?.j))}; stages: ` + STAGES.map(([k]) => `${k} ${st(k, "sm")}` + (k === "compile" ? "" : ` (JS ${st(k, "sj")})`)).join(", ") +
    `; transferred: module ${over((f) => f.net?.wasm).toLocaleString("en")} bytes (its body at ${over((f) => f.net?.wasmMbps).toFixed(1)} Mbps, DevTools' throttling being approximate), JS bundle ${over((f) => f.net?.bundle).toLocaleString("en")} bytes; cold and compressed: ${per.every((p) => p.fig.netOk)}`);
}
const mk = per.find((p) => p.fig.marks)?.fig.marks;
fl.push(`  mcphost marks (ms since import started; first trial): ${mk ? Object.entries(mk).map(([k, x]) => `${k} ${Number.isFinite(x) ? x.toFixed(0) : "n/a"}`).join(", ") : "n/a"}`);
{
  const tr = results.startupTrace, x = tr && tr.summary;
  fl.push(x ? `  traced trial (one more cold mcphost trial with a CDP trace, not in the ratios; it took ${ms(tr.ms)}): main thread: ` +
    `wasm lazy compilation ${ms(x.mainLazyCompile.ms)} (${x.mainLazyCompile.n} functions compiled on first call` +
    (x.mainLazyCompileGoRun ? `; ${ms(x.mainLazyCompileGoRun.ms)} (${x.mainLazyCompileGoRun.n}) of it during go.run, ${ms(x.mainLazyCompileAfter.ms)} (${x.mainLazyCompileAfter.n}) after` : "") + `), ` +
    `instruction-cache flushes ${ms(x.mainFlushICache.ms)}, V8 GC ${ms(x.mainGC.ms)}; background threads: optimizing-tier ` +
    `recompilation ${ms(x.backgroundTopTier.ms)}, compilation units ${ms(x.backgroundCompileUnits.ms)}`
    : `  traced trial: ${tr ? tr.error || "no summary" : "not run"}`);
}
fl.push(`  long tasks > 50 ms during startup (ms): mcphost ${per.map((p, i) => `r${i + 1} [${(p.fig.long || []).join(", ")}]`).join(" ")}; JS ${per.map((p, i) => `r${i + 1} [${(p.fig.longJs || []).join(", ")}]`).join(" ")}${per.every((p) => p.fig.longSupported) ? "" : " (longtask entries not supported or not measured)"}`);
for (const n of ["10000", "100000"]) {
  fl.push(`mention ${Number(n).toLocaleString("en")}: p50 mcphost ${ms(over((f) => f["m50_" + n][0]))} JS ${ms(over((f) => f["m50_" + n][1]))} (÷ ${x3(over((f) => f["m50_" + n][0] / f["m50_" + n][1]))}); p99 mcphost ${ms(over((f) => f["m99_" + n][0]))} JS ${ms(over((f) => f["m99_" + n][1]))}; ${over((f) => f["mN_" + n])} samples per stack per round`);
}
if (!per.some((p) => p.fig.key && !p.fig.key.why)) fl.push(`keystroke: not measured (${per.map((p) => p.fig.key?.why).join("; ")})`);
else {
  const k = (name, i) => ms(over((f) => f.key[name][i]));
  fl.push(`keystroke → list in the DOM, style + layout done (the row): p50 ${k("rendered", 0)}, p99 ${k("rendered", 1)}; → next animation frame after it (info: its p99 is ~one frame period by construction): p50 ${k("frame", 0)}, p99 ${k("frame", 1)}; mcp-rendered detail.ms: p50 ${k("hook", 0)}, p99 ${k("hook", 1)}; ${over((f) => f.key.n)} keys per round${per.some((p) => p.fig.key?.missed) ? `, keys that rendered nothing: ${per.map((p) => p.fig.key?.missed).join("/")}` : ""}`);
}
const p0 = per.find((p) => p.fig.png)?.fig.png;
if (p0) fl.push(`memory, ${results.config.pngReads} PNG reads (round 1; page = measureUserAgentSpecificMemory + wasm linear memory): before ${MB(p0.before.total)}; ` +
  p0.marks.map(([i, m]) => `${i}: ${MB(m.total)}`).join(" ") + ` (linear ${MB(p0.marks[p0.marks.length - 1][1].linear)}; renderer RssAnon ${sMB(p0.marks[p0.marks.length - 1][1].rss - p0.before.rss)} over the reads)`);
const bl = (key) => over((f) => f.blob[key]);
fl.push(`memory, one 10 MB blob read (message ${MB(wireBytes(results.peer.blob))}): page ${sMB(bl("total"))} (JS heaps ${sMB(bl("api"))}, linear ${sMB(bl("linear"))}) = ${x3(bl("total") / wireBytes(results.peer.blob))}×; renderer RssAnon ${sMB(bl("rss"))}; JS stack: page ${sMB(bl("jsTotal"))}, RssAnon ${sMB(bl("jsRss"))}` +
  (per.every((p) => p.fig.blob?.ok) ? "" : ` [mcphost's part: ${per.map((p) => p.fig.blob ? p.fig.blob.kind + (p.fig.blob.err ? " " + p.fig.blob.err : "") : "not measured").join("; ")}]`));
fl.push(`module: web/mcphost.wasm ${results.wasmBytes.toLocaleString("en")} raw, ${results.wasmBrotli.toLocaleString("en")} brotli (-q 11); JS bundle ${MB(results.jsBytes)} raw; served uncompressed over loopback`);
const M0 = results.rounds.find((R) => R.main)?.main;
if (M0) fl.push(`checks: image bytes ${M0.image.mcphostBytes} both, sniffed ${M0.image.mcphostType} / ${M0.image.jsType}, floor frame ${M0.image.floorChars} chars; HTML ${M0.markdown.mcphostHtml} / ${M0.markdown.jsHtml} chars; mention hits 10k ${M0.mention[10000].hits?.mcphost}/${M0.mention[10000].hits?.js}, 100k ${M0.mention[100000].hits?.mcphost}/${M0.mention[100000].hits?.js}; crossOriginIsolated ${M0.crossOriginIsolated}`);
const fails = results.rounds.flatMap((R, i) => [
  ...(R.failures || []).map((f) => `r${i + 1} ?${f.query} (attempt ${f.attempt}): ${f.error}`),
  ...[["main", R.main], ["memblob", R.memblob]].flatMap(([name, x]) => (x?.lostListings || []).map((f) =>
    `r${i + 1} ${name}: mcphost listing of ${f.n} (page ${f.page}, attempt ${f.attempt}) did not finish: ${f.error}`))]);
fl.push(fails.length ? `FAILED suite runs, each run again (${fails.length}):\n  ${fails.join("\n  ")}` : "failed suite runs: none");
const sectionFails = per.flatMap((p, i) => p.fig.failed.map((f) => `r${i + 1} ${f}`));
if (sectionFails.length && !results.config.startupOnly) fl.push(`rows n/a because their suite failed: ${sectionFails.join("; ")}`);
fl.push(`browser: ${M0?.userAgent ?? "?"}; ${results.cpus} CPUs; load average per round ${results.rounds.map((R) => R.loadavg[0].toFixed(1)).join(" ")}; ${results.when}`);

const text = [...lines, ...fl].join("\n");
console.log("\n" + text + "\n");

// results.md: the same as Markdown.
const md = [`# make bench: ${results.when}`, "", title, "",
  `| row | target | ${per.map((_, i) => `r${i + 1}`).join(" | ")} | median | verdict |`,
  `|---|---|${per.map(() => "---:").join("|")}|---:|---|`,
  ...table.map((t) => `| ${t.row.label.trim().replace(/\|/g, "\\|")} | ${t.row.target} | ${t.vals.map(t.row.fmt).join(" | ")} | ${t.row.fmt(t.med)} | ${t.verdict} |`),
  "", "```", ...fl.slice(1), "```", ""].join("\n");
if (!args.report) {
  mkdirSync(path.join(here, "dist"), { recursive: true });
  writeFileSync(path.join(here, "dist", "results.json"), JSON.stringify(results, null, 1));
  writeFileSync(path.join(here, "dist", "results.md"), md);
} else if (existsSync(path.dirname(args.report))) {
  writeFileSync(path.join(path.dirname(args.report), "results.md"), md);
}
