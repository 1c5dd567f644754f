// Interop check: the TypeScript SDK's WebSocketClientTransport against a
// bridge-served server. Usage: node ts-client.mjs ws://127.0.0.1:PORT/ URI
// Prints one JSON line: {resources, templates, read}.
import WebSocket from "ws";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";

globalThis.WebSocket ??= WebSocket; // Node 20 has no global WebSocket
const [url, uri] = process.argv.slice(2);
const client = new Client({ name: "ts-interop", version: "1.0.0" });
await client.connect(new WebSocketClientTransport(new URL(url)));
const resources = [];
let cursor;
do {
  const page = await client.listResources(cursor ? { cursor } : {});
  resources.push(...page.resources.map((r) => r.uri));
  cursor = page.nextCursor;
} while (cursor);
const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
const read = await client.readResource({ uri });
console.log(JSON.stringify({ server: client.getServerVersion(), resources, templates, read }));
await client.close();
