// The early start (web/mcphost.js startEarly, bridge/presend.go): the first
// connect() of a page opens its WebSocket and sends the handshake and the
// listing's pages while mcphost.wasm downloads; Go adopts what is already on
// the wire and sends only the rest. Against scripted peers in Node, with the
// module's download held back: the pages are asked for before the module
// arrived, no request is made twice, the other revision, a refusing and a
// closing server get the same outcomes as without the early start, and
// concurrent connect() calls each get a working host.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { WebSocketServer } from "ws";
import { launchBrowser, root } from "./harness.mjs";

const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
const PAGES = 3;
let server, port, browser;
let wasmDelayMs = 0;
let wasmSentAt = 0; // when the last module download finished
let refusedUpgrades = 0;
const conns = []; // { path, frames: [{ t, m }] }

function answer(kind, m) {
  const ok = (result) => ({ jsonrpc: "2.0", id: m.id, result });
  const fail = (code, message) => ({ jsonrpc: "2.0", id: m.id, error: { code, message } });
  switch (m.method) {
    case "server/discover":
      return kind === "modern"
        ? ok({ supportedVersions: ["2026-07-28"], capabilities: { resources: {} }, _meta: { "io.modelcontextprotocol/serverInfo": { name: "early-modern", version: "1" } } })
        : fail(-32601, "Method not found");
    case "initialize":
      return kind === "modern"
        ? { jsonrpc: "2.0", id: m.id, error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"] } } }
        : ok({ protocolVersion: "2025-11-25", capabilities: { resources: {} }, serverInfo: { name: "early-legacy", version: "1" } });
    case "resources/list": {
      // big*: pages over 4 KB (the early start reads those without parsing
      // their items), cursors with a quote and a backslash; bigfirst puts
      // nextCursor before the items (a shape it parses).
      const big = kind.startsWith("big");
      const i = Number(String(m.params?.cursor ?? 0).match(/\d+/)[0]);
      const resources = Array.from({ length: 10 }, (_, k) => ({ uri: `early://doc/${i}/${k}`, name: `doc ${i}.${k}`,
        ...(big ? { description: `A description, with commas, of document ${i}.${k}: `.repeat(12) } : {}) }));
      const pages = kind === "endless" || kind === "bigendless" ? Infinity : PAGES;
      const cursor = big ? `c"${i + 1}\\` : String(i + 1);
      if (i + 1 >= pages) return ok({ resources });
      return ok(kind === "bigfirst" ? { nextCursor: cursor, resources } : { resources, nextCursor: cursor });
    }
    case "resources/templates/list":
      return ok({ resourceTemplates: [] });
    default:
      return fail(-32601, "Method not found");
  }
}

before(async () => {
  server = http.createServer((req, res) => {
    const name = req.url === "/" ? "/blank.html" : req.url.split("?")[0];
    if (name === "/early-state") {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(JSON.stringify(conns.map((c) => c.closed)));
    }
    if (name === "/refuse") {
      // The diagnosis socket.js asks for after a refused upgrade.
      res.writeHead(403, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ code: 403, reason: "not allowed here", fix: "ask for a token" }));
    }
    if (name === "/blank.html") {
      res.writeHead(200, { "Content-Type": "text/html" });
      return res.end("<!doctype html><title>early</title>");
    }
    let body;
    try {
      body = readFileSync(path.join(root, "web", path.normalize(name)));
    } catch {
      return res.writeHead(404).end();
    }
    const send = () => {
      res.writeHead(200, { "Content-Type": types[path.extname(name)] || "application/octet-stream", "Cache-Control": "no-store" });
      res.end(body, () => {
        if (name.endsWith(".wasm")) wasmSentAt = performance.now();
      });
    };
    if (name.endsWith(".wasm") && wasmDelayMs > 0) setTimeout(send, wasmDelayMs);
    else send();
  });
  server.on("upgrade", (req, socket) => {
    if (req.url.startsWith("/refuse")) {
      refusedUpgrades++;
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nrefuse");
    }
  });
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (ps) => (ps.has("mcp") ? "mcp" : false) });
  server.on("upgrade", (req, socket, head) => {
    if (req.url.startsWith("/refuse")) return;
    wss.handleUpgrade(req, socket, head, (ws) => {
      const kind = req.url.slice(1).split("?")[0];
      const c = { path: kind, frames: [], closed: false };
      conns.push(c);
      ws.on("close", () => { c.closed = true; });
      if (kind === "close") return ws.close(1011, "going away");
      ws.on("message", (data) => {
        const m = JSON.parse(String(data));
        c.frames.push({ t: performance.now(), m });
        if (m.id !== undefined) ws.send(JSON.stringify(answer(kind, m)));
      });
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  port = server.address().port;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Runs fn(connect, base) in a fresh page (a fresh runtime) and returns its result. */
async function inPage(fn) {
  const page = await browser.context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${port}/`);
    return await page.evaluate(`(async () => {
      const { connect } = await import("/mcphost.js");
      return (${fn})(connect, "ws://127.0.0.1:${port}");
    })()`);
  } finally {
    await page.close();
  }
}

const listAll = String(async (connect, base, kind) => {
  const host = await connect(`${base}/${kind}`, { reconnect: false });
  try {
    const rs = await host.resources();
    return { ok: true, version: host.protocolVersion, server: host.serverInfo.name, count: rs.length, last: rs.at(-1)?.uri };
  } finally {
    await host.close();
  }
});

// Requests of one connection, as "method params" (without ids); none twice.
function requests(c) {
  return c.frames.map((f) => `${f.m.method} ${JSON.stringify(f.m.params?.cursor ?? "")}`);
}

/** Runs fn with the module's download held back by ms, and releases it after. */
async function withSlowModule(ms, fn) {
  wasmDelayMs = ms;
  try {
    return await fn();
  } finally {
    wasmDelayMs = 0;
  }
}

for (const kind of ["legacy", "modern"]) {
  test(`${kind} server, slow module download: the pages are asked for before the module arrived, each once`, async () => {
    conns.length = 0;
    const r = await withSlowModule(1500, () => inPage(`(c, b) => (${listAll})(c, b, ${JSON.stringify(kind)})`));
    assert.deepEqual(r, {
      ok: true, version: kind === "modern" ? "2026-07-28" : "2025-11-25", server: `early-${kind}`,
      count: 10 * PAGES, last: `early://doc/${PAGES - 1}/9`,
    });
    assert.equal(conns.length, 1, "one connection");
    const reqs = requests(conns[0]);
    assert.equal(new Set(reqs).size, reqs.length, `a request was made twice: ${reqs.join(", ")}`);
    const want = kind === "modern"
      ? ["server/discover", "resources/list", "resources/templates/list"]
      : ["server/discover", "initialize", "notifications/initialized", "resources/list", "resources/templates/list"];
    for (const w of want) assert.ok(reqs.some((q) => q.startsWith(w + " ")), `${w} missing: ${reqs.join(", ")}`);
    const pages = conns[0].frames.filter((f) => f.m.method === "resources/list");
    assert.equal(pages.length, PAGES);
    // The overlap: every page was requested before the module's download ended.
    for (const p of pages) assert.ok(p.t < wasmSentAt, `page ${JSON.stringify(p.m.params)} asked for after the module arrived`);
  });
}

for (const kind of ["big", "bigfirst"]) {
  test(`pages over 4 KB${kind === "bigfirst" ? ", the cursor before the items" : ""}, escaped cursors, slow module download: each page asked for before the module arrived, once`, async () => {
    conns.length = 0;
    const r = await withSlowModule(1500, () => inPage(`(c, b) => (${listAll})(c, b, ${JSON.stringify(kind)})`));
    assert.deepEqual(r, { ok: true, version: "2025-11-25", server: "early-legacy", count: 10 * PAGES, last: `early://doc/${PAGES - 1}/9` });
    const reqs = requests(conns[0]);
    assert.equal(new Set(reqs).size, reqs.length, `a request was made twice: ${reqs.join(", ")}`);
    const pages = conns[0].frames.filter((f) => f.m.method === "resources/list");
    assert.deepEqual(pages.map((p) => p.m.params?.cursor ?? ""), ["", ...Array.from({ length: PAGES - 1 }, (_, i) => `c"${i + 1}\\`)]);
    for (const p of pages) assert.ok(p.t < wasmSentAt, `page ${JSON.stringify(p.m.params)} asked for after the module arrived`);
  });
}

// Lists with maxDescriptors 25 and waits for the listing's last progress event.
const listCapped = String(async (connect, base, kind) => {
  const host = await connect(`${base}/${kind}`, { reconnect: false, maxDescriptors: 25 });
  const progress = new Promise((res) => host.addEventListener("listprogress", (e) => e.detail.done && res(e.detail)));
  const rs = await host.resources();
  const last = await progress;
  await host.close();
  return { count: rs.length, truncated: last.truncated };
});

for (const kind of ["endless", "bigendless"]) {
  test(`an endless listing${kind === "bigendless" ? " of pages over 4 KB" : ""}: the early start asks for no page Go would not (maxDescriptors)`, async () => {
    conns.length = 0;
    const r = await withSlowModule(800, () => inPage(`(c, b) => (${listCapped})(c, b, ${JSON.stringify(kind)})`));
    assert.deepEqual(r, { count: 25, truncated: true });
    const reqs = requests(conns[0]);
    assert.equal(new Set(reqs).size, reqs.length, `a request was made twice: ${reqs.join(", ")}`);
    // Go stops after the page that passes 25 entries: pages 0, 1 and 2.
    assert.equal(conns[0].frames.filter((f) => f.m.method === "resources/list").length, 3, reqs.join(", "));
  });
}


test("a server speaking the other revision than the one pinned: the same error as without the early start", async () => {
  conns.length = 0;
  const r = await inPage(String(async (connect, base) => {
    try {
      await connect(`${base}/legacy`, { reconnect: false, protocol: "2026-07-28", connectTimeoutMs: 3000 });
      return { ok: true };
    } catch (e) {
      return { ok: false, kind: e.kind, message: e.message };
    }
  }));
  assert.equal(r.ok, false);
  assert.equal(r.kind, "unsupported", r.message);
  // Pinned to the legacy revision against a modern-only server: no discover at all.
  const r2 = await inPage(String(async (connect, base) => {
    try {
      await connect(`${base}/modern`, { reconnect: false, protocol: "2025-11-25", connectTimeoutMs: 3000 });
      return { ok: true };
    } catch (e) {
      return { ok: false, kind: e.kind, message: e.message };
    }
  }));
  assert.equal(r2.ok, false, "a modern-only server refused initialize");
  const modern = conns.find((c) => c.path === "modern");
  assert.ok(modern && !requests(modern).some((q) => q.startsWith("server/discover")), "no discover when pinned to 2025-11-25");
});

test("a server refusing the upgrade (403) before the module arrived: kind refused, at once, one upgrade", async () => {
  refusedUpgrades = 0;
  wasmDelayMs = 800; // the early socket's refusal and diagnosis are over before Go dials
  const r = await inPage(String(async (connect, base) => {
    const t0 = performance.now();
    try {
      await connect(`${base}/refuse`, { connectTimeoutMs: 10000 });
      return { ok: true };
    } catch (e) {
      return { ok: false, kind: e.kind, code: e.code, ms: performance.now() - t0, message: e.message };
    }
  }));
  assert.equal(r.ok, false);
  assert.equal(r.kind, "refused", r.message);
  assert.equal(r.code, 403);
  assert.match(r.message, /not allowed here/);
  assert.ok(r.ms < 5000, `refused after ${r.ms} ms: retried as if retryable`);
  wasmDelayMs = 0;
  assert.equal(refusedUpgrades, 1, "Go read the early socket's refusal: no second upgrade");
});

test("a server that closes after accepting, before the module arrived: connect() fails as unavailable, never hangs", async () => {
  wasmDelayMs = 800;
  const r = await inPage(String(async (connect, base) => {
    try {
      await connect(`${base}/close`, { reconnect: false, connectTimeoutMs: 1500 });
      return { ok: true };
    } catch (e) {
      return { ok: false, kind: e.kind, message: e.message };
    }
  }));
  wasmDelayMs = 0;
  assert.equal(r.ok, false);
  assert.ok(["unavailable", "timeout"].includes(r.kind), `${r.kind}: ${r.message}`);
});

test("connect() calls made before the first resolves: each host works, no request is made twice on a connection", async () => {
  conns.length = 0;
  wasmDelayMs = 800;
  let r;
  try {
    r = await inPage(String(async (connect, base) => {
      const opts = [{}, {}, { clientInfo: { name: "other client", version: "2" } }, { protocol: "2025-11-25" }];
      const hosts = await Promise.all(opts.map((o) => connect(`${base}/legacy`, { reconnect: false, ...o })));
      const out = await Promise.all(hosts.map(async (h) => ({ count: (await h.resources()).length, version: h.protocolVersion })));
      await Promise.all(hosts.map((h) => h.close()));
      return out;
    }));
  } finally {
    wasmDelayMs = 0;
  }
  assert.deepEqual(r, Array(4).fill({ count: 10 * PAGES, version: "2025-11-25" }));
  for (const c of conns) {
    const reqs = requests(c);
    assert.equal(new Set(reqs).size, reqs.length, `a request was made twice on one connection: ${reqs.join(", ")}`);
    assert.equal(reqs.filter((q) => q.startsWith("initialize ")).length, 1, reqs.join(", "));
  }
});

test("connect() aborted while the module downloads: it rejects as AbortError and its early socket is closed", async () => {
  conns.length = 0;
  wasmDelayMs = 800;
  let r;
  try {
    r = await inPage(String(async (connect, base) => {
      const ac = new AbortController();
      const p = connect(`${base}/legacy`, { reconnect: false, signal: ac.signal });
      setTimeout(() => ac.abort(new Error("the user left")), 200);
      try {
        await p;
        return { ok: true };
      } catch (e) {
        // Still in the page (its close would close any socket): the server
        // says whether the early socket was closed.
        let closed = [];
        for (let i = 0; i < 50 && !closed[0]; i++) {
          await new Promise((res) => setTimeout(res, 20));
          closed = await (await fetch("/early-state")).json();
        }
        return { ok: false, name: e.name, kind: e.kind, closed };
      }
    }));
  } finally {
    wasmDelayMs = 0;
  }
  assert.deepEqual(r, { ok: false, name: "AbortError", kind: "cancelled", closed: [true] });
});
