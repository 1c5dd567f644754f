// The browser socket (bridge/socket_js.go) against a scripted peer in Node:
// what no well-behaved server sends. A binary frame ends the session with a
// protocol error, a frame over the read limit ends it with kind "limit", an
// undecodable frame is skipped and the session goes on, and a peer that
// closes mid-read fails the pending call as retryable.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { WebSocketServer } from "ws";
import { launchBrowser, root } from "./harness.mjs";

const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
let server, port, browser;
let script = () => {};

before(async () => {
  server = http.createServer((req, res) => {
    const name = req.url === "/" ? "/blank.html" : req.url.split("?")[0];
    if (name === "/blank.html") {
      res.writeHead(200, { "Content-Type": "text/html" });
      return res.end("<!doctype html><title>socket</title>");
    }
    try {
      const body = readFileSync(path.join(root, "web", path.normalize(name)));
      res.writeHead(200, { "Content-Type": types[path.extname(name)] || "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  const wss = new WebSocketServer({ server, handleProtocols: (ps) => (ps.has("mcp") ? "mcp" : false), maxPayload: 0 });
  wss.on("connection", (ws) => {
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const m = JSON.parse(String(data));
      // A 2025-11-25-only server: the 2026-07-28 probe is an unknown method.
      if (m.method === "server/discover") {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } }));
      } else if (m.method === "initialize") {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { resources: {} }, serverInfo: { name: "scripted", version: "0" } } }));
      } else if (m.method === "resources/list") {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { resources: [] } }));
      } else if (m.method === "resources/templates/list") {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { resourceTemplates: [] } }));
      } else if (m.id !== undefined) {
        script(ws, m);
      }
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

/** Runs fn(connect, wsUrl) in a fresh page and returns its result. */
async function inPage(fn) {
  const page = await browser.context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${port}/`);
    return await page.evaluate(`(async () => {
      const { connect } = await import("/mcphost.js");
      const wsUrl = "ws://127.0.0.1:${port}/mcp";
      return (${fn})(connect, wsUrl);
    })()`);
  } finally {
    await page.close();
  }
}

const attachOutcome = String(async (connect, wsUrl) => {
  const host = await connect(wsUrl, { reconnect: false });
  try {
    const parts = await host.attach("x://doc");
    return { ok: true, text: parts[0].text };
  } catch (e) {
    return { ok: false, name: e.constructor.name, kind: e.kind, retryable: e.retryable, message: e.message };
  } finally {
    await host.close();
  }
});

test("a binary frame ends the session with a protocol error naming it", async () => {
  script = (ws) => ws.send(Buffer.from([1, 2, 3]), { binary: true });
  const r = await inPage(attachOutcome);
  assert.equal(r.ok, false);
  assert.equal(r.name, "MCPError");
  assert.match(r.message, /binary frame/);
});

test("a frame over the 64 MiB read limit fails the call with kind limit", async () => {
  const big = "A".repeat(65 << 20);
  script = (ws, m) => ws.send(`{"jsonrpc":"2.0","id":${m.id},"result":{"contents":[{"uri":"x://doc","blob":"${big}"}]}}`);
  const r = await inPage(attachOutcome);
  assert.equal(r.ok, false);
  assert.equal(r.kind, "limit", r.message);
  assert.match(r.message, /67108864/);
});

test("an undecodable frame is skipped and the call still gets its answer", async () => {
  script = (ws, m) => {
    ws.send("this is not JSON-RPC");
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { contents: [{ uri: "x://doc", mimeType: "text/plain", text: "after garbage" }] } }));
  };
  const r = await inPage(attachOutcome);
  assert.deepEqual(r, { ok: true, text: "after garbage" });
});

test("a peer that closes mid-read fails the pending call as retryable", async () => {
  script = (ws) => setTimeout(() => ws.terminate(), 50);
  const r = await inPage(attachOutcome);
  assert.equal(r.ok, false);
  assert.equal(r.kind, "unavailable", r.message);
  assert.equal(r.retryable, true);
});

// A large answer is encoded for Go in pieces (web/socket.js encodeAt) and its
// text and HTML cross back in pieces (wasm stringValue): the text must come
// back exactly as sent, with surrogate pairs straddling every piece boundary
// of both sides (32K UTF-16 units in, 64 KB of UTF-8 out), multi-byte runes
// of each length, escapes, and lone surrogates (which both sides turn into
// U+FFFD). Small frames batched together take the same encoder.
test("large and batched answers keep their text exactly across the pieces", async () => {
  // The big text is built per request so that the high half of a surrogate
  // pair sits at the last unit of every 32K-unit piece of the frame.
  const bigText = (prefixLen) => {
    let t = "y".repeat(32767 - prefixLen) + "😀";
    while (t.length < 1_300_000) t += "y".repeat(32766) + "😀";
    return t + "a😀é—日\n\"q\"\t";
  };
  let big = "";
  const lone = "before\ud800after\udc00end";
  script = (ws, m) => {
    const uri = m.params?.uri;
    const head = `{"jsonrpc":"2.0","id":${m.id},"result":{"contents":[{"uri":"${uri}","mimeType":"text/plain","text":"`;
    if (uri === "x://big") {
      big = bigText(head.length);
      ws.send(head + JSON.stringify(big).slice(1) + "}]}}");
      return;
    }
    const text = uri === "x://lone" ? lone : "small — 😀 text";
    if (uri === "x://small") for (let i = 0; i < 3; i++) ws.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "é😀".repeat(1000) } }));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { contents: [{ uri, mimeType: "text/plain", text }] } }));
  };
  const r = await inPage(String(async (connect, wsUrl) => {
    const host = await connect(wsUrl, { reconnect: false });
    try {
      const out = {};
      for (const uri of ["x://big", "x://lone", "x://small"]) out[uri] = (await host.attach(uri))[0].text;
      return out;
    } finally {
      await host.close();
    }
  }));
  assert.equal(r["x://big"].length, big.length);
  assert.ok(r["x://big"] === big, "the 1.3 MB text differs from what was sent");
  assert.equal(r["x://lone"], "before\ufffdafter\ufffdend");
  assert.equal(r["x://small"], "small — 😀 text");
});
