// Bad input and settling, in Chromium against the documents server: every
// argument the API takes is checked in the page or in Go, and a bad one is
// rejected with kind "invalid" (or "limit") naming it, as an MCPError, never
// a raw TypeError, never a synchronous throw from a method that returns a
// promise; nothing else is lost. And every promise settles: connect() with a
// module download that never finishes ends by its signal or its
// connectTimeoutMs.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { launchBrowser, root, startMcphost } from './harness.mjs'

const W = 'docs://team/platform/onboarding/welcome.md'
let docs, srv, browser

before(async () => {
  docs = mkdtempSync(path.join(tmpdir(), 'mcphost-args-'))
  cpSync(path.join(root, 'cmd', 'mcphost', 'internal', 'sampledocs'), docs, { recursive: true })
  srv = await startMcphost(['-docs', docs])
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await srv?.stop()
  rmSync(docs, { recursive: true, force: true })
})

async function apiPage() {
  const page = await browser.context.newPage()
  await page.goto(srv.url + 'test/api.html')
  await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 })
  // outcome(fn) runs fn and says how it ended: a value, a rejection, a
  // synchronous throw, or still pending after ms.
  await page.evaluate(() => {
    window.outcome = async (fn, ms = 4000) => {
      let p
      try {
        p = fn()
      } catch (e) {
        return { how: 'threw', ...window.errorFields(e) }
      }
      const late = new Promise(resolve => setTimeout(() => resolve({ how: 'pending' }), ms))
      return Promise.race([
        Promise.resolve(p).then(v => ({ how: 'resolved', value: v }), e => ({ how: 'rejected', ...window.errorFields(e) })),
        late,
      ])
    }
  })
  return page
}

test('bad arguments reject with kind invalid naming the argument; the host goes on', async () => {
  const page = await apiPage()
  try {
    const r = await page.evaluate(async (W) => {
      const h = await window.mcphost.connect('/mcp')
      const cycle = {}
      cycle.self = cycle
      const throwing = { get team() { throw new Error('getter boom') } }
      const out = {
        attachUndefined: await window.outcome(() => h.attach(undefined)),
        attachObject: await window.outcome(() => h.attach({})),
        attachEmpty: await window.outcome(() => h.attach('')),
        includeNumber: await window.outcome(() => h.include(42)),
        replaceUndefined: await window.outcome(() => h.replace(W, undefined)),
        callToolCycle: await window.outcome(() => h.callTool('search_documents', cycle)),
        callToolBigInt: await window.outcome(() => h.callTool('search_documents', { n: 1n })),
        callToolString: await window.outcome(() => h.callTool('search_documents', 'refunds')),
        callToolNoName: await window.outcome(() => h.callTool(undefined, {})),
        getPromptGetter: await window.outcome(() => h.getPrompt('summarize', throwing)),
        completeGetter: await window.outcome(() => h.complete('docs://team/{team}/x', 'team', '', throwing)),
        completePromptGetter: await window.outcome(() => h.completePrompt('summarize', 'doc', '', throwing)),
        expandGetter: await window.outcome(() => h.expand('docs://team/{team}', throwing)),
        expandUndefined: await window.outcome(() => h.expand(undefined, {})),
        filterCycle: await window.outcome(() => h.filterToolResult(cycle)),
        optionsGetter: await window.outcome(() => h.resources({ get signal() { throw new Error('options boom') } })),
        signalObject: await window.outcome(() => h.resources({ signal: {} })),
        signalString: await window.outcome(() => h.attach(W, { signal: 'x' })),
        connectUndefined: await window.outcome(() => window.mcphost.connect(undefined)),
        connectBadURL: await window.outcome(() => window.mcphost.connect('http://[bad')),
        connectBadOptions: await window.outcome(() => window.mcphost.connect('/mcp', 'fast')),
        connectSignalObject: await window.outcome(() => window.mcphost.connect('/mcp', { signal: {} })),
      }
      // A server's error keeps its own message apart; a local one has none.
      out.notFound = await window.outcome(() => h.attach('docs://team/platform/no-such-document.md'))
      // The same host still works, and a null options object is no options.
      out.mentionNullOptions = await window.outcome(() => h.mention('welcome', null).length)
      out.attachAfter = await window.outcome(async () => (await h.attach(W))[0].state)
      out.errorNullInit = await window.outcome(() => new window.mcphost.MCPError('m', null).kind)
      await h.close()
      return out
    }, W)
    const invalid = {
      attachUndefined: 'uri', attachObject: 'uri', attachEmpty: 'uri', includeNumber: 'uri', replaceUndefined: 'newUri',
      callToolCycle: 'arguments', callToolBigInt: 'arguments', callToolString: 'arguments', callToolNoName: 'name',
      getPromptGetter: 'arguments', completeGetter: 'contextArgs', completePromptGetter: 'contextArgs',
      optionsGetter: 'options', signalObject: 'options.signal', signalString: 'options.signal',
      connectUndefined: 'url', connectBadURL: 'url', connectBadOptions: 'options', connectSignalObject: 'options.signal',
    }
    for (const [name, field] of Object.entries(invalid)) {
      const o = r[name]
      assert.equal(o.how, 'rejected', `${name}: ${JSON.stringify(o)}`)
      assert.ok(o.isMCPError, `${name}: not an MCPError: ${JSON.stringify(o)}`)
      assert.equal(o.kind, 'invalid', `${name}: ${JSON.stringify(o)}`)
      assert.equal(o.data?.field, field, `${name}: ${JSON.stringify(o)}`)
      assert.ok(o.message.startsWith(field + ':'), `${name}: the message names ${field}: ${o.message}`)
      assert.equal(o.retryable, false, name)
    }
    // Synchronous methods throw, as MCPErrors of kind invalid naming the argument.
    for (const [name, field] of Object.entries({ expandGetter: 'vars', expandUndefined: 'uriTemplate', filterCycle: 'result' })) {
      const o = r[name]
      assert.equal(o.how, 'threw', `${name}: ${JSON.stringify(o)}`)
      assert.ok(o.isMCPError && o.kind === 'invalid' && o.data?.field === field, `${name}: ${JSON.stringify(o)}`)
    }
    assert.equal(r.notFound.kind, 'not_found', JSON.stringify(r.notFound))
    assert.ok(typeof r.notFound.serverMessage === 'string' && r.notFound.serverMessage !== '', JSON.stringify(r.notFound))
    assert.ok(r.notFound.message.includes(r.notFound.serverMessage), JSON.stringify(r.notFound))
    assert.equal(r.attachUndefined.serverMessage, undefined)
    assert.equal(r.mentionNullOptions.how, 'resolved', JSON.stringify(r.mentionNullOptions))
    assert.ok(r.mentionNullOptions.value > 0)
    assert.deepEqual(r.attachAfter, { how: 'resolved', value: 'fresh' })
    assert.deepEqual(r.errorNullInit, { how: 'resolved', value: 'error' })
  } finally {
    await page.close()
  }
})

test('a URI over 8 KiB fails at once with kind limit; the session and the context are untouched', async () => {
  const page = await apiPage()
  try {
    const r = await page.evaluate(async (W) => {
      const h = await window.mcphost.connect('/mcp')
      const events = window.events(h)
      await h.attach(W)
      const huge = await window.outcome(() => h.attach('docs://team/' + 'a'.repeat(5e6)), 10000)
      const justOver = await window.outcome(() => h.attach('docs://team/' + 'a'.repeat(8192)), 10000)
      // Another call on the same session still answers.
      const again = await window.outcome(async () => (await h.attach(W))[0].state)
      const out = {
        huge, justOver, again,
        context: h.attachments().map(a => `${a.uri} ${a.state}`),
        events: events.filter(e => e.type !== 'listprogress').map(e => e.type),
      }
      await h.close()
      return out
    }, W)
    for (const o of [r.huge, r.justOver]) {
      assert.equal(o.how, 'rejected', JSON.stringify(o).slice(0, 500))
      assert.equal(o.kind, 'limit', o.message.slice(0, 500))
      assert.match(o.message, /over the 8192 this client sends/)
      assert.ok(o.message.length < 1000, `the message quotes the URI whole: ${o.message.length} characters`)
      assert.equal(o.data?.field, 'uri')
    }
    assert.deepEqual(r.again, { how: 'resolved', value: 'fresh' })
    assert.deepEqual(r.context, [`${W} fresh`])
    assert.deepEqual(r.events.filter(t => t === 'disconnected' || t === 'stale'), [], `events: ${r.events}`)
  } finally {
    await page.close()
  }
})

test('a pasted megabyte at the caret: mention answers as for its first 256 characters', async () => {
  const page = await apiPage()
  try {
    const r = await page.evaluate(async () => {
      const h = await window.mcphost.connect('/mcp')
      await h.resources()
      const uris = ms => ms.map(m => m.resource?.uri ?? m.resourceTemplate?.uriTemplate)
      const cut = 'welcome' + 'x'.repeat(249)
      const out = {
        huge: uris(h.mention('welcome' + 'x'.repeat(1 << 20))),
        cut: uris(h.mention(cut)),
        short: uris(h.mention('welcome')).length,
      }
      await h.close()
      return out
    })
    assert.deepEqual(r.huge, r.cut)
    assert.ok(r.short > 0)
  } finally {
    await page.close()
  }
})

test('connect() settles when the module never arrives: an aborted signal at once, a later abort, connectTimeoutMs', async () => {
  const page = await browser.context.newPage()
  const held = []
  // The module's request is held, never answered, until the page closes.
  await page.route('**/mcphost.wasm*', route => { held.push(route) })
  try {
    await page.goto(srv.url + 'test/api.html')
    await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 })
    const r = await page.evaluate(async () => {
      const { connect } = window.mcphost
      const timed = async p => {
        const t0 = performance.now()
        try {
          await p
          return { ok: true }
        } catch (e) {
          return { ...window.errorFields(e), ms: performance.now() - t0 }
        }
      }
      const aborted = AbortSignal.abort(new Error('too late'))
      const c = new AbortController()
      setTimeout(() => c.abort(new Error('user left')), 300)
      const [before, later, timeout] = await Promise.all([
        timed(connect('/mcp', { signal: aborted })),
        timed(connect('/mcp', { signal: c.signal })),
        timed(connect('/mcp', { connectTimeoutMs: 600 })),
      ])
      return { before, later, timeout }
    })
    assert.equal(r.before.kind, 'cancelled', JSON.stringify(r.before))
    assert.equal(r.before.name, 'AbortError')
    assert.match(r.before.message, /too late/)
    assert.equal(r.later.kind, 'cancelled', JSON.stringify(r.later))
    assert.match(r.later.message, /user left/)
    assert.equal(r.timeout.kind, 'timeout', JSON.stringify(r.timeout))
    assert.match(r.timeout.message, /mcphost\.wasm.*connectTimeoutMs \(600 ms\)/)
    assert.equal(r.timeout.retryable, true)
    assert.ok(held.length >= 1, 'the module was asked for and held')
  } finally {
    await page.close()
  }
})

test('close() twice: the second resolves once the first has finished; errors say when no reconnect is coming', async () => {
  const page = await apiPage()
  try {
    const r = await page.evaluate(async (W) => {
      const h = await window.mcphost.connect('/mcp')
      await h.attach(W)
      let firstDone = false
      h.close().then(() => { firstDone = true })
      await h.close()
      const { MCPError } = window.mcphost
      return {
        firstDoneWhenSecondResolved: firstDone,
        after: await window.outcome(() => h.attach(W)),
        notRetryable: new MCPError('x', { kind: 'unavailable', data: { retryable: false } }).retryable,
        retryable: new MCPError('x', { kind: 'unavailable' }).retryable,
      }
    }, W)
    assert.equal(r.firstDoneWhenSecondResolved, true)
    assert.equal(r.after.how, 'rejected')
    assert.equal(r.notRetryable, false)
    assert.equal(r.retryable, true)
  } finally {
    await page.close()
  }
})

test('no event fires once close() was called, not even one already on its way', async () => {
  const page = await apiPage()
  try {
    const r = await page.evaluate(async () => {
      const types = ['updated', 'fresh', 'stale', 'gone', 'superseded', 'listchanged', 'promptslistchanged',
        'listprogress', 'disconnected', 'reconnected', 'restored']
      const record = (h) => {
        const seen = []
        for (const t of types) h.addEventListener(t, () => seen.push(t))
        return seen
      }
      const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))
      // The control: a host left open gets the listing's events that
      // arrived while it connected, after `await connect()` resumed.
      const open = await window.mcphost.connect('/mcp')
      const control = record(open)
      // The same, closed at once: those events are dropped.
      const closedAtOnce = await window.mcphost.connect('/mcp')
      const atOnce = record(closedAtOnce)
      const closing = closedAtOnce.close()
      // A listener that closes its host: nothing after the event it got.
      const byListener = await window.mcphost.connect('/mcp')
      const fromListener = record(byListener)
      byListener.addEventListener('listprogress', () => byListener.close(), { once: true })
      await closing
      await sleep(1000)
      await open.close()
      return { control, atOnce, fromListener }
    })
    assert.ok(r.control.includes('listprogress'), `the open host got the connect's events: ${r.control}`)
    assert.deepEqual(r.atOnce, [], 'a host closed at once fires nothing')
    assert.deepEqual(r.fromListener, ['listprogress'], 'nothing fires after the listener closed its host')
  } finally {
    await page.close()
  }
})
