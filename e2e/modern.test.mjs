// MCP revision 2026-07-28 in headless Debian Chromium, through the JavaScript
// API, against a scripted 2026-07-28-only peer over a raw WebSocket
// (e2e/modern-peer.mjs: it refuses initialize with -32022 and any request
// without the _meta protocol version with -32602):
//
// - connect() with default options speaks 2026-07-28 (server/discover first,
//   no initialize, initialized or ping, _meta on every request), lists across
//   an empty-string cursor, and a list_changed on the listen becomes
//   `listchanged`;
// - attach opens a listen for the URI and reads only once it is
//   acknowledged; a notification on that listen becomes `updated`;
// - refresh() within a read's ttlMs sends no read; a notification re-reads at
//   once; ttlMs 0 re-reads every time; an expired ttlMs re-reads;
// - detach sends notifications/cancelled for that URI's listen and leaves the
//   others working (the list-changed listen is replaced and works);
// - a listen the peer ends (with a result, or with notifications/cancelled)
//   is reopened and the attachment re-read in spite of its ttlMs, so a change
//   made while no listen was open arrives as `updated`;
// - a tool linking to an attached document confirms it with a read in spite
//   of its ttlMs;
// - connect(url, { protocol: "2025-11-25" }) sends initialize, which the peer
//   refuses: an MCPError of kind "unsupported" with the peer's data.
//
// The test page (web/test/api.html) is served by mcphost and relayed by the
// peer, so it loads from the peer's origin under the product CSP (see
// e2e/scripted-peer.mjs).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { launchBrowser, startMcphost } from './harness.mjs'
import { CAPABILITIES, CAPS, INFO, MODERN, PV, SERVER_INFO, startModernPeer } from './modern-peer.mjs'

const DOC = 'modern://docs/live.txt'
const OTHER = 'modern://docs/other.txt'
const THIRD = 'modern://docs/third.txt'
const sleep = ms => new Promise(r => setTimeout(r, ms))

let srv, browser

before(async () => {
  srv = await startMcphost([])
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await srv?.stop()
})

async function openPage (base) {
  const page = await browser.context.newPage()
  const problems = []
  page.on('pageerror', e => problems.push(String(e)))
  page.on('console', m => {
    if (m.type() === 'error' && !/favicon/.test(m.location()?.url ?? '')) problems.push(m.text())
  })
  await page.goto(base + 'test/api.html')
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 })
  page.problems = problems
  return page
}

/** Connects the page to url as window.h and records every event in window.log. */
async function connectAndRecord (page, url, options = {}) {
  return page.evaluate(async ({ url, options }) => {
    window.h = await window.mcphost.connect(url, options)
    window.log = []
    for (const type of ['updated', 'fresh', 'stale', 'gone', 'superseded', 'listchanged', 'disconnected', 'reconnected']) {
      window.h.addEventListener(type, e => {
        const p = e.detail?.parts?.[0]
        window.log.push({ type, at: Date.now(), uri: e.detail?.uri, text: p?.text, state: p?.state, reason: e.detail?.reason })
      })
    }
    const h = window.h
    return { protocolVersion: h.protocolVersion, serverInfo: h.serverInfo, capabilities: h.capabilities, instructions: h.instructions }
  }, { url, options })
}

const ctxOf = page => page.evaluate(() => window.h.attachments().map(a => [a.uri, a.text, a.state]))
const logOf = page => page.evaluate(() => window.log)

let armed = 0
/**
 * Starts waiting in the page for the next `type` event (about uri, when
 * given) BEFORE the test triggers it; the returned function resolves with its
 * parts as [text, state] pairs, or fails after ms.
 */
async function arm (page, type, uri = null, ms = 10000) {
  const key = `armed${++armed}`
  await page.evaluate(({ key, type, uri, ms }) => {
    window[key] = window.nextEvent(window.h, type, d => uri === null || d?.uri === uri, ms)
      .then(d => ({ parts: d?.parts?.map(p => [p.text, p.state]) }), e => ({ error: String(e) }))
  }, { key, type, uri, ms })
  return async () => {
    const r = await page.evaluate(key => window[key], key)
    if (r.error) assert.fail(`${type}${uri ? ' ' + uri : ''}: ${r.error}`)
    return r.parts
  }
}

/** Polls fn() until truthy, or fails after ms with what(). */
async function until (fn, ms, what) {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms: ${what()}`)
    await sleep(25)
  }
}

/** Runs body(peer, page) against a fresh peer and page; cleans both up. */
async function withPeer (opts, body) {
  const peer = await startModernPeer({ pagesFrom: srv.url, ...opts })
  let page
  try {
    page = await openPage(peer.httpUrl)
    await body(peer, page)
    assert.deepEqual(page.problems, [])
  } catch (e) {
    e.message += `\n--- peer transcript ---\n${peer.transcript()}`
    throw e
  } finally {
    await page?.evaluate(() => window.h?.close()).catch(() => {})
    await page?.close()
    await peer.close()
  }
}

/** What a 2026-07-28 conversation must never contain, and every request's _meta. */
function assertModernOnly (peer) {
  const t = () => peer.transcript()
  for (const m of ['initialize', 'notifications/initialized', 'ping', 'resources/subscribe', 'resources/unsubscribe']) {
    assert.equal(peer.calls(m).length, 0, `no ${m} reached the peer:\n${t()}`)
  }
  assert.deepEqual(peer.rejected, [], 'the peer refused no request for its metadata')
  for (const e of peer.log.filter(e => e.id !== undefined && e.method)) {
    const meta = e.params?._meta
    assert.equal(meta?.[PV], MODERN, `${e.method} #${e.id} carries the protocol version`)
    assert.equal(typeof meta?.[CAPS], 'object', `${e.method} #${e.id} carries clientCapabilities`)
    assert.equal(typeof meta?.[INFO]?.name, 'string', `${e.method} #${e.id} carries clientInfo`)
  }
}

describe('MCP 2026-07-28 against a scripted modern-only peer, in Chromium', () => {
  test('connect() with default options speaks 2026-07-28: discover first, no initialize, lists across an empty-string cursor',
    { timeout: 60000 }, async () => {
      await withPeer({ docs: { [DOC]: 1, [OTHER]: 1, [THIRD]: 1 } }, async (peer, page) => {
        const info = await connectAndRecord(page, peer.url)
        assert.equal(info.protocolVersion, '2026-07-28')
        assert.deepEqual(info.serverInfo, SERVER_INFO, 'serverInfo from the discover result\'s _meta')
        assert.deepEqual(info.capabilities, CAPABILITIES)
        assert.equal(info.instructions, 'A scripted 2026-07-28-only peer.')
        const first = peer.log[0]
        assert.equal(first.method, 'server/discover', 'the first message is server/discover')
        assert.equal(first.params._meta[PV], MODERN)

        // Both pages: page 1 ends with nextCursor "", page 2 is asked for with cursor "".
        const uris = await page.evaluate(() => window.h.resources().then(rs => rs.map(r => r.uri)))
        assert.deepEqual(uris.sort(), [DOC, OTHER, THIRD].sort())
        assert.deepEqual(peer.calls('resources/list').map(e => e.params.cursor), [undefined, ''],
          'page 2 was asked for with the empty-string cursor, and nothing after it')

        // The list-changed listen: one, acknowledged; list_changed on it re-lists.
        await until(() => peer.listListens().length >= 1, 5000, () => 'no resourcesListChanged listen')
        assert.deepEqual(peer.listListens()[0].filter, { resourcesListChanged: true })
        const NEW = 'modern://docs/new.txt'
        const changed = await arm(page, 'listchanged')
        peer.addDoc(NEW)
        await changed()
        const after = await page.evaluate(() => window.h.resources().then(rs => rs.map(r => r.uri)))
        assert.ok(after.includes(NEW), `the new document is listed: ${after}`)

        // Pinning the revision works too.
        const pinned = await page.evaluate(url => window.mcphost.connect(url, { protocol: '2026-07-28' })
          .then(async h => { const v = h.protocolVersion; await h.close(); return v }), peer.url)
        assert.equal(pinned, '2026-07-28')
        assertModernOnly(peer)
      })
    })

  test('attach listens for the URI, reads once acknowledged, and a notification on the listen becomes updated',
    { timeout: 60000 }, async () => {
      await withPeer({ docs: { [DOC]: 1, [OTHER]: 1 } }, async (peer, page) => {
        await connectAndRecord(page, peer.url)
        const parts = await page.evaluate(uri => window.h.attach(uri).then(ps => ps.map(p => [p.text, p.state])), DOC)
        assert.deepEqual(parts, [['version 1', 'fresh']])
        const ls = peer.listensFor(DOC)
        assert.equal(ls.length, 1, 'one listen for the URI')
        assert.deepEqual(ls[0].filter, { resourceSubscriptions: [DOC] }, 'a listen of its own, for that URI only')
        const listenAt = peer.log.findIndex(e => e.method === 'subscriptions/listen' && e.id === ls[0].id)
        const readAt = peer.log.findIndex(e => e.method === 'resources/read' && e.params.uri === DOC)
        assert.ok(listenAt >= 0 && readAt > listenAt, 'the listen (acknowledged at once) came before the read')
        assert.ok(peer.reads[0].at >= ls[0].ackAt, 'the read left after the acknowledgement')

        const up = await arm(page, 'updated', DOC)
        peer.setVersion(DOC, 2, { notify: true })
        assert.deepEqual(peer.notified.at(-1).subscriptionIds, [ls[0].id], 'the update went out on that listen')
        assert.deepEqual(await up(), [['version 2', 'fresh']])
        assert.equal(peer.readCount(DOC), 2, 'one read for the update')
        await sleep(200)
        assert.deepEqual((await logOf(page)).map(e => [e.type, e.uri, e.text]), [['updated', DOC, 'version 2']])
        assert.deepEqual(await ctxOf(page), [[DOC, 'version 2', 'fresh']])
        assertModernOnly(peer)
      })
    })

  test('refresh() honours ttlMs: no read within it, a notification re-reads, ttlMs 0 always re-reads, an expired one re-reads',
    { timeout: 60000 }, async () => {
      await withPeer({ docs: { [DOC]: 1, [OTHER]: 1, [THIRD]: 1 }, readTtlMs: 60000 }, async (peer, page) => {
        await connectAndRecord(page, peer.url)
        await page.evaluate(uri => window.h.attach(uri), DOC)
        assert.equal(peer.readCount(DOC), 1)

        await page.evaluate(() => window.h.refresh())
        await sleep(100)
        assert.equal(peer.readCount(DOC), 1, 'refresh() within ttlMs sent no read')
        assert.deepEqual(await ctxOf(page), [[DOC, 'version 1', 'fresh']])

        const up = await arm(page, 'updated', DOC)
        peer.setVersion(DOC, 2, { notify: true })
        assert.deepEqual(await up(), [['version 2', 'fresh']], 'a notification re-read at once in spite of the ttlMs')
        assert.equal(peer.readCount(DOC), 2, 'the update\'s read')
        await page.evaluate(() => window.h.refresh())
        await sleep(100)
        assert.equal(peer.readCount(DOC), 2, 'the update\'s read starts a new ttlMs: refresh() sent no read')

        // ttlMs 0 (OTHER) is re-read by every refresh(); DOC still is not.
        peer.readTtlMs = 0
        await page.evaluate(uri => window.h.attach(uri), OTHER)
        assert.equal(peer.readCount(OTHER), 1)
        await page.evaluate(() => window.h.refresh())
        assert.equal(peer.readCount(OTHER), 2, 'ttlMs 0: refresh() re-read')
        assert.equal(peer.readCount(DOC), 2, 'ttlMs 60000: refresh() did not')

        // ttlMs 2000 (THIRD): not re-read at once, re-read once it expired.
        peer.readTtlMs = 2000
        await page.evaluate(uri => window.h.attach(uri), THIRD)
        const attachedAt = peer.reads.at(-1).at
        await page.evaluate(() => window.h.refresh())
        assert.ok(Date.now() - attachedAt < 2000, 'the first refresh() ran within the ttlMs')
        assert.equal(peer.readCount(THIRD), 1, 'within ttlMs 2000: no read')
        await sleep(Math.max(0, attachedAt + 2150 - Date.now()))
        await page.evaluate(() => window.h.refresh())
        assert.equal(peer.readCount(THIRD), 2, 'ttlMs 2000 expired: refresh() re-read')
        assert.equal(peer.readCount(OTHER), 4, 'ttlMs 0: re-read by both refreshes')
        assert.equal(peer.readCount(DOC), 2, 'ttlMs 60000: still not re-read')
        assert.deepEqual((await logOf(page)).map(e => [e.type, e.uri]), [['updated', DOC]], 'no event but the one update')
        assertModernOnly(peer)
      })
    })

  test('detach sends notifications/cancelled for that URI\'s listen; the other listens keep working',
    { timeout: 60000 }, async t => {
      await withPeer({ docs: { [DOC]: 1, [OTHER]: 1 } }, async (peer, page) => {
        await connectAndRecord(page, peer.url)
        await page.evaluate(async ([a, b]) => { await window.h.attach(a); await window.h.attach(b) }, [DOC, OTHER])
        const [lDoc] = peer.listensFor(DOC)
        const [lOther] = peer.listensFor(OTHER)
        const [lList] = peer.listListens()
        assert.ok(lDoc && lOther && lList, 'a listen each for DOC, OTHER and list changes')
        const detachedAt = Date.now()
        assert.equal(await page.evaluate(uri => window.h.detach(uri), DOC), true)
        await until(() => peer.cancels.some(c => c.requestId === lDoc.id), 5000,
          () => `no notifications/cancelled for DOC's listen #${lDoc.id}: ${JSON.stringify(peer.cancels)}`)
        assert.equal(lDoc.endedBy, 'client')
        assert.ok(!peer.cancels.some(c => c.requestId === lOther.id), 'OTHER\'s listen was not cancelled')
        assert.equal(lOther.open, true)

        // OTHER still updates; DOC is not listened to again.
        const up = await arm(page, 'updated', OTHER)
        peer.setVersion(OTHER, 2, { notify: true })
        assert.deepEqual(await up(), [['version 2', 'fresh']])

        // The list-changed listen is replaced after a listen ended (the
        // module's go-sdk workaround); once the new one is open, list changes
        // still arrive.
        await until(() => peer.listListens().filter(l => l.open && l.id !== lList.id).length === 1, 10000,
          () => 'the list-changed listen was not replaced')
        const replacedAt = peer.listListens().at(-1).at
        // The replacement re-lists once by itself; let that settle, then a
        // list_changed sent on the new listen must cause a listing of its own.
        await until(async () => {
          const n = peer.calls('resources/list').length
          await sleep(300)
          return n === peer.calls('resources/list').length
        }, 10000, () => 'the listing never settled')
        const lists = peer.calls('resources/list').length
        const changed = await arm(page, 'listchanged')
        peer.addDoc('modern://docs/new.txt')
        assert.ok(peer.sent.some(e => e.msg.method === 'notifications/resources/list_changed' &&
          e.msg.params._meta['io.modelcontextprotocol/subscriptionId'] === peer.listListens().at(-1).id), 'sent on the new listen')
        await changed()
        assert.ok(peer.calls('resources/list').length > lists, 'list_changed on the new listen re-listed')
        assert.equal(peer.listensFor(DOC).length, 1, 'no new listen for the detached URI')
        assert.deepEqual(await ctxOf(page), [[OTHER, 'version 2', 'fresh']])
        t.diagnostic(`detach: cancelled DOC's listen after ${peer.cancels.find(c => c.requestId === lDoc.id).at - detachedAt} ms; ` +
          `list-changed listen #${lList.id} cancelled: ${peer.cancels.some(c => c.requestId === lList.id)}, replaced after ${replacedAt - detachedAt} ms; ` +
          `cancels: ${JSON.stringify(peer.cancels.map(c => [c.requestId, c.reason, c.at - detachedAt]))}`)
        assertModernOnly(peer)
      })
    })

  test('a listen the peer ends is reopened and the attachment re-read (ttlMs notwithstanding): a change made meanwhile arrives as updated',
    { timeout: 60000 }, async () => {
      await withPeer({ docs: { [DOC]: 1 }, readTtlMs: 60000 }, async (peer, page) => {
        await connectAndRecord(page, peer.url)
        await page.evaluate(uri => window.h.attach(uri), DOC)
        for (const [how, v] of [['result', 2], ['cancelled', 3]]) {
          const before = peer.listensFor(DOC).length
          const reads = peer.readCount(DOC)
          const up = await arm(page, 'updated', DOC, 15000)
          const ended = peer.endListen(DOC, { how })
          assert.equal(ended.length, 1)
          peer.setVersion(DOC, v) // no listen is open: nobody is told
          assert.deepEqual(await up(), [[`version ${v}`, 'fresh']], `ended with ${how}: the change arrived as updated`)
          const ls = peer.listensFor(DOC)
          assert.equal(ls.length, before + 1, `ended with ${how}: one new listen for the URI`)
          assert.equal(ls.at(-1).open, true)
          assert.equal(peer.readCount(DOC), reads + 1, `ended with ${how}: one confirming read`)
          assert.ok(peer.reads.at(-1).at >= ls.at(-1).ackAt, 'the confirming read left after the new listen was acknowledged')
        }
        // The reopened listen carries updates.
        const up = await arm(page, 'updated', DOC)
        peer.setVersion(DOC, 4, { notify: true })
        assert.deepEqual(await up(), [['version 4', 'fresh']])
        assert.deepEqual(peer.notified.at(-1).subscriptionIds, [peer.listensFor(DOC).at(-1).id])
        assert.deepEqual((await logOf(page)).filter(e => e.type !== 'listchanged').map(e => [e.type, e.text]),
          [['updated', 'version 2'], ['updated', 'version 3'], ['updated', 'version 4']])
        assertModernOnly(peer)
      })
    })

  test('a tool linking to an attached document confirms it with a read in spite of its ttlMs', { timeout: 60000 }, async () => {
    await withPeer({ docs: { [DOC]: 1 }, readTtlMs: 60000 }, async (peer, page) => {
      await connectAndRecord(page, peer.url)
      await page.evaluate(uri => window.h.attach(uri), DOC)
      const tools = await page.evaluate(() => window.h.tools().then(ts => ts.map(t => t.name)))
      assert.deepEqual(tools, ['rewrite'])
      const r = await page.evaluate(async uri => {
        const out = await window.h.callTool('rewrite', { uri })
        return { dropped: out.dropped, ctx: window.h.attachments().map(a => [a.uri, a.text, a.state]) }
      }, DOC)
      assert.deepEqual(r.dropped, [{ index: 0, uri: DOC, reason: 'link_to_attached' }])
      assert.equal(peer.readCount(DOC), 2, 'a confirming read, ttlMs notwithstanding')
      assert.deepEqual(r.ctx, [[DOC, 'version 2', 'fresh']])
      assertModernOnly(peer)
    })
  })

  test('MRTR and the 2026-07-28 errors: requestState echoed on a new id, 3 rounds at most, inputRequests refused, unknown resultType, -32021, -32020',
    { timeout: 60000 }, async () => {
      await withPeer({ docs: { [DOC]: 1 } }, async (peer, page) => {
        const STATE1 = 's1/\u00e9"\\'
        const text = (uri, t) => ({ result: { resultType: 'complete', contents: [{ uri, mimeType: 'text/plain', text: t }], ttlMs: 0, cacheScope: 'private' } })
        let endless = 0
        peer.onRead = p => {
          switch (p.uri) {
            case 'modern://mrtr/two-rounds.txt':
              if (p.requestState === undefined) return { result: { resultType: 'input_required', requestState: STATE1 } }
              if (p.requestState === STATE1) return { result: { resultType: 'input_required', requestState: 's2' } }
              if (p.requestState === 's2') return text(p.uri, 'after two rounds')
              return { error: { code: -32602, message: `unexpected requestState ${JSON.stringify(p.requestState)}` } }
            case 'modern://mrtr/endless.txt':
              return { result: { resultType: 'input_required', requestState: `round ${++endless}` } }
            case 'modern://mrtr/input.txt':
              return { result: { resultType: 'input_required', requestState: 'x',
                inputRequests: { name: { method: 'elicitation/create', params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } } } } } }
            case 'modern://odd/result-type.txt':
              return { result: { resultType: 'partial', contents: [] } }
            case 'modern://err/capability.txt':
              return { error: { code: -32021, message: 'Missing required client capability', data: { requiredCapabilities: { elicitation: {} } } } }
            case 'modern://err/header.txt':
              return { error: { code: -32020, message: 'Header mismatch' } }
            case 'modern://err/not-found.txt':
              return { error: { code: -32602, message: 'Resource not found', data: { uri: p.uri } } }
          }
        }
        await connectAndRecord(page, peer.url)
        const attach = uri => page.evaluate(uri => window.h.attach(uri)
          .then(ps => ({ parts: ps.map(p => [p.text, p.state]) }), e => ({ err: window.errorFields(e) })), uri)
        const readsOf = uri => peer.log.filter(e => e.method === 'resources/read' && e.params.uri === uri)

        const two = await attach('modern://mrtr/two-rounds.txt')
        assert.deepEqual(two, { parts: [['after two rounds', 'fresh']] })
        const rounds = readsOf('modern://mrtr/two-rounds.txt')
        assert.deepEqual(rounds.map(e => e.params.requestState), [undefined, STATE1, 's2'], 'each state echoed verbatim')
        assert.equal(new Set(rounds.map(e => e.id)).size, 3, 'each round on a new id')
        for (const e of rounds) assert.equal(e.params._meta[PV], MODERN, 'each round carries the _meta')

        const endlessR = await attach('modern://mrtr/endless.txt')
        assert.equal(endlessR.err?.kind, 'protocol', JSON.stringify(endlessR))
        assert.equal(readsOf('modern://mrtr/endless.txt').length, 3, 'three rounds at most')

        const input = await attach('modern://mrtr/input.txt')
        assert.equal(input.err?.kind, 'unsupported', JSON.stringify(input))
        assert.equal(readsOf('modern://mrtr/input.txt').length, 1, 'inputRequests are not retried')

        const odd = await attach('modern://odd/result-type.txt')
        assert.equal(odd.err?.kind, 'protocol', JSON.stringify(odd))
        assert.match(odd.err.message, /partial/, 'the error names the resultType')

        const cap = await attach('modern://err/capability.txt')
        assert.equal(cap.err?.kind, 'unsupported', JSON.stringify(cap))
        assert.equal(cap.err.code, -32021)
        assert.deepEqual(cap.err.data, { requiredCapabilities: { elicitation: {} } })

        const hdr = await attach('modern://err/header.txt')
        assert.equal(hdr.err?.kind, 'protocol', JSON.stringify(hdr))
        assert.equal(hdr.err.code, -32020)

        const nf = await attach('modern://err/not-found.txt')
        assert.equal(nf.err?.kind, 'not_found', JSON.stringify(nf))
        assert.equal(nf.err.uri, 'modern://err/not-found.txt')

        // None of the failures is in the context; a good document still attaches.
        assert.deepEqual(await page.evaluate(uri => window.h.attach(uri).then(ps => ps[0].text), DOC), 'version 1')
        assert.deepEqual((await ctxOf(page)).map(a => a[0]), ['modern://mrtr/two-rounds.txt', DOC])
        assertModernOnly(peer)
      })
    })

  // Duplicate names are undefined behaviour in RFC 8259 and serde-derived
  // servers (rmcp) refuse them ("duplicate field"): each round replaces the key.
  test('MRTR: every round carries requestState once (no duplicate key in the frame)',
    { timeout: 60000 }, async () => {
      await withPeer({ docs: {} }, async (peer, page) => {
        const URI = 'modern://mrtr/three-rounds.txt'
        peer.onRead = p => {
          if (p.uri !== URI) return undefined
          if (p.requestState === undefined) return { result: { resultType: 'input_required', requestState: 's1' } }
          if (p.requestState === 's1') return { result: { resultType: 'input_required', requestState: 's2' } }
          return { result: { resultType: 'complete', contents: [{ uri: URI, text: 'done' }], ttlMs: 0, cacheScope: 'private' } }
        }
        await connectAndRecord(page, peer.url)
        assert.equal(await page.evaluate(uri => window.h.attach(uri).then(ps => ps[0].text), URI), 'done')
        const frames = peer.log.filter(e => e.method === 'resources/read').map(e => e.raw)
        assert.equal(frames.length, 3)
        assert.deepEqual(frames.filter(f => (f.match(/"requestState"/g) ?? []).length > 1), [],
          'no frame names requestState twice')
      })
    })

  test('connect(url, { protocol: "2025-11-25" }) sends initialize, which the peer refuses: MCPError kind "unsupported"',
    { timeout: 60000 }, async () => {
      await withPeer({ docs: { [DOC]: 1 } }, async (peer, page) => {
        const err = await page.evaluate(url => window.mcphost.connect(url, { protocol: '2025-11-25', reconnect: false })
          .then(h => { h.close(); return null }, e => window.errorFields(e)), peer.url)
        assert.ok(err, 'connect() rejected')
        assert.equal(err.isMCPError, true)
        assert.equal(err.kind, 'unsupported', JSON.stringify(err))
        assert.equal(err.code, -32022)
        assert.deepEqual(err.data, { supported: ['2026-07-28'], requested: '2025-11-25' })
        assert.equal(err.retryable, false)
        assert.deepEqual(peer.log.map(e => e.method), ['initialize'], 'initialize only: no probe, nothing after the refusal')
        assert.equal(peer.log[0].params.protocolVersion, '2025-11-25')
      })
    })
})
