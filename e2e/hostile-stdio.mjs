#!/usr/bin/env node
// A hostile MCP server on stdio (newline-delimited JSON-RPC, MCP 2025-11-25)
// for the hostile-server suite, reached through `mcphost -stdio`. Its
// resources are the payloads:
//
//   hostile://flood  20,000 notifications/message, then the answer
//   hostile://pings  10,000 ping requests to the client, then the answer
//   hostile://deep   answered by 20,000 nested arrays
//   hostile://fine   an ordinary document ("fine")
import { createInterface } from 'node:readline'

const out = []
let scheduled = false
// Writes are batched per tick: 50,000 lines must not cost 50,000 syscalls.
function write(line) {
  out.push(line)
  if (!scheduled) {
    scheduled = true
    setImmediate(() => {
      scheduled = false
      process.stdout.write(out.splice(0).join('\n') + '\n')
    })
  }
}
const send = obj => write(JSON.stringify(obj))
const text = (id, uri, t) => send({ jsonrpc: '2.0', id, result: { contents: [{ uri, mimeType: 'text/plain', text: t }] } })
const URIS = ['hostile://flood', 'hostile://pings', 'hostile://deep', 'hostile://fine']

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', line => {
  let m
  try {
    m = JSON.parse(line)
  } catch {
    return
  }
  if (m.id === undefined || m.method === undefined) return
  const p = m.params ?? {}
  switch (m.method) {
    case 'initialize':
      return send({
        jsonrpc: '2.0', id: m.id,
        result: { protocolVersion: '2025-11-25', capabilities: { resources: {} }, serverInfo: { name: 'hostile-stdio', version: '1' } },
      })
    case 'ping':
      return send({ jsonrpc: '2.0', id: m.id, result: {} })
    case 'resources/list':
      return send({ jsonrpc: '2.0', id: m.id, result: { resources: URIS.map(uri => ({ uri, name: uri.slice(10), mimeType: 'text/plain' })) } })
    case 'resources/templates/list':
      return send({ jsonrpc: '2.0', id: m.id, result: { resourceTemplates: [] } })
    case 'resources/read':
      switch (p.uri) {
        case 'hostile://flood': {
          const n = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } })
          for (let i = 0; i < 20000; i++) write(n)
          return text(m.id, p.uri, 'after the flood')
        }
        case 'hostile://pings':
          for (let i = 0; i < 10000; i++) write(`{"jsonrpc":"2.0","id":"p${i}","method":"ping"}`)
          return text(m.id, p.uri, 'after the pings')
        case 'hostile://deep':
          return write(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"contents":${'['.repeat(20000)}${']'.repeat(20000)}}}`)
        case 'hostile://fine':
          return text(m.id, p.uri, 'fine')
      }
      return send({ jsonrpc: '2.0', id: m.id, error: { code: -32002, message: `Resource not found: ${p.uri}`, data: { uri: p.uri } } })
    default:
      return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } })
  }
})
