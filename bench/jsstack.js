// The JavaScript stack mcphost is measured against: what a web team would
// use otherwise. The TypeScript MCP SDK's Client over its
// WebSocketClientTransport, atob + Uint8Array for blobs, file-type for
// sniffing, marked + DOMPurify for Markdown, fuzzysort for the picker.
// Bundled by Vite (bench/vite.config.mjs) into bench/dist/jsstack.js.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
import { fileTypeFromBuffer } from "file-type";
import { marked } from "marked";
import DOMPurify from "dompurify";
import fuzzysort from "fuzzysort";

/** Connects a TS SDK client to url (ws://.../mcp?...). */
export async function connect(url) {
  const client = new Client({ name: "bench-js-stack", version: "1.0.0" });
  await client.connect(new WebSocketClientTransport(new URL(url)));
  return client;
}

/** Every descriptor, following nextCursor (the SDK has no all-pages helper). */
export async function listAll(client) {
  const out = [];
  let cursor;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    for (const r of page.resources) out.push(r);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** The specified decode: atob then a byte loop into a Uint8Array. */
export function decodeAtob(b64) {
  const s = atob(b64);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

/** Chromium's native Uint8Array.fromBase64 (newer; reported as a side row). */
export function decodeNative(b64) {
  return Uint8Array.fromBase64(b64);
}

/** resources/read of a blob -> bytes -> sniffed type, one part per content. */
export async function readBlob(client, uri, decode = decodeAtob) {
  const res = await client.readResource({ uri });
  const out = [];
  for (const c of res.contents) {
    const bytes = decode(c.blob);
    const ft = await fileTypeFromBuffer(bytes);
    out.push({ uri: c.uri, declaredMimeType: c.mimeType, sniffedMimeType: ft ? ft.mime : undefined, bytes });
  }
  return out;
}

/** resources/read of Markdown -> sanitized HTML. */
export async function readMarkdown(client, uri) {
  const res = await client.readResource({ uri });
  return res.contents.map((c) => ({ uri: c.uri, text: c.text, html: DOMPurify.sanitize(marked.parse(c.text)) }));
}

/** The picker index: an immutable fuzzysort snapshot over the same four fields mcphost indexes. */
export function index(descriptors) {
  return fuzzysort.snapshot(descriptors, { keys: ["name", "title", "uri", "description"] });
}

/** A picker query: ranked matches with the matched character positions per field. */
export function mention(snapshot, q, limit = 20) {
  const results = fuzzysort.go(q, snapshot, { limit });
  const out = new Array(results.length);
  for (let i = 0; i < results.length; i++) {
    const r = results[i];
    out[i] = { uri: r.obj.uri, name: r.obj.name, score: r.score,
      highlights: { name: r[0].indexes, title: r[1].indexes, uri: r[2].indexes, description: r[3].indexes } };
  }
  return out;
}
