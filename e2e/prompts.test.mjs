// Prompts (issue 19) through the JavaScript API in headless Chromium:
// against the documents server (its two prompts embed documents, read as
// the connection's principal) and against server-everything through the
// -stdio gateway (simple, argument-taking and resource-embedding prompts,
// completion of a prompt argument).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { launchBrowser, root, startMcphost } from './harness.mjs'

const everything = path.join(root, 'e2e', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js')
let browser

before(async () => { browser = await launchBrowser() })
after(async () => { await browser?.close() })

async function openPage(base) {
  const page = await browser.context.newPage()
  page.problems = []
  page.on('pageerror', e => page.problems.push(String(e)))
  page.on('console', m => { if (m.type() === 'error' && !/favicon/.test(m.location()?.url ?? '')) page.problems.push(m.text()) })
  await page.goto(base + 'test/api.html')
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 })
  return page
}

describe('prompts', () => {
  test('documents server: listed apart from resources, arguments checked, documents embedded as attachments, an attached one not repeated', { timeout: 60000 }, async () => {
    const srv = await startMcphost([])
    const page = await openPage(srv.url)
    try {
      const out = await page.evaluate(async (url) => {
        const h = await window.mcphost.connect(url)
        const events = window.events(h)
        const settle = p => p.then(v => ({ ok: true, v }), e => ({ ok: false, e: window.errorFields(e) }))
        const prompts = await h.prompts()
        const missing = await settle(h.getPrompt('summarize_document', {}))
        const unknown = await settle(h.getPrompt('no-such-prompt'))
        const completion = await h.completePrompt('summarize_document', 'uri', 'welcome')
        const welcome = 'docs://team/platform/onboarding/welcome.md'
        const fresh = await h.getPrompt('summarize_document', { uri: welcome })
        await h.attach(welcome)
        const again = await h.getPrompt('summarize_document', { uri: welcome })
        const resources = (await h.resources()).map(r => r.uri)
        await h.close()
        return {
          prompts: prompts.map(p => [p.name, (p.arguments ?? []).map(a => `${a.name}${a.required ? '!' : ''}`).join(',')]).sort(),
          missing, unknown, completion,
          fresh: fresh.messages.map(m => ({ role: m.role, type: m.content.type, parts: m.parts?.map(p => ({ uri: p.uri, kind: p.kind, h1: /<h1[^>]*>/.test(p.html ?? ''), forModel: p.forModel })) })),
          again: { messages: again.messages.map(m => m.content.type), dropped: again.dropped },
          promptsAsResources: resources.filter(u => !u.startsWith('docs://')),
        }
      }, srv.wsUrl)
      assert.deepEqual(out.prompts, [['compare_documents', 'first!,second!'], ['summarize_document', 'uri!']])
      assert.equal(out.missing.ok, false)
      assert.equal(out.missing.e.kind, 'invalid')
      assert.match(out.missing.e.message, /missing required argument "uri"/)
      assert.equal(out.unknown.e.kind, 'invalid')
      assert.match(out.unknown.e.message, /"no-such-prompt"/)
      assert.ok(out.completion.values.includes('docs://team/platform/onboarding/welcome.md'), JSON.stringify(out.completion))
      assert.deepEqual(out.fresh, [
        { role: 'user', type: 'resource', parts: [{ uri: 'docs://team/platform/onboarding/welcome.md', kind: 'text', h1: true, forModel: true }] },
        { role: 'user', type: 'text', parts: undefined },
      ])
      assert.deepEqual(out.again.messages, ['text'], 'the attached document is not put into the conversation again')
      assert.equal(out.again.dropped[0].uri, 'docs://team/platform/onboarding/welcome.md')
      assert.deepEqual(out.promptsAsResources, [])
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
      await srv.stop()
    }
  })

  test('server-everything through -stdio: simple, argument-taking and resource-embedding prompts, argument completion', { timeout: 90000 }, async () => {
    const srv = await startMcphost(['-stdio', `node ${everything} stdio`])
    const page = await openPage(srv.url)
    try {
      const out = await page.evaluate(async (url) => {
        const h = await window.mcphost.connect(url)
        const prompts = await h.prompts()
        const simple = await h.getPrompt('simple-prompt')
        const args = await h.getPrompt('args-prompt', { city: 'Lisbon', state: 'Lisboa' })
        const types = await h.completePrompt('resource-prompt', 'resourceType', '')
        const res = await h.getPrompt('resource-prompt', { resourceType: types.values[0], resourceId: '1' })
        await h.close()
        return {
          names: prompts.map(p => p.name).sort(),
          argsPrompt: prompts.find(p => p.name === 'args-prompt'),
          simple: simple.messages.map(m => [m.role, m.content.type]),
          args: args.messages[0].content.text,
          types: types.values,
          res: res.messages.map(m => ({ type: m.content.type, parts: m.parts?.length ?? 0, uri: m.parts?.[0]?.uri })),
        }
      }, srv.wsUrl)
      for (const n of ['simple-prompt', 'args-prompt', 'resource-prompt', 'completable-prompt']) assert.ok(out.names.includes(n), `${n} in ${out.names}`)
      assert.deepEqual(out.argsPrompt.arguments.map(a => [a.name, !!a.required]), [['city', true], ['state', false]])
      assert.equal(out.argsPrompt.title, 'Arguments Prompt')
      assert.deepEqual(out.simple, [['user', 'text']])
      assert.equal(out.args, "What's weather in Lisbon, Lisboa?")
      assert.ok(out.types.length >= 2, JSON.stringify(out.types))
      assert.equal(out.res[0].type, 'text')
      assert.equal(out.res[1].type, 'resource')
      assert.equal(out.res[1].parts, 1)
      assert.match(out.res[1].uri, /^demo:\/\/resource\/dynamic\/text\/1$/)
      assert.deepEqual(page.problems, [])
    } finally {
      await page.close()
      await srv.stop()
    }
  })
})
