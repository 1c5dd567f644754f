// A consumer as a web developer would write it: import the module from its
// source path and let the bundler carry mcphost.wasm and wasm_exec.js along
// (mcphost.js names them with new URL(..., import.meta.url)). The test passes
// the server's WebSocket URL and a document to attach in the query string.
import { connect, MCPError } from '../../web/mcphost.js'
import '../../web/mention.js' // <mcp-mention>, and its modules in web/mention/

const out = document.querySelector('#out')
const params = new URLSearchParams(location.search)

// Types @onb into the composer and resolves with the picker's options once
// it shows some (it follows the listing: no other key is needed).
async function pick(host) {
  const picker = document.querySelector('mcp-mention')
  const ta = document.querySelector('#composer')
  picker.hosts = [host]
  ta.focus()
  ta.value = '@onb'
  ta.setSelectionRange(4, 4)
  ta.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: 'onb' }))
  for (let i = 0; i < 200 && !picker.listbox.querySelector('[role=option][id*=-opt-]'); i++) await new Promise(r => setTimeout(r, 50))
  return [...picker.listbox.querySelectorAll('[role=option] .mcp-mention-uri')].map(e => e.textContent)
}

async function main() {
  const host = await connect(params.get('mcp'), { clientInfo: { name: 'vite-consumer', version: '1.0' } })
  const picked = await pick(host)
  const resources = await host.resources()
  const [part] = await host.attach(params.get('uri'))
  // A Markdown part is rendered in the render Worker, which the bundle must
  // carry along too (render-worker.js, named with new URL(..., import.meta.url)).
  const [md] = await host.attach(params.get('md'))
  let notFound
  try {
    await host.attach(params.get('uri') + '.missing')
  } catch (e) {
    notFound = { isMCPError: e instanceof MCPError, kind: e.kind }
  }
  const result = {
    serverInfo: host.serverInfo.name,
    resources: resources.length,
    mention: host.mention('onboarding', { limit: 3 }).length,
    picked,
    part: { kind: part.kind, mimeType: part.mimeType, bytes: part.bytes?.length ?? 0, text: part.text?.length ?? 0 },
    markdown: { h1: /<h1[ >]/.test(md.html ?? ''), warnings: md.warnings },
    notFound,
    globals: ['process', 'fs', 'path', 'Go'].filter(n => n in globalThis),
  }
  await host.close()
  return result
}

main().then(
  r => {
    window.result = r
    out.textContent = JSON.stringify(r, null, 2)
  },
  e => {
    window.result = { error: String(e?.message ?? e), kind: e?.kind }
    out.textContent = 'failed: ' + window.result.error
  },
)
