// The -upstream gateway's request bound against a real TypeScript SDK (v1)
// Streamable HTTP server (server-everything), over real sockets: a
// 2025-11-25 request the client cancels frees its -max-upstream-requests
// slot, though the SDK never answers a cancelled request (shared/protocol's
// request handler returns without a response once aborted). Before, each
// cancelled request kept its slot, its POST's stream and its TCP connection
// for the rest of the session: with -max-upstream-requests 2, two
// cancellations left the client every later request refused.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import WebSocket from "ws";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
import { root, startMcphost } from "./harness.mjs";

globalThis.WebSocket ??= WebSocket; // Node 20 has no global WebSocket

const everything = path.join(root, "e2e", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let upstream, gw;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

before(async () => {
  const port = await freePort();
  upstream = spawn(process.execPath, [everything, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not start in 20 s:\n" + out)), 20000);
    const onData = (d) => {
      out += d;
      if (out.includes("listening on port")) { clearTimeout(timer); resolve(); }
    };
    upstream.stdout.on("data", onData);
    upstream.stderr.on("data", onData);
    upstream.on("exit", (code) => { clearTimeout(timer); reject(new Error(`server-everything exited (${code}):\n${out}`)); });
  });
  gw = await startMcphost(["-upstream", `http://127.0.0.1:${port}/mcp`, "-max-upstream-requests", "2", "-no-web"]);
});

after(async () => {
  await gw?.stop();
  upstream?.kill("SIGKILL");
});

test("cancelled 2025-11-25 requests free their slots: after more cancellations than the bound, requests still go through", { timeout: 90000 }, async () => {
  const client = new Client({ name: "gateway-cancel", version: "1.0.0" });
  await client.connect(new WebSocketClientTransport(new URL(gw.wsUrl)));
  try {
    assert.equal(client.getServerVersion()?.name.includes("everything"), true, `server: ${JSON.stringify(client.getServerVersion())}`);
    // Three in turn, one more than the bound: each reaches the server (its
    // operation runs 60 s), then is cancelled.
    for (let i = 0; i < 3; i++) {
      const ac = new AbortController();
      const call = client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 60, steps: 1 } },
        undefined, { signal: ac.signal, timeout: 120000 });
      const early = await Promise.race([call.then((r) => ({ r }), (e) => ({ e })), sleep(500).then(() => null)]);
      assert.equal(early, null, `call ${i} ended before it was cancelled: ${JSON.stringify(early?.r ?? String(early?.e))}`);
      ac.abort("the user stopped it");
      await assert.rejects(call, (e) => /stopped|abort/i.test(String(e?.message ?? e)), `call ${i}: cancelled`);
    }
    // Both slots are free: two calls at once go through.
    const [a, b] = await Promise.all([
      client.callTool({ name: "echo", arguments: { message: "still here" } }),
      client.callTool({ name: "echo", arguments: { message: "and here" } }),
    ]);
    assert.equal(a.content?.[0]?.text, "Echo: still here");
    assert.equal(b.content?.[0]?.text, "Echo: and here");
  } finally {
    await client.close();
  }
});
