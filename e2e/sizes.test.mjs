// Sizes and MCP App resources in Chromium (issue 16 §3, §4): a part over
// maxModelTokens (the 1.3 MB api-changelog.md of the built-in documents
// server, ≈325,000 tokens) attaches withheld from the model with a warning,
// the tool-result filter does not count it as in the context, and
// host.include() sends it anyway; an MCP App view from a stdio server
// (e2e/mcp-app-stdio.mjs through `mcphost -stdio`) is marked, withheld and
// keeps its type and _meta.ui, and an app-only tool is not modelVisible.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { launchBrowser, root, startMcphost } from './harness.mjs'

const CHANGELOG = 'docs://team/payments/reference/api-changelog.md'
const WELCOME = 'docs://team/platform/onboarding/welcome.md'
const APP = 'ui://clock/mcp-app.html'
const BARE = 'ui://clock/bare.html'

let browser

before(async () => {
  browser = await launchBrowser()
})
after(async () => {
  await browser?.close()
})

async function openPage(srv) {
  const page = await browser.context.newPage()
  const problems = []
  page.on('pageerror', e => problems.push(String(e)))
  page.on('console', m => {
    if (m.type() === 'error' && !/favicon/.test(m.location()?.url ?? '')) problems.push(m.text())
  })
  await page.goto(srv.url + 'test/api.html')
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 })
  page.problems = problems
  return page
}

describe('sizes: maxModelTokens and include()', () => {
  let srv
  before(async () => {
    srv = await startMcphost([]) // the built-in documents server over the sample documents
  })
  after(async () => {
    await srv?.stop()
  })

  test('a >100k-token document attaches not for the model, with a warning; the filter keeps its copy; include() flips it', async () => {
    const page = await openPage(srv)
    try {
      const r = await page.evaluate(async ([changelog, welcome]) => {
        const pick = p => ({ forModel: p.forModel, withheld: p.withheld, mcpApp: p.mcpApp, size: p.size, warnings: p.warnings, state: p.state })
        const h = await window.mcphost.connect('/mcp')
        await h.resources()
        const hint = h.mention('api-changelog', { limit: 5 }).find(m => m.resource?.uri === changelog)
        const small = h.mention('welcome', { limit: 5 }).find(m => m.resource?.uri === welcome)
        const [big] = await h.attach(changelog)
        const [ok] = await h.attach(welcome)
        // A tool result embedding the withheld document: not a duplicate.
        const embedded = { content: [{ type: 'resource', resource: { uri: changelog, mimeType: 'text/markdown', text: big.text } }] }
        const before = h.filterToolResult(embedded)
        const included = await h.include(changelog)
        const ctx = h.attachments().map(pick)
        const afterwards = h.filterToolResult(embedded)
        let notAttached
        try {
          await h.include('docs://team/platform/nope.md')
        } catch (e) {
          notAttached = window.errorFields(e)
        }
        await h.close()
        // Without a bound the same document goes to the model as before.
        const free = await window.mcphost.connect('/mcp', { maxModelTokens: Infinity })
        const [unbounded] = await free.attach(changelog)
        await free.close()
        return {
          hint: hint && { tokens: hint.tokens, withheld: hint.withheld, mcpApp: hint.mcpApp, size: hint.resource.size },
          small: small && { tokens: small.tokens, withheld: small.withheld },
          big: pick(big), ok: pick(ok), before: before.dropped, included: included.map(pick), ctx,
          afterwards: afterwards.dropped, notAttached, unbounded: pick(unbounded),
        }
      }, [CHANGELOG, WELCOME])
      // The picker can mark it before it is chosen.
      assert.ok(r.hint, 'api-changelog.md is offered')
      assert.equal(r.hint.tokens, Math.ceil(r.hint.size / 4))
      assert.ok(r.hint.tokens > 300000, `tokens ${r.hint.tokens}`)
      assert.equal(r.hint.withheld, 'too_large')
      assert.equal(r.hint.mcpApp, undefined)
      assert.equal(r.small.withheld, undefined)
      assert.ok(r.small.tokens > 0 && r.small.tokens < 100000)
      // Attached, withheld, with a warning saying why and how.
      assert.equal(r.big.forModel, false)
      assert.equal(r.big.withheld, 'too_large')
      assert.equal(r.big.state, 'fresh')
      assert.equal(r.big.mcpApp, false)
      const tokens = Math.ceil(r.big.size / 4)
      assert.deepEqual(r.big.warnings, [`about ${tokens} tokens (estimated as bytes / 4), over maxModelTokens (100000); ` +
        `attached but not sent to the model: host.include("${CHANGELOG}") sends it anyway`])
      assert.deepEqual(r.ok, { forModel: true, withheld: undefined, mcpApp: false, size: r.ok.size, warnings: [], state: 'fresh' })
      assert.deepEqual(r.before, [], 'a withheld document is not in the context: its copy in a tool result is kept')
      // include() flips it, and the filter now counts it.
      assert.equal(r.included.length, 1)
      assert.equal(r.included[0].forModel, true)
      assert.equal(r.included[0].withheld, undefined)
      assert.deepEqual(r.included[0].warnings, [`about ${tokens} tokens (estimated as bytes / 4), over maxModelTokens (100000); sent to the model anyway (host.include)`])
      assert.deepEqual(r.ctx.map(p => p.forModel), [true, true])
      assert.equal(r.afterwards.length, 1)
      assert.equal(r.afterwards[0].reason, 'duplicate')
      assert.equal(r.notAttached.kind, 'invalid')
      assert.match(r.notAttached.message, /"docs:\/\/team\/platform\/nope\.md": not attached/)
      assert.deepEqual({ forModel: r.unbounded.forModel, withheld: r.unbounded.withheld, warnings: r.unbounded.warnings },
        { forModel: true, withheld: undefined, warnings: [] })
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })
})

describe('MCP App resources through the stdio gateway', () => {
  let gw
  before(async () => {
    gw = await startMcphost(['-stdio', `node ${path.join(root, 'e2e', 'mcp-app-stdio.mjs')}`])
  })
  after(async () => {
    await gw?.stop()
  })

  test('an MCP App view is marked and not for the model, keeps its type and _meta.ui; an app-only tool is not modelVisible', async () => {
    const page = await openPage(gw)
    try {
      const r = await page.evaluate(async ([app, bare]) => {
        const pick = p => ({ forModel: p.forModel, withheld: p.withheld, mcpApp: p.mcpApp, mimeType: p.mimeType,
          declaredMimeType: p.declaredMimeType, ui: p.ui, metaUI: p._meta?.ui, warnings: p.warnings, hasText: typeof p.text === 'string' })
        const h = await window.mcphost.connect('/mcp', { timeoutMs: 30000 })
        await h.resources()
        const marks = Object.fromEntries(h.mention('', { limit: 10 }).map(m => [m.resource.uri, { mcpApp: m.mcpApp, withheld: m.withheld, tokens: m.tokens }]))
        const [view] = await h.attach(app)
        const [bareView] = await h.attach(bare)
        const [note] = await h.attach('note://readme')
        const tools = Object.fromEntries((await h.tools()).map(t => [t.name, { ui: t.ui, modelVisible: t.modelVisible }]))
        const [included] = await h.include(app)
        await h.close()
        return { marks, view: pick(view), bare: pick(bareView), note: pick(note), tools, included: pick(included) }
      }, [APP, BARE])
      assert.deepEqual(r.marks[APP], { mcpApp: true, withheld: 'mcp_app', tokens: r.marks[APP].tokens })
      assert.deepEqual(r.marks[BARE], { mcpApp: true, withheld: 'mcp_app', tokens: undefined })
      assert.deepEqual(r.marks['note://readme'], { mcpApp: undefined, withheld: undefined, tokens: 3 })
      const ui = { csp: { connectDomains: ['https://time.example'], resourceDomains: ['https://cdn.example'] },
        permissions: { clipboardWrite: {} }, prefersBorder: true }
      assert.deepEqual(r.view, {
        forModel: false, withheld: 'mcp_app', mcpApp: true, mimeType: 'text/html;profile=mcp-app',
        declaredMimeType: 'text/html;profile=mcp-app', ui, metaUI: ui, hasText: true,
        warnings: ['an MCP App view (text/html;profile=mcp-app): interactive UI for the host to render in a sandbox, not text for the model; ' +
          `attached but not sent to the model: host.include("${APP}") sends it anyway`],
      })
      assert.deepEqual(r.bare.ui, { prefersBorder: false }, "a part without _meta.ui takes its descriptor's")
      assert.equal(r.bare.metaUI, undefined)
      assert.equal(r.bare.forModel, false)
      assert.deepEqual({ forModel: r.note.forModel, mcpApp: r.note.mcpApp, withheld: r.note.withheld, ui: r.note.ui },
        { forModel: true, mcpApp: false, withheld: undefined, ui: undefined })
      assert.deepEqual(r.tools.show_clock, { ui: { resourceUri: APP }, modelVisible: true })
      assert.deepEqual(r.tools.clock_tick, { ui: { resourceUri: APP, visibility: ['app'] }, modelVisible: false })
      assert.equal(r.included.forModel, true, 'include() sends an MCP App view too, when asked')
      assert.equal(r.included.mcpApp, true)
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
    }
  })
})
