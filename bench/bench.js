// The side-by-side bench page: mcphost (web/mcphost.js + mcphost.wasm,
// loaded unbundled as a user would), the JavaScript stack
// (bench/dist/jsstack.js, a Vite bundle of the TS SDK, marked, DOMPurify,
// file-type and fuzzysort) and the wire's floor (a bare WebSocket that only
// receives the frame), each against the same scripted peer on this origin
// (bench/peer). A suite is picked by ?suite=; results land in
// window.benchResult (a Promise) for bench/run.mjs and in the page. One page
// load is one suite of one round: bench/run.mjs runs the rounds, each in a
// fresh browser context, and computes the per-round ratios.
//
// Timing: performance.now() (5 µs resolution: the peer sends the
// cross-origin isolation headers). Within a suite the stacks alternate
// iteration by iteration, and which one goes first rotates, so background
// noise hits all of them alike.

const params = new URLSearchParams(location.search);
const suite = params.get("suite") || "main";
const wsBase = `ws://${location.host}/mcp`;
const IMAGE = "bench://image.png", DOC = "bench://doc.md", BLOB = "bench://blob-10m";
const num = (name, dflt) => (params.has(name) ? Number(params.get(name)) : dflt);

// Main-thread long tasks (> 50 ms), from page start: the startup suite reports
// the ones inside its own window.
const longTasks = [];
try {
  new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push({ start: e.startTime, ms: e.duration }); })
    .observe({ type: "longtask", buffered: true });
} catch { /* no longtask support: reported as unavailable */ }
const longTaskSupported = typeof PerformanceObserver !== "undefined" && (PerformanceObserver.supportedEntryTypes || []).includes("longtask");

// Capture the Go instance's linear memory and when the module was compiled
// and instantiated, whichever WebAssembly entry point mcphost.js uses. Only
// the page's own instances are seen: a Worker's instantiation happens in the
// Worker (its JS heap is in the page memory figure, its linear memory is not;
// bench/run.mjs reports the renderer process's resident memory beside it).
const wasmMemories = new Set();
const wasmTimes = { start: NaN, end: NaN, calls: [] };
function noteWasm(name, start, res) {
  const end = performance.now();
  if (!(wasmTimes.start <= start)) wasmTimes.start = start;
  if (!(wasmTimes.end >= end)) wasmTimes.end = end;
  wasmTimes.calls.push({ name, start, end });
  const inst = res && (res.instance || (res instanceof WebAssembly.Instance ? res : null));
  if (inst && inst.exports && inst.exports.mem instanceof WebAssembly.Memory) wasmMemories.add(inst.exports.mem);
}
// Go's start: in the startup suite, an instance of a Go module (one that
// exports run) is handed on with its run export timed: go.run calls it once,
// synchronously, for the runtime's start, package init and main up to its
// first block (for mcphost, the exports registered). Marks bracket it for the
// traced trial, which splits V8's lazy compilation by them.
const goRunTimes = { start: NaN, end: NaN };
function timedGoInstance(inst) {
  if (suite !== "startup" || !(inst instanceof WebAssembly.Instance) || typeof inst.exports.run !== "function") return inst;
  const run = inst.exports.run;
  const exports = Object.freeze({ ...inst.exports, run(...args) {
    goRunTimes.start = performance.now();
    performance.mark("bench:go.run");
    try {
      return run(...args);
    } finally {
      goRunTimes.end = performance.now();
      performance.mark("bench:go.run end");
    }
  } });
  // go.run checks instanceof WebAssembly.Instance; the own exports property
  // shadows the prototype's getter.
  return Object.create(WebAssembly.Instance.prototype, { exports: { value: exports } });
}
for (const name of ["instantiateStreaming", "instantiate", "compileStreaming", "compile"]) {
  const orig = WebAssembly[name];
  if (typeof orig !== "function") continue;
  WebAssembly[name] = async function (...args) {
    const start = performance.now();
    const res = await orig.apply(this, args);
    noteWasm(name, start, res);
    if (res instanceof WebAssembly.Instance) return timedGoInstance(res);
    if (res && res.instance instanceof WebAssembly.Instance) return { module: res.module, instance: timedGoInstance(res.instance) };
    return res;
  };
}
{
  const OrigInstance = WebAssembly.Instance;
  WebAssembly.Instance = new Proxy(OrigInstance, {
    construct(target, args, newTarget) {
      const start = performance.now();
      const inst = Reflect.construct(target, args, newTarget === WebAssembly.Instance ? target : newTarget);
      noteWasm("Instance", start, inst);
      return inst;
    },
  });
}
const linearBytes = () => { let n = 0; for (const m of wasmMemories) n += m.buffer.byteLength; return n; };
const gc = () => { if (typeof globalThis.gc === "function") globalThis.gc(); };

// Page memory: performance.measureUserAgentSpecificMemory() (the page's and
// its Workers' JS heaps, ArrayBuffers included; the run enables
// ForceEagerMeasureMemory so it answers at once) plus the page's wasm linear
// memory, which that API does not count (measured: a 100 MB
// WebAssembly.Memory adds nothing to it in Chromium 156).
async function pageMemory() {
  gc();
  await new Promise((r) => setTimeout(r, 0));
  let api = NaN, breakdown;
  if (self.crossOriginIsolated && typeof performance.measureUserAgentSpecificMemory === "function") {
    const m = await performance.measureUserAgentSpecificMemory();
    api = m.bytes;
    breakdown = m.breakdown.filter((b) => b.bytes > 0).map((b) => ({ bytes: b.bytes, scope: b.attribution.map((a) => a.scope).join(",") || b.types.join(",") }));
  }
  const linear = linearBytes();
  // The renderer process's resident set (Linux), exposed by bench/run.mjs:
  // it sees what neither figure above does (a Worker's linear memory).
  const rss = typeof window.benchRss === "function" ? await window.benchRss() : NaN;
  return { api, linear, total: api + linear, rss, breakdown };
}

const median = (xs) => quantile(xs, 0.5);
function quantile(xs, q) { // nearest rank
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
const url = (n, page) => `${wsBase}?n=${n}&page=${page}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Every timed read starts on a settled page: SETTLE_MS of idle first. A read
// started at once after the previous sample ran while that sample's garbage
// was being collected (V8's concurrent marking and sweeping, Blink's heap
// after DOMPurify parsed 1.6 MB of HTML), which on 2 cores also slowed the
// peer and the network service: a bare WebSocket receiving the 1 MB
// Markdown frame took 101–162 ms right after the JS stack's Markdown sample
// and 61–92 ms after 100 ms of idle (Chromium 156, 2026-12-05; CDP's frame
// timestamps put the delay before the frame reached the renderer). So one
// stack's sample paid for the other's, and alternation only shared the
// cost out by the order of the samples. A page that attaches documents is
// idle between them; no collection is forced (a forced full collection
// also shrank the JS stack's heap, which its next read then grew again).
const SETTLE_MS = 100;
const settle = () => sleep(SETTLE_MS);
const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
// rotate(i, xs): xs rotated by i, so each stack goes first in turn.
const rotate = (i, xs) => xs.map((_, k) => xs[(k + i) % xs.length]);

// 20 varied picker queries: common prefixes, multi-word, typos, rare and
// absent terms, non-ASCII, URI fragments.
const QUERIES = ["onboard", "runbook", "pay", "incident post", "kube", "polcy", "deploy rollback", "api gw",
  "r", "sec audit", "über", "café", "team/support", "postmortem latency", "zzqxj", "refund invoice 12",
  "escalation oncall", "data retention policy", "md", "ledger payout"];
// What a picker is asked while these are typed: every prefix of every query
// (183 queries, one- and two-letter ones included), the full query last.
const TYPED = QUERIES.flatMap((q) => Array.from({ length: q.length }, (_, i) => q.slice(0, i + 1)));
// pick(seq, n): n items of seq — whole passes while n ≥ |seq|, else n evenly spaced ones.
function pick(seq, n) {
  if (n >= seq.length) return Array.from({ length: Math.ceil(n / seq.length) }, () => seq).flat();
  return Array.from({ length: n }, (_, i) => seq[Math.floor((i * seq.length) / n)]);
}

// listed(m, n, page): a mcphost host with all n descriptors listed. A listing
// that does not finish (a lost response, a stalled stack) is abandoned (after 15 s, 60 s from 100,000 descriptors) and tried again on a
// new connection, at most 3 times; every such failure is counted in the
// result (lostListings) and printed.
const lostListings = [];
async function listed(m, n, page) {
  const timeoutMs = n >= 100000 ? 60000 : 15000;
  for (let attempt = 1; ; attempt++) {
    const h = await m.connect(url(n, page), { timeoutMs });
    try {
      const r = await h.resources({ timeoutMs });
      if (r.length !== n) throw new Error(`listed ${r.length}, want ${n}`);
      return h;
    } catch (e) {
      lostListings.push({ n, page, attempt, error: String(e && e.message) });
      await h.close().catch(() => {});
      if (attempt >= 3) throw e;
    }
  }
}

async function loadMcphost() { return import("/web/mcphost.js"); }
async function loadJs() { return import("/bench/dist/jsstack.js"); }

// ---------- startup ----------

// Cold startup of one stack: import → 1,000 descriptors listed in 10 pages.
// bench/run.mjs gives every trial a fresh browser context (its own renderer
// process, so no compiled module is shared) with the HTTP cache disabled, and
// the peer sends Cache-Control: no-store; the wasm's resource entry is checked
// to have come over the wire.
// instantiateGo(name): bench/dist/NAME.wasm fetched, compiled (streaming) and
// instantiated by the page's wasm_exec.js, as the floor rows start it cold;
// go.run is the caller's (timed through the hooked instance).
async function instantiateGo(name) {
  const go = new globalThis.Go();
  const resp = await fetch(`/bench/dist/${name}.wasm`);
  if (!resp.ok) throw new Error(`${name}.wasm: ${resp.status} (scripts/bench-browser.sh builds it)`);
  const inst = await WebAssembly.instantiate(await WebAssembly.compileStreaming(resp), go.importObject);
  return { go, inst };
}

// goModuleEntry(name): the module's size and whether it came over the wire.
function goModuleEntry(name) {
  const wasm = performance.getEntriesByType("resource").find((e) => e.name.endsWith(`/${name}.wasm`));
  return { moduleBytes: wasm ? wasm.decodedBodySize : NaN, cold: !!wasm && wasm.transferSize > 0 };
}

// listFrames(wsUrl): the answers to every resources/list page of the peer, as
// the frames' text, read over a WebSocket of the page's own: initialize,
// notifications/initialized, then each page by the cursor of the last
// (bench/golist's early start).
function listFrames(wsUrl) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, ["mcp"]);
    const frames = [];
    let id = 0;
    const send = (method, params, note) => ws.send(JSON.stringify({ jsonrpc: "2.0", ...(note ? {} : { id: ++id }), method, ...(params ? { params } : {}) }));
    const timer = setTimeout(() => { ws.close(); reject(new Error("golist: no listing in 15 s")); }, 15000);
    ws.onopen = () => send("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "golist", version: "0" } });
    ws.onerror = () => { clearTimeout(timer); reject(new Error("golist: the socket failed")); };
    ws.onmessage = (e) => {
      if (id === 1) {
        send("notifications/initialized", undefined, true);
        send("resources/list");
        return;
      }
      frames.push(e.data);
      // the cursor's place: first in the result (the bench peer's sorted
      // keys) or last (the SDKs' order)
      const m = /"result":\{"nextCursor":("(?:[^"\\]|\\.)*")/.exec(e.data.slice(0, 512)) ||
        /"nextCursor":("(?:[^"\\]|\\.)*")\}\}$/.exec(e.data.slice(-512));
      if (m) return send("resources/list", { cursor: JSON.parse(m[1]) });
      clearTimeout(timer);
      ws.close();
      resolve(frames);
    };
  });
}

async function startup() {
  const stack = params.get("stack");
  const n = num("n", 1000), page = num("page", 100);
  const t0 = performance.now();
  let count, parts, t1;
  if (stack === "mcphost") {
    const m = await loadMcphost();
    const tImport = performance.now();
    const host = await m.connect(url(n, page));
    const tConnect = performance.now();
    count = (await host.resources()).length;
    t1 = performance.now();
    await host.close();
    const wasm = performance.getEntriesByType("resource").find((e) => new URL(e.name).pathname.endsWith(".wasm"));
    const goStart = wasmTimes.end;
    parts = {
      // stage spans (ms); they may overlap once mcphost overlaps its startup
      import: tImport - t0,
      moduleFetch: wasm ? wasm.responseEnd - wasm.startTime : NaN,
      compileInstantiate: wasmTimes.end - wasmTimes.start,
      goStartConnect: tConnect - goStart,
      // within it: go.run (the runtime's start, package init, main), and
      // what follows it up to connected
      goRun: goRunTimes.end - goRunTimes.start,
      connectAfterGoRun: tConnect - goRunTimes.end,
      listing: t1 - tConnect,
      // the same as marks (ms since import started)
      at: { importDone: tImport - t0, fetchStart: wasm ? wasm.startTime - t0 : NaN, fetchEnd: wasm ? wasm.responseEnd - t0 : NaN,
        compileStart: wasmTimes.start - t0, instantiated: wasmTimes.end - t0, goRunStart: goRunTimes.start - t0, goRunEnd: goRunTimes.end - t0,
        connected: tConnect - t0, listed: t1 - t0 },
      wasmCalls: wasmTimes.calls.map((c) => `${c.name} ${(c.start - t0).toFixed(1)}→${(c.end - t0).toFixed(1)}`),
    };
    // cold check: the module came over the wire, not from a cache
    parts.wasmTransferBytes = wasm ? wasm.transferSize : NaN;
    parts.wasmDecodedBytes = wasm ? wasm.decodedBodySize : NaN;
    parts.wasmResponseMs = wasm ? wasm.responseEnd - wasm.responseStart : NaN; // first byte → last
    parts.cold = !!wasm && wasm.transferSize > 0;
  } else if (stack === "gofloor") {
    // The Go runtime's floor: a cold start of a Go program that only exports
    // one function (bench/gofloor), by the same wasm_exec.js. Its go.run is
    // what any Go module pays before its main can do anything.
    await import("/web/wasm_exec.js");
    const tImport = performance.now();
    const { go, inst } = await instantiateGo("gofloor");
    const tInst = performance.now();
    go.run(inst);
    const tRun = performance.now();
    const pong = globalThis.__gofloor?.();
    t1 = performance.now();
    count = pong === "pong" ? 1 : 0;
    parts = { import: tImport - t0, compileInstantiate: tInst - tImport, goRun: goRunTimes.end - goRunTimes.start, goRunCall: tRun - tInst,
      ...goModuleEntry("gofloor") };
  } else if (stack === "golist") {
    // The floor of the whole task in Go (bench/golist): the page lists the
    // pages over its own WebSocket while the module loads (as mcphost.js's
    // early start does), and Go only decodes them into a slice once it runs.
    await import("/web/wasm_exec.js");
    const tImport = performance.now();
    const frames = listFrames(url(n, page));
    frames.catch(() => {});
    const { go, inst } = await instantiateGo("golist");
    const tInst = performance.now();
    go.run(inst);
    const got = await frames;
    const tFrames = performance.now();
    count = globalThis.__golist(got);
    t1 = performance.now();
    if (typeof count !== "number") throw new Error("golist: " + count);
    parts = { import: tImport - t0, instantiated: tInst - t0, goRun: goRunTimes.end - goRunTimes.start,
      framesWait: tFrames - goRunTimes.end, decode: t1 - tFrames, afterInstantiated: t1 - tInst, ...goModuleEntry("golist") };
  } else {
    const js = await loadJs();
    const tImport = performance.now();
    const client = await js.connect(url(n, page));
    const tConnect = performance.now();
    count = (await js.listAll(client)).length;
    t1 = performance.now();
    await client.close();
    const bundle = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/jsstack.js"));
    parts = { import: tImport - t0, connect: tConnect - tImport, listing: t1 - tConnect,
      cold: !!bundle && bundle.transferSize > 0, bundleTransferBytes: bundle ? bundle.transferSize : NaN, bundleBytes: bundle ? bundle.decodedBodySize : NaN,
      bundleResponseMs: bundle ? bundle.responseEnd - bundle.responseStart : NaN };
  }
  await sleep(0); // let the observer deliver the last long task
  const during = longTasks.filter((l) => l.start + l.ms > t0 && l.start < t1);
  return { stack, ms: t1 - t0, count, parts,
    longTasks: { supported: longTaskSupported, over50: during.filter((l) => l.ms > 50).map((l) => +l.ms.toFixed(1)), all: during.length } };
}

// ---------- one round of the reads, mention and keystroke ----------

// The read image rows: reps timed reads per stack (after two warm-up ones) of
// the same PNG, then of new bytes every read (mcphost and the floor).
async function readImage(host, js, client, floor, reps) {
  // read image: resources/read → bytes decoded → type sniffed; the floor
  // only receives the same frame as a string.
  const img = { mcphost: [], js: [], floor: [], jsNative: [] };
  let check = {};
  const hasNative = typeof Uint8Array.fromBase64 === "function";
  const runs = {
    async mcphost() {
      const a = await host.attach(IMAGE);
      check.mcphostBytes = a[0].bytes.length; check.mcphostType = a[0].sniffedMimeType;
    },
    async js() {
      const b = await js.readBlob(client, IMAGE);
      check.jsBytes = b[0].bytes.length; check.jsType = b[0].sniffedMimeType;
    },
    async floor() { check.floorChars = await floor.read(IMAGE); },
    async jsNative() {
      if (!hasNative) return;
      const c = await js.readBlob(client, IMAGE, js.decodeNative);
      void c[0].bytes.length;
    },
  };
  for (let i = 0; i < reps + 2; i++) { // two warm-up iterations, not counted
    for (const name of rotate(i, ["mcphost", "js", "floor", "jsNative"])) {
      await settle();
      const t = performance.now();
      await runs[name]();
      const d = performance.now() - t;
      if (i >= 2 && (name !== "jsNative" || hasNative)) img[name].push(d);
    }
  }
  if (check.mcphostBytes !== check.jsBytes || check.mcphostType !== "image/png" || check.jsType !== "image/png")
    throw new Error("read image: stacks disagree: " + JSON.stringify(check));
  const image = { ...check, samples: img };
  host.detach(IMAGE);

  // The same read with new bytes every time (info, not a target): each
  // iteration reads bench://image.png?v=TAG, the PNG with a tEXt chunk naming
  // TAG, which mcphost and the floor both read once, so nothing of a previous
  // read (a held blob's array or digest) can serve it. Detached untimed.
  const fresh = { mcphost: [], floor: [] };
  const tag = Math.random().toString(36).slice(2, 8);
  for (let i = 0; i < reps + 2; i++) {
    const uri = IMAGE + "?v=" + tag + "-" + i;
    for (const name of rotate(i, ["mcphost", "floor"])) {
      await settle();
      const t = performance.now();
      if (name === "mcphost") {
        const a = await host.attach(uri);
        const d = performance.now() - t;
        performance.measure("bench:read fresh", { start: t, duration: d }); // for a trace of the suite
        if (a[0].sniffedMimeType !== "image/png" || !(a[0].bytes.length > check.mcphostBytes))
          throw new Error("read image, new bytes: " + a[0].sniffedMimeType + " " + a[0].bytes.length);
        if (i >= 2) fresh.mcphost.push(d);
        host.detach(uri);
      } else {
        await floor.read(uri);
        if (i >= 2) fresh.floor.push(performance.now() - t);
      }
    }
  }
  image.fresh = fresh;
  return image;
}


async function main() {
  const reps = num("reps", 15), mdReps = num("mdreps", 5);
  const mentionSamples = num("msamples", 300), keySamples = num("ksamples", 300);
  const m = await loadMcphost();
  const js = await loadJs();
  const host = await m.connect(url(0, 100), { timeoutMs: 60000 });
  const client = await js.connect(url(0, 100));
  const floor = await openFloor(url(0, 100));
  const out = { reps, mdReps };

  out.image = await readImage(host, js, client, floor, reps);
  floor.close();
  gc(); await sleep(50);

  // read Markdown: resources/read → sanitized HTML. Only the renderer's output
  // counts: a sample whose HTML is the plain-text fallback (the render guard's
  // escaped text in one <pre>) or lacks the document's structure is invalid.
  // Every read is of a new variant of the document (bench://doc.md?read=TAG:
  // a line naming TAG in front), so that no rendering is remembered: mcphost's
  // render cache answers a re-read of the same URI and text without rendering.
  const md = { mcphost: [], js: [], mcphostFirst: NaN, jsFirst: NaN, invalid: [] };
  let htmlLen = {};
  const nonce = Math.random().toString(36).slice(2, 10);
  for (let i = 0; i < mdReps + 1; i++) { // the first call (Worker start, heap growth) is reported apart
    const order = i % 2 ? ["js", "mcphost"] : ["mcphost", "js"];
    const uri = `${DOC}?read=${nonce}-${i}`;
    let dm, dj, a, b;
    for (const s of order) {
      await settle();
      const t = performance.now();
      if (s === "mcphost") { a = await host.attach(uri); void a[0].html.length; dm = performance.now() - t; }
      else { b = await js.readMarkdown(client, uri); void b[0].html.length; dj = performance.now() - t; }
    }
    const why = notRendered(a[0], b[0].html);
    if (why) md.invalid.push({ call: i, why, warnings: a[0].warnings });
    if (i === 0) { md.mcphostFirst = why ? NaN : dm; md.jsFirst = dj; }
    else { md.mcphost.push(why ? NaN : dm); md.js.push(dj); }
    htmlLen = { mcphostHtml: a[0].html.length, jsHtml: b[0].html.length };
    host.detach(uri);
  }
  out.markdown = { ...htmlLen, samples: md };
  await host.close();
  await client.close();
  gc(); await sleep(50);

  // keystroke before mention: the 100,000-descriptor host's heap, released
  // by then, would otherwise be collected during the keystrokes.
  try { out.keystroke = await keystroke(m, keySamples); } catch (e) { out.keystroke = { available: false, why: "failed: " + (e && e.message) }; }
  gc(); await sleep(50);

  // mention: the typed prefixes of 20 queries over 10,000 and 100,000
  // descriptors, ≥ mentionSamples per stack (each query once per stack,
  // alternating which goes first).
  out.mention = {};
  const seq = pick(TYPED, mentionSamples);
  for (const n of [10000, 100000]) try {
    const page = n >= 100000 ? 1000 : 500;
    const h = await listed(m, n, page);
    const c = await js.connect(url(n, page));
    const [rm, rj] = await Promise.all([h.resources(), js.listAll(c)]);
    if (rm.length !== n || rj.length !== n) throw new Error(`mention: listed ${rm.length} (mcphost) and ${rj.length} (js), want ${n}`);
    let t = performance.now();
    const snap = js.index(rj);
    const indexMs = performance.now() - t;
    const lat = { mcphost: [], js: [] }, hits = { mcphost: 0, js: 0 };
    // one untimed pass of the 20 full queries per stack (JIT, first touch)
    for (const q of QUERIES) { h.mention(q, { limit: 20 }); js.mention(snap, q, 20); }
    seq.forEach((q, i) => {
      for (const s of i % 2 ? ["js", "mcphost"] : ["mcphost", "js"]) {
        t = performance.now();
        const r = s === "mcphost" ? h.mention(q, { limit: 20 }) : js.mention(snap, q, 20);
        lat[s].push(performance.now() - t);
        hits[s] += r.length;
      }
    });
    out.mention[n] = { jsIndexMs: indexMs, hits, samples: lat };
    await h.close();
    await c.close();
    gc(); await sleep(50);
  } catch (e) {
    out.mention[n] = { failed: String(e && e.message) }; // printed; the row is n/a for this round
  }
  out.lostListings = lostListings;
  return out;
}

// notRendered says why a mcphost Markdown part is not the renderer's output
// ("" when it is): the plain-text fallback, no HTML, or far less structure
// (headings, paragraphs, list items) than the JS stack's rendering of the
// same document.
function notRendered(att, jsHtml) {
  const h = att && att.html;
  if (!h) return "no html";
  if (att.error) return "error part: " + att.error.message;
  if (h.startsWith("<pre>") && h.trimEnd().endsWith("</pre>") && h.indexOf("<pre", 1) < 0) return "plain-text fallback (<pre>)";
  const tags = (s) => (s.match(/<(h[1-6]|p|li)[\s>]/g) || []).length;
  const mine = tags(h), theirs = tags(jsHtml);
  if (mine < theirs / 2) return `${mine} headings/paragraphs/list items against the JS stack's ${theirs}`;
  return "";
}

// openFloor: a bare WebSocket to the same peer that sends resources/read and
// only receives the answer as a string (its length is read, nothing parsed).
function openFloor(wsUrl) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, "mcp");
    let id = 0, waiting = null;
    ws.onmessage = (e) => { const w = waiting; waiting = null; if (w) w.resolve(e.data); };
    ws.onerror = () => { reject(new Error("floor socket failed")); if (waiting) waiting.reject(new Error("floor socket failed")); };
    ws.onopen = () => resolve({
      read(uri) {
        return new Promise((res, rej) => {
          waiting = { resolve: (data) => (typeof data === "string" ? res(data.length) : rej(new Error("floor: not a text frame"))), reject: rej };
          ws.send(`{"jsonrpc":"2.0","id":${++id},"method":"resources/read","params":{"uri":${JSON.stringify(uri)}}}`);
        });
      },
      close() { ws.close(); },
    });
  });
}

// Keystroke → rendered in <mcp-mention> (web/mention.js) over 10,000
// descriptors. Each query's first word is typed one character at a time after
// "@", in whole passes until ≥ keySamples keys; every key is an input event at
// a random phase of the frame. Per key, from the input event's timeStamp:
//   frame    — the next animation frame after the list rendered (the row's
//              figure; it includes waiting for the frame, which headless
//              Chromium schedules at once, a headed one at the next refresh);
//   rendered — the list is in the DOM with style and layout done (the bench
//              forces layout in its mcp-rendered listener);
//   hook     — the component's own mcp-rendered detail.ms (docs/ui.md).
async function keystroke(m, keySamples) {
  try { await import("/web/mention.js"); } catch (e) { return { available: false, why: "web/mention.js not loadable: " + e.message }; }
  if (!customElements.get("mcp-mention")) return { available: false, why: "web/mention.js did not define <mcp-mention>" };
  const h = await listed(m, 10000, 500);
  const ta = document.createElement("textarea");
  ta.id = "composer";
  document.body.append(ta);
  const picker = document.createElement("mcp-mention");
  picker.setAttribute("for", "composer");
  picker.setAttribute("limit", "20");
  document.body.append(picker);
  picker.hosts = [h];
  ta.focus();
  const type = (value) => new Promise((resolve) => {
    let stamp = NaN, rendered = NaN, hook = NaN;
    const timer = setTimeout(() => { picker.removeEventListener("mcp-rendered", on); resolve(null); }, 2000);
    const on = (e) => {
      void picker.getBoundingClientRect(); // flush style and layout of the updated list
      rendered = performance.now();
      hook = e.detail.ms;
      clearTimeout(timer);
      picker.removeEventListener("mcp-rendered", on);
      requestAnimationFrame(() => resolve({ rendered: rendered - stamp, frame: performance.now() - stamp, hook }));
    };
    picker.addEventListener("mcp-rendered", on);
    ta.value = value;
    ta.setSelectionRange(value.length, value.length);
    const ev = new InputEvent("input", { bubbles: true, inputType: "insertText", data: value.slice(-1) });
    stamp = ev.timeStamp;
    ta.dispatchEvent(ev);
  });
  const words = QUERIES.map((q) => q.split(" ")[0]);
  const perPass = words.reduce((n, w) => n + w.length, 0);
  const passes = Math.ceil(keySamples / perPass);
  // one untimed word first (the component's code and the query path warm up,
  // as mention's untimed pass does)
  for (const w of ["@o", "@on", "@onb"]) { await frame(); await type(w); }
  ta.value = "";
  ta.dispatchEvent(new InputEvent("input", { bubbles: true }));
  picker.close();
  const s = { rendered: [], frame: [], hook: [] };
  let missed = 0, typed = 0;
  outer: for (let r = 0; r < passes; r++) {
    for (const word of words) {
      if (r === passes - 1 && typed >= keySamples && keySamples < perPass) break outer;
      for (let i = 1; i <= word.length; i++) {
        await frame();
        await sleep(Math.random() * 16); // a random phase of the frame
        const x = await type("@" + word.slice(0, i));
        typed++;
        if (x) { s.rendered.push(x.rendered); s.frame.push(x.frame); s.hook.push(x.hook); } else missed++;
      }
      ta.value = "";
      ta.dispatchEvent(new InputEvent("input", { bubbles: true }));
      picker.close();
      await frame();
    }
  }
  picker.remove();
  ta.remove();
  await h.close();
  return { available: true, samples: s, missed };
}

// ---------- memory ----------

// Page memory (see pageMemory) after read 1 and after every tenth of N PNG
// reads: it must be flat (bench/run.mjs compares the last three checkpoints
// with the middle ones).
async function mempng() {
  const reads = num("reads", 100);
  const marks = [...new Set([1, ...Array.from({ length: 10 }, (_, i) => Math.round(((i + 1) * reads) / 10))])].filter((x) => x >= 1);
  const m = await loadMcphost();
  const host = await m.connect(url(0, 100), { timeoutMs: 60000 });
  const before = await pageMemory();
  const at = {};
  for (let i = 1; i <= reads; i++) {
    const a = await host.attach(IMAGE);
    if (a[0].bytes.length === 0) throw new Error("empty read");
    if (marks.includes(i)) { const pm = await pageMemory(); at[i] = { api: pm.api, linear: pm.linear, total: pm.total, rss: pm.rss }; }
  }
  await host.close();
  return { reads, before: { api: before.api, linear: before.linear, total: before.total, rss: before.rss }, at };
}

// Page memory before and after one 10 MB blob read, holding the result (a
// stack keeps the bytes it was asked for). Linear memory never shrinks, so its
// part of the growth includes Go's peak during the read.
async function memblob() {
  const stack = params.get("stack") || "mcphost";
  let before, after, len, kind, err;
  if (stack === "js") {
    const js = await loadJs();
    const client = await js.connect(url(0, 100));
    before = await pageMemory();
    const b = await js.readBlob(client, BLOB);
    after = await pageMemory();
    len = b[0].bytes.length;
    window.keep = b;
    await client.close();
  } else {
    const m = await loadMcphost();
    const host = await listed(m, 0, 100);
    before = await pageMemory();
    const a = await host.attach(BLOB);
    after = await pageMemory();
    len = a[0].bytes ? a[0].bytes.length : 0;
    kind = a[0].kind; err = a[0].error ? String(a[0].error.message) : undefined;
    window.keep = a;
    await host.close();
  }
  return { stack, before, after, len, kind, err, lostListings };
}

// The keystroke row alone (?suite=keystroke&ksamples=N): for probing the
// picker's path (a CPU profile or trace around it); bench/run.mjs measures
// the row inside the main suite.
async function keystrokeOnly() {
  const m = await loadMcphost();
  return keystroke(m, num("ksamples", 300));
}

// The read image rows alone (?suite=image&reps=N), for probing.
async function imageOnly() {
  const m = await loadMcphost();
  const js = await loadJs();
  const host = await m.connect(url(0, 100), { timeoutMs: 60000 });
  const client = await js.connect(url(0, 100));
  const floor = await openFloor(url(0, 100));
  const image = await readImage(host, js, client, floor, num("reps", 15));
  floor.close();
  await host.close();
  await client.close();
  return { image };
}

const suites = { main, startup, mempng, memblob, keystroke: keystrokeOnly, image: imageOnly };
window.benchResult = (async () => {
  const fn = suites[suite];
  if (!fn) throw new Error("unknown suite " + suite);
  const r = await fn();
  r.suite = suite;
  r.userAgent = navigator.userAgent;
  r.crossOriginIsolated = self.crossOriginIsolated;
  return r;
})();
window.benchResult.then(
  (r) => { document.getElementById("out").textContent = JSON.stringify(r, (k, v) => (Array.isArray(v) && typeof v[0] === "number" ? v.map((x) => +x.toFixed(3)) : v), 1); },
  (e) => { document.getElementById("out").textContent = "FAILED: " + (e && e.stack || e); });
