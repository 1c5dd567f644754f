// A hostile MCP peer for the hostile-server suite (e2e/hostile.test.mjs): a
// raw WebSocket JSON-RPC server (the `ws` package) on 127.0.0.1:0 that speaks
// MCP 2025-11-25 well enough to be connected to, and then sends whatever the
// test scripts: pathological documents, deep JSON, endless listings, floods of
// notifications and pings, frames of invalid UTF-8.
//
// Each connection's behaviour is chosen by its URL path: ws://.../NAME uses
// the script registered with peer.script(NAME, script); any other path is a
// well-behaved server of peer.docs. A script may override any method:
//
//   script[method](msg, conn) -> undefined | { result } | { error } | { raw }
//
// where raw is a string or Buffer sent as one text frame as it is (so a frame
// can be invalid JSON, deep, huge or not UTF-8). Returning undefined means the
// script answers later (or never) through conn. script.onReady(conn) runs
// after notifications/initialized. conn: { ws, send(obj), raw(data), subs,
// alive() }.
//
// Like e2e/scripted-peer.mjs, plain HTTP requests are relayed to pagesFrom so
// a page of the mcphost binary loads from this origin under its own CSP.
import http from "node:http";
import { WebSocketServer } from "ws";
import { pageRelay } from "./scripted-peer.mjs";

export const PROTOCOL_VERSION = "2025-11-25";

/** A resource descriptor as resources/list returns it. */
export const descriptor = (uri, mimeType = "text/plain") => ({ uri, name: uri.replace(/^.*\//, ""), mimeType });

/** Starts the peer. docs: { [uri]: { mimeType, text } } of the well-behaved server. */
export async function startHostilePeer({ docs = {}, pagesFrom = "" } = {}) {
  const server = http.createServer(pageRelay(pagesFrom));
  const wss = new WebSocketServer({ server, handleProtocols: (ps) => (ps.has("mcp") ? "mcp" : false), maxPayload: 0 });
  const scripts = new Map();
  const conns = new Set();
  const counts = new Map(); // "path method" -> requests seen
  const peer = {
    docs: new Map(Object.entries(docs)),
    /** Registers the behaviour of connections to ws://.../name. */
    script(name, script) {
      scripts.set(name, script);
      return `${peer.url}${name}`;
    },
    /** How many connections to path were accepted so far. */
    connections: (name) => counts.get(`${name} #connect`) ?? 0,
    /** How many requests of method arrived on connections to path. */
    requests: (name, method) => counts.get(`${name} ${method}`) ?? 0,
    url: "",
    async close() {
      for (const c of conns) c.ws.terminate();
      await new Promise((r) => wss.close(() => r()));
      const closed = new Promise((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
    },
  };
  const count = (k) => counts.set(k, (counts.get(k) ?? 0) + 1);

  const normal = {
    "resources/list": () => ({ result: { resources: [...peer.docs.keys()].map((u) => descriptor(u, peer.docs.get(u).mimeType)) } }),
    "resources/read": (m) => {
      const d = peer.docs.get(m.params?.uri);
      if (!d) return { error: { code: -32002, message: `Resource not found: ${m.params?.uri}`, data: { uri: m.params?.uri } } };
      return { result: { contents: [{ uri: m.params.uri, mimeType: d.mimeType, text: d.text }] } };
    },
  };

  wss.on("connection", (ws, req) => {
    const name = new URL(req.url, "http://x").pathname.slice(1);
    const script = scripts.get(name) ?? {};
    count(`${name} #connect`);
    const conn = {
      ws,
      subs: new Set(),
      alive: () => ws.readyState === ws.OPEN,
      send: (obj) => conn.alive() && ws.send(JSON.stringify(obj)),
      raw: (data) => conn.alive() && ws.send(data, { binary: false }),
    };
    conns.add(conn);
    ws.on("close", () => conns.delete(conn));
    ws.on("error", () => {});
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      let m;
      try {
        m = JSON.parse(String(data));
      } catch {
        return;
      }
      if (m.method === undefined) return; // a response to our ping
      count(`${name} ${m.method}`);
      if (m.method === "notifications/initialized") {
        script.onReady?.(conn);
        return;
      }
      if (m.id === undefined) return;
      const fn = script[m.method] ?? normal[m.method] ?? builtin[m.method];
      const out = fn ? fn(m, conn) : { error: { code: -32601, message: `Method not found: ${m.method}` } };
      answer(conn, m.id, out);
    });
  });

  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  peer.port = server.address().port;
  peer.url = `ws://127.0.0.1:${peer.port}/`;
  peer.httpUrl = `http://127.0.0.1:${peer.port}/`;
  return peer;
}

/** Sends out (see the file comment) as the answer to request id. */
export function answer(conn, id, out) {
  if (out === undefined) return;
  if (out.raw !== undefined) return conn.raw(typeof out.raw === "function" ? out.raw(id) : out.raw);
  if (out.error) return conn.send({ jsonrpc: "2.0", id, error: out.error });
  conn.send({ jsonrpc: "2.0", id, result: out.result ?? {} });
}

const builtin = {
  initialize: () => ({
    result: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: { resources: { subscribe: true, listChanged: true }, tools: { listChanged: true } },
      serverInfo: { name: "hostile-peer", version: "1" },
    },
  }),
  ping: () => ({ result: {} }),
  "resources/templates/list": () => ({ result: { resourceTemplates: [] } }),
  "resources/subscribe": (m, conn) => {
    conn.subs.add(m.params?.uri);
    return { result: {} };
  },
  "resources/unsubscribe": (m, conn) => {
    conn.subs.delete(m.params?.uri);
    return { result: {} };
  },
  "tools/list": () => ({ result: { tools: [] } }),
};
