// The hostile-server suite (issue 14): what a server sends must never freeze
// the page, wedge a session or kill the runtime. Headless Debian Chromium
// drives the JavaScript API against e2e/hostile-peer.mjs (a scripted
// WebSocket server in this process) and, for the flood and deep-JSON cases,
// against e2e/hostile-stdio.mjs through the mcphost -stdio gateway.
//
// For every case of the issue's items 1–4 and 7, on one page:
// - the main thread sees no long task above 100 ms while the case runs
//   (PerformanceObserver "longtask", buffered: the page does nothing else,
//   so every long task in the window is mcphost's);
// - every call settles, with the right MCPError kind when it fails;
// - the affected host answers a normal call within 2 s after the payload;
// - a second host on the same page, connected before, keeps working.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { launchBrowser, mcphostInLongTasks, observeLongTasks, root, startMcphost } from './harness.mjs'
import { descriptor, startHostilePeer } from './hostile-peer.mjs'

const GOOD = 'good://docs/readme.md'
const sleep = ms => new Promise(r => setTimeout(r, ms))

let srv, peer, browser, page
const problems = []

before(async () => {
  srv = await startMcphost([])
  peer = await startHostilePeer({
    pagesFrom: srv.url,
    docs: { [GOOD]: { mimeType: 'text/markdown', text: '# Readme\n\nAll *well*.' } },
  })
  browser = await launchBrowser()
  page = await browser.context.newPage()
  page.on('pageerror', e => problems.push(String(e)))
  await page.goto(peer.httpUrl + 'test/api.html')
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 })
  await observeLongTasks(page)
  await page.evaluate(async (url) => {
    // The second host: connected first, it must keep working whatever the
    // hostile one receives. Its first attach also warms the runtime up (the
    // module's compile and start are one long task, before any case).
    window.good = await window.mcphost.connect(url, { maxDescriptors: 5000 })
    await window.good.attach('good://docs/readme.md')
  }, peer.url + 'good')
  await sleep(200)
}, { timeout: 60000 })

after(async () => {
  await page?.evaluate(() => window.good?.close()).catch(() => {})
  await browser?.close()
  await peer?.close()
  await srv?.stop()
  assert.deepEqual(problems, [])
})

/**
 * Runs one hostile case: connects a host to url as window.h (options added
 * to maxDescriptors 5000), runs body(h) in the page (a function source taking
 * h and returning a JSON-able value), then checks the four properties.
 * Returns body's value.
 */
async function hostileCase(url, body, opts = {}) {
  // A shared 2-core machine can take the CPU away mid-task, and V8's
  // collector runs inside whatever script is on the stack when it must: in
  // CPU profiles of the 100,000-ping flood here, one task of mcphost's held
  // 70–120 ms of "(garbage collector)" (the browser's own garbage of the
  // flood's message events) around 10–15 ms of mcphost's work. So a bound
  // missed is measured again on a fresh connection, up to three attempts in
  // all. That tolerance hides an intermittent regression: the ping answers
  // sent all in the reader's task missed the bound in 5 of 5 first attempts
  // but in 1 of 5 second ones, so the pacing behind each case is pinned
  // without a clock too (bridge's TestBatchPingFloodYields, pace's tests).
  const tries = []
  for (let i = 0; i < 3; i++) {
    const r = await attempt(url, body, opts)
    if (r.worst.ours <= 100) return r.out
    tries.push(r.worst)
  }
  assert.fail(`a main-thread long task over 100 ms in mcphost's scripts in each of ${tries.length} attempts: ${tries.map(w => `${w.ours.toFixed(0)} ms (task ${w.task.toFixed(0)} ms)`).join(', ')}`)
}

async function attempt(url, body, { options = {}, normal = 'evil://other', settleMs = 0 } = {}) {
  const t0 = await page.evaluate(() => performance.now())
  await page.evaluate(async ({ url, options }) => {
    window.h = await window.mcphost.connect(url, { maxDescriptors: 5000, ...options })
  }, { url, options })
  // body runs in the page on window.h (an expression Playwright evaluates
  // over CDP: the product's CSP allows no eval in the page itself).
  const out = await page.evaluate(`(${body.toString()})(window.h).then(
    value => ({ ok: true, value }), e => ({ ok: false, error: window.errorFields(e) }))`)
  if (settleMs) await sleep(settleMs)
  // The affected host answers a normal call within 2 s.
  const answered = await page.evaluate(async (normal) => {
    const t = performance.now()
    try {
      await window.h.attach(normal, { timeoutMs: 2000 })
      return { ok: true, ms: performance.now() - t }
    } catch (e) {
      return { ok: false, error: window.errorFields(e) }
    }
  }, normal)
  assert.ok(answered.ok, `the affected host did not answer a normal call: ${JSON.stringify(answered)}`)
  // The other host keeps working.
  const good = await page.evaluate(async () => {
    const parts = await window.good.attach('good://docs/readme.md', { timeoutMs: 2000 })
    return parts[0]?.html ?? ''
  })
  assert.match(good, /<h1[^>]*>Readme<\/h1>/)
  await sleep(100) // let the observers report the last frames
  const worst = await mcphostInLongTasks(page, t0, 100)
  await page.evaluate(() => window.h.close().catch(() => {}))
  return { out, worst }
}

/** A script whose resources/read of any URI answers { mimeType, text }. */
const serving = (mimeType, text) => ({
  'resources/list': () => ({ result: { resources: [descriptor('evil://doc', mimeType)] } }),
  'resources/read': m => ({ result: { contents: [{ uri: m.params.uri, mimeType, text }] } }),
})

const attachDoc = async h => {
  const parts = await h.attach('evil://doc')
  return parts.map(p => ({ kind: p.kind, html: (p.html ?? '').length, text: (p.text ?? '').length, warnings: p.warnings }))
}

describe('1. superlinear Markdown', () => {
  const cases = {
    'unclosed link destinations "[a](" × 20000': '[a]('.repeat(20000),
    'unmatched emphasis "*a_ " × 20000': '*a_ '.repeat(20000),
    '40,000 unused link reference definitions': Array.from({ length: 40000 }, (_, i) => `[r${i}]: https://example.com/${i}`).join('\n') + '\n\ntext\n',
  }
  for (const [name, text] of Object.entries(cases)) {
    test(name, { timeout: 60000 }, async () => {
      const url = peer.script(`md-${name.length}`, serving('text/markdown', text))
      const out = await hostileCase(url, attachDoc)
      assert.ok(out.ok, JSON.stringify(out))
      const [p] = out.value
      assert.equal(p.kind, 'text')
      assert.ok(p.html > 0, 'never shown as nothing')
    })
  }

  test('re-sent on every resources/updated for 3 s', { timeout: 60000 }, async () => {
    let version = 0
    const script = {
      ...serving('text/markdown', ''),
      'resources/read': m => ({ result: { contents: [{ uri: m.params.uri, mimeType: 'text/markdown', text: `v${++version}\n` + '[a]('.repeat(20000) }] } }),
      'resources/subscribe': (m, conn) => {
        const iv = setInterval(() => {
          if (!conn.alive()) return clearInterval(iv)
          conn.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: m.params.uri } })
        }, 50)
        setTimeout(() => clearInterval(iv), 3000)
        return { result: {} }
      },
    }
    const url = peer.script('md-updates', script)
    const out = await hostileCase(url, attachDoc, { settleMs: 3000 })
    assert.ok(out.ok, JSON.stringify(out))
    assert.ok(version >= 2, `only ${version} reads`)
  })
})

describe('2. deep nesting', () => {
  const cases = { 'list items "- " × 10000': '- '.repeat(10000) + 'a', 'block quotes ">" × 40000': '>'.repeat(40000) + 'a' }
  for (const [name, text] of Object.entries(cases)) {
    test(name, { timeout: 60000 }, async () => {
      const url = peer.script(`nest-${name.length}`, serving('text/markdown', text))
      const out = await hostileCase(url, attachDoc)
      assert.ok(out.ok, JSON.stringify(out))
      const [p] = out.value
      assert.ok(p.html > 0, 'never shown as nothing')
      assert.ok(p.warnings.some(w => /nest|plain text/i.test(w)), JSON.stringify(p.warnings))
    })
  }
})

describe('3. deep JSON', () => {
  test('a read answered by 20,000 nested arrays (40 KB) rejects with kind protocol', { timeout: 60000 }, async () => {
    const deep = '['.repeat(20000) + ']'.repeat(20000)
    const url = peer.script('deep-answer', {
      ...serving('text/plain', 'x'),
      'resources/read': m => m.params.uri === 'evil://doc'
        ? { raw: id => `{"jsonrpc":"2.0","id":${id},"result":{"contents":${deep}}}` }
        : serving('text/plain', 'normal')['resources/read'](m),
    })
    const out = await hostileCase(url, attachDoc)
    assert.equal(out.ok, false)
    assert.equal(out.error.kind, 'protocol', JSON.stringify(out.error))
  })

  // 1 MB: a thousand times the depth bound. (A 10 MB frame of any shape
  // costs the page ~80 ms just to cross into the module — the encoding and
  // the copy; frames that large are the performance issue's. Natively the
  // 10 MB frame is bridge's TestDeepFramesDoNotWedgeTheSession.)
  test('an unsolicited 1 MB frame of "[" is reported and the session goes on', { timeout: 60000 }, async () => {
    const url = peer.script('deep-push', {
      ...serving('text/plain', 'fine'),
      onReady: conn => conn.raw('['.repeat(1 << 20)),
    })
    const out = await hostileCase(url, async h => {
      await new Promise(r => setTimeout(r, 500))
      return (await h.attach('evil://doc')).map(p => p.text)
    })
    assert.ok(out.ok, JSON.stringify(out))
    assert.deepEqual(out.value, ['fine'])
  })
})

describe('4. a huge listing', () => {
  test('an endless listing stops at maxDescriptors and the host goes on', { timeout: 60000 }, async () => {
    let pages = 0
    const url = peer.script('endless', {
      'resources/read': m => ({ result: { contents: [{ uri: m.params.uri, mimeType: 'text/plain', text: 'one of many' }] } }),
      'resources/list': m => {
        const n = Number(m.params?.cursor ?? 0)
        pages++
        const resources = Array.from({ length: 1000 }, (_, i) => descriptor(`evil://many/${n * 1000 + i}`))
        return { result: { resources, nextCursor: String(n + 1) } }
      },
    })
    const out = await hostileCase(url, async h => {
      const progress = new Promise(r => h.addEventListener('listprogress', e => e.detail.done && r(e.detail)))
      const rs = await h.resources()
      const last = await progress
      return { count: rs.length, truncated: last.truncated, errors: last.errors, mention: h.mention('many', { limit: 3 }).length }
    }, { normal: 'evil://many/7' , options: {} })
    assert.ok(out.ok, JSON.stringify(out))
    assert.equal(out.value.count, 5000)
    assert.equal(out.value.truncated, true)
    assert.match(out.value.errors.join(' '), /maxDescriptors/)
    assert.ok(pages <= 6, `${pages} pages requested`)
  })
})

describe('7. floods', () => {
  // The browser alone needs ~10 s to deliver 200,000 frames on this 2-core
  // machine (a plain WebSocket counting them), so a read answered behind
  // them may time out: it must settle, and once the flood is through (the
  // list_changed the peer sends after it) the host answers within 2 s.
  const flood = (name, n, frame, text) => test(`${n.toLocaleString('en')} ${name} before an answer: the call settles, the host answers after`, { timeout: 90000 }, async () => {
    const url = peer.script(`flood-${name}`, {
      ...serving('text/plain', 'x'),
      'resources/read': (m, conn) => {
        if (m.params.uri !== 'evil://doc') return serving('text/plain', 'normal')['resources/read'](m)
        for (let i = 0; i < n; i++) conn.raw(frame(i))
        conn.send({ jsonrpc: '2.0', id: m.id, result: { contents: [{ uri: m.params.uri, mimeType: 'text/plain', text } ] } })
        conn.raw('{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}')
      },
    })
    const out = await hostileCase(url, async h => {
      const marker = window.nextEvent(h, 'listchanged', () => true, 60000)
      let first
      try {
        first = { text: (await h.attach('evil://doc')).map(p => p.text) }
      } catch (e) {
        first = { kind: e.kind, message: e.message }
      }
      await marker
      return first
    })
    assert.ok(out.ok, JSON.stringify(out))
    if (out.value.text) assert.deepEqual(out.value.text, [text])
    else assert.equal(out.value.kind, 'timeout', JSON.stringify(out.value))
  })
  flood('notifications', 200000, () => '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}', 'after the flood')
  flood('pings', 100000, i => `{"jsonrpc":"2.0","id":"p${i}","method":"ping"}`, 'after the pings')

  test('20,000 list_changed cause a handful of re-listings', { timeout: 60000 }, async () => {
    const url = peer.script('list-flood', {
      ...serving('text/plain', 'x'),
      onReady: conn => {
        setTimeout(() => {
          const frame = '{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}'
          for (let i = 0; i < 20000; i++) conn.raw(frame)
        }, 200)
      },
    })
    const out = await hostileCase(url, async h => {
      await h.resources()
      await new Promise(r => setTimeout(r, 2500))
      return h.mention('doc').length
    })
    assert.ok(out.ok, JSON.stringify(out))
    const lists = peer.requests('list-flood', 'resources/list')
    assert.ok(lists <= 10, `${lists} re-listings`)
  })

  test('a frame of invalid UTF-8: disconnect, and reconnects back off without resetting', { timeout: 60000 }, async () => {
    const name = 'bad-utf8'
    peer.script(name, {
      ...serving('text/plain', 'x'),
      onReady: conn => setTimeout(() => conn.raw(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), 20),
    })
    const detail = await page.evaluate(async (url) => {
      const h = await window.mcphost.connect(url)
      window.bad = h
      window.badEvents = window.events(h)
      return await window.nextEvent(h, 'disconnected', () => true, 5000)
    }, peer.url + name)
    assert.match(detail.reason, /not valid UTF-8/, JSON.stringify(detail))
    await sleep(7000)
    const n = peer.connections(name)
    assert.ok(n >= 3 && n <= 8, `${n} connections in 7 s`)
    await page.evaluate(() => window.bad.close().catch(() => {}))
    const good = await page.evaluate(async () => (await window.good.attach('good://docs/readme.md'))[0].kind)
    assert.equal(good, 'text')
  })
})

describe('5. magic-only sniffing', () => {
  test('a PNG signature followed by HTML is not forwarded as an image', { timeout: 30000 }, async () => {
    const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('<html><script>alert(1)</script></html>')])
    const url = peer.script('png-html', {
      'resources/read': m => ({ result: { contents: [{ uri: m.params.uri, mimeType: 'image/png', blob: bytes.toString('base64') }] } }),
    })
    const out = await hostileCase(url, async h => (await h.attach('evil://doc')).map(p => ({ kind: p.kind, forwardAsImage: p.forwardAsImage, warnings: p.warnings })))
    assert.ok(out.ok, JSON.stringify(out))
    const [p] = out.value
    assert.equal(p.forwardAsImage, false)
    assert.ok(p.warnings.some(w => /png|image|header/i.test(w)), JSON.stringify(p.warnings))
  })
})

describe('through the gateway (hostile stdio server)', () => {
  let gw
  before(async () => {
    gw = await startMcphost(['-stdio', `node ${path.join(root, 'e2e', 'hostile-stdio.mjs')}`])
  })
  after(async () => { await gw?.stop() })

  test('floods and deep JSON from a stdio server', { timeout: 90000 }, async () => {
    const gpage = await browser.context.newPage()
    try {
      await gpage.goto(gw.url + 'test/api.html')
      await gpage.waitForFunction(() => window.ready === true, null, { timeout: 30000 })
      const out = await gpage.evaluate(async (url) => {
        const h = await window.mcphost.connect(url, { timeoutMs: 30000 })
        const res = {}
        for (const uri of ['hostile://flood', 'hostile://pings', 'hostile://deep', 'hostile://fine']) {
          try {
            res[uri] = (await h.attach(uri, { timeoutMs: 30000 })).map(p => p.text)
          } catch (e) {
            res[uri] = { kind: e.kind, message: e.message }
          }
        }
        await h.close()
        return res
      }, gw.wsUrl)
      assert.deepEqual(out['hostile://flood'], ['after the flood'])
      assert.deepEqual(out['hostile://pings'], ['after the pings'])
      assert.equal(out['hostile://deep'].kind, 'protocol', JSON.stringify(out['hostile://deep']))
      assert.deepEqual(out['hostile://fine'], ['fine'])
    } finally {
      await gpage.close()
    }
  })
})
