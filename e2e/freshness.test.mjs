// The freshness engine (host/, issue 12) in headless Debian Chromium, through
// the JavaScript API, against a scripted MCP peer running in this process
// (e2e/scripted-peer.mjs) and against server-everything through the mcphost
// gateway:
//
// - a sustained stream of updates (a new version every 30 ms for 2 s, reads
//   taking 60 ms) shows progress while it lasts and ends on the last version;
// - `updated` fires only when the content changed: not on refresh() of an
//   unchanged document, not on a bare notification;
// - a tool that changes an attached document silently and links to it leaves
//   the new bytes in the context (scripted peer and server-everything's
//   gzip-file-as-resource).
//
// The test page (web/test/api.html) is served by mcphost itself, under the
// product's Content-Security-Policy (connect-src 'self'). To let it reach the
// scripted peer, the peer relays plain HTTP requests to the mcphost binary, so
// the page (bytes and headers from mcphost) loads from the peer's origin.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { launchBrowser, root, startMcphost } from './harness.mjs'
import { startScriptedPeer } from './scripted-peer.mjs'

const DOC = 'scripted://docs/live.txt'
const OTHER = 'scripted://docs/other.txt'
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

/** Opens the API test page at base (an mcphost URL, or a peer relaying to one). */
async function openPage(base) {
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

/** A scripted peer whose origin serves mcphost's pages. */
const peerFor = (docs, readMs) => startScriptedPeer({ docs, readMs, pagesFrom: srv.url })

/**
 * Connects the page to url as window.h and records every freshness event,
 * with its page time, in window.log: { type, at, uri, text, state, reason }.
 */
async function connectAndRecord(page, url, options = {}) {
  await page.evaluate(async ({ url, options }) => {
    window.h = await window.mcphost.connect(url, options)
    window.log = []
    for (const type of ['updated', 'fresh', 'stale', 'gone', 'superseded']) {
      window.h.addEventListener(type, e => {
        const p = e.detail.parts?.[0]
        window.log.push({ type, at: Date.now(), uri: e.detail.uri, text: p?.text, state: p?.state,
          parts: e.detail.parts?.length, reason: e.detail.reason })
      })
    }
  }, { url, options })
}

const ctxOf = page => page.evaluate(() => window.h.attachments().map(a =>
  ({ uri: a.uri, text: a.text, state: a.state, kind: a.kind, bytes: a.bytes && Array.from(a.bytes) })))
const logOf = page => page.evaluate(() => window.log)
const versionOf = text => Number(/^version (\d+)$/.exec(text ?? '')?.[1] ?? NaN)
const readLog = (peer, uri) => peer.reads.filter(r => r.uri === uri)
  .map(r => `${r.at - peer.reads[0].at}ms v${r.version} +${(r.answeredAt ?? NaN) - r.at}ms`).join(', ')

/** Polls fn() (async) until it returns a truthy value, or fails after ms with what(). */
async function until(fn, ms, what) {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms: ${what()}`)
    await sleep(25)
  }
}

describe('freshness engine in Chromium', () => {
  test('a sustained stream (a version every 30 ms for 2 s, 60 ms reads) shows progress and ends on the last version',
    { timeout: 90000 }, async t => {
      const peer = await peerFor({ [DOC]: 1, [OTHER]: 1 }, 60)
      let page
      try {
        page = await openPage(peer.httpUrl)
        await connectAndRecord(page, peer.url)
        const parts = await page.evaluate(uri => window.h.attach(uri), DOC)
        assert.equal(parts[0].text, 'version 1')
        assert.equal(peer.subscribers(DOC), 1, 'attach subscribed')
        const readsBefore = peer.readCount(DOC)

        const s = await peer.stream(DOC, 30, 2000)
        const last = peer.text(s.last)
        // Once quiet the context must reach the server's last version.
        const ctx = await until(async () => {
          const c = await ctxOf(page)
          return c[0]?.text === last && c
        }, 15000, () => `context never reached ${last}; reads: ${readLog(peer, DOC)}`)
        const ctxAt = Date.now()
        await sleep(300) // anything still in flight lands
        const log = await logOf(page)
        const final = await ctxOf(page)
        const ups = log.filter(e => e.type === 'updated' && e.uri === DOC)
        const during = ups.filter(e => e.at >= s.start && e.at <= s.end)
        const detail = () => `stream v${s.first}..v${s.last} (${s.count} updates) ${s.start}..${s.end}; ` +
          `updated: ${JSON.stringify(ups.map(e => [e.at - s.start, e.text]))}; ` +
          `reads during the stream: ${peer.readCount(DOC) - readsBefore}; read log: ${readLog(peer, DOC)}`

        t.diagnostic(`${during.length} updated events during the stream (${s.count} versions published, ` +
          `${peer.readCount(DOC) - readsBefore} reads); quiet on ${last} ${ctxAt - s.end} ms after the stream`)
        assert.ok(s.count >= 40, `the peer published a real stream: ${s.count} updates`)
        assert.ok(during.length >= 8, `at least 8 updated events while the stream lasted, got ${during.length}; ${detail()}`)
        const versions = ups.map(e => versionOf(e.text))
        for (let i = 1; i < versions.length; i++) {
          assert.ok(versions[i] > versions[i - 1], `versions in updated events never go backwards (nor repeat): ${versions}`)
        }
        assert.ok(versions.every(v => v >= 2 && v <= s.last), `versions are ones the server published: ${versions}`)
        assert.equal(ctx[0].state, 'fresh')
        assert.deepEqual(final.map(a => [a.uri, a.text, a.state]), [[DOC, last, 'fresh']],
          `quiet: the context holds the last version, fresh; ${detail()}`)
        assert.equal(ups.at(-1).text, last, 'the last updated event carries the last version')
        assert.equal(log.filter(e => e.type === 'stale' || e.type === 'gone').length, 0, JSON.stringify(log))
        assert.equal(peer.maxInFlight.get(DOC), 1, `one read per URI in flight at a time; ${detail()}`)
        assert.deepEqual(page.problems, [])
      } finally {
        await page?.evaluate(() => window.h?.close()).catch(() => {})
        await page?.close()
        await peer.close()
      }
    })

  test('refresh() of an unchanged document and a bare notification fire no updated; a real change does',
    { timeout: 60000 }, async () => {
      const peer = await peerFor({ [DOC]: 7 }, 20)
      let page
      try {
        page = await openPage(peer.httpUrl)
        await connectAndRecord(page, peer.url)
        await page.evaluate(uri => window.h.attach(uri), DOC)

        // refresh(): it re-reads (the peer sees it) and finds the same content.
        const before = peer.readCount(DOC)
        await page.evaluate(() => window.h.refresh())
        assert.equal(peer.readCount(DOC), before + 1, 'refresh() re-read the attachment')
        await sleep(300)
        let log = await logOf(page)
        assert.deepEqual(log.filter(e => e.type === 'updated'), [], 'no updated after refresh() of an unchanged document')
        assert.deepEqual((await ctxOf(page)).map(a => [a.text, a.state]), [['version 7', 'fresh']])

        // A bare notifications/resources/updated: the engine re-reads, finds the same content.
        const beforeBare = peer.readCount(DOC)
        peer.notify(DOC)
        await until(() => {
          const rs = peer.reads.filter(x => x.uri === DOC).slice(beforeBare)
          return rs.length > 0 && rs.every(x => x.answeredAt !== undefined)
        }, 10000, () => `no re-read after a bare notification; reads: ${readLog(peer, DOC)}`)
        await sleep(300)
        log = await logOf(page)
        assert.deepEqual(log.filter(e => e.type === 'updated'), [],
          `no updated after a bare notification; reads: ${readLog(peer, DOC)}`)
        assert.deepEqual((await ctxOf(page)).map(a => [a.text, a.state]), [['version 7', 'fresh']])

        // A real change does fire updated, with the new text.
        await page.evaluate(uri => {
          window.up = window.nextEvent(window.h, 'updated', d => d.uri === uri, 15000)
            .then(d => d.parts.map(p => [p.text, p.state]))
        }, DOC)
        peer.setVersion(DOC, 8, { notify: true })
        assert.deepEqual(await page.evaluate(() => window.up), [['version 8', 'fresh']])
        await sleep(300)
        log = await logOf(page)
        assert.deepEqual(log.map(e => [e.type, e.text]), [['updated', 'version 8']], 'exactly one event in all')
        assert.deepEqual((await ctxOf(page)).map(a => [a.text, a.state]), [['version 8', 'fresh']])
        assert.deepEqual(page.problems, [])
      } finally {
        await page?.evaluate(() => window.h?.close()).catch(() => {})
        await page?.close()
        await peer.close()
      }
    })

  test('a tool that changes an attached document silently and links to it leaves the new bytes in the context',
    { timeout: 60000 }, async () => {
      const peer = await peerFor({ [DOC]: 3, [OTHER]: 1 }, 20)
      let page
      try {
        page = await openPage(peer.httpUrl)
        await connectAndRecord(page, peer.url)
        await page.evaluate(uri => window.h.attach(uri), DOC)
        const before = peer.readCount(DOC)
        const r = await page.evaluate(async uri => {
          const out = await window.h.callTool('rewrite', { uri })
          // What the context holds the moment callTool resolves.
          const ctx = window.h.attachments().map(a => [a.uri, a.text, a.state])
          return { out, ctx }
        }, DOC)
        assert.equal(peer.version(DOC), 4, 'the tool changed the document')
        assert.equal(peer.notified.length, 0, 'without notifying')
        assert.deepEqual(r.out.dropped, [{ index: 0, uri: DOC, reason: 'link_to_attached' }])
        assert.deepEqual(r.out.result.content.filter(c => c.type !== 'text'), [], 'the link is dropped from the result')
        assert.deepEqual(r.out.superseded, [])
        assert.ok(peer.readCount(DOC) > before, `callTool confirmed the attachment with a re-read; reads: ${readLog(peer, DOC)}`)
        assert.deepEqual(r.ctx, [[DOC, 'version 4', 'fresh']], 'when callTool resolves the context holds the new bytes, fresh')
        const up = await until(async () => (await logOf(page)).find(e => e.type === 'updated'), 5000,
          () => 'no updated event after the tool changed the attached document')
        assert.deepEqual([up.uri, up.text, up.state], [DOC, 'version 4', 'fresh'])

        // A link to a document that is not attached is kept.
        const kept = await page.evaluate(uri => window.h.callTool('rewrite', { uri }), OTHER)
        assert.deepEqual(kept.dropped, [])
        assert.deepEqual(kept.result.content.map(c => [c.type, c.uri]), [['resource_link', OTHER]])

        // A link to the attached document, unchanged (filterToolResult, the
        // synchronous filter): dropped, confirmed by a re-read, no event.
        const readsBefore = peer.readCount(DOC)
        const same = await page.evaluate(uri => window.h.filterToolResult({
          content: [{ type: 'resource_link', uri, name: 'live.txt' }],
        }), DOC)
        assert.deepEqual(same.dropped, [{ index: 0, uri: DOC, reason: 'link_to_attached' }])
        await until(() => {
          const rs = peer.reads.filter(x => x.uri === DOC).slice(readsBefore)
          return rs.length > 0 && rs.every(x => x.answeredAt !== undefined)
        }, 10000, () => `filterToolResult scheduled no confirming read; reads: ${readLog(peer, DOC)}`)
        await sleep(300)
        const log = await logOf(page)
        assert.deepEqual(log.map(e => [e.type, e.text]), [['updated', 'version 4']], 'one updated event in all')
        assert.deepEqual((await ctxOf(page)).map(a => [a.text, a.state]), [['version 4', 'fresh']])
        assert.deepEqual(page.problems, [])
      } finally {
        await page?.evaluate(() => window.h?.close()).catch(() => {})
        await page?.close()
        await peer.close()
      }
    })

  test('server-everything: gzip-file-as-resource rewriting an attached resource leaves its new bytes in the context',
    { timeout: 90000 }, async () => {
      const everything = path.join(root, 'e2e', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js')
      const dataURI = s => 'data:text/plain;base64,' + Buffer.from(s).toString('base64')
      const name = 'freshness-e2e.txt.gz'
      const uri = 'demo://resource/session/' + name
      const gw = await startMcphost(['-stdio', `node ${everything} stdio`])
      let page
      try {
        page = await openPage(gw.url)
        await connectAndRecord(page, '/mcp')
        const tool = await page.evaluate(() => window.h.tools().then(ts => ts.find(t => t.name === 'gzip-file-as-resource')))
        assert.ok(tool, 'server-everything has gzip-file-as-resource')
        assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), ['data', 'name', 'outputType'])
        const call = data => page.evaluate(args => window.h.callTool('gzip-file-as-resource', args),
          { name, data: dataURI(data), outputType: 'resourceLink' })

        // The first call creates the resource; nothing is attached, so the link is kept.
        const first = await call('first copy of the file\n')
        assert.deepEqual(first.dropped, [])
        assert.deepEqual(first.result.content.map(c => [c.type, c.uri]), [['resource_link', uri]])
        const parts = await page.evaluate(u => window.h.attach(u).then(ps => ps.map(p => ({ kind: p.kind, bytes: Array.from(p.bytes ?? []) }))), uri)
        assert.equal(parts.length, 1)
        assert.equal(parts[0].kind, 'binary')
        assert.equal(gunzipSync(Buffer.from(parts[0].bytes)).toString(), 'first copy of the file\n')

        // The second call replaces the resource's bytes (no resources/updated) and links to it.
        const second = await call('second, different copy\n')
        assert.deepEqual(second.dropped, [{ index: 0, uri, reason: 'link_to_attached' }])
        assert.deepEqual(second.result.content.filter(c => c.type !== 'text'), [], 'the link is dropped from the result')
        const ctx = await ctxOf(page)
        assert.equal(ctx.length, 1)
        assert.equal(ctx[0].state, 'fresh')
        assert.equal(gunzipSync(Buffer.from(ctx[0].bytes)).toString(), 'second, different copy\n',
          'when callTool resolves the context holds the new bytes')
        const up = await until(async () => (await logOf(page)).find(e => e.type === 'updated' && e.uri === uri), 5000,
          () => 'no updated event after the tool replaced the attached resource')
        assert.equal(up.state, 'fresh')

        // The same bytes again: link dropped, no further event.
        const third = await call('second, different copy\n')
        assert.deepEqual(third.dropped, [{ index: 0, uri, reason: 'link_to_attached' }])
        await sleep(300)
        const log = await logOf(page)
        assert.deepEqual(log.filter(e => e.uri === uri).map(e => e.type), ['updated'], JSON.stringify(log))
        assert.deepEqual(page.problems, [])
      } finally {
        await page?.evaluate(() => window.h?.close()).catch(() => {})
        await page?.close()
        await gw.stop()
      }
    })
})
