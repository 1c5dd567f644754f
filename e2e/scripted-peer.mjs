// A scripted MCP peer for the browser tests: a raw WebSocket JSON-RPC server
// (the `ws` package) on 127.0.0.1:0 that speaks just enough of MCP 2025-11-25
// for the freshness engine, and that the test drives from Node (the peer runs
// in the test process).
//
// Documents are versioned: a document's text is "version N". Each
// resources/read takes its snapshot when the request arrives and answers
// readMs later, so a change made meanwhile is not in that answer. The tool
// "rewrite" {uri} bumps a document's version WITHOUT sending
// notifications/resources/updated and returns a resource_link to it.
//
// The peer does not check Origin and echoes the subprotocol "mcp". With
// pagesFrom (an http URL, e.g. the mcphost binary's), every plain HTTP request
// to the peer is relayed there unchanged, headers included: a page of that
// server then loads from the peer's origin under its own Content-Security-
// Policy, whose connect-src 'self' admits the peer's WebSocket. (Chromium
// refuses a page on one loopback port a socket to another: the product CSP
// blocks it, and a route-fulfilled page fails the local-network-access check.)
import http from "node:http";
import { WebSocketServer } from "ws";

export const PROTOCOL_VERSION = "2025-11-25";

/**
 * An HTTP request handler relaying every request to pagesFrom (an http URL)
 * unchanged, headers included ("" answers 404): a page of that server then
 * loads from this server's origin under its own Content-Security-Policy.
 */
export function pageRelay(pagesFrom) {
  return (req, res) => {
    if (!pagesFrom) return res.writeHead(404).end();
    const headers = req.headers["accept-encoding"] ? { "accept-encoding": req.headers["accept-encoding"] } : {};
    const up = http.request(new URL(req.url, pagesFrom), { method: req.method, headers, agent: false }, (upRes) => {
      res.writeHead(upRes.statusCode, upRes.headers);
      upRes.pipe(res);
    });
    up.on("error", () => res.writeHead(502).end());
    up.end();
  };
}

/**
 * Starts the peer. docs: { [uri]: initialVersion }. readMs: latency of every
 * resources/read (changeable later with peer.readMs = n). pagesFrom: see above. blobs: { [uri]: { mimeType, blob } },
 * answered as is (peer.blobs may change later).
 */
export async function startScriptedPeer({ docs = {}, readMs = 0, pagesFrom = "", blobs = {} } = {}) {
  const server = http.createServer(pageRelay(pagesFrom));
  const wss = new WebSocketServer({ server, handleProtocols: (ps) => (ps.has("mcp") ? "mcp" : false), maxPayload: 0 });
  const versions = new Map(Object.entries(docs));
  const sockets = new Set(); // { ws, subs: Set<uri> }
  const timers = new Set();
  const log = []; // every request/notification: { at, method, uri?, id? }
  const reads = []; // { uri, at, version, answeredAt? }
  const inFlight = new Map(); // uri -> reads in flight now
  const maxInFlight = new Map(); // uri -> most reads in flight at once
  const notified = []; // { at, uri, version }
  let streaming = null;

  const peer = {
    readMs,
    blobs,
    log,
    reads,
    notified,
    maxInFlight,
    url: "",
    /** The current version of uri. */
    version: (uri) => versions.get(uri),
    /** Text of version n, as resources/read returns it. */
    text: (n) => `version ${n}`,
    /** How many resources/read requests for uri arrived so far. */
    readCount: (uri) => reads.filter((r) => r.uri === uri).length,
    /** How many sockets are subscribed to uri now. */
    subscribers: (uri) => [...sockets].filter((s) => s.subs.has(uri)).length,
    /** Sets uri to version n; with notify, sends notifications/resources/updated to subscribed sockets. */
    setVersion(uri, n, { notify = false } = {}) {
      versions.set(uri, n);
      if (notify) peer.notify(uri);
    },
    /** Sends notifications/resources/updated for uri to every subscribed socket (no change by itself). */
    notify(uri) {
      notified.push({ at: Date.now(), uri, version: versions.get(uri) });
      for (const s of sockets) {
        if (s.subs.has(uri)) send(s.ws, { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } });
      }
    },
    /**
     * Every everyMs for forMs: bumps uri's version and notifies. Resolves with
     * { start, end, first, last, count } (Date.now() times, versions).
     */
    stream(uri, everyMs, forMs) {
      if (streaming) throw new Error("a stream is already running");
      const first = versions.get(uri) + 1;
      const start = Date.now();
      let count = 0;
      return (streaming = new Promise((resolve) => {
        const tick = () => {
          const now = Date.now();
          if (now - start >= forMs) {
            clearInterval(iv);
            timers.delete(iv);
            streaming = null;
            resolve({ start, end: now, first, last: versions.get(uri), count });
            return;
          }
          count++;
          peer.setVersion(uri, versions.get(uri) + 1, { notify: true });
        };
        const iv = setInterval(tick, everyMs);
        timers.add(iv);
        tick();
      }));
    },
    /** Closes every socket and the server. */
    async close() {
      for (const t of timers) { clearTimeout(t); clearInterval(t); }
      timers.clear();
      for (const s of sockets) s.ws.terminate();
      await new Promise((r) => wss.close(() => r()));
      const closed = new Promise((r) => server.close(() => r()));
      server.closeAllConnections(); // relayed page loads keep their connections alive
      await closed;
    },
  };

  function send(ws, msg) {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
  }
  const result = (ws, id, result) => send(ws, { jsonrpc: "2.0", id, result });
  const error = (ws, id, code, message, data) =>
    send(ws, { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } });
  const descriptor = (uri) => ({ uri, name: uri.replace(/^.*\//, ""), mimeType: "text/plain" });

  wss.on("connection", (ws) => {
    const s = { ws, subs: new Set() };
    sockets.add(s);
    ws.on("close", () => sockets.delete(s));
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      let m;
      try {
        m = JSON.parse(String(data));
      } catch {
        return;
      }
      const p = m.params ?? {};
      log.push({ at: Date.now(), method: m.method, id: m.id, uri: p.uri });
      if (m.method === undefined) return; // a response (we send no requests)
      if (m.id === undefined) return; // notifications/initialized, cancelled, ...
      switch (m.method) {
        case "initialize":
          return result(ws, m.id, {
            protocolVersion: PROTOCOL_VERSION,
            capabilities: { resources: { subscribe: true, listChanged: true }, tools: {} },
            serverInfo: { name: "scripted-peer", version: "1" },
          });
        case "ping":
          return result(ws, m.id, {});
        case "resources/list":
          return result(ws, m.id, { resources: [...versions.keys()].map(descriptor) });
        case "resources/templates/list":
          return result(ws, m.id, { resourceTemplates: [] });
        case "resources/read": {
          const uri = p.uri;
          const version = versions.get(uri);
          const r = { uri, at: Date.now(), version };
          reads.push(r);
          if (version === undefined) {
            r.answeredAt = r.at;
            return error(ws, m.id, -32002, `Resource not found: ${uri}`, { uri });
          }
          const n = (inFlight.get(uri) ?? 0) + 1;
          inFlight.set(uri, n);
          maxInFlight.set(uri, Math.max(maxInFlight.get(uri) ?? 0, n));
          const t = setTimeout(() => {
            timers.delete(t);
            inFlight.set(uri, inFlight.get(uri) - 1);
            r.answeredAt = Date.now();
            // blobs: { [uri]: { mimeType, blob } } answers with that part as
            // it is (any string: bad base64 too), whatever the version.
            const b = peer.blobs[uri];
            if (b) return result(ws, m.id, { contents: [{ uri, mimeType: b.mimeType, blob: b.blob }] });
            result(ws, m.id, { contents: [{ uri, mimeType: "text/plain", text: peer.text(version) }] });
          }, peer.readMs);
          timers.add(t);
          return;
        }
        case "resources/subscribe":
          s.subs.add(p.uri);
          return result(ws, m.id, {});
        case "resources/unsubscribe":
          s.subs.delete(p.uri);
          return result(ws, m.id, {});
        case "tools/list":
          return result(ws, m.id, {
            tools: [{
              name: "rewrite",
              description: "Changes a document (without notifying) and links to it.",
              inputSchema: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] },
            }],
          });
        case "tools/call": {
          const uri = p.arguments?.uri;
          if (p.name !== "rewrite") return error(ws, m.id, -32602, `Unknown tool: ${p.name}`);
          if (!versions.has(uri)) {
            return result(ws, m.id, { content: [{ type: "text", text: `no such document ${uri}` }], isError: true });
          }
          versions.set(uri, versions.get(uri) + 1);
          return result(ws, m.id, { content: [{ type: "resource_link", uri, name: descriptor(uri).name }] });
        }
        default:
          return error(ws, m.id, -32601, `Method not found: ${m.method}`);
      }
    });
  });

  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  peer.port = server.address().port;
  peer.url = `ws://127.0.0.1:${peer.port}/`;
  peer.httpUrl = `http://127.0.0.1:${peer.port}/`;
  return peer;
}
