// Prompts (issue 19) through the JavaScript API in headless Chromium:
// against the documents server (its two prompts embed documents, read as
// the connection's principal) and against server-everything through the
// -stdio gateway (simple, argument-taking and resource-embedding prompts,
// completion of a prompt argument).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { launchBrowser, root, startMcphost } from './harness.mjs'
import WebSocket from 'ws'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js'

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

// server-everything's dynamic resources say when they were made ("created at
// 1:08:28 PM"), in text or in base64 bytes: two reads differ only there.
const TIME = /\d{1,2}:\d{2}:\d{2}\s?[AP]M/g
function untimed(v) {
  if (!v || typeof v !== 'object') return v
  const out = { ...v }
  if (typeof out.text === 'string') out.text = out.text.replace(TIME, '<time>')
  if (typeof out.blob === 'string') out.blob = Buffer.from(out.blob, 'base64').toString('utf8').replace(TIME, '<time>')
  return out
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
  // Interop (issue 19): the same server-everything, through the same -stdio
  // gateway, read by mcphost in the browser and by the TypeScript SDK v1
  // Client (@modelcontextprotocol/sdk, WebSocketClientTransport, as
  // e2e/ts-client.mjs): every field of every listed prompt, and of the
  // simple, argument-taking and resource-embedding prompts' results, and a
  // prompt argument's completion, must be the same.
  test('interop: server-everything prompts through -stdio, field by field against the TypeScript SDK client', { timeout: 120000 }, async () => {
    const srv = await startMcphost(['-stdio', `node ${everything} stdio`])
    const page = await openPage(srv.url)
    globalThis.WebSocket ??= WebSocket // Node 20 has no global WebSocket
    const ts = new Client({ name: 'ts-interop', version: '1.0.0' })
    try {
      await ts.connect(new WebSocketClientTransport(new URL(srv.wsUrl)))
      const tsList = []
      let cursor
      do {
        const pageOf = await ts.listPrompts(cursor ? { cursor } : {})
        tsList.push(...pageOf.prompts)
        cursor = pageOf.nextCursor
      } while (cursor)
      const calls = [
        ['simple-prompt', {}],
        ['args-prompt', { city: 'Lisbon', state: 'Lisboa' }],
        ['args-prompt', { city: 'Porto' }],
        ['resource-prompt', { resourceType: 'Text', resourceId: '1' }],
        ['resource-prompt', { resourceType: 'Blob', resourceId: '2' }],
      ]
      const tsGot = []
      for (const [name, args] of calls) tsGot.push(await ts.getPrompt({ name, arguments: args }))
      const tsDone = (await ts.complete({ ref: { type: 'ref/prompt', name: 'resource-prompt' }, argument: { name: 'resourceType', value: '' } })).completion

      const mine = await page.evaluate(async ({ url, calls }) => {
        const h = await window.mcphost.connect(url)
        const prompts = await h.prompts()
        const got = []
        for (const [name, args] of calls) {
          const r = await h.getPrompt(name, args)
          got.push({
            description: r.description, name: r.name, dropped: r.dropped,
            messages: r.messages.map(m => ({ role: m.role, content: m.content })),
            parts: r.messages.map(m => m.parts?.map(p => ({ uri: p.uri, kind: p.kind, mimeType: p.mimeType, text: p.text, size: p.size, forModel: p.forModel })) ?? null),
          })
        }
        const done = await h.completePrompt('resource-prompt', 'resourceType', '')
        await h.close()
        return { prompts, got, done }
      }, { url: srv.wsUrl, calls })

      // the listing: the same prompts in the same order, each field the same
      assert.deepEqual(mine.prompts.map(p => p.name), tsList.map(p => p.name))
      for (const n of ['simple-prompt', 'args-prompt', 'resource-prompt']) assert.ok(tsList.some(p => p.name === n), `${n} listed`)
      for (let i = 0; i < tsList.length; i++) {
        const a = mine.prompts[i]
        const b = tsList[i]
        assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `fields of ${b.name}`)
        for (const k of Object.keys(b)) {
          if (k !== 'arguments') assert.deepEqual(a[k], b[k], `${b.name}.${k}`)
        }
        assert.equal(a.arguments?.length, b.arguments?.length, `${b.name}.arguments`)
        ;(b.arguments ?? []).forEach((arg, j) => {
          // "required" defaults to false (spec): mcphost's descriptor leaves
          // a false one out (bridge.PromptArgument omitempty), the TS client
          // keeps what the server sent; every other field exactly
          const { required, ...rest } = arg
          const { required: mineRequired, ...mineRest } = a.arguments[j]
          assert.deepEqual(mineRest, rest, `${b.name}.arguments[${j}]`)
          assert.equal(!!mineRequired, !!required, `${b.name}.arguments[${j}].required`)
          if (mineRequired !== undefined) assert.equal(mineRequired, true, 'present only when true')
        })
      }
      // the results: description and every message's role and content block as the server sent them
      calls.forEach(([name, args], i) => {
        const a = mine.got[i]
        const b = tsGot[i]
        const what = `${name} ${JSON.stringify(args)}`
        assert.equal(a.name, name)
        assert.equal(a.description, b.description ?? '', `${what}: description`)
        assert.deepEqual(a.dropped, [], `${what}: nothing attached, nothing dropped`)
        assert.equal(a.messages.length, b.messages.length, `${what}: messages`)
        b.messages.forEach((m, k) => {
          assert.equal(a.messages[k].role, m.role, `${what}: messages[${k}].role`)
          assert.deepEqual(Object.keys(a.messages[k].content).sort(), Object.keys(m.content).sort(), `${what}: messages[${k}].content fields`)
          for (const f of Object.keys(m.content)) assert.deepEqual(untimed(a.messages[k].content[f]), untimed(m.content[f]), `${what}: messages[${k}].content.${f}`)
        })
      })
      assert.equal(tsGot[0].messages[0].content.text, 'This is a simple prompt without arguments.')
      assert.equal(mine.got[1].messages[0].content.text, "What's weather in Lisbon, Lisboa?")
      assert.equal(mine.got[2].messages[0].content.text, "What's weather in Porto?")
      // the embedded resources: the block as sent, and the attachment made of it
      for (const i of [3, 4]) {
        const k = tsGot[i].messages.findIndex(m => m.content.type === 'resource')
        assert.ok(k >= 0, `${calls[i][1].resourceType}: a resource message`)
        const res = tsGot[i].messages[k].content.resource
        const parts = mine.got[i].parts[k]
        assert.equal(parts.length, 1)
        assert.equal(parts[0].uri, res.uri)
        assert.equal(parts[0].forModel, true)
        if (res.text != null) assert.equal(parts[0].text.replace(TIME, '<time>'), res.text.replace(TIME, '<time>'))
        else assert.equal(parts[0].size, Buffer.from(res.blob, 'base64').length)
      }
      assert.match(tsGot[3].messages.find(m => m.content.type === 'resource').content.resource.uri, /^demo:\/\/resource\/dynamic\/text\/1$/)
      assert.match(tsGot[4].messages.find(m => m.content.type === 'resource').content.resource.uri, /^demo:\/\/resource\/dynamic\/blob\/2$/)
      // completion of a prompt argument
      assert.deepEqual(mine.done.values, tsDone.values)
      assert.equal(mine.done.total, tsDone.total)
      assert.equal(!!mine.done.hasMore, !!tsDone.hasMore)
      assert.ok(tsDone.values.length >= 2, JSON.stringify(tsDone))
      assert.deepEqual(page.problems, [])
    } finally {
      await ts.close().catch(() => {})
      await page.close()
      await srv.stop()
    }
  })
})
