// mcphost behind a real reverse proxy (issue 15 §5): Debian's nginx, run
// unprivileged from a temporary prefix (e2e/nginx-proxy.mjs) on the site
// configuration the docs ship, docs/deploy/nginx.conf, with only its listen
// ports, names, certificate, upstream addresses and proxy_read_timeout (5 s)
// replaced. Behind it, one upstream of two mcphost documents-server
// instances over the same -docs folder (round robin). TLS ends at nginx with
// a throwaway certificate for chat.test; the instances speak plain http.
//
// Chromium maps chat.test to 127.0.0.1 (--host-resolver-rules), so the page
// is served through nginx at https://chat.test:PORT/ — a non-loopback name —
// and its WebSockets go back through nginx to whichever instance round robin
// picks. The test checks that:
// - the Origin and Host checks hold through the proxy (a foreign Origin and
//   a rebinding Host are refused; the same-origin page connects);
// - connections spread over both instances (each instance's established
//   sockets, read from /proc/net/tcp, are the per-instance marker);
// - a quiet connection outlives proxy_read_timeout three times over (mcphost
//   pings), while a silent upstream behind the same timeout is cut at 5 s;
// - killing one instance mid-session moves its pages, through nginx, to the
//   other: disconnected, reconnected, the attachment still there and fresh,
//   and later changes still arrive.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import tls from 'node:tls'
import { launchBrowser, root, startMcphost } from './harness.mjs'
import { establishedTo, freePort, siteConfig, startNginx } from './nginx-proxy.mjs'

const NAME = 'chat.test'
const WELCOME = 'docs://team/platform/onboarding/welcome.md'
const PAGES = 4
const QUIET_MS = 15000
const sleep = ms => new Promise(r => setTimeout(r, ms))

let tmp, docs, a, b, proxy, silent, browser, httpsPort, httpPort, origin
const pages = []

/** Polls fn() until it returns a truthy value, or fails after ms with what(). */
async function until(fn, ms, what) {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms: ${what()}`)
    await sleep(50)
  }
}

const portOf = srv => Number(new URL(srv.url).port)

/**
 * A WebSocket upgrade request for /mcp with headers (Host, Origin, ...), over
 * TLS through nginx (tls: true) or plain to an instance; resolves with the
 * HTTP status (101 when upgraded) and closes the socket. localAddress picks
 * the source address (127.0.0.2 is "someone else" on loopback).
 */
function upgrade({ port, tls: secure = false, servername = NAME, headers, localAddress }) {
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request({
      host: '127.0.0.1', port, path: '/mcp', localAddress, agent: false,
      ...(secure ? { servername, rejectUnauthorized: false } : {}),
      headers: {
        Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Protocol': 'mcp', ...headers,
      },
    })
    req.setTimeout(5000, () => req.destroy(new Error('upgrade request timed out')))
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode, headers: res.headers }) })
    req.on('response', res => { res.resume(); resolve({ status: res.statusCode, headers: res.headers }) })
    req.on('error', reject)
    req.end()
  })
}

/** A plain GET through nginx; resolves with { status, headers, body }. */
function get({ port, secure = true, path: p = '/', host = `${NAME}:${port}`, servername = NAME, headers, localAddress }) {
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request({
      host: '127.0.0.1', port, path: p, agent: false, headers: { Host: host, ...headers }, localAddress,
      ...(secure ? { servername, rejectUnauthorized: false } : {}),
    }, res => {
      const chunks = []
      res.on('data', c => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }))
    })
    req.setTimeout(5000, () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    req.end()
  })
}

/**
 * The negative control for the timeout: an upstream that answers the upgrade
 * and then never sends a byte. nginx must cut it after proxy_read_timeout.
 */
function startSilentUpstream() {
  return new Promise(resolve => {
    const socks = new Set()
    const server = net.createServer(sock => {
      socks.add(sock)
      sock.on('close', () => socks.delete(sock))
      let head = ''
      sock.on('data', d => {
        if (head.includes('\r\n\r\n')) return
        head += d.toString('latin1')
        if (head.includes('\r\n\r\n')) sock.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')
      })
      sock.on('error', () => {})
    })
    server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, close: () => { for (const s of socks) s.destroy(); server.close() } }))
  })
}

/** Opens an upgraded connection through nginx to /silent; resolves when it is up, with closed (a promise of ms). */
function openSilent() {
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: '127.0.0.1', port: httpsPort, path: '/silent', servername: NAME, rejectUnauthorized: false, agent: false,
      headers: { Host: `${NAME}:${httpsPort}`, Connection: 'Upgrade', Upgrade: 'websocket' },
    })
    req.on('upgrade', (res, socket) => {
      const t0 = Date.now()
      const closed = new Promise(r => socket.once('close', () => r(Date.now() - t0)))
      socket.on('error', () => {})
      socket.resume()
      resolve({ closed, destroy: () => socket.destroy() })
    })
    req.on('response', res => reject(new Error(`/silent answered ${res.statusCode}`)))
    req.on('error', reject)
    req.end()
  })
}

before(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'mcphost-nginx-'))
  // nginx's prefix is its own folder: startNginx hands it to "nobody" when
  // the test runs as root, so tmp must be traversable.
  chmodSync(tmp, 0o755)
  const prefix = path.join(tmp, 'nginx')
  mkdirSync(prefix)
  docs = path.join(tmp, 'docs')
  const sample = path.join(root, 'cmd', 'mcphost', 'internal', 'sampledocs')
  for (const rel of ['platform/onboarding/welcome.md', 'platform/policy/access-control.md', 'support/reference/macros.md']) {
    mkdirSync(path.dirname(path.join(docs, rel)), { recursive: true })
    cpSync(path.join(sample, rel), path.join(docs, rel))
  }
  const cert = path.join(prefix, 'chat.test.pem')
  const key = path.join(prefix, 'chat.test.key')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-subj', `/CN=${NAME}`, '-addext', `subjectAltName=DNS:${NAME}`, '-days', '2', '-keyout', key, '-out', cert],
  { stdio: 'pipe' })

  httpsPort = await freePort()
  do httpPort = await freePort(); while (httpPort === httpsPort)
  origin = `https://${NAME}:${httpsPort}`
  // As docs/deploy/nginx.conf says to start them; no -origin: the page is same-origin.
  const flags = ['-docs', docs, '-trusted-proxy', '127.0.0.1/32', '-allowed-hosts', NAME, '-ping-interval', '2s']
  ;[a, b] = await Promise.all([startMcphost(flags), startMcphost(flags)])
  silent = await startSilentUpstream()

  const site = siteConfig(path.join(root, 'docs', 'deploy', 'nginx.conf'), [
    ['listen 443 ', `listen 127.0.0.1:${httpsPort} `, 2],
    ['listen 80', `listen 127.0.0.1:${httpPort}`, 2],
    ['server_name chat.example.com;', `server_name ${NAME};`, 2],
    ['return 301 https://$host$request_uri;', `return 301 https://$host:${httpsPort}$request_uri;`, 1],
    ['/etc/ssl/certs/chat.example.com.pem', cert, 1],
    ['/etc/ssl/private/chat.example.com.key', key, 1],
    ['server 127.0.0.1:8081 ', `server 127.0.0.1:${portOf(a)} `, 1],
    ['server 127.0.0.1:8082 ', `server 127.0.0.1:${portOf(b)} `, 1],
    ['proxy_read_timeout 60s;', 'proxy_read_timeout 5s;', 1],
    // The control: the same timeout in front of an upstream that never speaks.
    ['    location / {', `    location = /silent {
        proxy_pass http://127.0.0.1:${silent.port};
        proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_read_timeout 5s;
    }

    location / {`, 1],
  ])
  proxy = await startNginx({ dir: prefix, site, ports: [httpsPort, httpPort] })
  browser = await launchBrowser({ args: [`--host-resolver-rules=MAP ${NAME} 127.0.0.1`], ignoreHTTPSErrors: true })
})

after(async () => {
  for (const p of pages) await p.close().catch(() => {})
  await browser?.close()
  await proxy?.stop()
  // (a killed instance has exited already: stop() would wait for it forever)
  await Promise.all([a, b].filter(s => s && s.proc.exitCode === null && s.proc.signalCode === null).map(s => s.stop()))
  silent?.close()
  if (tmp && !process.env.KEEP_NGINX_TMP) rmSync(tmp, { recursive: true, force: true })
})

describe('mcphost behind nginx (docs/deploy/nginx.conf)', { timeout: 60000 }, () => {
  test('the page comes through the proxy; Origin and Host checks hold through it', async () => {
    const page = await get({ port: httpsPort, path: '/test/api.html' })
    assert.equal(page.status, 200)
    assert.match(page.body, /mcphost\.js API test page/)
    assert.match(page.headers['content-security-policy'] ?? '', /script-src 'self' 'wasm-unsafe-eval'/)

    const redirect = await get({ port: httpPort, secure: false, path: '/x?y=1', host: NAME })
    assert.equal(redirect.status, 301)
    assert.equal(redirect.headers.location, `https://${NAME}:${httpsPort}/x?y=1`)

    // Another name gets nothing from nginx: no TLS handshake, no http answer.
    await assert.rejects(get({ port: httpsPort, servername: 'rebind.test', host: `rebind.test:${httpsPort}` }))
    await assert.rejects(get({ port: httpPort, secure: false, host: 'rebind.test' }))

    const host = `${NAME}:${httpsPort}`
    const same = await upgrade({ port: httpsPort, tls: true, headers: { Host: host, Origin: origin } })
    assert.equal(same.status, 101, 'the same-origin page is upgraded through the proxy')
    const foreign = await upgrade({ port: httpsPort, tls: true, headers: { Host: host, Origin: 'https://evil.test' } })
    assert.equal(foreign.status, 403, 'a foreign Origin is refused through the proxy')
    // The page is https; a page claiming http for the same host is another origin,
    // and the client cannot make nginx say otherwise (it sets, never appends).
    const downgraded = await upgrade({ port: httpsPort, tls: true,
      headers: { Host: host, Origin: `http://${host}`, 'X-Forwarded-Proto': 'http', Forwarded: 'proto=http' } })
    assert.equal(downgraded.status, 403, 'http:// Origin on the https site is refused')

    // Straight to an instance: the forwarded headers count only from the
    // trusted proxy's address (127.0.0.1), not from 127.0.0.2.
    const forwarded = { Host: host, Origin: origin, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': host }
    assert.equal((await upgrade({ port: portOf(a), headers: forwarded, localAddress: '127.0.0.1' })).status, 101,
      'from the trusted proxy address, X-Forwarded-Proto https makes the https Origin same-origin')
    assert.equal((await upgrade({ port: portOf(a), headers: forwarded, localAddress: '127.0.0.2' })).status, 403,
      'from an untrusted address the forwarded headers are ignored')
    // What a page behind a proxy that is not trusted is told (connect() rejects with kind refused and this).
    const diag = await get({ port: portOf(a), secure: false, path: '/mcp', host, localAddress: '127.0.0.2',
      headers: { Accept: 'application/json', Origin: origin, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': host } })
    assert.equal(diag.status, 403)
    assert.match(JSON.parse(diag.body).fix, /-trusted-proxy 127\.0\.0\.2\/32/)
    assert.equal((await upgrade({ port: portOf(a), headers: { Host: `rebind.test:${portOf(a)}` } })).status, 403,
      'a Host outside -allowed-hosts is refused (DNS rebinding)')
  })

  test(`${PAGES} pages through nginx spread their WebSockets over both instances`, async t => {
    const t0 = Date.now()
    for (let i = 0; i < PAGES; i++) {
      const page = await browser.context.newPage()
      page.problems = []
      page.on('pageerror', e => page.problems.push(String(e)))
      pages.push(page)
    }
    await Promise.all(pages.map(async page => {
      await page.goto(`${origin}/test/api.html`)
      await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 })
      // Start the wasm module (its download is a request through the same
      // upstream), so the connects below are the only requests in a row.
      await page.evaluate(async () => { await (await window.mcphost.connect('/mcp')).close() })
    }))
    for (const page of pages) {
      await page.evaluate(async () => {
        window.h = await window.mcphost.connect('/mcp', { clientInfo: { name: 'nginx-test', version: '1' } })
        window.log = window.events(window.h)
      })
    }
    const attached = await Promise.all(pages.map(page => page.evaluate(async uri => {
      const parts = await window.h.attach(uri)
      return { url: window.h.url, text: parts[0].text, state: parts[0].state, origin: location.origin }
    }, WELCOME)))
    for (const r of attached) {
      assert.equal(r.origin, origin)
      assert.equal(r.url, `wss://${NAME}:${httpsPort}/mcp`)
      assert.match(r.text, /welcome/i)
      assert.equal(r.state, 'fresh')
    }
    const onA = establishedTo(portOf(a)).length
    const onB = establishedTo(portOf(b)).length
    t.diagnostic(`${PAGES} pages loaded, connected and attached through nginx in ${Date.now() - t0} ms; ` +
      `WebSockets per instance: ${onA} + ${onB}`)
    assert.equal(onA + onB, PAGES, `one socket per page reaches the instances (A ${onA}, B ${onB})`)
    assert.ok(onA >= 1 && onB >= 1, `round robin uses both instances (A ${onA}, B ${onB})`)
  })

  test(`quiet WebSockets outlive proxy_read_timeout (5 s) for ${QUIET_MS / 1000} s; a silent upstream is cut at 5 s`, async () => {
    const open = { a: establishedTo(portOf(a)), b: establishedTo(portOf(b)) }
    const control = await openSilent()
    await sleep(QUIET_MS)
    const cutAfter = await Promise.race([control.closed, sleep(1).then(() => null)])
    control.destroy()
    assert.ok(cutAfter !== null && cutAfter >= 4500 && cutAfter < 9000,
      `nginx closes a silent upgraded connection after proxy_read_timeout 5 s (closed after ${cutAfter} ms)`)
    assert.deepEqual({ a: establishedTo(portOf(a)), b: establishedTo(portOf(b)) }, open,
      'the very same sockets are still open on both instances')
    for (const page of pages) {
      const log = await page.evaluate(() => window.log.map(e => e.type))
      assert.deepEqual(log.filter(t => t === 'disconnected' || t === 'reconnected'), [], 'no page lost its connection')
    }
    const timeouts = proxy.errorLog().split('\n').filter(l => /timed out/.test(l))
    assert.equal(timeouts.length, 1, `only the control timed out in nginx:\n${timeouts.join('\n')}`)
    assert.match(timeouts[0], /silent/)
  })

  test('one instance killed mid-session: its pages reconnect through nginx to the other and keep the attachment', async t => {
    const victim = a.proc
    const onVictim = establishedTo(portOf(a)).length
    assert.ok(onVictim >= 1)
    const held = await Promise.all(pages.map(p => p.evaluate(() => window.h.attachments().map(x => [x.uri, x.text]))))
    const t0 = Date.now()
    const gone = new Promise(r => victim.once('exit', r))
    victim.kill('SIGKILL')
    await gone
    await until(() => establishedTo(portOf(b)).length === PAGES, 20000,
      () => `pages on the survivor: ${establishedTo(portOf(b)).length} of ${PAGES}`)
    const moved = []
    for (const [i, page] of pages.entries()) {
      const types = await until(async () => {
        const t = await page.evaluate(() => window.log.map(e => e.type).filter(t => t === 'disconnected' || t === 'reconnected'))
        return (t.length === 0 || t.at(-1) === 'reconnected') && t
      }, 15000, () => `page ${i} did not settle`)
      if (types.length) {
        assert.deepEqual(types, ['disconnected', 'reconnected'], `page ${i}`)
        moved.push(i)
      }
    }
    t.diagnostic(`instance killed: ${moved.length} page(s) reconnected to the survivor in ${Date.now() - t0} ms`)
    assert.equal(moved.length, onVictim, 'exactly the pages on the killed instance reconnected')
    for (const [i, page] of pages.entries()) {
      const ctx = await page.evaluate(() => window.h.attachments().map(x => [x.uri, x.text, x.state]))
      assert.deepEqual(ctx, held[i].map(([uri, text]) => [uri, text, 'fresh']), `page ${i} lost no attachment`)
    }

    // Every page is subscribed on the survivor: a change reaches all of them.
    const file = path.join(docs, 'platform', 'onboarding', 'welcome.md')
    writeFileSync(file, '# Welcome, after the failover\n\nEdited while one instance was down.\n')
    for (const [i, page] of pages.entries()) {
      await until(() => page.evaluate(() => window.h.attachments()[0]?.text?.includes('after the failover')), 10000,
        () => `page ${i} did not see the edit`)
    }
    for (const page of pages) assert.deepEqual(page.problems, [])
    await Promise.all(pages.map(p => p.evaluate(() => window.h.close())))
  })
})
