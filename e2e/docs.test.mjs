// The examples in the docs are tests (the convention: CONTRIBUTING.md).
//
// Every ```js and ```html block of README.md and docs/**/*.md is marked
// `run` or `fragment`; an unmarked one fails here. Each `run` block is served
// as a page (or, for js, as an external module of a blank page) of the real
// mcphost binary's origin, on its embedded defaults, under the product's
// Content-Security-Policy (the binary's own header, so inline modules are
// blocked as they are for an embedder), in headless Chromium. It fails when
// the example throws, logs a console error, loads something that fails, does
// not finish, or an `<!-- expect: ... -->` line after it is not true. The
// header example of web/mcphost.d.ts runs the same way. Last, the README's
// "First five minutes" page is served from another loopback origin, as the
// README says (under the cross-origin policy docs/embedding.md recommends),
// against a binary started with -origin (it connects, the picker attaches)
// and one without (it is refused, with the fix in the message the README
// quotes).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { launchBrowser, root, startMcphost } from './harness.mjs'

// ---- extracting the blocks ----

// Where the markdown (and mcphost.d.ts) is read from: the tree, or a copy
// (DOCS_ROOT=/tmp/copy node --test docs.test.mjs, to see a broken example
// fail without touching the tree).
const docsRoot = process.env.DOCS_ROOT ? path.resolve(process.env.DOCS_ROOT) : root

const CHECKED_LANGS = new Set(['js', 'javascript', 'mjs', 'html', 'ts', 'typescript'])

/** The markdown files whose examples are checked: README.md and docs/**. */
export function docFiles() {
  const out = ['README.md']
  const walk = (dir) => {
    for (const name of readdirSync(path.join(docsRoot, dir)).sort()) {
      const rel = path.join(dir, name)
      if (statSync(path.join(docsRoot, rel)).isDirectory()) walk(rel)
      else if (name.endsWith('.md')) out.push(rel)
    }
  }
  walk('docs')
  if (statSync(path.join(docsRoot, 'CONTRIBUTING.md'), { throwIfNoEntry: false })) out.push('CONTRIBUTING.md')
  return out
}

/**
 * Every fenced block of a markdown text: { file, line, lang, mode, opts,
 * code, expects, heading }. The info string is `lang [run|fragment]
 * [key=value | key="value with spaces"]...`; `expects` are the lines of the
 * `<!-- expect: ... -->` comments right after the closing fence.
 */
export function parseBlocks(text, file) {
  const lines = text.split('\n')
  const blocks = []
  let heading = ''
  let section = ''
  for (let i = 0; i < lines.length; i++) {
    const h = /^(#{1,6})\s+(.*)$/.exec(lines[i])
    if (h) {
      heading = h[2].trim()
      if (h[1].length <= 2) section = heading
      continue
    }
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i])
    if (!open) continue
    const [, indent, fence, info] = open
    const start = i
    const body = []
    for (i++; i < lines.length; i++) {
      const close = new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).exec(lines[i])
      if (close) break
      body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i])
    }
    const words = [...info.trim().matchAll(/(\w[\w.+-]*)=("([^"]*)"|\S+)|(\S+)/g)]
    const opts = {}
    const plain = []
    for (const w of words) {
      if (w[1]) opts[w[1]] = w[3] ?? w[2]
      else plain.push(w[4])
    }
    const expects = []
    let j = i + 1
    for (; j < lines.length; j++) {
      if (lines[j].trim() === '' && expects.length === 0 && j === i + 1) continue
      const m = /^\s*<!--\s*expect:(.*?)(-->)?\s*$/.exec(lines[j])
      if (!m) break
      const chunk = [m[1]]
      if (!m[2]) {
        for (j++; j < lines.length && !/-->\s*$/.test(lines[j]); j++) chunk.push(lines[j])
        chunk.push((lines[j] ?? '').replace(/-->\s*$/, ''))
      }
      expects.push(...chunk.map((s) => s.trim()).filter(Boolean))
    }
    if (expects.length) i = j - 1
    blocks.push({ file, line: start + 1, lang: (plain[0] ?? '').toLowerCase(), mode: plain[1] ?? '', opts, code: body.join('\n'), expects, heading, section })
  }
  return blocks
}

const allBlocks = docFiles().flatMap((f) => parseBlocks(readFileSync(path.join(docsRoot, f), 'utf8'), f))
const checked = allBlocks.filter((b) => CHECKED_LANGS.has(b.lang))
const runnable = checked.filter((b) => b.mode === 'run')
const where = (b) => `${b.file}:${b.line} (${b.heading})`

// The sections whose examples must run (so none is quietly demoted to a fragment).
const MUST_RUN = [
  ['README.md', 'Embed it', 'js'],
  ['README.md', 'Embed it', 'html'],
  ['README.md', 'First five minutes', 'html'],
  ['docs/embedding.md', 'Import and connect', 'js'],
  ['docs/embedding.md', 'Use it', 'js'],
  ['docs/embedding.md', 'Events', 'js'],
  ['docs/embedding.md', 'Assigning `html` under Trusted Types', 'js'],
  ['docs/ui.md', '`<mcp-mention>`: the @-mention picker', 'html'],
]

// ---- fixtures for the free names the examples use ----

// Functions the examples hand results to; the fixtures record their calls.
const RECORDERS = ['rerender', 'render', 'renderChip', 'showChips']

// Synchronous fixtures: globals set by a classic script before the example.
const PRELUDE = `
globalThis.__docs = { finished: [], calls: {} }
const record = (name) => (...args) => { (__docs.calls[name] ??= []).push(args) }
globalThis.preview = Object.assign(document.createElement('div'), { id: 'preview' })
globalThis.img = Object.assign(document.createElement('img'), { alt: 'preview' })
document.body.append(preview, img)
for (const name of ${JSON.stringify(RECORDERS)}) globalThis[name] = record(name)
globalThis.banner = { show: record('banner.show') }
globalThis.uri = 'docs://team/platform/onboarding/welcome.md'
globalThis.label = document.createElement('span')
globalThis.resource = { name: 'report.md', title: 'Re\\u200Bport', uri: 'docs://team/platform/onboarding/welcome.md' }
globalThis.description = 'A description\\twith a tab\\nand two lines.'
`

// Asynchronous fixtures, imported by the example when it uses the name
// without declaring it: a host connected to the page's server, and an
// attached Markdown part.
const ASYNC_FIXTURES = {
  host: 'export const host = fixtureHost',
  part: 'export const part = (await fixtureHost.attach("docs://team/platform/onboarding/welcome.md")).find((p) => p.html)',
}

function declares(code, name) {
  const decl = new RegExp(`\\b(?:const|let|var)\\s+(?:\\{[^}]*\\b${name}\\b[^}]*\\}|\\[[^\\]]*\\b${name}\\b[^\\]]*\\]|${name}\\b)|\\b(?:function|class)\\s+${name}\\b|\\bimport\\b[^;\\n]*\\b${name}\\b[^;\\n]*\\bfrom\\b`)
  return decl.test(code)
}
const uses = (code, name) => new RegExp(`(?<![.\\w$])${name}\\b`).test(code.replace(/(^|\s)\/\/.*$/gm, '$1'))

/** The names of ASYNC_FIXTURES the code uses and does not declare itself. */
const asyncFixtures = (code) => Object.keys(ASYNC_FIXTURES).filter((n) => uses(code, n) && !declares(code, n))

/** An example module as served: its fixtures imported on its first line (line numbers stay), the
 * documented address replaced by the test server's, its expects and the finish signal appended. */
function moduleSource(b, id, hostPort) {
  const need = asyncFixtures(b.code)
  const head = need.length ? `import { ${need.join(', ')} } from "/__docs-fixtures.js?names=${need.join(',')}"; ` : ''
  const expects = b.expects.map((e) => `if (!(await (${e}))) throw new Error(${JSON.stringify(`${where(b)}: expected ${e}`)});`)
  return head + b.code.replaceAll('127.0.0.1:8080', hostPort) + '\n;' + expects.join('\n') +
    `\nglobalThis.__docs.finished.push(${JSON.stringify(id)})\n`
}

function fixturesSource(names) {
  return 'import { connect } from "/mcphost.js"\n' +
    'const fixtureHost = await connect(new URL("/mcp", location.href).href.replace(/^http/, "ws"), { clientInfo: { name: "docs-example", version: "1.0" } })\n' + names.map((n) => ASYNC_FIXTURES[n]).join('\n') + '\n'
}

const page = (body, title) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title></head>
<body>
<script src="/__docs-prelude.js"></script>
${body}
</body>
</html>
`

// ---- running them ----

let srv, browser, csp, relay, relayUrl
let files = {} // what the relay serves itself now: { "/path": { body, type, csp } }

// The pages are served by a loopback server of the test that relays every
// other request, WebSocket upgrades included, to the binary unchanged: the
// Host the binary sees is the relay's, so the page is same-origin for it, and
// Chromium sees a real loopback document (a page fulfilled by page.route is
// not one: its WebSocket to 127.0.0.1 is blocked by the local-network-access
// check). Its own answers carry the binary's CSP.
function startRelay(target) {
  const t = new URL(target)
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x')
    if (u.pathname === '/favicon.ico') return res.writeHead(204).end()
    const f = files[u.pathname] ?? (u.pathname === '/__docs-fixtures.js' ? { body: fixturesSource(u.searchParams.get('names').split(',')), type: 'text/javascript' } : null)
    if (f) {
      return res.writeHead(200, {
        'content-type': `${f.type}; charset=utf-8`, 'content-security-policy': f.csp ? `${csp}, ${f.csp}` : csp,
        'x-content-type-options': 'nosniff', 'cache-control': 'no-store',
      }).end(f.body)
    }
    const up = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers, agent: false }, (upRes) => {
      res.writeHead(upRes.statusCode, upRes.headers)
      upRes.pipe(res)
    })
    up.on('error', () => res.writeHead(502).end())
    req.pipe(up)
  })
  server.on('upgrade', (req, sock, head) => {
    const up = net.connect(Number(t.port), t.hostname, () => {
      up.write(`${req.method} ${req.url} HTTP/1.1\r\n` + Object.entries(req.headersDistinct).flatMap(([k, vs]) => vs.map((v) => `${k}: ${v}\r\n`)).join('') + '\r\n')
      up.write(head)
      up.pipe(sock)
      sock.pipe(up)
    })
    up.on('error', () => sock.destroy())
    sock.on('error', () => up.destroy())
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

before(async () => {
  srv = await startMcphost([])
  browser = await launchBrowser()
  csp = (await fetch(srv.url)).headers.get('content-security-policy')
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/)
  relay = await startRelay(srv.url)
  relayUrl = `http://127.0.0.1:${relay.address().port}/`
})

after(async () => {
  await browser?.close()
  relay?.closeAllConnections()
  relay?.close()
  await srv?.stop()
})

/** Opens a page that records every problem, after setting what the relay serves. */
async function openWith(pageFiles) {
  files = pageFiles
  const p = await browser.context.newPage()
  const problems = []
  p.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`))
  p.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`) })
  p.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`) })
  p.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`))
  p.problems = problems
  return p
}

/** Waits until every id in ids has finished, a problem was recorded, or ms passed. */
async function finished(p, ids, ms = 20000) {
  const end = Date.now() + ms
  for (;;) {
    if (p.problems.length) return false
    const done = await p.evaluate(() => globalThis.__docs?.finished ?? []).catch(() => [])
    if (ids.every((id) => done.includes(id))) return true
    if (Date.now() > end) return false
    await new Promise((r) => setTimeout(r, 50))
  }
}

const idOf = (b) => `${b.file.replace(/[^\w]+/g, '-')}-${b.line}`

/** The js blocks an html block loads with <script type="module" src>, by file= name, from the same doc. */
function modulesOf(b) {
  const srcs = [...b.code.matchAll(/<script\b[^>]*\btype="module"[^>]*\bsrc="([^"]+)"/g)].map((m) => new URL(m[1], 'http://x/').pathname)
  return srcs.map((src) => {
    const m = checked.find((o) => o.file === b.file && o.heading === b.heading && o.mode === 'run' && o.lang === 'js' && o.opts.file && '/' + o.opts.file === src)
    assert.ok(m, `${where(b)}: <script src="${src}"> names no \`js run file=${src.slice(1)}\` block in its section`)
    return { path: src, block: m }
  })
}

async function runBlock(b) {
  const hostPort = new URL(relayUrl).host
  const id = idOf(b)
  const files = { '/__docs-prelude.js': { body: PRELUDE, type: 'text/javascript' } }
  let ids
  if (b.lang === 'html') {
    const mods = modulesOf(b)
    for (const m of mods) files[m.path] = { body: moduleSource(m.block, idOf(m.block), hostPort), type: 'text/javascript' }
    files[`/__docs-${id}.html`] = { body: page(b.code.replaceAll('127.0.0.1:8080', hostPort), where(b)), type: 'text/html' }
    ids = mods.map((m) => idOf(m.block))
  } else {
    files[`/__docs-${id}.js`] = { body: moduleSource(b, id, hostPort), type: 'text/javascript' }
    files[`/__docs-${id}.html`] = { body: page(`<script type="module" src="/__docs-${id}.js"></script>`, where(b)), type: 'text/html' }
    ids = [id]
  }
  files[`/__docs-${id}.html`].csp = b.opts.csp
  const p = await openWith(files)
  try {
    await p.goto(`${relayUrl}__docs-${id}.html`)
    const ok = await finished(p, ids)
    assert.deepEqual(p.problems, [], `${where(b)}: the example failed`)
    assert.ok(ok, `${where(b)}: the example did not finish in 20 s`)
    for (const e of b.lang === 'html' ? b.expects : []) {
      assert.ok(await p.evaluate(`(async () => !!(${e}))()`), `${where(b)}: expected ${e}`)
    }
    // A page with the picker: typing "@onb" in its composer shows matches, choosing the first
    // attaches it (mcp-attached), and a recorder the page's code hands that to is called.
    const forId = /<mcp-mention\b[^>]*\bfor="([^"]+)"/.exec(b.lang === 'html' ? b.code : '')?.[1]
    if (forId) {
      await p.evaluate(() => document.querySelector('mcp-mention').addEventListener('mcp-attached', () => { globalThis.__docs.attached = true }))
      await p.locator(`#${forId}`).click()
      await p.keyboard.type('@onb')
      await p.locator('mcp-mention [role="option"]').first().waitFor({ timeout: 10000 })
      await p.keyboard.press('ArrowDown')
      await p.keyboard.press('Enter')
      await p.waitForFunction(() => globalThis.__docs.attached === true, null, { timeout: 10000 })
      const code = modulesOf(b).map((m) => m.block.code).join('\n')
      for (const name of RECORDERS.filter((n) => uses(code, n))) {
        await p.waitForFunction((n) => globalThis.__docs.calls[n]?.length > 0, name, { timeout: 5000 })
          .catch(() => assert.fail(`${where(b)}: choosing an option never called ${name}()`))
      }
      assert.deepEqual(p.problems, [], `${where(b)}: typing @onb in the picker and choosing`)
    }
    return p
  } catch (err) {
    await p.close()
    throw err
  }
}

describe('docs examples', () => {
  test('every js and html block is marked run or fragment', () => {
    const unmarked = checked.filter((b) => b.mode !== 'run' && b.mode !== 'fragment')
    assert.deepEqual(unmarked.map(where), [], 'mark each block ```js run or ```js fragment (CONTRIBUTING.md)')
    for (const b of runnable) {
      if (b.lang === 'ts' || b.lang === 'typescript') assert.fail(`${where(b)}: only js and html blocks can run`)
    }
    for (const [file, heading, lang] of MUST_RUN) {
      assert.ok(runnable.some((b) => b.file === file && (b.heading === heading || b.section === heading) && b.lang === lang), `${file} "${heading}" has no \`${lang} run\` block`)
    }
    // A file= module runs only inside the html page that loads it.
    for (const b of runnable.filter((b) => b.opts.file)) {
      assert.ok(runnable.some((h) => h.file === b.file && h.lang === 'html' && modulesOf(h).some((m) => m.block === b)), `${where(b)}: no html run block loads ${b.opts.file}`)
    }
  })

  test('the product CSP blocks an inline module (why the docs show the external form)', async () => {
    const p = await openWith({ '/__docs-inline.html': { type: 'text/html', body: page('<script type="module">globalThis.inlineRan = true</script>', 'inline') } })
    try {
      await p.goto(relayUrl + '__docs-inline.html')
      await p.waitForFunction(() => document.readyState === 'complete')
      assert.equal(await p.evaluate(() => globalThis.inlineRan), undefined)
      assert.ok(p.problems.some((m) => /Content Security Policy/.test(m)), p.problems.join('\n'))
    } finally {
      await p.close()
    }
  })

  for (const b of runnable.filter((b) => !b.opts.file)) {
    test(`${where(b)} runs`, async () => {
      const p = await runBlock(b)
      await p.close()
    })
  }

  test('web/mcphost.d.ts: the header example runs', async () => {
    const dts = readFileSync(path.join(docsRoot, 'web', 'mcphost.d.ts'), 'utf8')
    const header = dts.slice(0, dts.search(/^[^/]/m)).split('\n')
    const code = header.filter((l) => /^\/\/ {3}/.test(l)).map((l) => l.slice(5)).join('\n')
    assert.match(code, /connect\(/)
    const p = await runBlock({ file: 'web/mcphost.d.ts', line: 1, heading: 'header comment', lang: 'js', mode: 'run', opts: {}, code,
      expects: ['parts.length > 0', 'parts.every((p) => p.kind !== "error")'] })
    await p.close()
  })
})

describe('README: First five minutes, as written', () => {
  let dir, pages, pagesUrl, withOrigin, target, documentedCsp
  before(async () => {
    // The page on an origin of its own: a copy of web/ plus the README's two files, as the
    // README serves them (python3 -m http.server), the page under the CSP docs/embedding.md
    // recommends for that case.
    const html = runnable.find((b) => b.file === 'README.md' && b.heading === 'First five minutes' && b.lang === 'html')
    const cspBlock = allBlocks.find((b) => b.file === 'docs/embedding.md' && b.code.startsWith('Content-Security-Policy:'))
    assert.ok(cspBlock, 'docs/embedding.md has the recommended Content-Security-Policy block')
    documentedCsp = cspBlock.code.replace(/^Content-Security-Policy:/, '').replace(/\s+/g, ' ').trim()
    assert.match(documentedCsp, /connect-src 'self' ws:\/\/127\.0\.0\.1:8080 http:\/\/127\.0\.0\.1:8080/)
    dir = mkdtempSync(path.join(tmpdir(), 'mcphost-docs-chat-'))
    cpSync(path.join(root, 'web'), dir, { recursive: true })
    pages = http.createServer((req, res) => {
      const u = new URL(req.url, 'http://x')
      if (u.pathname === '/favicon.ico') return res.writeHead(204).end()
      const mods = Object.fromEntries(modulesOf(html).map((m) => [m.path, m.block]))
      let body
      let type
      if (u.pathname === '/chat.html') {
        // Under the policy docs/embedding.md recommends for a page on another origin than mcphost.
        return res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': documentedCsp.replaceAll('127.0.0.1:8080', target) }).end(page(html.code, 'chat'))
      }
      else if (u.pathname === '/__docs-prelude.js') [body, type] = [PRELUDE, 'text/javascript']
      else if (mods[u.pathname]) [body, type] = [moduleSource(mods[u.pathname], idOf(mods[u.pathname]), target), 'text/javascript']
      else {
        const f = path.join(dir, path.normalize(u.pathname))
        try { body = readFileSync(f) } catch { return res.writeHead(404).end() }
        type = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' }[path.extname(f)] ?? 'application/octet-stream'
      }
      res.writeHead(200, { 'content-type': type }).end(body)
    })
    await new Promise((r) => pages.listen(0, '127.0.0.1', r))
    pagesUrl = `http://127.0.0.1:${pages.address().port}`
    withOrigin = await startMcphost(['-origin', pagesUrl])
  })
  after(async () => {
    await withOrigin?.stop()
    pages?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  async function open(server) {
    target = new URL(server.url).host
    const p = await browser.context.newPage()
    p.problems = []
    p.on('pageerror', (e) => p.problems.push(e.message))
    p.on('console', (m) => { if (m.type() === 'error') p.problems.push(m.text()) })
    p.on('response', (r) => { if (r.status() >= 400) p.problems.push(`HTTP ${r.status()} ${r.url()}`) })
    await p.goto(pagesUrl + '/chat.html')
    return p
  }

  test('the page on its own origin connects to mcphost -origin and the picker finds @onb', async () => {
    const p = await open(withOrigin)
    try {
      const html = runnable.find((b) => b.file === 'README.md' && b.heading === 'First five minutes' && b.lang === 'html')
      assert.ok(await finished(p, modulesOf(html).map((m) => idOf(m.block))), p.problems.join('\n') || 'did not finish')
      await p.locator('#composer').click()
      await p.keyboard.type('@onb')
      await p.locator('mcp-mention [role="option"]').first().waitFor({ timeout: 10000 })
      await p.keyboard.press('ArrowDown')
      await p.keyboard.press('Enter')
      await p.waitForFunction(() => /^docs:\/\/\S+ text\/markdown forModel=true$/m.test(document.querySelector('#log').textContent), null, { timeout: 10000 })
      assert.deepEqual(p.problems, [])
    } finally {
      await p.close()
    }
  })

  test('without -origin it is refused, and the error says the fix (README Troubleshooting)', async () => {
    const p = await open(srv)
    try {
      const end = Date.now() + 15000
      while (!p.problems.some((m) => /refused/.test(m)) && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
      const msg = p.problems.join('\n')
      // What the README says the console shows.
      assert.ok(msg.includes(`refused the connection (HTTP 403): origin "${pagesUrl}" is not allowed: start mcphost with -origin ${pagesUrl}`), msg)
    } finally {
      await p.close()
    }
  })
})
