// web/mcphost.js through a bundler: a Vite build of the one-page consumer in
// e2e/vite-consumer (built here with the vite in e2e/node_modules, default
// configuration), served by a static server of this test on loopback with a
// strict CSP, and loaded in headless Debian Chromium against mcphost on
// another origin (allowed with -origin). Proves the bundle carries
// mcphost.wasm and wasm_exec.js along and that the API works from it.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { launchBrowser, root, startMcphost } from './harness.mjs'

const e2e = path.join(root, 'e2e')
const PNG = 'docs://team/support/media/queue-dashboard.png'
const MD = 'docs://team/platform/onboarding/welcome.md'
let dist, server, origin, srv, browser

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' }

before(async () => {
  dist = mkdtempSync(path.join(tmpdir(), 'mcphost-vite-'))
  execFileSync(process.execPath, [path.join(e2e, 'node_modules', 'vite', 'bin', 'vite.js'), 'build',
    path.join(e2e, 'vite-consumer'), '--outDir', dist], { cwd: e2e, stdio: 'pipe' })
  server = createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname
    const file = path.join(dist, p === '/' ? 'index.html' : p)
    if (!file.startsWith(dist + path.sep)) return res.writeHead(403).end()
    let body
    try {
      body = readFileSync(file)
    } catch {
      return res.writeHead(404).end()
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      // What docs/embedding.md tells a page to allow, and no more.
      'Content-Security-Policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' ws://127.0.0.1:*",
    })
    res.end(body)
  })
  await new Promise(r => server.listen(0, '127.0.0.1', r))
  origin = `http://127.0.0.1:${server.address().port}`
  srv = await startMcphost(['-docs', path.join(root, 'cmd', 'mcphost', 'internal', 'sampledocs'), '-origin', origin])
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await srv?.stop()
  await new Promise(r => (server ? server.close(r) : r()))
  if (dist) rmSync(dist, { recursive: true, force: true })
})

test('a Vite build of a one-page consumer carries the wasm along and works against mcphost', async () => {
  const assets = readdirSync(path.join(dist, 'assets'))
  assert.ok(assets.some(f => /^mcphost-.*\.wasm$/.test(f)), `wasm emitted: ${assets}`)
  assert.ok(assets.some(f => /^wasm_exec-.*\.js$/.test(f)), `wasm_exec.js emitted: ${assets}`)
  assert.ok(assets.some(f => /^render-worker-.*\.js$/.test(f)), `render-worker.js emitted: ${assets}`)
  const page = await browser.context.newPage()
  const problems = []
  const workers = []
  page.on('pageerror', e => problems.push(String(e)))
  page.on('worker', w => workers.push(new URL(w.url()).pathname))
  try {
    const q = new URLSearchParams({ mcp: srv.wsUrl, uri: PNG, md: MD })
    await page.goto(`${origin}/?${q}`)
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30000 })
    const r = await page.evaluate(() => window.result)
    assert.equal(r.error, undefined, JSON.stringify(r))
    assert.equal(r.serverInfo, 'mcphost-docs')
    assert.ok(r.resources > 10)
    assert.equal(r.mention, 3)
    // <mcp-mention> and its modules came through the bundle, and ranked @onb
    assert.deepEqual(r.picked, ['docs://team/payments/onboarding/first-week.md', 'docs://team/platform/onboarding/dev-environment.md',
      'docs://team/platform/onboarding/welcome.md', 'docs://team/support/onboarding/support-handbook.md'])
    const size = readFileSync(path.join(root, 'cmd', 'mcphost', 'internal', 'sampledocs', 'support', 'media', 'queue-dashboard.png')).length
    // The fixture is named .png but holds JPEG bytes: the sniffed type wins.
    assert.deepEqual(r.part, { kind: 'binary', mimeType: 'image/jpeg', bytes: size, text: 0 })
    assert.deepEqual(r.notFound, { isMCPError: true, kind: 'not_found' })
    assert.deepEqual(r.markdown, { h1: true, warnings: [] })
    assert.ok(workers.length === 1 && /render-worker-.*\.js$/.test(workers[0]), `the render Worker ran from the bundle: ${workers}`)
    assert.deepEqual(r.globals, [])
    assert.deepEqual(problems, [])
  } finally {
    await page.close()
  }
})
