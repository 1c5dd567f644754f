// Connecting (issue 15 §1-2) in headless Chromium: a gateway whose stdio
// child takes 10 s to answer initialize is waited for (connectTimeoutMs, not
// timeoutMs, bounds the handshake), and refusals of the WebSocket upgrade
// reach the page as kind "refused" (401/403: never retryable, cause and fix
// in the message) or a retryable "unavailable" (503, Retry-After honoured).
// Browsers hide the HTTP answer to a refused upgrade behind a 1006 close;
// web/socket.js asks the endpoint for a diagnosis. Tested against a small
// fake endpoint (the contract, its fallbacks) and the real binary.
//
// Pages come from loopback http origins (Chromium keeps about:blank from
// ws://127.0.0.1): mcphost's own pages, or a static server of web/ on
// another port (a foreign origin).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { launchBrowser, root, startMcphost } from './harness.mjs'

const web = path.join(root, 'web')
const docs = path.join(root, 'cmd', 'mcphost', 'internal', 'sampledocs')
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' }

let browser, pages, pagesOrigin, fake, fakeWs, tmp
const srvs = []

// fakeMode says how the fake endpoint refuses: the upgrade's status and
// Retry-After, and what its diagnosis answers ('json', 'text', 'none': 404,
// 'ok': {code: 200}).
let fakeMode = { status: 403, diag: 'json' }
const fakeLog = []

function listen(server) {
  return new Promise(r => server.listen(0, '127.0.0.1', () => r(server.address().port)))
}

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'mcphost-connect-'))
  // The page origin: web/ as a static site, with the CSP docs/embedding.md
  // asks of a page on another origin (the diagnosis needs http: too).
  pages = createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname
    const file = path.join(web, p)
    if (!file.startsWith(web + path.sep)) return res.writeHead(403).end()
    let body
    try {
      body = readFileSync(file)
    } catch {
      return res.writeHead(404).end()
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' ws://127.0.0.1:* http://127.0.0.1:*",
    })
    res.end(body)
  })
  pagesOrigin = `http://127.0.0.1:${await listen(pages)}`

  // The fake endpoint: refuses every upgrade as fakeMode says and answers
  // the diagnosis per the contract (CORS for the requesting Origin).
  fake = createServer((req, res) => {
    const cors = { 'Access-Control-Allow-Origin': req.headers.origin ?? '*', 'Access-Control-Expose-Headers': 'Retry-After', Vary: 'Origin' }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'Access-Control-Allow-Methods': 'GET', 'Access-Control-Allow-Headers': 'authorization' })
      return res.end()
    }
    fakeLog.push({ method: req.method, accept: req.headers.accept, authorization: req.headers.authorization,
      cookie: req.headers.cookie, origin: req.headers.origin })
    const m = fakeMode
    if (m.diag === 'none') return res.writeHead(404, cors).end()
    if (m.diag === 'text') return res.writeHead(m.status, { ...cors, 'Content-Type': 'text/plain' }).end('forbidden\n')
    const code = m.diag === 'ok' ? 200 : m.status
    const body = { code, reason: m.reason ?? `fake refusal ${code}`, fix: m.fix ?? `fake fix ${code}` }
    res.writeHead(code, { ...cors, 'Content-Type': 'application/json', ...(m.retryAfter ? { 'Retry-After': String(m.retryAfter) } : {}) })
    res.end(JSON.stringify(body))
  })
  fake.on('upgrade', (req, socket) => {
    fakeLog.push({ method: 'UPGRADE', protocol: req.headers['sec-websocket-protocol'], at: Date.now() })
    const ra = fakeMode.retryAfter ? `Retry-After: ${fakeMode.retryAfter}\r\n` : ''
    socket.end(`HTTP/1.1 ${fakeMode.status} Refused\r\n${ra}Content-Type: text/plain\r\nContent-Length: 8\r\nConnection: close\r\n\r\nrefused\n`)
  })
  fakeWs = `ws://127.0.0.1:${await listen(fake)}/mcp`
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await Promise.all(srvs.map(s => s.stop()))
  pages?.close()
  fake?.close()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

async function start(args, opts) {
  const s = await startMcphost(args, opts)
  srvs.push(s)
  return s
}

/** Opens web/test/api.html from origin (the static site by default). */
async function openPage(origin = pagesOrigin + '/') {
  const page = await browser.context.newPage()
  await page.goto(origin + 'test/api.html')
  await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 })
  // Start the module (its first connect() downloads and compiles it): the
  // times measured below are connecting, not that. A URL the browser's
  // WebSocket refuses to parse rejects at once (kind invalid).
  const warm = await page.evaluate(() => window.mcphost.connect('ftp://127.0.0.1/mcp').then(() => 'connected', e => e.kind))
  assert.equal(warm, 'invalid', 'an unparsable URL is kind invalid, not retried')
  return page
}

/** connect(url, options) in the page: the error's fields and the time it took. */
function tryConnect(page, url, options = {}) {
  return page.evaluate(async ([url, options]) => {
    const t0 = performance.now()
    try {
      const h = await window.mcphost.connect(url, options)
      const r = { ok: true, ms: performance.now() - t0, resources: (await h.resources()).map(r => r.uri) }
      await h.close()
      return r
    } catch (e) {
      return { ok: false, ms: performance.now() - t0, ...window.errorFields(e) }
    }
  }, [url, options])
}

function assertRefused(r, code, ...words) {
  assert.equal(r.ok, false, 'connect() rejected')
  assert.equal(r.kind, 'refused', r.message)
  assert.equal(r.retryable, false)
  assert.equal(r.code, code)
  assert.ok(r.ms < 2000, `rejected after ${Math.round(r.ms)} ms, want < 2 s`)
  assert.equal(typeof r.data?.reason, 'string')
  assert.equal(typeof r.data?.fix, 'string')
  assert.ok(r.message.includes(r.data.reason) && r.message.includes(r.data.fix), `message names cause and fix: ${r.message}`)
  for (const w of words) assert.ok(r.message.includes(w), `message ${JSON.stringify(r.message)} names ${w}`)
}

describe('connect() against a fake endpoint (the diagnosis contract)', () => {
  test('403 and 401: kind refused at once, with the diagnosis; the token travels as Bearer, no credentials', async () => {
    const page = await openPage()
    try {
      fakeMode = { status: 403, diag: 'json', reason: `origin "${pagesOrigin}" is not allowed`, fix: `start mcphost with -origin ${pagesOrigin}` }
      fakeLog.length = 0
      const r = await tryConnect(page, fakeWs)
      assertRefused(r, 403, `-origin ${pagesOrigin}`)
      assert.equal(fakeLog.filter(e => e.method === 'UPGRADE').length, 1, 'one upgrade: a refusal is never retried')
      const diag = fakeLog.filter(e => e.method === 'GET')
      assert.equal(diag.length, 1)
      assert.match(diag[0].accept, /application\/json/)
      assert.equal(diag[0].authorization, undefined, 'no token, no Authorization')
      assert.equal(diag[0].origin, pagesOrigin)

      fakeMode = { status: 401, diag: 'json', reason: 'the token was refused', fix: 'pass connect(url, { token })' }
      fakeLog.length = 0
      const r2 = await tryConnect(page, fakeWs, { token: 'wrong-token' })
      assertRefused(r2, 401, 'the token was refused')
      assert.equal(fakeLog.find(e => e.method === 'GET')?.authorization, 'Bearer wrong-token')
      assert.equal(fakeLog.find(e => e.method === 'GET')?.cookie, undefined)
      assert.match(fakeLog.find(e => e.method === 'UPGRADE').protocol, /mcp\.token\.wrong-token/)
    } finally {
      await page.close()
    }
  })

  test('no usable diagnosis (404, text, code 200) keeps the old path: unavailable, retried within connectTimeoutMs', async () => {
    const page = await openPage()
    try {
      for (const diag of ['none', 'text', 'ok']) {
        fakeMode = { status: 403, diag }
        fakeLog.length = 0
        const r = await tryConnect(page, fakeWs, { connectTimeoutMs: 1000 })
        assert.equal(r.ok, false)
        assert.equal(r.kind, 'unavailable', `${diag}: ${r.message}`)
        assert.equal(r.retryable, true)
        assert.ok(fakeLog.filter(e => e.method === 'UPGRADE').length > 1, `${diag}: retried inside the window`)
        assert.ok(r.ms < 2000, `${diag}: gave up after ${Math.round(r.ms)} ms`)
      }
    } finally {
      await page.close()
    }
  })

  test('503: unavailable, retryable, code 503; the retry waits for Retry-After', async () => {
    const page = await openPage()
    try {
      fakeMode = { status: 503, diag: 'json', retryAfter: 1, reason: 'too many connections (max 1)', fix: 'wait, or raise -max-conns' }
      fakeLog.length = 0
      const r = await tryConnect(page, fakeWs, { connectTimeoutMs: 2500 })
      assert.equal(r.ok, false)
      assert.equal(r.kind, 'unavailable', r.message)
      assert.equal(r.retryable, true)
      assert.equal(r.code, 503)
      assert.equal(r.data.retryAfterMs, 1000)
      // Attempts at 0, 1 and 2 s (Retry-After, not the 100 ms backoff); a
      // fourth would not begin within 2.5 s.
      const ups = fakeLog.filter(e => e.method === 'UPGRADE').map(e => e.at)
      assert.equal(ups.length, 3, r.message)
      for (let i = 1; i < ups.length; i++) assert.ok(ups[i] - ups[i - 1] >= 950, `attempt ${i + 1} ${ups[i] - ups[i - 1]} ms after the one before`)
      assert.ok(r.ms >= 1000, `gave up after ${Math.round(r.ms)} ms`)
    } finally {
      await page.close()
    }
  })
})

describe('connect() against mcphost', () => {
  test('first use of the gateway: a stdio child that takes 10 s to answer initialize; connect() resolves, no reload', { timeout: 30000 }, async () => {
    const gw = await start(['-stdio', `${process.execPath} e2e/slow-start-stdio.mjs`])
    const page = await openPage(gw.url)
    try {
      // The defaults: timeoutMs 5000 bounds requests, connectTimeoutMs 30000
      // the handshake. (Each connection starts its own child.)
      const r = await page.evaluate(async () => {
        const t0 = performance.now()
        try {
          const h = await window.mcphost.connect('/mcp')
          const ms = performance.now() - t0
          const resources = (await h.resources()).map(r => r.uri)
          const text = (await h.attach('slow://start/hello.txt'))[0].text
          await h.close()
          return { ok: true, ms, resources, text }
        } catch (e) {
          return { ok: false, ms: performance.now() - t0, ...window.errorFields(e) }
        }
      })
      assert.equal(r.ok, true, r.message)
      console.log(`slow start: connect() resolved after ${Math.round(r.ms)} ms`)
      assert.ok(r.ms >= 9000, `the child answers after 10 s; connect() took ${Math.round(r.ms)} ms`)
      assert.deepEqual(r.resources, ['slow://start/hello.txt'])
      const text = r.text
      assert.equal(text, 'hello after a slow start')
    } finally {
      await page.close()
      await gw.stop()
    }
  })

  test('a foreign Origin, a missing token, a wrong token: kind refused within 2 s with cause and fix', async () => {
    const tokenFile = path.join(tmp, 'tokens')
    writeFileSync(tokenFile, 'good-token *\n')
    const plain = await start(['-docs', docs])
    const guarded = await start(['-docs', docs, '-token-file', tokenFile])
    const foreign = await openPage()
    const own = await openPage(guarded.url)
    try {
      const r = await tryConnect(foreign, plain.wsUrl)
      assertRefused(r, 403, `origin "${pagesOrigin}" is not allowed`, `-origin ${pagesOrigin}`)
      const missing = await tryConnect(own, '/mcp')
      assertRefused(missing, 401, 'requires a token')
      const wrong = await tryConnect(own, '/mcp', { token: 'bad-token' })
      assertRefused(wrong, 401, 'the token was refused')
      assert.notEqual(missing.data.reason, wrong.data.reason, 'a missing and a wrong token read differently')
      for (const [name, x] of [['foreign origin', r], ['missing token', missing], ['wrong token', wrong]]) {
        console.log(`${name}: rejected after ${Math.round(x.ms)} ms: ${x.message}`)
      }
      const good = await tryConnect(own, '/mcp', { token: 'good-token' })
      assert.equal(good.ok, true, good.message)
    } finally {
      await foreign.close()
      await own.close()
    }
  })

  test('a full cap: retryable (kind unavailable, 503); a page connects once a slot frees', async () => {
    const capped = await start(['-docs', docs, '-max-conns', '1'])
    const holder = await openPage(capped.url)
    const waiter = await openPage(capped.url)
    try {
      await holder.evaluate(async () => { window.h = await window.mcphost.connect('/mcp') })
      const r = await tryConnect(waiter, '/mcp', { connectTimeoutMs: 1500 })
      assert.equal(r.ok, false)
      assert.equal(r.kind, 'unavailable', r.message)
      assert.equal(r.retryable, true)
      assert.equal(r.code, 503)
      assert.ok(r.data.retryAfterMs > 0, 'the cap says when to come back')
      assert.ok(r.ms < 2000, `a Retry-After past the window fails at once (${Math.round(r.ms)} ms)`)
      // A page following retryable connects again; the slot frees meanwhile.
      const pending = tryConnect(waiter, '/mcp')
      await new Promise(r => setTimeout(r, 300))
      await holder.evaluate(() => window.h.close())
      const again = await pending
      console.log(`cap: the first connect() rejected after ${Math.round(r.ms)} ms; the retry connected after ${Math.round(again.ms)} ms (Retry-After ${r.data.retryAfterMs} ms)`)
      assert.equal(again.ok, true, again.message)
      assert.ok(again.ms >= r.data.retryAfterMs - 500, `the retry waited for Retry-After (${Math.round(again.ms)} ms)`)
    } finally {
      await holder.close()
      await waiter.close()
    }
  })
})
