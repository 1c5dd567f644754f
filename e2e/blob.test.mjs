// web/blob.js, where large blobs of read answers stay in the page, held to
// the Go side in headless Debian Chromium (Uint8Array.fromBase64 is in
// Chromium 140+, not in Node 20): its hash to internal/blob.Hash over the
// golden vectors Go writes (internal/blob/testdata/hash.json), its strict
// decoder to Go's decisions over the base64 fixtures
// (internal/blob/testdata/base64.json: whitespace, missing padding, stray
// bits, other alphabets), and the keeper's checks: only an expected read
// answer's contents[].blob is cut out, anything else is left to Go.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { launchBrowser, root } from './harness.mjs'

let server, base, browser, page

before(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/web/blob.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' })
      res.end(readFileSync(path.join(root, 'web/blob.js')))
      return
    }
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<!doctype html><title>blob</title>')
  })
  await new Promise(r => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${server.address().port}/`
  browser = await launchBrowser()
  page = await browser.context.newPage()
  await page.goto(base)
})

after(async () => {
  await browser?.close()
  server?.close()
})

const golden = name => JSON.parse(readFileSync(path.join(root, 'internal/blob/testdata', name), 'utf8'))

describe('web/blob.js against internal/blob', () => {
  test('hash equals Go over every golden vector', async () => {
    const vectors = golden('hash.json')
    const bad = await page.evaluate(async vectors => {
      const { hash } = await import('/web/blob.js')
      const out = []
      for (const v of vectors) {
        const b = new Uint8Array(v.hex.length / 2)
        for (let i = 0; i < b.length; i++) b[i] = parseInt(v.hex.slice(2 * i, 2 * i + 2), 16)
        for (const [name, bytes] of [['aligned', b], ['unaligned', (() => { const u = new Uint8Array(b.length + 1); u.set(b, 1); return u.subarray(1) })()]]) {
          const [hi, lo] = hash(bytes, v.seed1, v.seed2)
          const sum = hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0')
          if (sum !== v.sum) out.push(`${name} ${b.length} bytes, seeds ${v.seed1},${v.seed2}: ${sum}, Go ${v.sum}`)
        }
      }
      return out
    }, vectors)
    assert.ok(vectors.length >= 60)
    assert.deepEqual(bad, [])
  })

  test('decodeStrict accepts exactly what Go accepts, with the same bytes', async () => {
    const cases = golden('base64.json')
    const bad = await page.evaluate(async cases => {
      const { decodeStrict } = await import('/web/blob.js')
      if (typeof Uint8Array.fromBase64 !== 'function') return ['no Uint8Array.fromBase64 in this Chromium']
      const out = []
      for (const c of cases) {
        const b = decodeStrict(c.in)
        const hex = b ? Array.from(b, x => x.toString(16).padStart(2, '0')).join('') : null
        if (!!b !== c.ok || (b && hex !== (c.hex ?? ''))) out.push(`${JSON.stringify(c.in)}: js ${hex}, Go ${c.ok ? c.hex ?? '' : 'rejects'}`)
      }
      return out
    }, cases)
    assert.ok(cases.some(c => !c.ok) && cases.some(c => c.ok))
    assert.deepEqual(bad, [])
  })

  test('the keeper cuts out only an expected answer\'s contents[].blob', async () => {
    const r = await page.evaluate(async () => {
      const { keeper, MIN_RUN, hash } = await import('/web/blob.js')
      const bytes = new Uint8Array(MIN_RUN)
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 255
      const b64 = bytes.toBase64()
      const answer = (id, item, extra = '') => `{"jsonrpc":"2.0","id":${id},"result":{"contents":[${item}]${extra}}}`
      const img = `{"uri":"x://a","mimeType":"image/png","blob":"${b64}"}`
      const k = keeper()
      const out = {}
      out.unexpected = k.extract(answer(7, img), 1, 2)
      k.expect(7)
      out.otherId = k.extract(answer(8, img), 1, 2)
      out.inMeta = k.extract(answer(7, '{"uri":"x://a","text":"t"}', `,"_meta":{"blob":"${b64}"}`), 1, 2)
      out.whitespace = k.extract(answer(7, `{"uri":"x://a","blob":"${b64.slice(0, 100)} ${b64.slice(100, -4)}"}`), 1, 2)
      out.escaped = k.extract(answer(7, `{"uri":"x://a","blob":"${b64.slice(0, 100)}\\/${b64.slice(102)}"}`), 1, 2)
      out.unpadded = k.extract(answer(7, `{"uri":"x://a","blob":"${b64.replace(/=+$/, '')}A"}`), 1, 2)
      const small = `{"uri":"x://s","blob":"QUJD"}`
      const x = k.extract(answer(7, `${img},${small},${img}`), 3, 4)
      const again = k.extract(answer(7, img), 1, 2) // an id is expected once
      return {
        refused: Object.entries(out).filter(([, v]) => v !== null).map(([n]) => n),
        kept: x && x.blobs.length,
        sizes: x && x.blobs.map(b => b.size),
        sums: x && x.blobs.map(b => [b.hi, b.lo].join()),
        want: hash(bytes, 3, 4).join(),
        frame: x && JSON.parse(x.frame).result.contents.map(c => c.blob.startsWith('*mcphost-blob:') ? 'token' : c.blob),
        tokensDiffer: x && x.blobs[0].token !== x.blobs[1].token,
        keptChars: x && x.kept,
        b64Length: b64.length,
        head: x && Array.from(x.blobs[0].box.head(4)),
        dropped: x && (x.blobs[0].box.drop(), x.blobs[0].box.head(4)),
        again,
      }
    })
    assert.deepEqual(r.refused, [], 'these were cut out although Go must decide them')
    assert.equal(r.kept, 2)
    assert.deepEqual(r.sizes, [65536, 65536])
    assert.deepEqual(r.sums, [r.want, r.want])
    assert.deepEqual(r.frame, ['token', 'QUJD', 'token'])
    assert.ok(r.tokensDiffer)
    assert.equal(r.keptChars, 2 * r.b64Length)
    assert.deepEqual(r.head, [0, 31, 62, 93])
    assert.equal(r.dropped, null)
    assert.equal(r.again, null)
  })

  test('sameBytes compares every byte, aligned or not', async () => {
    const r = await page.evaluate(async () => {
      const { sameBytes } = await import('/web/blob.js')
      const out = []
      for (const n of [0, 1, 3, 4, 5, 64, 1027]) {
        const a = new Uint8Array(n)
        for (let i = 0; i < n; i++) a[i] = (i * 7 + 1) & 255
        out.push(sameBytes(a, a.slice()))
        for (const at of [0, n >> 1, n - 1]) {
          if (at < 0 || at >= n) continue
          const b = a.slice()
          b[at] ^= 1
          out.push(!sameBytes(a, b))
        }
        const buf = new Uint8Array(n + 1)
        buf.set(a, 1)
        out.push(sameBytes(a, buf.subarray(1)), sameBytes(buf.subarray(1), a))
      }
      out.push(!sameBytes(new Uint8Array(4), new Uint8Array(5)))
      return out
    })
    assert.ok(r.length > 20)
    assert.deepEqual(r.filter(x => !x), [])
  })

  test('a blob equal to a kept one takes its hash; any other is hashed; dropped ones are forgotten', async () => {
    const r = await page.evaluate(async () => {
      const { keeper, MIN_RUN, hash, knownBlobs } = await import('/web/blob.js')
      const make = (last) => {
        const b = new Uint8Array(MIN_RUN + 5)
        for (let i = 0; i < b.length; i++) b[i] = (i * 13) & 255
        b[b.length - 1] = last
        return b
      }
      const answer = (id, bytes) => `{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"x://a","blob":"${bytes.toBase64()}"}]}}`
      const k = keeper()
      const base = knownBlobs()
      const x = make(1), y = make(2)
      const read = (id, bytes, s1 = 5, s2 = 6) => { k.expect(id); return k.extract(answer(id, bytes), s1, s2).blobs[0] }
      const first = read(1, x)
      const same = read(2, x)
      const other = read(3, y)
      const otherSeeds = read(4, x, 7, 8)
      const knownWhileHeld = knownBlobs() - base
      for (const b of [first, same, other, otherSeeds]) b.box.drop()
      const afterDrop = knownBlobs() - base
      const fresh = read(5, x)
      fresh.box.drop()
      const sum = b => [b.hi, b.lo].join()
      return {
        first: sum(first), same: sum(same), other: sum(other), otherSeeds: sum(otherSeeds), fresh: sum(fresh),
        wantX: hash(x, 5, 6).join(), wantY: hash(y, 5, 6).join(), wantX78: hash(x, 7, 8).join(),
        knownWhileHeld, afterDrop, end: knownBlobs() - base,
      }
    })
    assert.equal(r.first, r.wantX)
    assert.equal(r.same, r.wantX)
    assert.equal(r.other, r.wantY, 'a blob that differs in its last byte took a kept blob\'s hash')
    assert.notEqual(r.wantX, r.wantY)
    assert.equal(r.otherSeeds, r.wantX78, 'a hash under other seeds was reused')
    assert.equal(r.fresh, r.wantX)
    assert.equal(r.knownWhileHeld, 4)
    assert.equal(r.afterDrop, 0)
    assert.equal(r.end, 0)
  })

  test('a re-read with the same base64 takes the held blob\'s array and hash; nothing else does', async () => {
    const r = await page.evaluate(async () => {
      const { keeper, MIN_RUN, hash, knownBlobs, keptText } = await import('/web/blob.js')
      const make = (n, last) => {
        const b = new Uint8Array(n)
        for (let i = 0; i < b.length; i++) b[i] = (i * 7) & 255
        b[b.length - 1] = last
        return b
      }
      const answer = (id, bytes) => `{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"x://a","blob":"${bytes.toBase64()}"}]}}`
      const k = keeper()
      const base = { known: knownBlobs(), text: keptText() }
      const read = (id, bytes, s1 = 5, s2 = 6) => { k.expect(id); return k.extract(answer(id, bytes), s1, s2).blobs[0] }
      const x = make(MIN_RUN + 7, 1), y = make(MIN_RUN + 7, 2)
      const runLen = x.toBase64().length
      const first = read(1, x)
      const second = read(2, x)
      const text2 = keptText() - base.text
      const changed = read(3, y)
      const seeds = read(4, x, 7, 8)
      const firstBytes = first.box.bytes
      first.box.drop()
      const third = read(5, x) // first is gone; second still holds the same text
      const out = {
        sameArray: second.box.bytes === firstBytes,
        sameHash: [second.hi, second.lo].join() === hash(x, 5, 6).join(),
        text2, runLen,
        changedFresh: changed.box.bytes !== firstBytes && [changed.hi, changed.lo].join() === hash(y, 5, 6).join(),
        changedBytes: changed.box.bytes.every((v, i) => v === y[i]),
        seedsFresh: seeds.box.bytes !== firstBytes && [seeds.hi, seeds.lo].join() === hash(x, 7, 8).join(),
        thirdFromSecond: third.box.bytes === second.box.bytes,
      }
      // A buffer the page transferred away is not handed out again.
      structuredClone(third.box.bytes.buffer, { transfer: [third.box.bytes.buffer] })
      const afterTransfer = read(6, x)
      out.transferFresh = afterTransfer.box.bytes.length === x.length && afterTransfer.box.bytes.every((v, i) => v === x[i])
      for (const b of [second, changed, seeds, third, afterTransfer]) b.box.drop()
      out.known = knownBlobs() - base.known
      out.text = keptText() - base.text
      // Past MAX_TEXT (8 MiB of base64) the text is not kept: equal bytes are
      // compared instead and still take the hash, in an array of their own.
      const big = make(6 << 20 | 3, 9)
      const b1 = read(7, big), b2 = read(8, big)
      out.bigText = keptText() - base.text
      out.bigOwnArray = b1.box.bytes !== b2.box.bytes && [b2.hi, b2.lo].join() === [b1.hi, b1.lo].join()
      b1.box.drop(); b2.box.drop()
      out.end = { known: knownBlobs() - base.known, text: keptText() - base.text }
      return out
    })
    assert.ok(r.sameArray, 'a re-read of the same text decoded a new array')
    assert.ok(r.sameHash)
    assert.equal(r.text2, 2 * r.runLen, 'each held blob keeps its text')
    assert.ok(r.changedFresh, 'a blob that differs in its last byte took the held array')
    assert.ok(r.changedBytes)
    assert.ok(r.seedsFresh, 'a read under other seeds took the held array')
    assert.ok(r.thirdFromSecond, 'the text of a blob still held was not found')
    assert.ok(r.transferFresh, 'a detached array was handed out')
    assert.equal(r.known, 0)
    assert.equal(r.text, 0, 'a dropped blob\'s text is still counted')
    assert.equal(r.bigText, 0, 'a run past MAX_TEXT kept its text')
    assert.ok(r.bigOwnArray)
    assert.deepEqual(r.end, { known: 0, text: 0 })
  })

  test('kept base64 stays within its budget (16 MiB); a blob past it is still read, its text not kept', async () => {
    const r = await page.evaluate(async () => {
      const { keeper, keptText, knownBlobs } = await import('/web/blob.js')
      const k = keeper()
      const base = { text: keptText(), known: knownBlobs() }
      const make = (n, seed) => { const b = new Uint8Array(n); for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 255; return b }
      const answer = (id, bytes) => `{"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"x://a","blob":"${bytes.toBase64()}"}]}}`
      const read = (id, bytes) => { k.expect(id); return k.extract(answer(id, bytes), 5, 6).blobs[0] }
      const n = 5.5 * (1 << 20) // 7.3 Mi characters of base64 each: two fit in 16 MiB, three do not
      const held = [1, 2, 3].map(i => ({ bytes: make(n, i), b: null }))
      for (const [i, h] of held.entries()) h.b = read(10 + i, h.bytes)
      const run = held[0].bytes.toBase64().length
      const kept = keptText() - base.text
      // The third's text was not kept: a re-read of it decodes (a new array), the first's does not.
      const again3 = read(20, held[2].bytes)
      const again1 = read(21, held[0].bytes)
      const out = { run, kept, third: again3.box.bytes !== held[2].b.box.bytes, first: again1.box.bytes === held[0].b.box.bytes }
      for (const h of held) h.b.box.drop()
      again3.box.drop(); again1.box.drop()
      out.end = { text: keptText() - base.text, known: knownBlobs() - base.known }
      return out
    })
    assert.equal(r.kept, 2 * r.run, 'kept text past the budget')
    assert.ok(r.third, 'a blob whose text was not kept was taken by text')
    assert.ok(r.first, 'a kept text was not found')
    assert.deepEqual(r.end, { text: 0, known: 0 })
  })
})
