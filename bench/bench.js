// The side-by-side bench page: mcphost (web/mcphost.js + mcphost.wasm,
// loaded unbundled as a user would) and the JavaScript stack
// (bench/dist/jsstack.js, a Vite bundle of the TS SDK, marked, DOMPurify,
// file-type and fuzzysort), each against the same scripted peer on this origin
// (bench/peer). A suite is picked by ?suite=; results land in
// window.benchResult (a Promise) for bench/run.mjs and in the page.
//
// Timing: performance.now() (5 µs resolution: the peer sends the
// cross-origin isolation headers). The two stacks alternate iteration by
// iteration so that background noise hits both alike.

const params = new URLSearchParams(location.search);
const suite = params.get("suite") || "main";
const wsBase = `ws://${location.host}/mcp`;
const IMAGE = "bench://image.png", DOC = "bench://doc.md", BLOB = "bench://blob-10m";

// Capture the Go instance's linear memory: mcphost.js instantiates the module
// through one of these, and the bench needs memory.buffer.byteLength.
let wasmMemory = null;
const instantiateTimes = { start: NaN, end: NaN };
for (const name of ["instantiateStreaming", "instantiate"]) {
  const orig = WebAssembly[name];
  WebAssembly[name] = async function (...args) {
    instantiateTimes.start = performance.now();
    const res = await orig.apply(this, args);
    instantiateTimes.end = performance.now();
    const inst = res.instance || res;
    if (inst && inst.exports && inst.exports.mem instanceof WebAssembly.Memory) wasmMemory = inst.exports.mem;
    return res;
  };
}
const memBytes = () => (wasmMemory ? wasmMemory.buffer.byteLength : NaN);
const jsHeap = () => (performance.memory ? performance.memory.usedJSHeapSize : NaN);
const gc = () => { if (typeof globalThis.gc === "function") globalThis.gc(); };

const median = (xs) => quantile(xs, 0.5);
function quantile(xs, q) { // nearest rank
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
const url = (n, page) => `${wsBase}?n=${n}&page=${page}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// 20 varied picker queries: common prefixes, multi-word, typos, rare and
// absent terms, non-ASCII, URI fragments.
const QUERIES = ["onboard", "runbook", "pay", "incident post", "kube", "polcy", "deploy rollback", "api gw",
  "r", "sec audit", "über", "café", "team/support", "postmortem latency", "zzqxj", "refund invoice 12",
  "escalation oncall", "data retention policy", "md", "ledger payout"];

async function loadMcphost() { return import("/web/mcphost.js"); }
async function loadJs() { return import("/bench/dist/jsstack.js"); }

// ---------- suites ----------

async function startup() {
  const stack = params.get("stack");
  const n = Number(params.get("n") || 1000), page = Number(params.get("page") || 100);
  const t0 = performance.now();
  let count;
  if (stack === "mcphost") {
    const m = await loadMcphost();
    const tImport = performance.now();
    const host = await m.connect(url(n, page));
    const tConnect = performance.now();
    count = (await host.resources()).length;
    const t1 = performance.now();
    await host.close();
    // The same again with the runtime up: what listing costs once warm.
    const tw0 = performance.now();
    const again = await m.connect(url(n, page));
    const tw1 = performance.now();
    await again.resources();
    const tw2 = performance.now();
    await again.close();
    const wasm = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/mcphost.wasm"));
    return { stack, ms: t1 - t0, count, parts: {
      import: tImport - t0,
      wasmFetch: wasm ? wasm.responseEnd - wasm.startTime : NaN,
      compileInstantiate: instantiateTimes.end - instantiateTimes.start,
      goStartAndConnect: tConnect - instantiateTimes.end,
      list: t1 - tConnect,
      warmConnect: tw1 - tw0,
      warmList: tw2 - tw1,
    } };
  }
  const js = await loadJs();
  const tImport = performance.now();
  const client = await js.connect(url(n, page));
  const tConnect = performance.now();
  count = (await js.listAll(client)).length;
  const t1 = performance.now();
  await client.close();
  return { stack: "js", ms: t1 - t0, count, parts: { import: tImport - t0, connect: tConnect - tImport, list: t1 - tConnect } };
}

async function main() {
  const reps = Number(params.get("reps") || 15), mdReps = Number(params.get("mdreps") || 5);
  const m = await loadMcphost();
  const js = await loadJs();
  const host = await m.connect(url(0, 100), { timeoutMs: 60000 });
  const client = await js.connect(url(0, 100));
  const out = { reps, mdReps };

  // read image: resources/read -> bytes decoded -> type sniffed.
  const img = { mcphost: [], js: [], jsNative: [] };
  let check = {};
  for (let i = 0; i < reps + 2; i++) { // two warm-up rounds, not counted
    let t = performance.now();
    const a = await host.attach(IMAGE);
    const mBytes = a[0].bytes.length, mType = a[0].sniffedMimeType;
    const dm = performance.now() - t;
    t = performance.now();
    const b = await js.readBlob(client, IMAGE);
    const jBytes = b[0].bytes.length, jType = b[0].sniffedMimeType;
    const dj = performance.now() - t;
    let dn = NaN;
    if (typeof Uint8Array.fromBase64 === "function") {
      t = performance.now();
      const c = await js.readBlob(client, IMAGE, js.decodeNative);
      void c[0].bytes.length;
      dn = performance.now() - t;
    }
    if (i >= 2) { img.mcphost.push(dm); img.js.push(dj); img.jsNative.push(dn); }
    check = { mcphostBytes: mBytes, mcphostType: mType, jsBytes: jBytes, jsType: jType };
  }
  if (check.mcphostBytes !== check.jsBytes || check.mcphostType !== "image/png" || check.jsType !== "image/png")
    throw new Error("read image: stacks disagree: " + JSON.stringify(check));
  out.image = { ...check, samples: img };
  host.detach(IMAGE);
  gc(); await sleep(50);

  // read Markdown: resources/read -> sanitized HTML (the rendering counts).
  const md = { mcphost: [], js: [], mcphostFirst: NaN, jsFirst: NaN };
  let htmlLen = {};
  for (let i = 0; i < mdReps + 1; i++) { // one warm-up round (the first call grows the heap), reported apart
    let t = performance.now();
    const a = await host.attach(DOC);
    const mh = a[0].html.length;
    const dm = performance.now() - t;
    t = performance.now();
    const b = await js.readMarkdown(client, DOC);
    const jh = b[0].html.length;
    const dj = performance.now() - t;
    if (i === 0) { md.mcphostFirst = dm; md.jsFirst = dj; } else { md.mcphost.push(dm); md.js.push(dj); }
    htmlLen = { mcphostHtml: mh, jsHtml: jh };
  }
  out.markdown = { ...htmlLen, samples: md };
  host.detach(DOC);
  await host.close();
  await client.close();
  gc(); await sleep(50);

  // mention: 20 queries x 3 over 10,000 and 100,000 descriptors.
  out.mention = {};
  for (const n of [10000, 100000]) {
    const page = n >= 100000 ? 1000 : 500;
    const h = await m.connect(url(n, page), { timeoutMs: 60000 });
    const c = await js.connect(url(n, page));
    const [rm, rj] = await Promise.all([h.resources(), js.listAll(c)]);
    if (rm.length !== n || rj.length !== n) throw new Error(`mention: listed ${rm.length} (mcphost) and ${rj.length} (js), want ${n}`);
    let t = performance.now();
    const snap = js.index(rj);
    const indexMs = performance.now() - t;
    const lat = { mcphost: [], js: [] }, hits = { mcphost: 0, js: 0 };
    // one untimed pass per stack (JIT / first-touch), then 3 timed rounds
    for (const q of QUERIES) { h.mention(q, { limit: 20 }); js.mention(snap, q, 20); }
    for (let round = 0; round < 3; round++) {
      for (const q of QUERIES) {
        t = performance.now();
        const a = h.mention(q, { limit: 20 });
        lat.mcphost.push(performance.now() - t);
        t = performance.now();
        const b = js.mention(snap, q, 20);
        lat.js.push(performance.now() - t);
        if (round === 0) { hits.mcphost += a.length; hits.js += b.length; }
      }
    }
    out.mention[n] = { jsIndexMs: indexMs, hits, samples: lat };
    await h.close();
    await c.close();
    gc(); await sleep(50);
  }
  out.keystroke = await keystroke(m);
  return out;
}

// Keystroke-to-render of <mcp-mention> (web/mention.js) over 10,000
// descriptors, through its documented latency hook (docs/ui.md): the
// mcp-rendered event's detail.ms, from the input event's timeStamp to the list
// in the DOM (paint excluded). Each query's first word is typed one character
// at a time after "@", three times.
async function keystroke(m) {
  try { await import("/web/mention.js"); } catch (e) { return { available: false, why: "web/mention.js not loadable: " + e.message }; }
  if (!customElements.get("mcp-mention")) return { available: false, why: "web/mention.js did not define <mcp-mention>" };
  const h = await m.connect(url(10000, 500), { timeoutMs: 60000 });
  await h.resources();
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
    const timer = setTimeout(() => { picker.removeEventListener("mcp-rendered", on); resolve(NaN); }, 5000);
    const on = (e) => { clearTimeout(timer); picker.removeEventListener("mcp-rendered", on); resolve(e.detail.ms); };
    picker.addEventListener("mcp-rendered", on);
    ta.value = value;
    ta.setSelectionRange(value.length, value.length);
    ta.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText" }));
  });
  const samples = [];
  let missed = 0;
  for (let r = 0; r < 3; r++) {
    for (const q of QUERIES) {
      const word = q.split(" ")[0];
      for (let i = 1; i <= word.length; i++) {
        const ms = await type("@" + word.slice(0, i));
        if (Number.isFinite(ms)) samples.push(ms); else missed++;
      }
      ta.value = "";
      ta.dispatchEvent(new InputEvent("input", { bubbles: true }));
      picker.close();
      await new Promise((r) => requestAnimationFrame(r));
    }
  }
  picker.remove();
  ta.remove();
  await h.close();
  return { available: true, samples, missed };
}

// Linear memory after each of 100 PNG reads: it must plateau.
async function mempng() {
  const m = await loadMcphost();
  const host = await m.connect(url(0, 100), { timeoutMs: 60000 });
  const before = memBytes();
  const at = {};
  for (let i = 1; i <= 100; i++) {
    const a = await host.attach(IMAGE);
    if (a[0].bytes.length === 0) throw new Error("empty read");
    if ([1, 10, 25, 50, 75, 100].includes(i)) at[i] = memBytes();
  }
  await host.close();
  return { before, at, message: null };
}

// Linear memory growth for one 10 MB blob read (linear memory never shrinks,
// so growth over the pre-read size is the peak's upper part); the JS stack's
// heap after the same read for context.
async function memblob() {
  const stack = params.get("stack") || "mcphost";
  if (stack === "js") {
    const js = await loadJs();
    const client = await js.connect(url(0, 100));
    gc(); const before = jsHeap();
    const b = await js.readBlob(client, BLOB);
    const after = jsHeap();
    const len = b[0].bytes.length;
    await client.close();
    return { stack, before, after, len };
  }
  const m = await loadMcphost();
  const host = await m.connect(url(0, 100), { timeoutMs: 60000 });
  await host.resources();
  const before = memBytes();
  const a = await host.attach(BLOB);
  const after = memBytes();
  const len = a[0].bytes ? a[0].bytes.length : 0;
  const kind = a[0].kind, err = a[0].error ? String(a[0].error.message) : undefined;
  await host.close();
  return { stack, before, after, len, kind, err };
}

const suites = { main, startup, mempng, memblob };
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
