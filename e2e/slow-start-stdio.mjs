// A stdio MCP server (2025-11-25) that starts slowly, like a cold
// `npx -y @modelcontextprotocol/server-everything stdio`: it reads nothing
// for SLOW_START_MS (default 10 s) after it started, then answers everything
// queued meanwhile. One text resource; server/discover is -32601 (a legacy
// server), as the npm servers answer it. Used by e2e/connect.test.mjs behind
// `mcphost -stdio "node e2e/slow-start-stdio.mjs"`.
import { createInterface } from 'node:readline'

const delay = Number(process.env.SLOW_START_MS ?? 10000)
const URI = 'slow://start/hello.txt'
const ready = new Promise(r => setTimeout(r, delay))
const send = m => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n')

function answer(m) {
  switch (m.method) {
    case 'initialize':
      return { result: { protocolVersion: '2025-11-25', capabilities: { resources: { subscribe: true } },
        serverInfo: { name: 'slow-start', version: '1' } } }
    case 'resources/list':
      return { result: { resources: [{ uri: URI, name: 'hello.txt', mimeType: 'text/plain' }] } }
    case 'resources/templates/list':
      return { result: { resourceTemplates: [] } }
    case 'resources/read':
      return m.params?.uri === URI
        ? { result: { contents: [{ uri: URI, mimeType: 'text/plain', text: 'hello after a slow start' }] } }
        : { error: { code: -32002, message: 'not found', data: { uri: m.params?.uri } } }
    case 'resources/subscribe': case 'resources/unsubscribe': case 'ping':
      return { result: {} }
    default:
      return { error: { code: -32601, message: `method not found: ${m.method}` } }
  }
}

createInterface({ input: process.stdin }).on('line', async line => {
  let m
  try {
    m = JSON.parse(line)
  } catch {
    return
  }
  await ready
  if (m.id === undefined || m.id === null || !m.method) return // a notification or a response
  send({ id: m.id, ...answer(m) })
})
process.stdin.on('end', () => process.exit(0))
