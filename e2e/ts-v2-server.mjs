// A TypeScript SDK v2 MCP server for the interop tests: @modelcontextprotocol/
// server 2.x with its default HTTP handler, createMcpHandler(factory), served
// from Node with toNodeHandler (@modelcontextprotocol/node) on 127.0.0.1:0 at
// path /mcp. The handler serves 2026-07-28 requests (subscriptions/listen over
// SSE, acknowledged first) and, by default, 2025-11-25 ones statelessly.
//
// Documents are versioned like the scripted peers': a document's text is
// "version N". setVersion(uri, n, { notify }) changes one and, with notify,
// publishes handler.notify.resourceUpdated(uri) on the handler's bus, which
// reaches every open listen whose filter names the URI.
//
// Every HTTP exchange is recorded (server.exchanges): method, path, the MCP
// headers, the parsed JSON-RPC body, the response status and content type,
// and the response body text as it was written (SSE frames included, capped),
// so a test can say exactly what crossed the wire. server.openListens() counts
// listen exchanges whose response is still open.
import http from 'node:http'
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import { toNodeHandler } from '@modelcontextprotocol/node'

export const PATH = '/mcp'
const BODY_CAP = 64 * 1024

/**
 * Starts the server. docs: { [uri]: initialVersion }. readTtlMs: the ttlMs of
 * resources/read results (cacheHints; default 0). legacy: "stateless"
 * (the SDK default) or "reject" (modern-only). keepAliveMs: SSE keep-alive.
 */
export async function startTsV2Server ({ docs = {}, readTtlMs = 0, legacy = 'stateless', keepAliveMs = 15000 } = {}) {
  const versions = new Map(Object.entries(docs))
  const reads = [] // { uri, at, version }
  const exchanges = []
  const errors = []
  const text = n => `version ${n}`

  const factory = () => {
    const server = new McpServer({ name: 'ts-v2-fixture', version: '1' }, {
      capabilities: { resources: { subscribe: true, listChanged: true }, tools: {} },
      cacheHints: {
        'resources/read': { ttlMs: readTtlMs, cacheScope: 'private' },
        'resources/list': { ttlMs: 0, cacheScope: 'private' },
      },
    })
    for (const uri of versions.keys()) {
      server.registerResource(uri.replace(/^.*\//, ''), uri, { mimeType: 'text/plain' }, async u => {
        const version = versions.get(u.href ?? String(u))
        reads.push({ uri: u.href, at: Date.now(), version })
        return { contents: [{ uri: u.href, mimeType: 'text/plain', text: text(version) }] }
      })
    }
    return server
  }

  const handler = createMcpHandler(factory, { legacy, keepAliveMs, onerror: e => errors.push(String(e?.message ?? e)) })
  const toNode = toNodeHandler(handler, { onerror: e => errors.push(String(e?.message ?? e)) })

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x')
    const chunks = []
    for await (const c of req) chunks.push(c)
    const raw = Buffer.concat(chunks)
    let body
    try { body = raw.length ? JSON.parse(raw.toString()) : undefined } catch { body = raw.toString() }
    const ex = {
      at: Date.now(),
      method: req.method,
      path: url.pathname,
      headers: {
        'mcp-protocol-version': req.headers['mcp-protocol-version'],
        'mcp-method': req.headers['mcp-method'],
        'mcp-name': req.headers['mcp-name'],
        'mcp-session-id': req.headers['mcp-session-id'],
        accept: req.headers.accept,
        'content-type': req.headers['content-type'],
      },
      body,
      status: undefined,
      contentType: undefined,
      response: '',
      open: true,
      closedAt: undefined,
    }
    exchanges.push(ex)
    res.on('close', () => { ex.open = false; ex.closedAt = Date.now() })
    if (url.pathname !== PATH) return res.writeHead(404).end()
    // Record what is written back without changing it.
    const writeHead = res.writeHead.bind(res)
    res.writeHead = (status, headers) => {
      ex.status = status
      ex.contentType = headers?.['content-type']
      return writeHead(status, headers)
    }
    const write = res.write.bind(res)
    const capture = c => {
      if (c !== undefined && ex.response.length < BODY_CAP) ex.response += Buffer.from(c).toString()
    }
    res.write = (c, ...rest) => { capture(c); return write(c, ...rest) }
    const end = res.end.bind(res)
    res.end = (c, ...rest) => { capture(c); return end(c, ...rest) }
    // A duck-typed request (toNodeHandler takes one) replaying the bytes read.
    const replay = {
      method: req.method,
      url: req.url,
      headers: req.headers,
      async * [Symbol.asyncIterator] () { if (raw.length) yield raw },
    }
    await toNode(replay, res)
  })
  await new Promise(r => server.listen(0, '127.0.0.1', r))
  const port = server.address().port

  return {
    port,
    url: `http://127.0.0.1:${port}${PATH}`,
    handler,
    exchanges,
    errors,
    reads,
    text,
    version: uri => versions.get(uri),
    readCount: uri => reads.filter(r => r.uri === uri).length,
    /** Exchanges whose JSON-RPC method is m. */
    calls: m => exchanges.filter(e => e.body?.method === m),
    /** Listen exchanges whose response is still open. */
    openListens: () => exchanges.filter(e => e.body?.method === 'subscriptions/listen' && e.open).length,
    /** Sets uri to version n; with notify, publishes resourceUpdated(uri). */
    setVersion (uri, n, { notify = false } = {}) {
      versions.set(uri, n)
      if (notify) handler.notify.resourceUpdated(uri)
    },
    /** A one-line summary of every exchange, for failure messages and reports. */
    summary () {
      const t0 = exchanges[0]?.at ?? 0
      return exchanges.map(e => {
        const b = e.body
        const what = b?.method ?? (b?.id !== undefined ? `response ${b.id}` : typeof b)
        const h = e.headers
        return `${String(e.at - t0).padStart(5)}ms${e.closedAt ? '..' + (e.closedAt - t0) + 'ms' : ''} ${e.method} ${e.path} ${what}${b?.params?.uri ? ' ' + b.params.uri : ''}` +
          ` [MCP-Protocol-Version=${h['mcp-protocol-version'] ?? '-'} Mcp-Method=${h['mcp-method'] ?? '-'}` +
          ` Mcp-Name=${h['mcp-name'] ?? '-'}${h['mcp-session-id'] ? ' Mcp-Session-Id=' + h['mcp-session-id'] : ''}]` +
          ` -> ${e.status ?? '?'} ${e.contentType ?? ''}${e.open ? ' (open)' : ''} ${e.response.slice(0, 300).replace(/\s+/g, ' ')}`
      }).join('\n')
    },
    async close () {
      await handler.close().catch(() => {})
      const closed = new Promise(r => server.close(() => r()))
      server.closeAllConnections()
      await closed
    },
  }
}
