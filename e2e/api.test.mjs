// The JavaScript API (web/mcphost.js + mcphost.wasm) in headless Debian
// Chromium against the real mcphost documents server on loopback. The test
// page (web/test/api.html) is served by mcphost itself, so it runs under the
// product's Content-Security-Policy, and imports the module unbundled. The
// documents are a temporary copy of cmd/mcphost/internal/sampledocs that
// tests edit to see updated, gone and listchanged. Every API method and event
// is exercised.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { launchBrowser, root, startMcphost } from './harness.mjs'
import { startScriptedPeer } from './scripted-peer.mjs'

const POLICY = 'docs://team/{team}/policy/{name}'
const WELCOME = 'docs://team/platform/onboarding/welcome.md'
const PNG = 'docs://team/platform/architecture/system-overview.png'

let docs, srv, browser

before(async () => {
  docs = mkdtempSync(path.join(tmpdir(), 'mcphost-api-docs-'))
  cpSync(path.join(root, 'cmd', 'mcphost', 'internal', 'sampledocs'), docs, { recursive: true })
  // A title with characters outside the BMP before the match: highlight
  // ranges must be UTF-16 offsets to slice it right.
  writeFileSync(path.join(docs, 'platform', 'onboarding', 'unicode-guide.md'),
    '# 😀 Ünïcode façade onboarding\n\nA guide whose title is not ASCII.\n')
  srv = await startMcphost(['-docs', docs])
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await srv?.stop()
  if (docs) rmSync(docs, { recursive: true, force: true })
})

async function openPage(server = srv) {
  const page = await browser.context.newPage()
  const problems = []
  page.on('pageerror', e => problems.push(String(e)))
  page.on('console', m => {
    if (m.type() === 'error' && !/favicon/.test(m.location()?.url ?? '')) problems.push(m.text())
  })
  await page.goto(server.url + 'test/api.html')
  await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 })
  page.problems = problems
  return page
}

describe('mcphost.js in Chromium', () => {
  test('preload() fetches and starts the runtime once, ahead of connect(); a failed one is tried again', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async () => {
        const wasmFetches = () => performance.getEntriesByType('resource').filter(e => new URL(e.name).pathname.endsWith('.wasm')).map(e => new URL(e.name).pathname)
        const untouched = wasmFetches()
        const bad = await window.mcphost.preload({ wasmUrl: '/test/missing.wasm' }).then(() => 'resolved', e => window.errorFields(e))
        const both = await Promise.all([window.mcphost.preload(), window.mcphost.preload()])
        const preloaded = wasmFetches()
        const h = await window.mcphost.connect('/mcp')
        const n = (await h.resources()).length
        await h.close()
        return { untouched, bad, both, preloaded, connected: wasmFetches(), n }
      })
      assert.deepEqual(r.untouched, [], 'nothing is fetched before preload() or connect()')
      assert.equal(r.bad.isMCPError, true)
      assert.equal(r.bad.kind, 'unavailable')
      assert.match(r.bad.message, /missing\.wasm: 404/)
      assert.deepEqual(r.both, [undefined, undefined])
      assert.deepEqual(r.preloaded, ['/test/missing.wasm', '/mcphost.wasm'], 'the module fetched once for both calls')
      assert.deepEqual(r.connected, r.preloaded, 'connect() used the preloaded runtime')
      assert.ok(r.n > 0)
      assert.deepEqual(page.problems.filter(p => !/status of 404/.test(p)), [])
    } finally {
      await page.close()
    }
  })

  test('loads unbundled under the product CSP and leaves no process, fs, path or Go globals', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async () => {
        const h = await window.mcphost.connect('/mcp')
        const after = ['process', 'fs', 'path', 'Go'].filter(n => n in globalThis)
        const types = [typeof process, typeof fs, typeof path, typeof Go] // eslint-disable-line no-undef
        const r = { before: window.globalsBefore, after, types, exports: Object.keys(window.mcphost).sort(),
          internal: '__mcphost_go' in globalThis }
        await h.close()
        return r
      })
      assert.deepEqual(r.before, [])
      assert.deepEqual(r.after, [], 'wasm_exec.js globals left behind')
      assert.deepEqual(r.types, ['undefined', 'undefined', 'undefined', 'undefined'])
      assert.equal(r.internal, false, 'the Go side object stays private to the module')
      assert.deepEqual(r.exports, ['MCPError', 'connect', 'displayText', 'escapeAttribute', 'escapeDocumentText', 'hasHiddenText', 'marker', 'preload', 'wrapDocument'])
      const csp = (await page.request.get(srv.url + 'test/api.html')).headers()['content-security-policy']
      assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/)
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })

  test('connect, initialize result, listing with listprogress, resources, templates, tools', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async () => {
        const h = await window.mcphost.connect('/mcp', { clientInfo: { name: 'api-test', version: '1' } })
        const log = window.events(h)
        const resources = await h.resources()
        const templates = await h.templates()
        const tools = await h.tools()
        // The listing started in connect(); its events were held until the
        // caller could listen, so the final listprogress is in the log.
        await new Promise(r => setTimeout(r, 50))
        const progress = log.filter(e => e.type === 'listprogress')
        const out = {
          protocolVersion: h.protocolVersion, serverInfo: h.serverInfo, capabilities: h.capabilities,
          instructions: typeof h.instructions, url: h.url, isEventTarget: h instanceof EventTarget,
          resources, templates, tools: tools.map(t => t.name), progress,
        }
        await h.close()
        return out
      })
      assert.equal(r.protocolVersion, '2026-07-28', 'protocol "auto" speaks the current revision to the documents server')
      assert.equal(r.serverInfo.name, 'mcphost-docs')
      assert.equal(r.capabilities.resources.subscribe, true)
      assert.equal(r.instructions, 'string')
      assert.match(r.url, /^ws:\/\/127\.0\.0\.1:\d+\/mcp$/)
      assert.equal(r.isEventTarget, true)
      const uris = r.resources.map(x => x.uri)
      assert.ok(uris.includes(WELCOME) && uris.includes(PNG), 'known documents listed')
      assert.equal(new Set(uris).size, uris.length, 'no duplicates across pages')
      const welcome = r.resources.find(x => x.uri === WELCOME)
      assert.equal(welcome.mimeType, 'text/markdown')
      assert.equal(typeof welcome.name, 'string')
      assert.deepEqual(r.templates.map(t => t.uriTemplate), [POLICY])
      assert.ok(r.tools.includes('search_documents'))
      assert.ok(!r.tools.includes('fetch_document'), 'fetch_document is for resource-blind clients only')
      const last = r.progress.at(-1)
      assert.ok(last && last.isCustom, 'listprogress arrives as a CustomEvent')
      assert.deepEqual(Object.keys(last.detail).sort(), ['done', 'errors', 'resources', 'templates', 'truncated'])
      assert.equal(last.detail.done, true)
      assert.equal(last.detail.truncated, false)
      assert.equal(last.detail.resources, r.resources.length)
      assert.equal(last.detail.templates, 1)
    } finally {
      await page.close()
    }
  })

  test('mention ranks matches with UTF-16 highlight ranges; expand, templateVars, complete', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async () => {
        const h = await window.mcphost.connect('/mcp')
        await h.resources()
        const ms = h.mention('façade', { limit: 5 })
        const top = ms[0]
        const title = top.resource.title
        const sliced = (top.highlights.title ?? []).map(([s, e]) => title.slice(s, e)).join('')
        const limited = h.mention('', { limit: 3 }).length
        const tmpl = h.mention('policy').find(m => m.template)
        const expanded = h.expand('docs://team/{team}/policy/{name}', { team: 'platform', name: '../../secrets?x' })
        let refused
        try {
          h.expand('docs://team/{team}/policy/{name}', { team: 'platform', name: '..' })
        } catch (e) {
          refused = window.errorFields(e)
        }
        const vars = h.templateVars('docs://team/{team}/policy/{name}')
        const completion = await h.complete('docs://team/{team}/policy/{name}', 'team', 'pla')
        const names = await h.complete('docs://team/{team}/policy/{name}', 'name', '', { team: 'platform' })
        await h.close()
        return { top, sliced, limited, tmpl, expanded, refused, vars, completion, names }
      })
      assert.equal(r.top.resource.uri, 'docs://team/platform/onboarding/unicode-guide.md')
      assert.ok(r.top.score > 0)
      assert.equal(r.sliced.toLowerCase(), 'façade', 'ranges slice the non-BMP title exactly')
      assert.equal(r.limited, 3)
      assert.equal(r.tmpl.template.uriTemplate, POLICY)
      assert.equal(r.expanded, 'docs://team/platform/policy/..%2F..%2Fsecrets%3Fx')
      assert.equal(r.refused.isMCPError, true)
      assert.equal(r.refused.kind, 'invalid')
      assert.equal(r.refused.data.var, 'name')
      assert.deepEqual(r.vars, ['team', 'name'])
      assert.ok(r.completion.values.includes('platform'), JSON.stringify(r.completion))
      assert.ok(r.names.values.includes('access-control.md') || r.names.values.some(v => v.startsWith('access-control')),
        JSON.stringify(r.names))
    } finally {
      await page.close()
    }
  })

  test('attach, attachments, detach: Markdown text and html, state and forModel', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async uri => {
        const h = await window.mcphost.connect('/mcp')
        const parts = await h.attach(uri)
        const ctx = h.attachments()
        const detached = h.detach(uri)
        const again = h.detach(uri)
        const empty = h.attachments()
        await h.close()
        return { parts, ctx, detached, again, empty }
      }, WELCOME)
      assert.equal(r.parts.length, 1)
      const p = r.parts[0]
      assert.equal(p.uri, WELCOME)
      assert.equal(p.part, 0)
      assert.equal(p.kind, 'text')
      assert.equal(p.mimeType, 'text/markdown')
      assert.equal(p.text, readFileSync(path.join(docs, 'platform', 'onboarding', 'welcome.md'), 'utf8'))
      assert.match(p.html, /<h1[^>]*>/)
      assert.equal(p.state, 'fresh')
      assert.equal(p.forModel, true)
      assert.equal(p.forwardAsImage, false)
      assert.ok(p.tokens > 0 && p.size > 0 && p.wireSize > 0)
      assert.ok(Array.isArray(p.warnings))
      assert.equal(p.bytes, undefined)
      assert.equal(p.error, undefined)
      assert.deepEqual(r.ctx.map(a => a.uri), [WELCOME])
      assert.equal(r.detached, true)
      assert.equal(r.again, false)
      assert.deepEqual(r.empty, [])
    } finally {
      await page.close()
    }
  })

  test('PNG bytes arrive intact as a Uint8Array', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async uri => {
        const h = await window.mcphost.connect('/mcp')
        const [p] = await h.attach(uri)
        const isU8 = p.bytes instanceof Uint8Array
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', p.bytes))
        const hex = [...digest].map(b => b.toString(16).padStart(2, '0')).join('')
        const again = h.attachments()[0].bytes
        const out = { isU8, hex, length: p.bytes.length, kind: p.kind, mimeType: p.mimeType, sniffed: p.sniffedMimeType,
          forwardAsImage: p.forwardAsImage, hasText: 'text' in p, separateCopy: again !== p.bytes && again.length === p.bytes.length }
        await h.close()
        return out
      }, PNG)
      const file = readFileSync(path.join(docs, 'platform', 'architecture', 'system-overview.png'))
      assert.equal(r.isU8, true)
      assert.equal(r.length, file.length)
      assert.equal(r.hex, createHash('sha256').update(file).digest('hex'))
      assert.equal(r.kind, 'binary')
      assert.equal(r.mimeType, 'image/png')
      assert.equal(r.sniffed, 'image/png')
      assert.equal(r.forwardAsImage, true)
      assert.equal(r.hasText, false, 'text is absent for a binary part')
      assert.equal(r.separateCopy, true)
    } finally {
      await page.close()
    }
  })

  test('a not-found URI rejects with an MCPError carrying code, kind, uri, method, retryable', async () => {
    const page = await openPage()
    try {
      const missing = 'docs://team/platform/onboarding/no-such-document.md'
      const r = await page.evaluate(async uri => {
        const h = await window.mcphost.connect('/mcp')
        let err
        try {
          await h.attach(uri)
        } catch (e) {
          err = window.errorFields(e)
        }
        const ctx = h.attachments().length
        await h.close()
        return { err, ctx }
      }, missing)
      assert.ok(r.err, 'attach rejected')
      assert.equal(r.err.isError, true)
      assert.equal(r.err.isMCPError, true)
      assert.equal(r.err.name, 'MCPError')
      assert.equal(r.err.kind, 'not_found')
      assert.ok(r.err.code === -32002 || r.err.code === -32602, `code ${r.err.code}`)
      assert.equal(r.err.uri, missing)
      assert.equal(r.err.method, 'resources/read')
      assert.equal(r.err.retryable, false)
      assert.ok(r.err.data === undefined || typeof r.err.data === 'object', 'data is parsed JSON')
      assert.match(r.err.message, /no-such-document/)
      assert.equal(r.ctx, 0, 'nothing recorded')
    } finally {
      await page.close()
    }
  })

  test('updated after a file change, gone after deletion, listchanged after a new file', async () => {
    const file = path.join(docs, 'payments', 'runbook', 'refund-backlog.md')
    const uri = 'docs://team/payments/runbook/refund-backlog.md'
    const original = readFileSync(file, 'utf8')
    const page = await openPage()
    try {
      await page.evaluate(async uri => {
        window.h = await window.mcphost.connect('/mcp')
        window.log = window.events(window.h)
        await window.h.attach(uri)
        window.updated = window.nextEvent(window.h, 'updated', d => d.uri === uri)
      }, uri)
      writeFileSync(file, original + '\n## Added by the API test\n\nFresh paragraph.\n')
      const up = await page.evaluate(() => window.updated)
      assert.equal(up.uri, uri)
      assert.equal(up.parts.length, 1)
      assert.match(up.parts[0].text, /Fresh paragraph/)
      assert.match(up.parts[0].html, /Added by the API test/)
      assert.equal(up.parts[0].state, 'fresh')
      const ctxText = await page.evaluate(() => window.h.attachments()[0].text)
      assert.match(ctxText, /Fresh paragraph/, 'the context holds the new copy')

      // refresh re-reads every attachment before a turn.
      const refreshed = await page.evaluate(async () => {
        await window.h.refresh()
        return window.h.attachments().map(a => a.state)
      })
      assert.deepEqual(refreshed, ['fresh'])

      // A new document: list_changed re-lists into the picker index.
      await page.evaluate(() => {
        window.changed = window.nextEvent(window.h, 'listchanged')
      })
      writeFileSync(path.join(docs, 'payments', 'runbook', 'zebra-crossing.md'), '# Zebra crossing drill\n\nNew.\n')
      const detail = await page.evaluate(() => window.changed)
      assert.deepEqual(detail, {})
      const found = await page.evaluate(() => window.h.mention('zebra crossing').map(m => m.resource?.uri))
      assert.ok(found.includes('docs://team/payments/runbook/zebra-crossing.md'), JSON.stringify(found))

      // Deletion: the documents server announces it with list_changed (not
      // resources/updated), so the re-read that finds it gone is refresh()'s:
      // gone, last copy kept and marked, no longer for the model.
      await page.evaluate(uri => {
        window.changed = window.nextEvent(window.h, 'listchanged')
        window.gone = window.nextEvent(window.h, 'gone', d => d.uri === uri)
      }, uri)
      unlinkSync(file)
      await page.evaluate(() => window.changed)
      await page.evaluate(() => window.h.refresh())
      const gone = await page.evaluate(() => window.gone)
      assert.deepEqual(gone, { uri })
      const kept = await page.evaluate(() => window.h.attachments())
      assert.equal(kept.length, 1)
      assert.equal(kept[0].state, 'gone')
      assert.equal(kept[0].forModel, false)
      assert.match(kept[0].text, /Fresh paragraph/)
      const picker = await page.evaluate(uri => window.h.mention('refund backlog').some(m => m.resource?.uri === uri), uri)
      assert.equal(picker, false, 'a gone document leaves the picker')
      await page.evaluate(() => window.h.close())
    } finally {
      writeFileSync(file, original)
      rmSync(path.join(docs, 'payments', 'runbook', 'zebra-crossing.md'), { force: true })
      await page.close()
    }
  })

  test('callTool, filterToolResult, superseded, figures; resource-blind fetch_document drops the duplicate', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async uri => {
        const h = await window.mcphost.connect('/mcp', { clientInfo: { name: 'resource-blind-demo', version: '1' } })
        const log = window.events(h)
        const tools = (await h.tools()).map(t => t.name)
        const [att] = await h.attach(uri)
        const search = await h.callTool('search_documents', { query: 'welcome platform' })
        const fetched = await h.callTool('fetch_document', { uri })
        // A result obtained elsewhere carrying a different copy of the
        // attached document supersedes it (events may fire before the call returns).
        const supersededEvent = window.nextEvent(h, 'superseded', d => d.uri === uri)
        const other = h.filterToolResult({ content: [
          { type: 'text', text: 'see below' },
          { type: 'resource', resource: { uri, mimeType: 'text/markdown', text: att.text + '\nchanged elsewhere' } },
        ] })
        const superseded = await supersededEvent
        const state = h.attachments()[0]
        let invalid
        try {
          h.filterToolResult('not a result')
        } catch (e) {
          invalid = window.errorFields(e)
        }
        const figures = h.figures()
        await h.close()
        return { tools, search, fetched, other, superseded, state: { state: state.state, forModel: state.forModel },
          invalid, figures, logged: log.filter(e => e.type === 'superseded').length }
      }, WELCOME)
      assert.ok(r.tools.includes('fetch_document'), 'a resource-blind client gets fetch_document')
      assert.ok(Array.isArray(r.search.result.content))
      assert.ok(Array.isArray(r.search.dropped) && Array.isArray(r.search.superseded))
      // The fetched copy equals the attached one: dropped as a duplicate.
      assert.equal(r.fetched.dropped.length, 1, JSON.stringify(r.fetched))
      assert.equal(r.fetched.dropped[0].uri, WELCOME)
      assert.equal(typeof r.fetched.dropped[0].index, 'number')
      assert.equal(typeof r.fetched.dropped[0].reason, 'string')
      assert.ok(!JSON.stringify(r.fetched.result).includes('"type":"resource"'), 'the duplicate block is gone')
      assert.deepEqual(r.other.dropped, [])
      assert.deepEqual(r.other.superseded, [WELCOME])
      assert.equal(r.other.result.content.length, 2, 'a newer copy is kept')
      assert.deepEqual(r.superseded, { uri: WELCOME })
      assert.deepEqual(r.state, { state: 'superseded', forModel: false })
      assert.equal(r.invalid.kind, 'invalid')
      assert.equal(r.figures.reads >= 1, true)
      assert.equal(r.figures.duplicatesDropped, 1)
      assert.ok(r.figures.ratios && typeof r.figures.ratios.readReach === 'number')
    } finally {
      await page.close()
    }
  })

  test('two hosts in one page share the runtime and keep separate contexts', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async ([a, b]) => {
        const [h1, h2] = await Promise.all([window.mcphost.connect('/mcp'), window.mcphost.connect('/mcp')])
        await Promise.all([h1.attach(a), h2.attach(b)])
        const c1 = h1.attachments().map(x => x.uri)
        const c2 = h2.attachments().map(x => x.uri)
        await h1.close()
        let closedErr
        try {
          await h1.attach(a)
        } catch (e) {
          closedErr = window.errorFields(e)
        }
        const still = (await h2.attach(a)).length
        const c2b = h2.attachments().map(x => x.uri)
        await h2.close()
        return { c1, c2, closedErr, still, c2b }
      }, [WELCOME, PNG])
      assert.deepEqual(r.c1, [WELCOME])
      assert.deepEqual(r.c2, [PNG])
      assert.equal(r.closedErr.kind, 'unavailable')
      assert.equal(r.still, 1, 'closing one host leaves the other working')
      assert.deepEqual(r.c2b, [PNG, WELCOME])
    } finally {
      await page.close()
    }
  })

  test('an aborted attach rejects with kind cancelled (AbortError) and records nothing; timeoutMs gives timeout', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async uri => {
        const h = await window.mcphost.connect('/mcp')
        const ac = new AbortController()
        const p = h.attach(uri, { signal: ac.signal })
        ac.abort()
        let inFlight
        try {
          await p
        } catch (e) {
          inFlight = window.errorFields(e)
        }
        let pre
        try {
          await h.attach(uri, { signal: AbortSignal.abort() })
        } catch (e) {
          pre = window.errorFields(e)
        }
        let timeout
        try {
          await h.attach(uri, { timeoutMs: 0.001 })
        } catch (e) {
          timeout = window.errorFields(e)
        }
        const ctx = h.attachments().length
        const ok = (await h.attach(uri)).length // the host is still usable
        await h.close()
        return { inFlight, pre, timeout, ctx, ok }
      }, PNG)
      for (const e of [r.inFlight, r.pre]) {
        assert.equal(e.isMCPError, true)
        assert.equal(e.kind, 'cancelled')
        assert.equal(e.name, 'AbortError')
        assert.equal(e.retryable, false)
      }
      assert.equal(r.timeout.kind, 'timeout')
      assert.equal(r.timeout.retryable, true)
      assert.equal(r.ctx, 0, 'a cancelled attach records nothing')
      assert.equal(r.ok, 1)
    } finally {
      await page.close()
    }
  })

  test('refresh past refreshDeadlineMs marks attachments stale, keeps the copy and still forwards it', async () => {
    // A peer that answers each read 400 ms after it came, and a 50 ms
    // deadline: the refresh's read cannot be in time, so refresh cancels it
    // on the wire and marks the attachment stale. (A 1 ms deadline against
    // the documents server was met at times: a loopback read can take less.)
    const doc = 'doc://slow/a.md'
    const peer = await startScriptedPeer({ docs: { [doc]: 1 }, readMs: 400, pagesFrom: srv.url })
    const page = await openPage({ url: peer.httpUrl })
    try {
      const r = await page.evaluate(async ({ url, uri }) => {
        const h = await window.mcphost.connect(url, { refreshDeadlineMs: 50 })
        const [before] = await h.attach(uri)
        const stale = window.nextEvent(h, 'stale', d => d.uri === uri)
        const t = performance.now()
        await h.refresh()
        const ms = performance.now() - t
        const detail = await stale
        const [after] = h.attachments()
        await h.close()
        return { detail, ms, state: after.state, forModel: after.forModel, same: after.text === before.text, text: before.text }
      }, { url: peer.url, uri: doc })
      assert.deepEqual(Object.keys(r.detail).sort(), ['reason', 'uri'])
      assert.match(r.detail.reason, /refresh/)
      assert.equal(r.state, 'stale')
      assert.equal(r.forModel, true, 'stale parts still go to the model (with a warning)')
      assert.equal(r.same, true, 'the old copy is kept')
      assert.match(r.text, /version 1/)
      assert.ok(r.ms < 400, `refresh returned at its deadline, not with the answer (${r.ms.toFixed(0)} ms)`)
    } finally {
      await page.close()
      await peer.close()
    }
  })

  test('an invalid token is refused before anything is sent', async () => {
    const page = await openPage()
    try {
      const err = await page.evaluate(async () => {
        try {
          await window.mcphost.connect('/mcp', { token: 'has space' })
        } catch (e) {
          return window.errorFields(e)
        }
      })
      assert.equal(err.kind, 'invalid')
      assert.match(err.message, /A-Za-z0-9/)
    } finally {
      await page.close()
    }
  })
})

describe('runtime exit', () => {
  test('if the Go runtime dies, pending and later calls reject with kind protocol and disconnected fires', async () => {
    // A stand-in module (wasm/internal/crashtest) that answers connect, never
    // answers attach and then panics: the runtime exits for real.
    const dir = mkdtempSync(path.join(tmpdir(), 'mcphost-crash-'))
    const wasm = path.join(dir, 'crash.wasm')
    execFileSync('go', ['build', '-o', wasm, './wasm/internal/crashtest'], {
      cwd: root, env: { ...process.env, GOOS: 'js', GOARCH: 'wasm' }, stdio: 'pipe',
    })
    const page = await openPage()
    const consoleText = []
    page.on('console', m => consoleText.push(m.text()))
    try {
      await page.route('**/crash.wasm', route =>
        route.fulfill({ body: readFileSync(wasm), contentType: 'application/wasm' }))
      const r = await page.evaluate(async () => {
        const h = await window.mcphost.connect('/mcp', { wasmUrl: '/test/crash.wasm' })
        const disc = window.nextEvent(h, 'disconnected')
        const pending = h.attach('docs://never/answered').then(() => null, e => window.errorFields(e))
        const detail = await disc
        const pendingErr = await pending
        let syncErr
        try {
          h.attachments()
        } catch (e) {
          syncErr = window.errorFields(e)
        }
        const laterErr = await window.mcphost.connect('/mcp').then(() => null, e => window.errorFields(e))
        const globals = ['process', 'fs', 'path', 'Go'].filter(n => n in globalThis)
        return { detail, pendingErr, syncErr, laterErr, globals, name: h.serverInfo.name }
      })
      assert.equal(r.name, 'crashtest')
      assert.match(r.detail.reason, /exited/)
      for (const e of [r.pendingErr, r.syncErr, r.laterErr]) {
        assert.ok(e, 'rejected')
        assert.equal(e.isMCPError, true)
        assert.equal(e.kind, 'protocol')
      }
      assert.deepEqual(r.globals, [], 'no globals, even after the runtime printed its crash')
      assert.ok(consoleText.some(t => t.includes('deliberate crash')),
        'the runtime could still print its panic (fs shim restored for the write)')
    } finally {
      await page.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('reconnect', () => {
  test('after the server restarts on the same port: disconnected, pending calls fail, reconnected, context kept', async () => {
    let s = await startMcphost(['-docs', docs])
    const port = new URL(s.url).port
    const page = await openPage(s)
    try {
      await page.evaluate(async uri => {
        window.h = await window.mcphost.connect('/mcp')
        window.log = window.events(window.h)
        await window.h.attach(uri)
        window.disc = window.nextEvent(window.h, 'disconnected')
      }, WELCOME)
      await s.stop()
      const disc = await page.evaluate(() => window.disc)
      assert.equal(typeof disc.reason, 'string')
      const during = await page.evaluate(async uri => {
        window.rec = window.nextEvent(window.h, 'reconnected', () => true, 30000)
        try {
          await window.h.attach(uri)
          return null
        } catch (e) {
          return window.errorFields(e)
        }
      }, PNG)
      assert.equal(during.kind, 'unavailable')
      assert.equal(during.retryable, true)
      s = await startMcphostOnPort(port)
      const rec = await page.evaluate(() => window.rec)
      assert.deepEqual(rec, {})
      const r = await page.evaluate(async uri => {
        const ctx = window.h.attachments().map(a => [a.uri, a.state])
        const again = (await window.h.attach(uri)).length
        const types = window.log.map(e => e.type).filter(t => t === 'disconnected' || t === 'reconnected')
        await window.h.close()
        return { ctx, again, types }
      }, PNG)
      assert.deepEqual(r.ctx, [[WELCOME, 'fresh']], 'nothing in the context is lost')
      assert.equal(r.again, 1)
      assert.deepEqual(r.types, ['disconnected', 'reconnected'])
    } finally {
      await page.close()
      await s.stop()
    }
  })
})

// startMcphostOnPort restarts mcphost on a port it had (harness passes
// -addr 127.0.0.1:0 first; a later -addr wins with Go's flag package).
async function startMcphostOnPort(port) {
  const deadline = Date.now() + 10000
  for (;;) {
    try {
      return await startMcphost(['-addr', `127.0.0.1:${port}`, '-docs', docs])
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise(r => setTimeout(r, 200)) // the port may linger briefly
    }
  }
}
