// The TypeScript SDK v2 fixture (e2e/ts-v2-server.mjs) verified from Node
// alone with hand-built HTTP POSTs, so the browser test through `-upstream`
// (e2e/ts-v2.test.mjs) rests on known wire shapes:
//
// - 2026-07-28: server/discover, resources/read with ttlMs/cacheScope, the
//   headers it insists on (Mcp-Name for a read: -32020 without it; _meta:
//   -32602 without it), not found as -32602 with data.uri;
// - subscriptions/listen answered over SSE: the acknowledgement first (the
//   subscriptionId is the listen's numeric id, the honoured filter), then
//   resourceUpdated only for the URIs asked for, with the subscriptionId;
//   a notifications/cancelled POST does not end the stream, closing it does;
// - 2025-11-25 clients are served statelessly: no Mcp-Session-Id, GET 405,
//   and resources/subscribe -32601 although resources.subscribe is advertised
//   (why a legacy client never sees an update from such a server).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { startTsV2Server } from './ts-v2-server.mjs'

const A = 'file:///docs/a.txt'
const B = 'file:///docs/b.txt'
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'wire-test', version: '1' },
}
const sleep = ms => new Promise(r => setTimeout(r, ms))

let srv
before(async () => { srv = await startTsV2Server({ docs: { [A]: 1, [B]: 1 }, readTtlMs: 30000 }) })
after(async () => { await srv?.close() })

/** POSTs a modern request with the headers 2026-07-28 requires (override or drop with headers). */
async function post (msg, headers = {}, signal) {
  const h = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': msg.method,
    ...(msg.params?.uri ? { 'mcp-name': msg.params.uri } : {}),
    ...headers,
  }
  for (const k of Object.keys(h)) if (h[k] === null) delete h[k]
  return fetch(srv.url, { method: 'POST', headers: h, body: JSON.stringify(msg), signal })
}

/** The JSON-RPC message of a response, JSON or a single-event SSE body. */
async function message (r) {
  const t = await r.text()
  if ((r.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = t.split('\n').filter(l => l.startsWith('data: ')).map(l => l.slice(6))
    assert.equal(data.length, 1, `one SSE event: ${t}`)
    return JSON.parse(data[0])
  }
  return JSON.parse(t)
}

/** Reads SSE messages off a streaming response; next(ms) resolves with the next one, or null after ms. */
function sseReader (r) {
  const reader = r.body.getReader()
  const dec = new TextDecoder()
  let buf = ''
  let pending = null // one read in flight at a time, kept across timeouts
  const queue = []
  const take = () => {
    for (;;) {
      const i = buf.indexOf('\n\n')
      if (i < 0) return
      const frame = buf.slice(0, i)
      buf = buf.slice(i + 2)
      const data = frame.split('\n').filter(l => l.startsWith('data:')).map(l => l.slice(5).trimStart()).join('\n')
      if (data) queue.push(JSON.parse(data)) // comment frames (keep-alives) carry no data
    }
  }
  return {
    async next (ms) {
      const end = Date.now() + ms
      while (queue.length === 0) {
        const left = end - Date.now()
        if (left <= 0) return null
        pending ??= reader.read().then(c => { pending = null; return c })
        const c = await Promise.race([pending, sleep(left).then(() => 'timeout')])
        if (c === 'timeout') return null
        if (c.done) return null
        buf += dec.decode(c.value, { stream: true })
        take()
      }
      return queue.shift()
    },
    cancel: () => reader.cancel().catch(() => {}),
  }
}

describe('TypeScript SDK v2 server (createMcpHandler + toNodeHandler), from Node', () => {
  test('2026-07-28: discover, read with ttlMs/cacheScope, the headers and _meta it insists on, not found', { timeout: 15000 }, async () => {
    const d = await message(await post({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } }))
    assert.ok(d.result.supportedVersions.includes('2026-07-28'), JSON.stringify(d))
    assert.deepEqual(d.result.capabilities.resources, { subscribe: true, listChanged: true })
    assert.equal(d.result._meta['io.modelcontextprotocol/serverInfo'].name, 'ts-v2-fixture')

    const rd = await message(await post({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: A, _meta: META } }))
    assert.deepEqual(rd.result.contents, [{ uri: A, mimeType: 'text/plain', text: 'version 1' }])
    assert.equal(rd.result.ttlMs, 30000)
    assert.equal(rd.result.cacheScope, 'private')
    assert.equal(rd.result.resultType, 'complete')

    const noName = await post({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: A, _meta: META } }, { 'mcp-name': null })
    assert.equal(noName.status, 400)
    assert.equal((await message(noName)).error.code, -32020, 'a read without Mcp-Name is a header mismatch')

    const noMeta = await post({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: A } })
    assert.equal(noMeta.status, 400)
    assert.equal((await message(noMeta)).error.code, -32602, 'a modern request without _meta is invalid params')

    const nf = await message(await post({ jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'file:///docs/none.txt', _meta: META } }))
    assert.equal(nf.error.code, -32602)
    assert.deepEqual(nf.error.data, { uri: 'file:///docs/none.txt' })
  })

  test('subscriptions/listen over SSE: ack first, updates for its URIs with the subscriptionId, ends when the stream closes',
    { timeout: 15000 }, async () => {
      const ac = new AbortController()
      const r = await post({
        jsonrpc: '2.0', id: 41, method: 'subscriptions/listen',
        params: { _meta: META, notifications: { resourceSubscriptions: [A], resourcesListChanged: true } },
      }, {}, ac.signal)
      try {
        assert.equal(r.status, 200)
        assert.match(r.headers.get('content-type'), /^text\/event-stream/)
        const sse = sseReader(r)
        const ack = await sse.next(3000)
        assert.deepEqual(ack, {
          jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { resourcesListChanged: true, resourceSubscriptions: [A] }, _meta: { 'io.modelcontextprotocol/subscriptionId': 41 } },
        })
        assert.equal(srv.openListens(), 1)

        srv.setVersion(B, 2, { notify: true }) // not in the filter
        srv.setVersion(A, 2, { notify: true })
        assert.deepEqual(await sse.next(3000), {
          jsonrpc: '2.0', method: 'notifications/resources/updated',
          params: { uri: A, _meta: { 'io.modelcontextprotocol/subscriptionId': 41 } },
        })
        srv.handler.notify.resourcesChanged()
        assert.deepEqual(await sse.next(3000), {
          jsonrpc: '2.0', method: 'notifications/resources/list_changed',
          params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 41 } },
        })
        assert.equal(await sse.next(200), null, 'nothing else: B was not asked for')

        // Over HTTP a listen ends when its stream closes; a separate
        // notifications/cancelled POST is accepted and changes nothing.
        const c = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 41 } })
        assert.equal(c.status, 202)
        await sleep(200)
        assert.equal(srv.openListens(), 1, 'a notifications/cancelled POST leaves the listen open')
        ac.abort()
        const end = Date.now() + 3000
        while (srv.openListens() > 0 && Date.now() < end) await sleep(20)
        assert.equal(srv.openListens(), 0, 'closing the SSE ends the listen')
      } finally {
        ac.abort()
      }
    })

  test('2025-11-25 clients are served statelessly: no session, GET 405, resources/subscribe -32601 despite subscribe: true',
    { timeout: 15000 }, async () => {
      const init = await post({
        jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } },
      }, { 'mcp-protocol-version': null, 'mcp-method': null })
      assert.equal(init.status, 200)
      assert.equal(init.headers.get('mcp-session-id'), null, 'no Mcp-Session-Id')
      const ir = await message(init)
      assert.equal(ir.result.protocolVersion, '2025-11-25')
      assert.equal(ir.result.capabilities.resources.subscribe, true)

      const get = await fetch(srv.url, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' } })
      assert.equal(get.status, 405, 'no standalone stream')
      await get.body?.cancel()

      const sub = await message(await post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: A } },
        { 'mcp-protocol-version': '2025-11-25', 'mcp-method': null, 'mcp-name': null }))
      assert.equal(sub.error?.code, -32601, JSON.stringify(sub))
    })
})
