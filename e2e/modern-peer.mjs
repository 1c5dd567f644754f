// A scripted MCP peer that speaks only revision 2026-07-28, for the browser
// tests (e2e/modern.test.mjs): a raw WebSocket JSON-RPC server (the `ws`
// package) on 127.0.0.1:0, driven from the test process. Over a WebSocket the
// modern revision behaves like stdio: _meta on every request, a listen is
// cancelled by notifications/cancelled, listen notifications are told apart by
// their subscriptionId.
//
// - `initialize` is refused with -32022 (data: { supported: ["2026-07-28"],
//   requested }); any request whose params._meta lacks the protocol version or
//   the client capabilities is refused with -32602 (recorded in rejected), one
//   naming another version with -32022.
// - server/discover lists only 2026-07-28 (capabilities: resources subscribe +
//   listChanged, tools), with serverInfo in the result's _meta.
// - resources/list answers in two pages: page 1 (no cursor) ends with an
//   EMPTY-STRING nextCursor, page 2 is asked for with cursor "" and has none.
//   Results carry ttlMs (listTtlMs) and cacheScope.
// - resources/read: a document's text is "version N"; ttlMs is peer.readTtlMs
//   at the time of the read; readMs of latency; not found is -32602 with
//   data.uri.
// - subscriptions/listen: acknowledged at once (notifications/subscriptions/
//   acknowledged, _meta subscriptionId = the listen's request id, the filter
//   honoured = the filter asked for) and kept open; notify(uri) sends
//   notifications/resources/updated to every open listen naming uri, with its
//   subscriptionId; endListen(uri) ends them from the server's side.
//   notifications/cancelled {requestId} from the client closes that listen
//   (it gets no answer).
// - peer.onRead may script any read's answer (MRTR rounds, odd resultTypes,
//   the 2026-07-28 error codes).
// - tools/list + tools/call: "rewrite" {uri} bumps a document's version
//   without notifying and returns a resource_link to it.
//
// With pagesFrom, plain HTTP requests are relayed to that server (see
// pageRelay in scripted-peer.mjs), so the test page loads from this peer's
// origin under the product CSP.
import http from 'node:http'
import { WebSocketServer } from 'ws'
import { pageRelay } from './scripted-peer.mjs'

export const MODERN = '2026-07-28'
export const PV = 'io.modelcontextprotocol/protocolVersion'
export const CAPS = 'io.modelcontextprotocol/clientCapabilities'
export const INFO = 'io.modelcontextprotocol/clientInfo'
export const SUB = 'io.modelcontextprotocol/subscriptionId'
export const SERVER_INFO = { name: 'modern-peer', version: '1' }
export const CAPABILITIES = { resources: { subscribe: true, listChanged: true }, tools: {} }

/**
 * Starts the peer. docs: { [uri]: initialVersion } (listed in insertion
 * order). readTtlMs / listTtlMs: ttlMs of read / list results (peer.readTtlMs
 * may change later). readMs: latency of every read.
 */
export async function startModernPeer ({ docs = {}, readTtlMs = 0, listTtlMs = 0, readMs = 0, pagesFrom = '' } = {}) {
  const server = http.createServer(pageRelay(pagesFrom))
  const wss = new WebSocketServer({ server, handleProtocols: ps => (ps.has('mcp') ? 'mcp' : false), maxPayload: 0 })
  const versions = new Map(Object.entries(docs))
  const sockets = new Set()
  const timers = new Set()
  const log = [] // every message received: { at, method, id, params, raw }
  const sent = [] // every message sent: { at, msg }
  const rejected = [] // requests refused for their metadata: { at, method, id, code }
  const reads = [] // { at, id, uri, version, ttlMs }
  const listens = [] // { id, ws, filter, at, open, ackAt, endedAt, endedBy: "client" | "peer-result" | "peer-cancelled" | "socket" }
  const cancels = [] // notifications/cancelled from the client: { at, requestId, reason }
  const notified = [] // { at, uri, version, subscriptionIds }

  const peer = {
    readTtlMs,
    listTtlMs,
    readMs,
    /**
     * Optional hook (params, id) => undefined | { result } | { error }: a
     * read it answers is sent as given (result verbatim, no resultType
     * added); undefined falls through to the documents.
     */
    onRead: undefined,
    log,
    sent,
    rejected,
    reads,
    listens,
    cancels,
    notified,
    url: '',
    text: n => `version ${n}`,
    version: uri => versions.get(uri),
    readCount: uri => reads.filter(r => r.uri === uri).length,
    /** Client requests (and notifications) of method m, in arrival order. */
    calls: m => log.filter(e => e.method === m),
    /** Every listen whose filter names uri (open or ended), in arrival order. */
    listensFor: uri => listens.filter(l => l.filter.resourceSubscriptions?.includes(uri)),
    /** Every listen asking for resourcesListChanged. */
    listListens: () => listens.filter(l => l.filter.resourcesListChanged === true),
    /** Sets uri to version n; with notify, sends updated to the listens naming uri. */
    setVersion (uri, n, { notify = false } = {}) {
      versions.set(uri, n)
      if (notify) peer.notify(uri)
    },
    /** Sends notifications/resources/updated for uri on every open listen naming it; returns their ids. */
    notify (uri) {
      const ids = []
      for (const l of listens) {
        if (!l.open || !l.filter.resourceSubscriptions?.includes(uri)) continue
        ids.push(l.id)
        send(l.ws, { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri, _meta: { [SUB]: l.id } } })
      }
      notified.push({ at: Date.now(), uri, version: versions.get(uri), subscriptionIds: ids })
      return ids
    },
    /** Adds a document and sends list_changed on every open list-changed listen. */
    addDoc (uri, version = 1) {
      versions.set(uri, version)
      for (const l of listens) {
        if (l.open && l.filter.resourcesListChanged) {
          send(l.ws, { jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: { [SUB]: l.id } } })
        }
      }
    },
    /**
     * Ends every open listen naming uri from the server's side: with a result
     * { resultType: "complete", _meta: { subscriptionId } } (how: "result"),
     * or with notifications/cancelled for the listen's id (how: "cancelled").
     * Returns the ids ended.
     */
    endListen (uri, { how = 'result' } = {}) {
      const ids = []
      for (const l of listens) {
        if (!l.open || !l.filter.resourceSubscriptions?.includes(uri)) continue
        l.open = false
        l.endedAt = Date.now()
        ids.push(l.id)
        if (how === 'cancelled') {
          l.endedBy = 'peer-cancelled'
          send(l.ws, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: l.id, reason: 'ended by the server' } })
        } else {
          l.endedBy = 'peer-result'
          send(l.ws, { jsonrpc: '2.0', id: l.id, result: { resultType: 'complete', _meta: { [SUB]: l.id } } })
        }
      }
      return ids
    },
    /** A one-line-per-message account of the conversation, for failure messages and reports. */
    transcript () {
      const t0 = log[0]?.at ?? Date.now()
      const rows = [
        ...log.map(e => ({ at: e.at, s: `-> ${e.method}${e.id !== undefined ? ' #' + e.id : ''}${describe(e.method, e.params)}` })),
        ...sent.map(e => ({ at: e.at, s: `<- ${e.msg.method ?? (e.msg.error ? 'error ' + e.msg.error.code : 'result')}${e.msg.id !== undefined ? ' #' + e.msg.id : ''}${describe(e.msg.method, e.msg.params)}` })),
      ]
      // Stable: received messages come before what was sent in answer at the same ms.
      return rows.map((r, i) => ({ ...r, i })).sort((a, b) => a.at - b.at || a.i - b.i)
        .map(r => `${String(r.at - t0).padStart(5)}ms ${r.s}`).join('\n')
    },
    async close () {
      for (const t of timers) clearTimeout(t)
      timers.clear()
      for (const ws of sockets) ws.terminate()
      await new Promise(r => wss.close(() => r()))
      const closed = new Promise(r => server.close(() => r()))
      server.closeAllConnections()
      await closed
    },
  }

  function describe (method, p) {
    if (!p) return ''
    if (method === 'subscriptions/listen' || method === 'notifications/subscriptions/acknowledged') {
      const sub = p._meta?.[SUB]
      return ` ${JSON.stringify(p.notifications)}${sub !== undefined ? ' sub=' + sub : ''}`
    }
    if (method === 'notifications/cancelled') return ` requestId=${p.requestId}`
    if (method === 'resources/list') return ` cursor=${JSON.stringify(p.cursor)}`
    const sub = p._meta?.[SUB]
    return `${p.uri ? ' ' + p.uri : ''}${sub !== undefined ? ' sub=' + sub : ''}`
  }
  function send (ws, msg) {
    if (ws.readyState !== ws.OPEN) return
    sent.push({ at: Date.now(), msg })
    ws.send(JSON.stringify(msg))
  }
  const result = (ws, id, r) => send(ws, { jsonrpc: '2.0', id, result: { resultType: 'complete', ...r } })
  const error = (ws, id, code, message, data) =>
    send(ws, { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } })
  const descriptor = uri => ({ uri, name: uri.replace(/^.*\//, ''), mimeType: 'text/plain' })

  wss.on('connection', ws => {
    sockets.add(ws)
    ws.on('close', () => {
      sockets.delete(ws)
      for (const l of listens) {
        if (l.ws === ws && l.open) Object.assign(l, { open: false, endedAt: Date.now(), endedBy: 'socket' })
      }
    })
    ws.on('message', (data, isBinary) => {
      if (isBinary) return
      let m
      try { m = JSON.parse(String(data)) } catch { return }
      const p = m.params ?? {}
      log.push({ at: Date.now(), method: m.method, id: m.id, params: m.params, raw: String(data) })
      if (m.method === undefined) return // a response: this peer sends no requests
      if (m.id === undefined) {
        if (m.method === 'notifications/cancelled') {
          cancels.push({ at: Date.now(), requestId: p.requestId, reason: p.reason })
          const l = listens.find(x => x.id === p.requestId && x.ws === ws)
          if (l?.open) Object.assign(l, { open: false, endedAt: Date.now(), endedBy: 'client' })
        }
        return
      }
      if (m.method === 'initialize') {
        rejected.push({ at: Date.now(), method: m.method, id: m.id, code: -32022 })
        return error(ws, m.id, -32022, 'Unsupported protocol version', { supported: [MODERN], requested: p.protocolVersion })
      }
      const meta = p._meta
      if (!meta || typeof meta !== 'object' || meta[PV] === undefined || typeof meta[CAPS] !== 'object') {
        rejected.push({ at: Date.now(), method: m.method, id: m.id, code: -32602 })
        return error(ws, m.id, -32602, `Invalid params: _meta must carry ${PV} and ${CAPS}`)
      }
      if (meta[PV] !== MODERN) {
        rejected.push({ at: Date.now(), method: m.method, id: m.id, code: -32022 })
        return error(ws, m.id, -32022, 'Unsupported protocol version', { supported: [MODERN], requested: meta[PV] })
      }
      switch (m.method) {
        case 'server/discover':
          return result(ws, m.id, {
            supportedVersions: [MODERN],
            capabilities: CAPABILITIES,
            instructions: 'A scripted 2026-07-28-only peer.',
            ttlMs: 3600000,
            cacheScope: 'public',
            _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
          })
        case 'resources/list': {
          const all = [...versions.keys()].map(descriptor)
          const half = Math.ceil(all.length / 2)
          const cache = { ttlMs: peer.listTtlMs, cacheScope: 'public' }
          if (p.cursor === undefined) return result(ws, m.id, { resources: all.slice(0, half), nextCursor: '', ...cache })
          if (p.cursor === '') return result(ws, m.id, { resources: all.slice(half), ...cache })
          return error(ws, m.id, -32602, `Invalid cursor: ${JSON.stringify(p.cursor)}`)
        }
        case 'resources/templates/list':
          return result(ws, m.id, { resourceTemplates: [], ttlMs: peer.listTtlMs, cacheScope: 'public' })
        case 'resources/read': {
          const uri = p.uri
          const scripted = peer.onRead?.(p, m.id)
          if (scripted) {
            reads.push({ at: Date.now(), id: m.id, uri, version: undefined, requestState: p.requestState, scripted: true })
            if (scripted.error) return error(ws, m.id, scripted.error.code, scripted.error.message, scripted.error.data)
            return send(ws, { jsonrpc: '2.0', id: m.id, result: scripted.result })
          }
          const version = versions.get(uri)
          const r = { at: Date.now(), id: m.id, uri, version, ttlMs: peer.readTtlMs }
          reads.push(r)
          if (version === undefined) return error(ws, m.id, -32602, `Resource not found: ${uri}`, { uri })
          const answer = () => result(ws, m.id, {
            contents: [{ uri, mimeType: 'text/plain', text: peer.text(version) }],
            ttlMs: r.ttlMs,
            cacheScope: 'private',
          })
          if (!peer.readMs) return answer()
          const t = setTimeout(() => { timers.delete(t); answer() }, peer.readMs)
          timers.add(t)
          return
        }
        case 'subscriptions/listen': {
          const filter = p.notifications ?? {}
          const l = { id: m.id, ws, filter, at: Date.now(), open: true, ackAt: undefined, endedAt: undefined, endedBy: undefined }
          listens.push(l)
          const honoured = {}
          if (filter.resourcesListChanged) honoured.resourcesListChanged = true
          if (filter.resourceSubscriptions?.length) honoured.resourceSubscriptions = [...filter.resourceSubscriptions]
          l.ackAt = Date.now()
          return send(ws, { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { [SUB]: m.id }, notifications: honoured } })
        }
        case 'tools/list':
          return result(ws, m.id, {
            tools: [{
              name: 'rewrite',
              description: 'Changes a document (without notifying) and links to it.',
              inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
            }],
            ttlMs: peer.listTtlMs,
            cacheScope: 'public',
          })
        case 'tools/call': {
          const uri = p.arguments?.uri
          if (p.name !== 'rewrite') return error(ws, m.id, -32602, `Unknown tool: ${p.name}`)
          if (!versions.has(uri)) return result(ws, m.id, { content: [{ type: 'text', text: `no such document ${uri}` }], isError: true })
          versions.set(uri, versions.get(uri) + 1)
          return result(ws, m.id, { content: [{ type: 'resource_link', uri, name: descriptor(uri).name }] })
        }
        default:
          return error(ws, m.id, -32601, `Method not found: ${m.method}`)
      }
    })
  })

  await new Promise(r => server.listen(0, '127.0.0.1', r))
  peer.port = server.address().port
  peer.url = `ws://127.0.0.1:${peer.port}/`
  peer.httpUrl = `http://127.0.0.1:${peer.port}/`
  return peer
}
