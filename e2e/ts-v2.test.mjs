// A TypeScript SDK v2 server (@modelcontextprotocol/server 2.x, its default
// handler createMcpHandler, served with toNodeHandler: e2e/ts-v2-server.mjs)
// behind `mcphost -upstream`, driven from headless Chromium through the
// JavaScript API: the page speaks 2026-07-28 to the binary's /mcp, the
// gateway relays each request as its own POST with the revision's headers,
// and a listen's SSE stream comes back — so attachments update live in the
// browser (with a 2025-11-25 client such a server never sends an update:
// see e2e/ts-v2-wire.test.mjs). Detaching closes the listen's stream.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { launchBrowser, startMcphost } from './harness.mjs'
import { startTsV2Server } from './ts-v2-server.mjs'

const A = 'file:///docs/a.txt'
const B = 'file:///docs/b.txt'
const sleep = ms => new Promise(r => setTimeout(r, ms))

let browser
before(async () => { browser = await launchBrowser() })
after(async () => { await browser?.close() })

async function until (fn, ms, what) {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms: ${what()}`)
    await sleep(25)
  }
}

describe('TypeScript SDK v2 server behind -upstream, in Chromium', () => {
  test('attachments update live in the browser; detach closes the listen\'s stream', { timeout: 90000 }, async () => {
    const ts = await startTsV2Server({ docs: { [A]: 1, [B]: 1 } })
    const gw = await startMcphost(['-upstream', ts.url])
    let page
    const report = () => `\n--- TS server exchanges ---\n${ts.summary()}\n--- TS errors ---\n${ts.errors.join('\n')}` +
      `\n--- mcphost log ---\n${gw.logs.join('')}`
    try {
      page = await browser.context.newPage()
      const problems = []
      page.on('pageerror', e => problems.push(String(e)))
      await page.goto(gw.url + 'test/api.html')
      await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 })

      const info = await page.evaluate(async () => {
        window.h = await window.mcphost.connect('/mcp')
        window.log = []
        for (const type of ['updated', 'stale', 'gone', 'disconnected', 'reconnected']) {
          window.h.addEventListener(type, e => window.log.push({ type, uri: e.detail?.uri, text: e.detail?.parts?.[0]?.text }))
        }
        return { protocolVersion: window.h.protocolVersion, serverInfo: window.h.serverInfo }
      })
      assert.equal(info.protocolVersion, '2026-07-28', report())
      assert.equal(info.serverInfo.name, 'ts-v2-fixture')

      const uris = await page.evaluate(() => window.h.resources().then(rs => rs.map(r => r.uri).sort()))
      assert.deepEqual(uris, [A, B])

      const parts = await page.evaluate(uri => window.h.attach(uri).then(ps => ps.map(p => [p.text, p.state])), A)
      assert.deepEqual(parts, [['version 1', 'fresh']])
      const listenOf = uri => ts.calls('subscriptions/listen')
        .filter(e => e.body.params?.notifications?.resourceSubscriptions?.includes(uri))
      await until(() => listenOf(A).some(e => e.open && /notifications\/subscriptions\/acknowledged/.test(e.response)), 5000,
        () => `no acknowledged listen for ${A} is open${report()}`)

      // The acceptance: a change on the TS server arrives in the page.
      await page.evaluate(uri => {
        window.up = window.nextEvent(window.h, 'updated', d => d.uri === uri, 15000)
          .then(d => d.parts.map(p => [p.text, p.state]), e => String(e))
      }, A)
      ts.setVersion(A, 2, { notify: true })
      assert.deepEqual(await page.evaluate(() => window.up), [['version 2', 'fresh']], report())
      assert.match(listenOf(A).at(-1).response, /notifications\/resources\/updated/, 'the update went out on the listen')

      // Every POST carried the revision's headers; no session, no GET stream.
      for (const e of ts.exchanges) {
        assert.equal(e.method, 'POST', `only POSTs: ${e.method} ${e.path}`)
        assert.equal(e.headers['mcp-session-id'], undefined)
        if (e.body?.id === undefined) continue // notifications
        assert.equal(e.headers['mcp-protocol-version'], '2026-07-28', `${e.body.method}: MCP-Protocol-Version`)
        assert.equal(e.headers['mcp-method'], e.body.method, `${e.body.method}: Mcp-Method`)
        if (e.body.method === 'resources/read') assert.equal(e.headers['mcp-name'], e.body.params.uri, 'Mcp-Name of a read')
        assert.ok(e.status === 200, `${e.body.method} answered ${e.status}: ${e.response.slice(0, 200)}`)
      }
      assert.equal(ts.calls('initialize').length, 0, 'no initialize crossed the gateway')

      // Detach: the gateway closes that listen's SSE stream.
      assert.equal(await page.evaluate(uri => window.h.detach(uri), A), true)
      await until(() => listenOf(A).every(e => !e.open), 5000, () => `the listen for ${A} is still open after detach${report()}`)
      assert.deepEqual(await page.evaluate(() => window.log), [{ type: 'updated', uri: A, text: 'version 2' }])
      assert.deepEqual(problems, [])
      assert.deepEqual(ts.errors, [])
    } finally {
      await page?.evaluate(() => window.h?.close()).catch(() => {})
      await page?.close()
      await gw.stop()
      await ts.close()
    }
  })
})
