#!/usr/bin/env node
// A small MCP server on stdio (newline-delimited JSON-RPC, MCP 2025-11-25)
// with an MCP App (the MCP Apps extension, io.modelcontextprotocol/ui), for
// e2e/sizes.test.mjs through `mcphost -stdio`:
//
//   ui://clock/mcp-app.html   the app's view: text/html;profile=mcp-app with
//                             _meta.ui (csp, permissions) on the contents
//   ui://clock/bare.html      a view whose _meta.ui is only on its descriptor
//   note://readme             an ordinary text document
//
// and two tools: show_clock (visible to the model, rendered by the view) and
// clock_tick (visibility ["app"]: for the view only, not the model).
import { createInterface } from 'node:readline'

const send = obj => process.stdout.write(JSON.stringify(obj) + '\n')
const HTML = '<!doctype html><html><head><meta charset="utf-8"><title>Clock</title></head>' +
  '<body><p id="t"></p><script>document.getElementById("t").textContent = new Date().toISOString()</script></body></html>'
const UI = {
  csp: { connectDomains: ['https://time.example'], resourceDomains: ['https://cdn.example'] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true,
}
const RESOURCES = [
  { uri: 'ui://clock/mcp-app.html', name: 'clock', title: 'Clock view', mimeType: 'text/html;profile=mcp-app', size: HTML.length },
  { uri: 'ui://clock/bare.html', name: 'bare', title: 'Bare clock view', mimeType: 'text/html;profile=mcp-app', _meta: { ui: { prefersBorder: false } } },
  { uri: 'note://readme', name: 'readme', title: 'Read me', mimeType: 'text/plain', size: 11 },
]
const TOOLS = [
  { name: 'show_clock', description: 'Shows a clock', inputSchema: { type: 'object' },
    _meta: { ui: { resourceUri: 'ui://clock/mcp-app.html' } } },
  { name: 'clock_tick', description: 'Advances the clock (for the view)', inputSchema: { type: 'object' },
    _meta: { ui: { resourceUri: 'ui://clock/mcp-app.html', visibility: ['app'] } } },
]

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', line => {
  let m
  try {
    m = JSON.parse(line)
  } catch {
    return
  }
  if (m.id === undefined || m.method === undefined) return
  const ok = result => send({ jsonrpc: '2.0', id: m.id, result })
  const uri = m.params?.uri
  switch (m.method) {
    case 'initialize':
      return ok({ protocolVersion: '2025-11-25', capabilities: { resources: {}, tools: {} }, serverInfo: { name: 'mcp-app-stdio', version: '1' } })
    case 'ping':
      return ok({})
    case 'resources/list':
      return ok({ resources: RESOURCES })
    case 'resources/templates/list':
      return ok({ resourceTemplates: [] })
    case 'tools/list':
      return ok({ tools: TOOLS })
    case 'tools/call':
      return ok({ content: [{ type: 'text', text: `called ${m.params?.name}` }] })
    case 'resources/read':
      if (uri === 'ui://clock/mcp-app.html') return ok({ contents: [{ uri, mimeType: 'text/html;profile=mcp-app', text: HTML, _meta: { ui: UI } }] })
      if (uri === 'ui://clock/bare.html') return ok({ contents: [{ uri, mimeType: 'text/html;profile=mcp-app', text: HTML }] })
      if (uri === 'note://readme') return ok({ contents: [{ uri, mimeType: 'text/plain', text: 'hello there' }] })
      return send({ jsonrpc: '2.0', id: m.id, error: { code: -32002, message: `Resource not found: ${uri}`, data: { uri } } })
    default:
      return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } })
  }
})
