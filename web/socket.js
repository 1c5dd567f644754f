// socket.js: the browser WebSocket behind mcphost's sessions. The module's Go
// side (bridge/socket_js.go) speaks MCP; this glue owns the socket object and
// hands frames to Go in batches.
//
// Why: every call from JavaScript into Go costs a resume of the Go runtime
// (several crossings and a scheduler round). One crossing per frame made a
// flood of 200,000 notifications take 42 s to get through in Chromium, far
// behind the ~10 s the browser itself needs to deliver them, and the answer
// queued behind them timed out. Here a frame costs a push onto an array; Go
// is woken once per batch (a MessageChannel task, so a batch gathers every
// frame that arrived meanwhile) and takes the whole batch in one call: its
// UTF-8 bytes in one Uint8Array, their lengths in one Int32Array.
//
// A small frame is encoded into one byte queue as it arrives and the queue
// keeps its length only (a number, no object): a flood that outruns Go
// used to keep tens of thousands of strings alive until their take, which
// promoted them to V8's old generation; the major GC that followed ran
// 100–200 ms inside whatever task of mcphost's came next (CPU profile of
// 100,000 pings, Chromium 156 here). Arriving frames now die young, as they
// do for a plain WebSocket.

import { keeper } from './blob.js'

const encoder = new TextEncoder()
// Frames past LARGE bytes are taken one at a time (see take).
const LARGE = 1 << 20
// A frame is encoded PIECE UTF-16 units at a time (see encodeAt), and the
// scratch it is encoded into is kept for the next take up to SCRATCH_KEEP
// bytes.
const PIECE = 32 << 10
const SCRATCH_KEEP = 8 << 20
const SCRATCH_MIN = 64 << 10

// The diagnosis of a refused upgrade: at most DIAGNOSIS_MS for the answer
// and DIAGNOSIS_BYTES of it.
const DIAGNOSIS_MS = 2000
const DIAGNOSIS_BYTES = 16 << 10
const TOKEN_PREFIX = 'mcp.token.'

/**
 * Asks the WebSocket endpoint at url (ws→http, wss→https) why it refused the
 * upgrade: GET with Accept: application/json (and the token as a Bearer
 * Authorization header, when one was offered), no credentials, answered by
 * mcphost with CORS for this page's origin and {code, reason, fix}, HTTP
 * status = code (503 with Retry-After). Resolves with { code, reason, fix,
 * retryAfterMs } for code 401, 403 or 503, else null: a failed fetch, a 200
 * or an answer that is not such JSON means the failure was something else.
 */
export async function diagnose(url, protocols) {
  try {
    const u = new URL(url)
    if (u.protocol === 'ws:') u.protocol = 'http:'
    else if (u.protocol === 'wss:') u.protocol = 'https:'
    else return null
    const headers = { Accept: 'application/json' }
    const token = [].concat(protocols ?? []).find(p => typeof p === 'string' && p.startsWith(TOKEN_PREFIX))
    if (token) headers.Authorization = 'Bearer ' + token.slice(TOKEN_PREFIX.length)
    const r = await fetch(u.href, {
      headers, credentials: 'omit', mode: 'cors', cache: 'no-store', redirect: 'error',
      signal: AbortSignal.timeout(DIAGNOSIS_MS),
    })
    const text = await r.text()
    if (text.length > DIAGNOSIS_BYTES) return null
    const d = JSON.parse(text)
    const code = d?.code
    if (code !== r.status || ![401, 403, 503].includes(code)) return null
    const str = v => (typeof v === 'string' ? v.slice(0, 512) : '')
    // Retry-After: the header (when the server exposes it to CORS) or the
    // body's retryAfter, in seconds.
    let ra = Number(r.headers.get('Retry-After') ?? d.retryAfter ?? 0)
    if (!Number.isFinite(ra) || ra < 0) ra = 0
    return { code, reason: str(d.reason), fix: str(d.fix), retryAfterMs: ra * 1000 }
  } catch {
    return null
  }
}

/**
 * Opens a WebSocket. wake() is called when frames or the close are waiting
 * for take(): from a task of its own (so that a flood of small frames
 * gathers into one batch), except for a large frame, which wakes Go inside
 * its message event.
 * wake may be null until adopt(wake) gives it (a socket mcphost.js opened
 * before the runtime ran); observe, when given, is called with no argument
 * when the socket opens and with each frame as it arrives (before take()).
 */
export function openSocket(url, protocols, wake, observe) {
  const ws = new WebSocket(url, protocols)
  ws.binaryType = 'arraybuffer'
  // frames: a number for a small frame already in the queue (its UTF-8
  // length, or -length-1 for a binary frame), else the large frame itself:
  // a string (text) or an ArrayBuffer (binary).
  const frames = []
  let head = 0
  // The queue of small frames' bytes: those of frames[head..] from qHead
  // to qTail, in order.
  let queue = new Uint8Array(SCRATCH_MIN)
  let qHead = 0
  let qTail = 0
  let closed = null // { code, reason, wasClean } once the close event came
  let opened = false
  let scheduled = false
  let scratch = new Uint8Array(SCRATCH_MIN)
  // encodeAt writes str's UTF-8 at off into the array dst(off, need, rest)
  // returns (one with room for need more bytes; rest UTF-16 units follow)
  // and returns the offset after it. In pieces, never between the halves of
  // a surrogate pair, into memory that is already there: Chromium 156
  // encodes one large string many times slower than the same string in
  // pieces (the bench's 1 MB Markdown answer: TextEncoder.encode 19–26 ms,
  // encodeInto of the whole into a new array 4–13, in 32K-unit pieces into
  // a kept scratch 1.2–1.4).
  const encodeAt = (str, off, dst) => {
    for (let i = 0; i < str.length;) {
      let j = Math.min(str.length, i + PIECE)
      const c = str.charCodeAt(j - 1)
      if (j < str.length && c >= 0xd800 && c <= 0xdbff) j--
      const into = dst(off, 3 * (j - i), str.length - j)
      off += encoder.encodeInto(j - i === str.length ? str : str.substring(i, j), into.subarray(off)).written
      i = j
    }
    return off
  }
  // inScratch grows scratch as a large frame's pieces need, not to the
  // worst case of 3 bytes per UTF-16 unit, which would cost three times its
  // length in allocation and zeroing.
  const inScratch = (off, need, rest) => {
    if (off + need > scratch.length) {
      const grown = new Uint8Array(Math.max(off + need + rest, scratch.length * 2))
      grown.set(scratch.subarray(0, off))
      scratch = grown
    }
    return scratch
  }
  const inQueue = () => queue // room() made the space
  // room makes need bytes free at qTail, moving the live bytes to the
  // front or into a larger queue.
  const room = need => {
    if (qTail + need <= queue.length) return
    const live = qTail - qHead
    if (live + need > queue.length / 2) {
      const grown = new Uint8Array(Math.max(live + need, queue.length * 2))
      grown.set(queue.subarray(qHead, qTail))
      queue = grown
    } else {
      queue.copyWithin(0, qHead, qTail)
    }
    qHead = 0
    qTail = live
  }
  // enqueue puts a small frame's bytes into the queue; returns its entry.
  const enqueue = data => {
    if (typeof data === 'string') {
      room(3 * data.length)
      const n = encodeAt(data, qTail, inQueue) - qTail
      qTail += n
      return n
    }
    room(data.byteLength)
    queue.set(new Uint8Array(data), qTail)
    qTail += data.byteLength
    return -data.byteLength - 1
  }
  const small = data => (typeof data === 'string' ? data.length <= LARGE / 3 : data.byteLength <= LARGE)
  // taken hands Go a view of scratch (copied before the next take) and lets
  // a scratch grown past SCRATCH_KEEP go.
  const taken = n => {
    const bytes = scratch.subarray(0, n)
    if (scratch.length > SCRATCH_KEEP) scratch = new Uint8Array(SCRATCH_MIN)
    return bytes
  }
  const keep = keeper() // large blobs of expected read answers stay here (blob.js)
  const channel = new MessageChannel()
  channel.port1.onmessage = () => {
    scheduled = false
    wake?.()
  }
  const kick = () => {
    if (!scheduled) {
      scheduled = true
      channel.port2.postMessage(0)
    }
  }
  ws.onopen = () => {
    opened = true
    observe?.()
    kick()
  }
  ws.onmessage = e => {
    const isSmall = small(e.data)
    frames.push(isSmall ? enqueue(e.data) : e.data)
    observe?.(e.data)
    // A large frame wakes Go at once, inside this event: a wake through the
    // MessageChannel came 11–25 ms after the event for the bench's 2.4 MB
    // image answer (the browser ran other work first), more than all of
    // mcphost's own work on it. Small frames still gather into batches.
    if (wake && !isSmall) {
      wake()
      return
    }
    kick()
  }
  ws.onerror = () => {} // a close event always follows
  ws.onclose = e => {
    const info = { code: e.code, reason: e.reason, wasClean: e.wasClean, diagnosis: null }
    if (opened) {
      closed = info
      kick()
      return
    }
    // Closed before it opened: the browser hides an HTTP refusal of the
    // upgrade (403, 401, 503) behind this 1006. Ask the endpoint why before
    // Go sees the close (the state stays "connecting" meanwhile).
    diagnose(url, protocols).then(d => {
      info.diagnosis = d
      closed = info
      kick()
    })
  }

  return {
    /** The state Go polls: 0 connecting, 1 open, 2 closed (frames may remain). */
    state: () => (closed ? 2 : opened ? 1 : 0),
    /** The close event's fields, once it came, and the endpoint's diagnosis
     * ({ code, reason, fix, retryAfterMs } or null) when it closed before it
     * opened. */
    closeInfo: () => closed,
    /** closeInfo().diagnosis as JSON text, or null. */
    diagnosis: () => (closed?.diagnosis ? JSON.stringify(closed.diagnosis) : null),
    subprotocol: () => ws.protocol,
    /**
     * Takes up to maxFrames waiting frames and at most maxBytes of their
     * UTF-8 (a first frame over maxBytes is taken alone and flagged). Returns
     * { bytes: Uint8Array, lens: Int32Array (negative: a binary frame of
     * -len-1 bytes), count, tooBig: byte length of a frame over limit, or 0,
     * blobs: for a lone large frame whose blobs stayed here (blob.js), the
     * kept blobs [{ token, box, size, hi, lo }], hashed with seeds s1, s2 }.
     */
    take(maxFrames, maxBytes, limit, s1, s2) {
      const lens = new Int32Array(Math.min(maxFrames, frames.length - head))
      const f = frames[head]
      if (lens.length > 0 && typeof f !== 'number') {
        // A large frame travels alone, encoded into scratch.
        const bin = typeof f !== 'string'
        const x = bin ? null : keep.extract(f, s1 >>> 0, s2 >>> 0)
        const u8 = bin ? new Uint8Array(f) : taken(encodeAt(x ? x.frame : f, 0, inScratch))
        frames[head++] = undefined
        this.compact()
        // The limit is the frame's as it came: tokens are ASCII, runs too.
        let wire = u8.length
        if (x) for (const b of x.blobs) wire -= b.token.length
        if (x) wire += x.kept
        if (wire > limit) return { bytes: new Uint8Array(0), lens, count: 0, tooBig: wire }
        lens[0] = bin ? -u8.length - 1 : u8.length
        return { bytes: u8, lens: lens.subarray(0, 1), count: 1, tooBig: 0, blobs: x ? x.blobs : null }
      }
      // Small frames: their bytes lie in the queue in order; Go copies the
      // view before anything else runs here.
      const start = qHead
      let count = 0
      while (count < lens.length) {
        const n = frames[head]
        if (typeof n !== 'number') break // a large frame: the next take's
        const size = n < 0 ? -n - 1 : n
        if (count > 0 && qHead - start + size > maxBytes) break
        lens[count++] = n
        qHead += size
        head++
      }
      const bytes = queue.subarray(start, qHead)
      if (qHead === qTail) {
        qHead = qTail = 0
        if (queue.length > SCRATCH_KEEP) queue = new Uint8Array(SCRATCH_MIN)
      }
      this.compact()
      return { bytes, lens: lens.subarray(0, count), count, tooBig: 0 }
    },
    /** Asks for a wake() from a task of its own (Go yields to the page until then). */
    kick,
    /** Drops the taken frames' slots from the queue. */
    compact() {
      if (head === frames.length) {
        frames.length = 0
        head = 0
      } else if (head > 4096) {
        frames.splice(0, head)
        head = 0
      }
    },
    /** Go sent resources/read with this id: its answer's large blobs may stay here. */
    expect(id) {
      keep.expect(id)
    },
    /** Frames waiting for take(). */
    waiting: () => frames.length - head,
    send(data) {
      ws.send(data)
    },
    readyState: () => ws.readyState,
    /** Go takes over a socket opened early: wake is called from now on. */
    adopt(w) {
      wake = w
      kick()
      return this
    },
    /** Go released wake: never call it again. */
    stop() {
      wake = null
      channel.port1.close()
    },
    close(code, reason) {
      if (code === undefined) ws.close()
      else ws.close(code, reason)
    },
  }
}
