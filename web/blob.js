// blob.js: large blobs of resources/read answers stay in JavaScript.
//
// Why: the answer to an image read arrives as a 2.4 MB string. Copying it
// into the module's memory, decoding the base64 in Go and copying the bytes
// back out made a read ~3× the time the WebSocket took to deliver it
// (docs/bench-history.md). The browser decodes base64 natively
// (setFromBase64, ~1.5 ms for 2.4 MB), so the socket cuts each large
// "blob" string out of an expected answer, decodes it here, and hands Go the
// frame with a token in its place, plus the bytes' size and ledger digest
// (hash, the twin of internal/blob.Hash). Go sniffs and checks the first
// bytes it copies on demand; the page gets the same Uint8Array. A re-read
// that brings the same base64 as a blob still held (an unchanged image)
// takes that blob's array and digest without decoding (knownText).
//
// Nothing is changed unless every check holds; otherwise Go gets the frame
// as it came and decides (the Go decoder names a bad offset):
//   - the frame answers a resources/read Go said it sent (expect(id));
//   - each run is a JSON string of at least MIN_RUN characters at a "blob"
//     key, with no escape (a backslash is not base64: the decoder refuses);
//   - setFromBase64 with lastChunkHandling "strict" accepts it, and its output
//     is exactly 3/4 of the run less the padding: the decoder skips ASCII
//     whitespace, which the Go decoder (and the wire format) rejects, and a
//     skipped character makes the output shorter;
//   - the frame without the runs parses, and every token is the "blob" of
//     an entry of result.contents.

// Runs shorter than this are left to Go (the copy saved is not worth it).
export const MIN_RUN = 64 << 10
// At most this much JSON is left once the runs are cut (it is parsed here).
const MAX_REST = 1 << 20
const KEY = '"blob":"'
const TOKEN_PREFIX = '*mcphost-blob:'

const hasSetFromBase64 = typeof Uint8Array.prototype.setFromBase64 === 'function'

function nonce() {
  const b = new Uint8Array(16)
  crypto.getRandomValues(b)
  return Array.from(b, x => x.toString(16).padStart(2, '0')).join('')
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1
const C1 = 0xcc9e2d51
const C2 = 0x1b873593
const C3 = 0x85ebca6b
const C4 = 0xc2b2ae35

function fmix(h) {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h
}

// The lanes between hashWords and hash (two results, no allocation).
const lanes = new Int32Array(2)

// hashWords runs both lanes over n little-endian words. It is a function of
// its own with one array type, so V8 optimizes the loop early and keeps it
// (the loop inline in hash, with a second path for unaligned input,
// deoptimized and cost 9 ms a call at times, measured).
function hashWords(v, n) {
  let h1 = lanes[0]
  let h2 = lanes[1]
  for (let i = 0; i < n; i++) {
    const w = v[i]
    let k = Math.imul(w, C1)
    k = (k << 15) | (k >>> 17)
    h1 ^= Math.imul(k, C2)
    h1 = (h1 << 13) | (h1 >>> 19)
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0
    let m = Math.imul(w, C3)
    m = (m << 17) | (m >>> 15)
    h2 ^= Math.imul(m, C4)
    h2 = (h2 << 11) | (h2 >>> 21)
    h2 = (Math.imul(h2, 9) + 0x7feb352d) | 0
  }
  lanes[0] = h1
  lanes[1] = h2
}

/**
 * hash is internal/blob.Hash: two murmur3-style 32-bit lanes over the
 * little-endian words of bytes, seeded with s1 and s2. Returns [hi, lo] as
 * unsigned 32-bit numbers.
 */
export function hash(bytes, s1, s2) {
  const n = bytes.length >>> 0
  const words = n >>> 2
  // a new array is aligned; anything else is copied to be.
  const src = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes)
  lanes[0] = s1 ^ n
  lanes[1] = s2 ^ n
  if (LITTLE_ENDIAN) {
    hashWords(new Uint32Array(src.buffer, src.byteOffset, words), words)
  } else {
    const v = new Uint32Array(words)
    const dv = new DataView(src.buffer, src.byteOffset, 4 * words)
    for (let i = 0; i < words; i++) v[i] = dv.getUint32(4 * i, true)
    hashWords(v, words)
  }
  let h1 = lanes[0]
  let h2 = lanes[1]
  if (n & 3) {
    let t = 0
    for (let j = n - 1; j >= 4 * words; j--) t = (t << 8) | bytes[j]
    let k = Math.imul(t, C1)
    k = (k << 15) | (k >>> 17)
    h1 ^= Math.imul(k, C2)
    let m = Math.imul(t, C3)
    m = (m << 17) | (m >>> 15)
    h2 ^= Math.imul(m, C4)
  }
  h1 ^= n
  h2 ^= n
  h1 = (h1 + h2) | 0
  h2 = (h2 + h1) | 0
  h1 = fmix(h1)
  h2 = fmix(h2)
  h1 = (h1 + h2) | 0
  h2 = (h2 + h1) | 0
  return [h1 >>> 0, h2 >>> 0]
}

/**
 * decodeStrict is strict base64 → bytes, or null where Go's decoder would
 * disagree. It decodes into an array of exactly the size the run must
 * yield (setFromBase64): fromBase64 over the same 2.4 MB run took 2.7–3.6
 * ms in Chromium 156 against 1.5 ms for this, most of the difference in
 * growing its output. A skipped whitespace character shows as fewer bytes
 * written, a character too many as fewer read.
 */
export function decodeStrict(run) {
  if (!hasSetFromBase64 || run.length % 4 !== 0) return null
  const n = decodedLength(run)
  const bytes = new Uint8Array(n)
  let r
  try {
    r = bytes.setFromBase64(run, { lastChunkHandling: 'strict' })
  } catch {
    return null
  }
  return r.read === run.length && r.written === n ? bytes : null
}

/** decodedLength is how many bytes a padded base64 run (length % 4 == 0) decodes to. */
function decodedLength(run) {
  const pad = run.endsWith('==') ? 2 : run.endsWith('=') ? 1 : 0
  return (run.length / 4) * 3 - pad
}

/**
 * box holds a kept blob's bytes for Go (internal/blob's Ref). Go works on
 * them through these methods only: a Go reference to the Uint8Array itself
 * (or to a view of it) would keep the bytes alive until Go's garbage
 * collector ran, which a Go heap that holds no bytes does rarely.
 */
const SCRATCH_MAX = 1 << 20
let scratch = new Uint8Array(64 << 10)

export function box(bytes) {
  return {
    bytes,
    forget: null, // set by the keeper once the box is known (see known)
    /**
     * The first n bytes, for Go to copy at once: a view of a scratch array
     * reused by every call (Go keeps a reference to what it is handed until
     * its collector runs; a fresh copy per call would pile up), or a copy
     * past SCRATCH_MAX. Null once dropped.
     */
    head(n) {
      if (!this.bytes) return null
      if (n > SCRATCH_MAX) return this.bytes.slice(0, n)
      if (n > scratch.length) scratch = new Uint8Array(Math.max(n, scratch.length * 2))
      scratch.set(this.bytes.subarray(0, n))
      return scratch.subarray(0, n)
    },
    /** Sets o[key] to the bytes (shared); false once dropped. */
    give(o, key) {
      if (!this.bytes) return false
      o[key] = this.bytes
      return true
    },
    drop() {
      this.bytes = null
      if (this.forget) this.forget()
      this.forget = null
    },
  }
}

/**
 * The kept blobs Go still holds, by length, with their hash: a re-read of
 * an unchanged image (the freshness engine's re-reads, most of the time)
 * brings bytes equal to those of the part it replaces, and equal bytes have
 * the same hash, which comparing finds in about a fifth of the time hashing
 * takes (1.6 ms for 1.8 MB in Chromium 156). The pages treat the bytes as
 * read-only (docs/embedding.md); at most MAX_KNOWN blobs of one length are
 * compared, each until the first difference.
 */
const known = new Map()
const MAX_KNOWN = 4

/**
 * A known blob also keeps the base64 it came as (a slice of its answer's
 * string: no copy), when that is at most MAX_TEXT characters and all kept
 * text stays within TEXT_BUDGET. A re-read that brings the same text then
 * takes the known blob's Uint8Array and hash as they are: no decoding, no
 * comparing, no new array (the JS heap otherwise grew by the bytes on every
 * re-read of an unchanged image, and the collections that growth calls for
 * landed in later reads). Comparing the strings is the engine's own
 * comparison, a fraction of a millisecond for 2.4 MB.
 */
const MAX_TEXT = 8 << 20
const TEXT_BUDGET = 16 << 20
let textKept = 0

function remember(b, run, s1, s2) {
  let set = known.get(b.size)
  if (!set) known.set(b.size, (set = new Set()))
  const text = run.length <= MAX_TEXT && textKept + run.length <= TEXT_BUDGET ? run : undefined
  if (text !== undefined) textKept += text.length
  const k = { box: b.box, hi: b.hi, lo: b.lo, s1, s2, text }
  set.add(k)
  b.box.forget = () => {
    if (k.text !== undefined) textKept -= k.text.length
    k.text = undefined
    set.delete(k)
    if (set.size === 0 && known.get(b.size) === set) known.delete(b.size)
  }
}

/** keptText is how many characters of base64 known blobs keep (tests). */
export function keptText() {
  return textKept
}

/**
 * The known blob (with its bytes) that came as exactly this base64 text
 * under these seeds, or null. n is the byte length the text decodes to; a
 * blob whose array no longer has it (a page that transferred the buffer
 * away) is not taken.
 */
function knownText(text, n, s1, s2) {
  const set = known.get(n)
  if (!set) return null
  let tried = 0
  for (const k of set) {
    if (k.text === undefined || k.s1 !== s1 || k.s2 !== s2) continue
    if (tried++ >= MAX_KNOWN) break
    if (k.text === text && k.box.bytes && k.box.bytes.length === n) return k
  }
  return null
}

/** knownBlobs is how many kept blobs are known (tests: none after every drop). */
export function knownBlobs() {
  let n = 0
  for (const set of known.values()) n += set.size
  return n
}

/** The hash of a known blob equal to bytes under these seeds, or null. */
function knownHash(bytes, s1, s2) {
  const set = known.get(bytes.length)
  if (!set) return null
  let n = 0
  for (const k of set) {
    if (n++ >= MAX_KNOWN) break
    if (k.s1 === s1 && k.s2 === s2 && k.box.bytes && sameBytes(k.box.bytes, bytes)) return [k.hi, k.lo]
  }
  return null
}

/** sameBytes reports whether a and b hold the same bytes. */
export function sameBytes(a, b) {
  if (a.length !== b.length) return false
  const n = a.length
  const words = n >>> 2
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const x = new Uint32Array(a.buffer, a.byteOffset, words)
    const y = new Uint32Array(b.buffer, b.byteOffset, words)
    for (let i = 0; i < words; i++) if (x[i] !== y[i]) return false
  } else {
    for (let i = 0; i < 4 * words; i++) if (a[i] !== b[i]) return false
  }
  for (let i = 4 * words; i < n; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * A keeper cuts the large blobs out of the answers it expects. One per
 * socket: its nonce makes its tokens unguessable by the server.
 */
export function keeper() {
  const prefix = TOKEN_PREFIX + nonce() + ':'
  const expected = new Set() // ids of resources/read requests in flight
  let next = 0
  return {
    /** Go sent resources/read with this id. */
    expect(id) {
      if (expected.size > 4096) expected.clear() // ids of answers that never came
      expected.add(id)
    },
    /**
     * extract returns null (deliver f as it is) or { frame, blobs }, blobs
     * being [{ token, box: { bytes }, size, hi, lo }].
     */
    extract(f, s1, s2) {
      if (!hasSetFromBase64 || expected.size === 0) return null
      let pos = 0
      const pieces = []
      const blobs = []
      const texts = [] // each blob's base64, for remember
      let kept = 0
      for (;;) {
        const k = f.indexOf(KEY, pos)
        if (k < 0) break
        const s = k + KEY.length
        const e = f.indexOf('"', s)
        if (e < 0) return null
        const run = e - s
        if (run >= MIN_RUN) {
          const text = f.slice(s, e)
          const token = prefix + next++
          const same = run % 4 === 0 ? knownText(text, decodedLength(text), s1, s2) : null
          if (same) {
            // The same text as a blob still held: its bytes and hash.
            blobs.push({ token, box: box(same.box.bytes), size: same.box.bytes.length, hi: same.hi, lo: same.lo })
          } else {
            // An escape (a backslash) or an escaped quote that ended the run
            // early is not in base64's alphabet: the strict decoder refuses it.
            const bytes = decodeStrict(text)
            if (!bytes) return null
            const [hi, lo] = knownHash(bytes, s1, s2) ?? hash(bytes, s1, s2)
            blobs.push({ token, box: box(bytes), size: bytes.length, hi, lo })
          }
          texts.push(text)
          pieces.push(f.slice(pos, s), token)
          kept += run
        } else {
          pieces.push(f.slice(pos, e))
        }
        pos = e
      }
      if (!blobs.length) return null
      pieces.push(f.slice(pos))
      const frame = pieces.join('')
      if (frame.length > MAX_REST) return null
      let msg
      try {
        msg = JSON.parse(frame)
      } catch {
        return null
      }
      const id = msg?.id
      const contents = msg?.result?.contents
      if (!expected.has(id) || !Array.isArray(contents)) return null
      let found = 0
      for (const c of contents) if (typeof c?.blob === 'string' && c.blob.startsWith(prefix)) found++
      if (found !== blobs.length) return null
      expected.delete(id)
      for (let i = 0; i < blobs.length; i++) remember(blobs[i], texts[i], s1, s2)
      return { frame, blobs, kept }
    },
  }
}
