// Large blobs stay in the page (web/blob.js, internal/blob), end to end: a
// 1.3 MB PNG read through the real socket in headless Debian Chromium
// arrives byte for byte, sniffed and header-checked from its first bytes,
// shared by the part's attachment objects; re-reads keep the page's memory
// flat; and every blob the browser's decoder must not judge (whitespace,
// missing padding, an escape, stray bits) reaches Go, whose error names the
// part and the offset. Against the scripted peer (e2e/scripted-peer.mjs),
// the page served by the mcphost binary.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { deflateSync } from 'node:zlib'
import { launchBrowser, startMcphost } from './harness.mjs'
import { startScriptedPeer } from './scripted-peer.mjs'

const IMG = 'scripted://docs/big.png'
const BAD = 'scripted://docs/bad.bin'

// png builds a valid w×h RGBA PNG with noisy pixels (so it stays large).
function png(w, h) {
  const crcTable = new Int32Array(256).map((_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c
  })
  const crc = b => {
    let c = -1
    for (const x of b) c = crcTable[(c ^ x) & 255] ^ (c >>> 8)
    return (c ^ -1) >>> 0
  }
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length)
    out.writeUInt32BE(data.length, 0)
    out.write(type, 4, 'latin1')
    data.copy(out, 8)
    out.writeUInt32BE(crc(out.subarray(4, 8 + data.length)), 8 + data.length)
    return out
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr[8] = 8
  ihdr[9] = 6
  const raw = Buffer.alloc((4 * w + 1) * h)
  let s = 12345
  for (let i = 0; i < raw.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    raw[i] = i % (4 * w + 1) === 0 ? 0 : s >>> 24
  }
  return Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 0 })), chunk('IEND', Buffer.alloc(0))])
}

let srv, browser, peer
const image = png(600, 540) // ~1.3 MB
const b64 = image.toString('base64')

before(async () => {
  srv = await startMcphost([])
  browser = await launchBrowser()
  peer = await startScriptedPeer({ docs: { [IMG]: 1, [BAD]: 1 }, pagesFrom: srv.url, blobs: { [IMG]: { mimeType: 'image/png', blob: b64 } } })
})

after(async () => {
  await peer?.close?.()
  await browser?.close()
  await srv?.stop()
})

async function openPage() {
  const page = await browser.context.newPage()
  await page.goto(peer.url.replace('ws:', 'http:').replace(/\/?$/, '/') + 'test/api.html')
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 })
  return page
}

describe('large blobs stay in the page', () => {
  test('a 1.3 MB PNG arrives byte for byte, checked, shared, and re-reads stay flat', async () => {
    const page = await openPage()
    try {
      const r = await page.evaluate(async ({ uri, url }) => {
        const h = await window.mcphost.connect(url)
        const [p] = await h.attach(uri)
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', p.bytes))
        const hex = [...digest].map(b => b.toString(16).padStart(2, '0')).join('')
        const again = h.attachments()[0]
        const out = {
          hex, length: p.bytes.length, kind: p.kind, mimeType: p.mimeType, sniffed: p.sniffedMimeType,
          forwardAsImage: p.forwardAsImage, size: p.size, wireSize: p.wireSize, warnings: p.warnings,
          shared: again.bytes === p.bytes, held: '_held' in p || '_held' in again,
        }
        for (let i = 0; i < 12; i++) await h.attach(uri)
        const [last] = await h.attach(uri)
        out.lastLength = last.bytes.length
        out.detached = h.detach(uri)
        await h.close()
        return out
      }, { uri: IMG, url: peer.url })
      assert.equal(r.length, image.length)
      assert.equal(r.hex, createHash('sha256').update(image).digest('hex'))
      assert.deepEqual([r.kind, r.mimeType, r.sniffed, r.forwardAsImage], ['binary', 'image/png', 'image/png', true], JSON.stringify(r.warnings))
      assert.equal(r.size, image.length)
      assert.equal(r.wireSize, b64.length)
      assert.equal(r.shared, true, 'the part\'s attachment objects share the kept bytes')
      assert.equal(r.held, false, 'no internal box is left on an attachment')
      assert.equal(r.lastLength, image.length)
      assert.equal(r.detached, true)
    } finally {
      await page.close()
    }
  })

  // Each is at least 64 KiB of base64, so the socket considers keeping it,
  // and each must reach Go's strict decoder, which names the offset.
  const good = Buffer.alloc((96 << 10) + 1, 7).toString('base64') // ends "Bw=="
  const cases = [
    ['a space inside', good.slice(0, 1000) + ' ' + good.slice(1000, -4) + 'Bw==', 1000],
    ['four spaces a lenient decoder skips', good.slice(0, 4000) + '    ' + good.slice(4000), 4000],
    ['a line break', good.slice(0, 76) + '\n' + good.slice(76), 76],
    ['missing padding', good.replace(/=+$/, ''), null],
    ['stray bits in its last character', good.replace(/Bw==$/, 'Bx=='), null],
    ['a URL-safe character', good.slice(0, 3000) + '-' + good.slice(3001), 3000],
  ]
  for (const [name, blob, offset] of cases) {
    test(`a blob with ${name} reaches Go and is refused with its offset`, async () => {
      peer.blobs[BAD] = { mimeType: 'application/octet-stream', blob }
      const page = await openPage()
      try {
        const r = await page.evaluate(async ({ uri, url }) => {
          const h = await window.mcphost.connect(url)
          const [p] = await h.attach(uri)
          await h.close()
          return { kind: p.kind, code: p.error?.code, message: p.error?.message, bytes: p.bytes }
        }, { uri: BAD, url: peer.url })
        assert.equal(r.kind, 'error')
        assert.equal(r.bytes, undefined)
        assert.match(r.message, /is not valid padded standard base64 at byte offset \d+/)
        if (offset !== null) assert.match(r.message, new RegExp(`offset ${offset}\\b`))
      } finally {
        await page.close()
      }
    })
  }
})
